//! What `build` and `batch` share: the prompt file as a pipeline source,
//! its notices as warnings, and the diagnostic of a pipeline error; and
//! the chat template they (`--chat-template`) and `chat-template` read.

use std::path::Path;

use prompt_suite::chat_template::{self, ChatTemplate};
use prompt_suite::pipeline::{
    self as prompt_pipeline, Attachments, Notice, Pipeline, ResponseSchema, RowNotice, RunFiles,
    Source, Summary, Tool, ToolChoice, Transcript,
};
use prompt_suite::segment::Bundle;

use prompt_core::text::LineIndex;

use crate::args::{
    ChatTemplateFileArgs, FramingArgs, PipelineArgs, ProviderArgs, TemplateArgs, ToolArgs,
    TranscriptArgs,
};
use crate::diagnostic::Diagnostic;
use crate::input::{Input, ZIP_MAGIC};

/// The pipeline of the flags, with the files `--tools` and
/// `--response-schema` name read (the flags win over the prompt's
/// directives); those files and the command's own (`run`: its context,
/// rows, transcript, `-o` file, ...) are never served as templates.
pub(crate) fn pipeline(
    pipeline: &PipelineArgs,
    template: &TemplateArgs,
    provider: &ProviderArgs,
    framing: &FramingArgs,
    args: &ToolArgs,
    chat: &ChatTemplateFileArgs,
    run: RunFiles,
) -> Result<Pipeline, Diagnostic> {
    let files = [
        ("the tools", &args.tools),
        ("the response schema", &args.response_schema),
        ("the chat template", &chat.file),
    ];
    // A file the run reads as data (the rows, the context, ...) never
    // becomes its structure: tools, a schema or a chat template.
    for (what, path) in &files {
        let Some(path) = path.as_deref().filter(|p| p.as_os_str() != "-") else { continue };
        if let Some(data) = run.which(path) {
            return Err(Diagnostic::new(
                "same_file",
                format!(
                    "{} is {what} and {data}: a file the run reads as data is never its tools, schema or template",
                    path.display()
                ),
            ));
        }
    }
    let run = files.into_iter().fold(run, |run, (what, path)| match path {
        Some(path) => run.with(what, path),
        None => run,
    });
    let mut builder = crate::args::builder(pipeline, template, provider, framing).run_files(run);
    let placed = |err: prompt_pipeline::Error, file: &Input| diagnostic(&err, file, None);
    if let Some(path) = &args.tools {
        let file = Input::read(Some(path))?;
        let tools = Tool::parse_list(file.text()?).map_err(|err| placed(err, &file))?;
        builder = builder.tools(tools);
    }
    if let Some(choice) = &args.tool_choice {
        builder = builder.tool_choice(ToolChoice::parse(choice));
    }
    if let Some(path) = &args.response_schema {
        let file = Input::read(Some(path))?;
        let schema = ResponseSchema::parse(file.text()?).map_err(|err| placed(err, &file))?;
        builder = builder.response_schema(schema);
    }
    if let Some(path) = &chat.file {
        let (_, template) = chat_template(path, &chat.options.options(None))?;
        builder = builder.chat_template(template);
    }
    Ok(builder.build())
}

/// The chat template of `path` (`-`: standard input), with its file: a
/// `.json` file is `chat_template.json` or `tokenizer_config.json`, any
/// other the template's text (where a compile error is placed).
pub(crate) fn chat_template(
    path: &Path,
    options: &chat_template::Options,
) -> Result<(Input, ChatTemplate), Diagnostic> {
    let input = Input::read(Some(path))?;
    let text = input.text()?;
    let template = if is_config(&input) {
        ChatTemplate::from_config(text, options)
    } else {
        ChatTemplate::from_jinja(text, options)
    };
    let template = template.map_err(|err| chat_template_diagnostic(&err, &input))?;
    Ok((input, template))
}

/// Whether a chat template's file is a config (`.json`).
fn is_config(input: &Input) -> bool {
    let extension = input.path().and_then(Path::extension);
    extension.is_some_and(|extension| extension.eq_ignore_ascii_case("json"))
}

