//! `prompt-suite check`: analyses a bracket template without rendering it
//! (`minijinja-brackets`' `Template::analyze`), and the templates it
//! includes, imports or extends by literal names.

use std::borrow::Cow;
use std::collections::{HashSet, VecDeque};
use std::fmt::Write as _;

use prompt_core::text::escape_controls;
use prompt_suite::brackets::{Analysis, Environment, TemplateRef, Warning, WarningKind};
use prompt_suite::comments::Dialect;

use crate::args::CheckArgs;
use crate::context::{define, read_context, read_source, run_files, templates};
use crate::diagnostic::Diagnostic;
use crate::output;

/// How many levels of includes `check` follows (the renderer's own bound).
const MAX_DEPTH: usize = 32;

/// Runs `check`: errors fail, warnings do not.
pub(crate) fn execute(args: CheckArgs) -> Result<(), Diagnostic> {
    let input = read_source(&args.input)?;
    let text = input.text()?;
    // A prompt file's `///` comments go first, as `build` removes them:
    // blanked (a space per character, line breaks kept), so every line and
    // column stays the file's.
    let source: Cow<'_, str> = match args.no_comments {
        true => Cow::Borrowed(text),
        false => {
            let processed = Dialect::Standard.process(text);
            blanked(text, processed.deletions.spans())
        }
    };
    let source = source.as_ref();
    let mut context = read_context(args.input.context.as_deref())?;
    define(&mut context, &args.input.defines);
    let mut env = Environment::new();
    let run = run_files(&[("the context", args.input.context.as_deref())]);
    let dir =
        templates(args.templates.templates.as_deref(), &input, args.input.from(), &mut env, run)?
            .map(|(_, dir)| dir);
    let template = env.compile(source).map_err(|err| input.report(&err))?;
    // The main template first, then each template followed, once.
    let mut analyses: Vec<(String, Analysis)> =
        vec![(input.origin().to_owned(), template.analyze_with(&context))];
    let mut seen: HashSet<String> = HashSet::new();
    // The main template, when it is a file among the templates, is
    // analysed already.
    let main_name = input.path().zip(dir.as_deref()).and_then(|(path, dir)| {
        let name = path.strip_prefix(dir).ok()?.to_str()?;
        Some(name.replace(std::path::MAIN_SEPARATOR, "/"))
    });
    seen.extend(main_name);
    let mut queue: VecDeque<(usize, usize)> = VecDeque::from([(0, 0)]);
    while let Some((at, depth)) = queue.pop_front() {
        let refs = analyses[at].1.templates.clone();
        for TemplateRef { statement, name, line, column } in refs {
            if !seen.insert(name.clone()) {
                continue;
            }
            let why = if depth + 1 > MAX_DEPTH {
                Some(format!("it is more than {MAX_DEPTH} levels deep"))
            } else {
                match env.template(&name) {
                    Ok(included) => {
                        let origin = dir.clone().unwrap_or_default().join(&name);
                        let analysis = included.analyze_with(&context);
                        analyses.push((origin.display().to_string(), analysis));
                        queue.push_back((analyses.len() - 1, depth + 1));
                        None
                    }
                    Err(err) => Some(err.message().to_owned()),
                }
            };
            if let Some(why) = why {
                let warning = Warning {
                    kind: WarningKind::UnfollowedInclude,
                    message: format!("the `{statement}` of `{name}` cannot be followed: {why}"),
                    line,
                    column,
                    snippet: name.chars().take(40).collect(),
                    span: Default::default(),
                };
                let warnings = &mut analyses[at].1.warnings;
                warnings.push(warning);
                warnings.sort_by_key(|w| (w.line, w.column));
            }
        }
    }
    let warned: usize = analyses.iter().map(|(_, analysis)| analysis.warnings.len()).sum();
    let deny = |warned: usize| match (args.deny_warnings, warned) {
        (true, 1..) => Err(Diagnostic::new(
            "warnings_denied",
            format!("{warned} warning(s), and `--deny-warnings` makes any an error"),
        )),
        _ => Ok(()),
    };
    if args.json {
        // The main analysis, with each followed template's beside it.
        let (_, main) = &analyses[0];
        let mut json = serde_json::to_value(main).map_err(internal)?;
        let included: serde_json::Map<String, serde_json::Value> = analyses[1..]
            .iter()
            .map(|(origin, analysis)| Ok((origin.clone(), serde_json::to_value(analysis)?)))
            .collect::<Result<_, serde_json::Error>>()
            .map_err(internal)?;
        if let Some(object) = json.as_object_mut() {
            object.insert("included".to_owned(), included.into());
        }
        output::write_json(&json)?;
        return deny(warned);
    }
    // One `origin:line:column: warning[kind]: message` line each, the way
    // compilers and editors expect them; a followed template's under its path.
    // A text for people: the controls of names and values are escaped.
    let mut text = String::new();
    for (origin, analysis) in &analyses {
        let origin = escape_controls(origin);
        for w in &analysis.warnings {
            let _ = writeln!(
                text,
                "{origin}:{}:{}: warning[{}]: {}",
                w.line,
                w.column,
                w.kind,
                escape_controls(&w.message)
            );
        }
    }
    // A file in Jinja's syntax with no bracket tag: a note, never a warning.
    if let Some((line, column)) = jinja_syntax(source) {
        let _ = writeln!(
            text,
            "{}:{line}:{column}: note[jinja_syntax]: this file has Jinja's `{{% ... %}}` tags and no \
             bracket tags; this language writes `[% ... %]` and `[[ ... ]]` (filters with `->`)",
            input.origin()
        );
    }
    output::write_bytes(text.as_bytes())?;
    deny(warned)
}

/// `text` with the bytes of `deleted` (in order, not overlapping) blanked:
/// each character a space, line breaks kept.
fn blanked<'t>(text: &'t str, deleted: &[prompt_core::text::Span]) -> Cow<'t, str> {
    if deleted.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in deleted {
        let (Some(kept), Some(gone)) = (text.get(at..span.start), text.get(span.start..span.end))
        else {
            continue;
        };
        out.push_str(kept);
        out.extend(gone.chars().map(|c| if matches!(c, '\n' | '\r') { c } else { ' ' }));
        at = span.end;
    }
    out.push_str(text.get(at..).unwrap_or_default());
    Cow::Owned(out)
}

/// The line and column of the first `{%` of a text that holds a Jinja
/// statement tag (`{% ... %}`) and no bracket tag (`[[`, `[%`): written for
/// Jinja, not for this language. `{{char}}` alone (SillyTavern's macros)
/// is no Jinja statement.
fn jinja_syntax(text: &str) -> Option<(usize, usize)> {
    let open = text.find("{%")?;
    text[open..].find("%}")?;
    if text.contains("[[") || text.contains("[%") {
        return None;
    }
    let before = &text[..open];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
    Some((line, column))
}

fn internal(err: serde_json::Error) -> Diagnostic {
    Diagnostic::new("internal", format!("cannot encode the analysis: {err}"))
}
