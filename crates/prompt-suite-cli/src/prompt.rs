//! What `build` and `batch` share: the prompt file as a pipeline source,
//! its notices as warnings, and the diagnostic of a pipeline error.

use std::borrow::Cow;
use std::path::Path;

use prompt_suite::pipeline::{
    self as prompt_pipeline, Attachments, Notice, Pipeline, ResponseSchema, Source, Tool,
    ToolChoice,
};

use prompt_core::text::LineIndex;

use crate::args::PipelineArgs;
use crate::diagnostic::{Diagnostic, Reportable};
use crate::input::Input;

/// The pipeline of the flags, with the files `--tools` and
/// `--response-schema` name read (the flags win over the prompt's
/// directives).
pub(crate) fn pipeline(args: &PipelineArgs) -> Result<Pipeline, Diagnostic> {
    let mut builder = args.builder();
    let placed = |err: prompt_pipeline::Error, file: &Input| diagnostic(&err, file, None, None);
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
    Ok(builder.build())
}

/// The prompt of `input` (a bundle or text), with `--embeds-dir`; the paths
/// of its `/// tools:` and `/// response_schema:` resolve beside the prompt
/// file (in a bundle, to its entries).
pub(crate) fn source(
    args: &PipelineArgs,
    pipeline: &Pipeline,
    input: &Input,
) -> Result<Source, Diagnostic> {
    let name = input.path().and_then(Path::to_str).unwrap_or("stdin");
    let mut source = Source::from_bytes(name, input.bytes(), pipeline.attachment_limits())
        .map_err(|err| diagnostic(&err, input, None, None))?;
    if let Some(path) = input.path() {
        let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty());
        source = source
            .in_directory(dir.unwrap_or(Path::new(".")), pipeline.attachment_limits())
            .map_err(|err| diagnostic(&err, input, None, None))?;
    }
    match &args.embeds_dir {
        Some(dir) => {
            let attachments =
                Attachments::directory(dir, *pipeline.attachment_limits()).map_err(|err| {
                    let err = prompt_pipeline::Error::from(err);
                    diagnostic(&err, input, None, None).with_origin(dir.display().to_string())
                })?;
            Ok(source.with_attachments(attachments))
        }
        None => Ok(source),
    }
}

/// Prints `notices` as warnings, in order; one with a place in the prompt
/// (a repeated `/// param:` key, a bare `[[name]]` tag that printed nothing)
/// is drawn on `prompt_text`. The places are found in line and column order
/// in one walk over the text, so many notices on one long line stay linear.
pub(crate) fn warn_notices(notices: &[Notice], input: &Input, prompt_text: &str) {
    let place = |notice: &Notice| match notice {
        Notice::DuplicateParam { line, column, .. } => Some((*line, *column)),
        Notice::UndefinedVariable { line, column, .. } => line.zip(*column),
        _ => None,
    };
    let mut order: Vec<((usize, usize), usize)> =
        notices.iter().enumerate().filter_map(|(i, n)| Some((place(n)?, i))).collect();
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
    for (notice, drawn) in notices.iter().zip(drawn) {
        let mut warning = Diagnostic::new(notice.as_str(), notice.message());
        if let (Some((line, column)), Some((text, byte))) = (place(notice), drawn) {
            warning = warning
                .at(line, column)
                .with_line_at(text, byte)
                .with_origin(input.origin().to_owned());
        }
        crate::diagnostic::warn(warning);
    }
}

/// The diagnostic for a pipeline error: drawn on the prompt (`prompt_text`,
/// which for a bundle is its narrative entry), on the transcript file, or
/// with its snippet alone for a position in the rendered narrative.
pub(crate) fn diagnostic(
    err: &prompt_pipeline::Error,
    input: &Input,
    prompt_text: Option<&str>,
    transcript: Option<&Input>,
) -> Diagnostic {
    use prompt_pipeline::Origin;
    let base = Diagnostic::new(err.kind_name(), Reportable::message(err));
    let Some((line, column)) = Reportable::position(err) else {
        return base.with_origin(input.origin().to_owned());
    };
    let located = base.at(line, column).with_snippet(err.snippet().unwrap_or_default());
    match err.origin() {
        Some(Origin::Transcript) => {
            let file = transcript.unwrap_or(input);
            // Its columns do not count a byte order mark.
            let text = file.text().ok().map(prompt_core::json::strip_bom);
            with_source(located, text, file.origin())
        }
        Some(Origin::Rendered) => {
            located.with_origin(format!("{} (as rendered by the template)", input.origin()))
        }
        _ => with_source(located, prompt_text.or(input.text().ok()), input.origin()),
    }
}

fn with_source(diagnostic: Diagnostic, text: Option<&str>, origin: &str) -> Diagnostic {
    let diagnostic = diagnostic.with_origin(origin.to_owned());
    match text {
        Some(text) => diagnostic.with_source(text),
        None => diagnostic,
    }
}

impl Reportable for prompt_pipeline::Error {
    fn kind_name(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.kind().as_str())
    }

    fn message(&self) -> String {
        prompt_pipeline::Error::message(self)
    }

    fn position(&self) -> Option<(usize, usize)> {
        self.line().zip(self.column())
    }

    fn snippet(&self) -> Option<String> {
        prompt_pipeline::Error::snippet(self).map(str::to_owned)
    }
}