/// A chat template's error, placed in its file: a `.jinja` file holds the
/// template's text, so positions point into it; a config's template is a
/// JSON string, where they have no place (its JSON errors do).
pub(crate) fn chat_template_diagnostic(err: &chat_template::Error, input: &Input) -> Diagnostic {
    match err {
        chat_template::Error::Json(json) => input.reject_json(json),
        chat_template::Error::Template(_) if !is_config(input) => input.report(err),
        _ => Diagnostic::of(err, None).with_origin(input.origin()),
    }
}

/// A pipeline error of `build`: an error of the chat template
/// (`--chat-template`) is drawn in that file (at its line, read again on
/// this failure path, unless it was standard input), any other as
/// [`diagnostic`] draws it.
pub(crate) fn rejected(
    err: &prompt_pipeline::Error,
    input: &Input,
    transcript: Option<&Input>,
    chat_template: Option<&Path>,
) -> Diagnostic {
    match (err.kind(), chat_template) {
        (prompt_pipeline::ErrorKind::ChatTemplate(inner), Some(path)) => {
            match Some(path).filter(|path| *path != Path::new("-")).map(|p| Input::read(Some(p))) {
                Some(Ok(file)) => chat_template_diagnostic(inner, &file),
                _ => Diagnostic::of(err, None).with_origin(path.display().to_string()),
            }
        }
        _ => diagnostic(err, input, transcript),
    }
}

/// The prompt of `input` (a bundle or text), with `--embeds-dir`; the paths
/// of its `/// tools:` and `/// response_schema:` resolve beside the prompt
/// file (in a bundle, to its entries).
pub(crate) fn source(
    args: &PipelineArgs,
    pipeline: &Pipeline,
    input: &Input,
) -> Result<Source, Diagnostic> {
    let limits = pipeline.attachment_limits();
    let source = match input.path() {
        Some(path) => Source::from_bytes(&path.to_string_lossy(), input.bytes(), limits),
        // On standard input, a bundle's narrative is its one `.lmml` entry.
        None if input.bytes().starts_with(ZIP_MAGIC) => {
            Bundle::from_unnamed_zip(input.bytes(), limits)
                .map(Source::from_bundle)
                .map_err(prompt_pipeline::Error::from)
        }
        None => Source::from_bytes("stdin", input.bytes(), limits),
    };
    let mut source = source.map_err(|err| diagnostic(&err, input, None))?;
    if let Some(path) = input.path() {
        let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty());
        source = source
            .in_directory(dir.unwrap_or(Path::new(".")), pipeline.attachment_limits())
            .map_err(|err| diagnostic(&err, input, None))?;
    }
    match &args.embeds_dir {
        Some(dir) => {
            let attachments =
                Attachments::directory(dir, *pipeline.attachment_limits()).map_err(|err| {
                    let err = prompt_pipeline::Error::from(err);
                    diagnostic(&err, input, None).with_origin(dir.display().to_string())
                })?;
            Ok(source.with_attachments(attachments))
        }
        None => Ok(source),
    }
}

/// The transcript of `--transcript FILE --speaker ID`, flipped as the view
/// flags say, with its file (its errors are drawn there).
pub(crate) fn transcript(args: &TranscriptArgs) -> Result<Option<(Input, Transcript)>, Diagnostic> {
    let (Some(path), Some(speaker)) = (&args.transcript, &args.speaker) else { return Ok(None) };
    let file = Input::read(Some(path))?;
    let transcript = Transcript::from_json(file.text()?, speaker.as_str())
        .map_err(|err| diagnostic(&err, &file, None))?
        .options(args.view.options());
    Ok(Some((file, transcript)))
}

/// Prints `notices` as warnings, in order; one with a place in the prompt
/// (a repeated `/// param:` key, a bare `[[name]]` tag that printed nothing)
/// is drawn on `prompt_text`. The places are found in line and column order
/// in one walk over the text, so many notices on one long line stay linear.
pub(crate) fn warn_notices(notices: &[Notice], input: &Input, prompt_text: &str) {
    let notices: Vec<_> = notices.iter().map(|notice| (None, notice)).collect();
    warn_placed(&notices, input, prompt_text);
}

