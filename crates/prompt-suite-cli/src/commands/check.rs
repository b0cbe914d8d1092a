//! `prompt-suite check`: analyses a bracket template without rendering it
//! (`minijinja-brackets`' `Template::analyze`).

use std::fmt::Write as _;

use prompt_suite::brackets::Environment;

use crate::args::CheckArgs;
use crate::context::read_context;
use crate::diagnostic::Diagnostic;
use crate::input::Input;
use crate::output;

/// Runs `check`: errors fail, warnings do not.
pub(crate) fn execute(args: CheckArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let source = input.text()?;
    let context = read_context(args.context.as_deref())?;
    let env = Environment::new();
    let template = env.compile(source).map_err(|err| input.report(&err))?;
    let analysis = template.analyze_with(&context);
    if args.json {
        return output::write_json(&analysis);
    }
    // One `origin:line:column: warning[kind]: message` line each, the way
    // compilers and editors expect them.
    let mut text = String::new();
    for w in &analysis.warnings {
        let _ = writeln!(
            text,
            "{}:{}:{}: warning[{}]: {}",
            input.origin(),
            w.line,
            w.column,
            w.kind,
            w.message
        );
    }
    output::write_bytes(text.as_bytes())
}
