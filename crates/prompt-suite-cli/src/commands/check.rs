//! `prompt-suite check`: analyses a bracket template without rendering it
//! (`minijinja-brackets`' `Template::analyze`).

use std::fmt::Write as _;
use std::path::PathBuf;

use prompt_suite::brackets::Environment;

use crate::args::InputArg;
use crate::commands::template_context::read_context;
use crate::diagnostic::Diagnostic;
use crate::input::Input;
use crate::output;

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// The stores the template will render with; state variables it provides are not
    /// reported as undefined.
    #[arg(long, value_name = "JSON_FILE")]
    pub(crate) context: Option<PathBuf>,

    /// Print the whole analysis as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Runs `check`: errors fail, warnings do not.
pub(crate) fn execute(args: CheckArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let source = input.text()?;
    let context = read_context(args.context.as_deref())?;
    let env = Environment::new();
    let template = env.compile(source).map_err(|err| input.reject(&err))?;
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