/// Prints a batch's row notices as `warning[<kind>]: row N: message`, as
/// [`warn_notices`] does, then how many past the cap were not kept.
pub(crate) fn warn_row_notices(summary: &Summary, input: &Input, prompt_text: &str) {
    let notices: Vec<_> =
        summary.notices.iter().map(|RowNotice { row, notice }| (Some(*row), notice)).collect();
    warn_placed(&notices, input, prompt_text);
    if summary.more_notices > 0 {
        crate::diagnostic::warn(Diagnostic::new(
            "more_notices",
            format!(
                "the rows gave {} more notices past the first {} distinct ones, not shown (repeats among them counted each time)",
                summary.more_notices,
                summary.notices.len()
            ),
        ));
    }
}

/// [`warn_notices`], each notice with the row it came from, if any.
fn warn_placed(notices: &[(Option<usize>, &Notice)], input: &Input, prompt_text: &str) {
    let place = |notice: &Notice| match notice {
        Notice::DuplicateParam { line, column, .. } => Some((*line, *column)),
        Notice::UndefinedVariable { line, column, .. } | Notice::EmptyTurn { line, column, .. } => {
            line.zip(*column)
        }
        _ => None,
    };
    let mut order: Vec<((usize, usize), usize)> =
        notices.iter().enumerate().filter_map(|(i, (_, n))| Some((place(n)?, i))).collect();
    order.sort_unstable();
    let index = LineIndex::new(prompt_text);
    // Each placed notice's line text and the byte of its column in it.
    let mut drawn: Vec<Option<(&str, usize)>> = vec![None; notices.len()];
    let mut walk: Option<(usize, &str, std::str::CharIndices<'_>, usize)> = None;
    for ((line, column), i) in order {
        let (_, text, chars, at_column) = match &mut walk {
            Some(w) if w.0 == line => w,
            _ => {
                let text = index.line_text(prompt_text, line);
                walk.insert((line, text, text.char_indices(), 1))
            }
        };
        // Advance to the column (1-based characters); past the end, the end.
        let mut byte = text.len();
        while *at_column < column {
            match chars.next() {
                Some(_) => *at_column += 1,
                None => break,
            }
        }
        if let Some((at, _)) = chars.clone().next() {
            byte = at;
        }
        drawn[i] = Some((*text, byte));
    }
    for (&(row, notice), drawn) in notices.iter().zip(drawn) {
        let message = match row {
            Some(row) => format!("row {row}: {}", notice.message()),
            None => notice.message(),
        };
        let mut warning = Diagnostic::new(notice.as_str(), message);
        if let (Some((line, column)), Some((text, byte))) = (place(notice), drawn) {
            warning = warning
                .at(line, column)
                .with_line_at(text, byte)
                .with_origin(input.origin().to_owned());
        }
        crate::diagnostic::warn(warning);
    }
}

/// The diagnostic for a pipeline error, drawn on the text it points into
/// (which the error keeps): the prompt file `input` (for a bundle, its
/// narrative entry), the `transcript` file, the narrative the template
/// rendered (named after `input`), or a template loaded by name.
pub(crate) fn diagnostic(
    err: &prompt_pipeline::Error,
    input: &Input,
    transcript: Option<&Input>,
) -> Diagnostic {
    use prompt_pipeline::Origin;
    let origin = match prompt_pipeline::Diagnostic::origin(err) {
        Origin::Transcript => transcript.unwrap_or(input).origin().to_owned(),
        Origin::Rendered => format!("{} (as rendered by the template)", input.origin()),
        // An included template: its name is relative to the prompt's
        // directory (a bundle's: to its entries).
        Origin::Named(name) => match input.path().and_then(Path::parent) {
            Some(dir) if !input.origin().ends_with(".lmmlz") => {
                dir.join(name).display().to_string()
            }
            _ => name,
        },
        _ => input.origin().to_owned(),
    };
    Diagnostic::of(err, err.text()).with_origin(origin)
}
