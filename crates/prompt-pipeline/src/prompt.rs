//! Stage 1: a [`Prompt`] is a [`Source`] with its `///` comments stripped,
//! their [`Metadata`] collected and the `/// param:` values typed.

use std::collections::BTreeMap;
use std::sync::Arc;

use minijinja_brackets::UndefinedTag;
use narrative_segment::Attachments;
use prompt_comments::{DirectiveKind, Processed};
use prompt_core::diagnostic::{Diagnostic, Origin};
use prompt_core::text::{LineIndex, Span};
use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::config::Pipeline;
use crate::error::{Error, ErrorKind};
use crate::params::Params;
use crate::provider::Notice;
use crate::source::Source;
use crate::templates::Templates;
use crate::tools::{ResponseSchema, Tool, ToolChoice};

/// What the `///` comments said, besides the parameters' typed values: a
/// view of stage 1's own report (`prompt_comments::Processed`), which the
/// [`Prompt`] keeps, so nothing is copied. Serializes as
/// `{"flow", "node", "tags", "entries", "params"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metadata<'a> {
    /// `None` when the comments stage is off: every field is empty.
    processed: Option<&'a Processed<'static>>,
}

/// The empty map of a prompt whose comments stage is off.
static NO_ENTRIES: BTreeMap<String, String> = BTreeMap::new();

impl<'a> Metadata<'a> {
    /// The last `/// flow:` value; empty when there is none.
    pub fn flow(&self) -> &'a str {
        self.processed.map_or("", |p| p.flow.as_str())
    }

    /// The last `/// node:` value; empty when there is none.
    pub fn node(&self) -> &'a str {
        self.processed.map_or("", |p| p.node.as_str())
    }

    /// Every tag in order, then `flow:<flow>` and `node:<node>`.
    pub fn tags(&self) -> &'a [String] {
        self.processed.map_or(&[], |p| p.tags.as_slice())
    }

    /// Every `/// key: value` entry (keys lowercased).
    pub fn entries(&self) -> &'a BTreeMap<String, String> {
        self.processed.map_or(&NO_ENTRIES, |p| &p.metadata)
    }

    /// The `/// param:` assignments as written.
    pub fn params(&self) -> &'a BTreeMap<String, String> {
        self.processed.map_or(&NO_ENTRIES, |p| &p.params)
    }
}

impl Serialize for Metadata<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Metadata", 5)?;
        out.serialize_field("flow", self.flow())?;
        out.serialize_field("node", self.node())?;
        out.serialize_field("tags", self.tags())?;
        out.serialize_field("entries", self.entries())?;
        out.serialize_field("params", self.params())?;
        out.end()
    }
}

/// A prompt after stage 1: comment-free text, metadata and parameters. It
/// owns everything it holds, so it can be kept and compiled later. A clone
/// shares what stage 1 made (one `Arc`): cloning copies nothing, and
/// neither does [`Prompt::compile`], which keeps a clone.
#[derive(Clone)]
pub struct Prompt {
    stage: Arc<Stage1>,
}

/// What stage 1 made of a source, shared by every clone of its [`Prompt`].
struct Stage1 {
    pipeline: Pipeline,
    /// Shared with the errors that point into it.
    source: Arc<str>,
    /// Stage 1's report (the comment-free text, the metadata, what was
    /// deleted); `None` when the comments stage is off (the text is
    /// `source`).
    processed: Option<Processed<'static>>,
    params: Params,
    attachments: Attachments,
    /// The files its directive paths and its templates' names resolve in
    /// (its directory, or its bundle's entries).
    files: Attachments,
    /// What stage 1 noticed (a `/// param:` key set twice).
    notices: Vec<Notice>,
}

impl Prompt {
    /// Stage 1 of `pipeline` over `source`.
    pub(crate) fn new(pipeline: &Pipeline, source: Source) -> Result<Prompt, Error> {
        let Source { text, attachments, files } = source;
        let text: Arc<str> = Arc::from(text);
        let mut notices = Vec::new();
        let processed = pipeline.config.stages.comments.then(|| {
            let processed = prompt_comments::process(&text).into_owned();
            // One index for every warning, so many repeats stay linear;
            // none at all without a warning (the usual prompt).
            if !processed.warnings.is_empty() {
                let index = LineIndex::new(&text);
                notices.extend(processed.warnings.iter().map(|warning| {
                    let at = index.position(&text, warning.span().start);
                    Notice::DuplicateParam {
                        param: warning.key().to_owned(),
                        line: at.line,
                        column: at.column,
                        message: warning.message().to_owned(),
                    }
                }));
            }
            processed
        });
        let metadata = Metadata { processed: processed.as_ref() };
        let pairs = metadata.params().iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let mut params = Params::parse(pairs).map_err(|err| {
            let location = match err.kind() {
                // The last assignment of a key is the one whose value counts.
                ErrorKind::InvalidParam { name, .. } => processed
                    .iter()
                    .flat_map(|p| p.directives.iter().rev())
                    .find(|d| d.kind == DirectiveKind::Param && d.key == name.as_str())
                    .map(|d| (Origin::Input, &text, d.span.start)),
                _ => None,
            };
            err.at_some(location)
        })?;
        // The host's own values have no place in the prompt to point at.
        let host = pipeline.config.params.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        params.apply(host)?;
        let config = &pipeline.config;
        let directive = |key: &str| {
            processed
                .iter()
                .flat_map(|p| p.directives.iter().rev())
                .find(|d| d.kind == DirectiveKind::Metadata && d.key == key)
        };
        // Each declaration: the host's, else the prompt's directive, placed
        // at that directive when it fails.
        let placed = |key: &str, err: Error| {
            err.at_some(directive(key).map(|d| (Origin::Input, &text, d.span.start)))
        };
        let read = |key: &str| -> Result<Option<String>, Error> {
            let Some(d) = directive(key) else { return Ok(None) };
            if files.is_none() {
                let directive = if key == "tools" { "tools" } else { "response_schema" };
                let file = d.value.trim().to_owned();
                return Err(placed(key, Error::new(ErrorKind::NoDirectory { directive, file })));
            }
            let bytes = files.fetch(d.value.trim()).map_err(|err| placed(key, Error::from(err)))?;
            std::str::from_utf8(bytes.as_bytes()).map(|text| Some(text.to_owned())).map_err(|_| {
                let reason = format!("`{}` is not UTF-8 text", d.value.trim());
                let kind = match key {
                    "tools" => ErrorKind::InvalidTool { tool: String::new(), reason },
                    _ => ErrorKind::InvalidSchema { reason },
                };
                placed(key, Error::new(kind))
            })
        };
        params.tools = match &config.tools {
            Some(tools) => tools.clone(),
            None => match read("tools")? {
                Some(json) => Tool::parse_list(&json).map_err(|err| placed("tools", err))?,
                None => Vec::new(),
            },
        };
        params.tool_choice = config
            .tool_choice
            .clone()
            .or_else(|| directive("tool_choice").map(|d| ToolChoice::parse(&d.value)));
        params.response_schema = match &config.response_schema {
            Some(schema) => Some(schema.clone()),
            None => read("response_schema")?
                .map(|json| {
                    ResponseSchema::parse(&json).map_err(|err| placed("response_schema", err))
                })
                .transpose()?,
        };
        let stage = Stage1 {
            pipeline: pipeline.clone(),
            source: text,
            processed,
            params,
            attachments,
            files,
            notices,
        };
        Ok(Prompt { stage: Arc::new(stage) })
    }

    /// The pipeline it was prepared by.
    pub(crate) fn pipeline(&self) -> &Pipeline {
        &self.stage.pipeline
    }

    /// The files its embeds resolve in.
    pub(crate) fn attachments(&self) -> &Attachments {
        &self.stage.attachments
    }

    /// The files its directive paths and its templates' names resolve in.
    pub(crate) fn files(&self) -> &Attachments {
        &self.stage.files
    }

    /// The text stage 2 reads: the prompt without its comments.
    pub fn text(&self) -> &str {
        self.stage.processed.as_ref().map_or(&self.stage.source, |p| &p.cleaned)
    }

    /// The metadata the comments carried.
    pub fn metadata(&self) -> Metadata<'_> {
        Metadata { processed: self.stage.processed.as_ref() }
    }

    /// The typed parameters.
    pub fn params(&self) -> &Params {
        &self.stage.params
    }

    /// What stage 1 noticed about the prompt (a `/// param:` key set again
    /// to another value); every result's notices start with these.
    pub fn notices(&self) -> &[Notice] {
        &self.stage.notices
    }

    /// `err` placed in the prompt file at byte `offset` of [`Prompt::text`],
    /// through what stage 1 deleted.
    pub(crate) fn place(&self, err: Error, offset: usize) -> Error {
        err.at(Origin::Input, &self.stage.source, self.to_input(offset))
    }

    /// The notices of the bare `[[name]]` tags the render reported, placed
    /// in the prompt file through what stage 1 deleted. The tags come in
    /// render order; they are placed in offset order, each counted on from
    /// the one before (one line index), so many tags on one long line stay
    /// linear.
    pub(crate) fn undefined_notices(&self, tags: &[UndefinedTag]) -> Vec<Notice> {
        if tags.is_empty() {
            return Vec::new();
        }
        let to_input = |tag: &UndefinedTag| self.to_input(tag.span().start);
        let mut order: Vec<(usize, usize)> = tags
            .iter()
            .enumerate()
            .filter(|(_, tag)| Diagnostic::origin(*tag) == Origin::Input)
            .map(|(i, tag)| (to_input(tag), i))
            .collect();
        order.sort_unstable();
        let index = LineIndex::new(&self.stage.source);
        let mut placed = vec![None; tags.len()];
        let mut known = None;
        for (offset, i) in order {
            let at = match known {
                Some(known) => index.position_after(&self.stage.source, offset, known),
                None => index.position(&self.stage.source, offset),
            };
            known = Some((offset, at));
            placed[i] = Some(at);
        }
        tags.iter()
            .zip(placed)
            .map(|(tag, at)| {
                let message = match Diagnostic::origin(tag) {
                    Origin::Input => tag.to_string(),
                    template => format!("{tag} (in the template `{template}`)"),
                };
                Notice::UndefinedVariable {
                    name: tag.name().to_owned(),
                    line: at.map(|at| at.line),
                    column: at.map(|at| at.column),
                    message,
                }
            })
            .collect()
    }

    /// A template error, placed in the prompt file, or in the file of the
    /// included template it is in (as written, through what stripping its
    /// comments deleted); one in a template the environment loaded keeps
    /// its origin and its span there. The chain of statements that loaded
    /// that template is placed the same way, level by level.
    pub(crate) fn template_error(
        &self,
        err: minijinja_brackets::Error,
        templates: Option<&Templates>,
    ) -> Error {
        let span = err.span();
        let origin = prompt_core::diagnostic::Diagnostic::origin(&err);
        let help = self.load_chain_help(err.load_chain(), templates);
        let wrapped = Error::new(ErrorKind::Template(err)).with_help(help);
        match (span, origin) {
            (Some(span), origin @ (Origin::Input | Origin::Named(_))) => {
                match self.as_written(&origin, span, templates) {
                    Some((text, span)) => wrapped.spanning(origin, &text, span),
                    None => wrapped.named(origin, span),
                }
            }
            (Some(span), origin) => wrapped.named(origin, span),
            (None, _) => wrapped,
        }
    }

    /// `span` of the text the template engine compiled for `origin` (the
    /// prompt, or a template loaded by name), in that file as written,
    /// with the file's text. The end is the place after the span's last
    /// byte, so a comment stripped right after the span stays outside it.
    fn as_written(
        &self,
        origin: &Origin,
        span: Span,
        templates: Option<&Templates>,
    ) -> Option<(Arc<str>, Span)> {
        let (text, start) = match origin {
            Origin::Input => (Arc::clone(&self.stage.source), self.to_input(span.start)),
            Origin::Named(name) => templates?.place(name, span.start)?,
            _ => return None,
        };
        if span.is_empty() {
            return Some((text, Span::at(start)));
        }
        let last = match origin {
            Origin::Named(name) => templates?.place(name, span.end - 1)?.1,
            _ => self.to_input(span.end - 1),
        };
        Some((text, Span::new(start, (last + 1).max(start))))
    }

    /// The line and column (1-based, in characters) in the prompt file of
    /// byte `offset` of [`Prompt::text`].
    pub(crate) fn input_position(&self, offset: usize) -> (usize, usize) {
        let source = &self.stage.source;
        let at = LineIndex::new(source).position(source, self.to_input(offset));
        (at.line, at.column)
    }

    /// Byte `offset` of [`Prompt::text`] in the prompt file, through what
    /// stage 1 deleted.
    fn to_input(&self, offset: usize) -> usize {
        self.stage.processed.as_ref().map_or(offset, |p| p.deletions.to_input(offset))
    }

    /// The help lines of an error's load chain (`included from main:3:5`)
    /// with each line and column in the file as written; `None` for an
    /// error in the main template.
    fn load_chain_help(
        &self,
        chain: &[minijinja_brackets::LoadSite],
        templates: Option<&Templates>,
    ) -> Option<String> {
        let lines: Vec<String> = chain
            .iter()
            .map(|site| match self.as_written(site.template(), site.span(), templates) {
                Some((text, span)) => site.placed_in(&text, span).to_string(),
                None => site.to_string(),
            })
            .collect();
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

/// As the fields were derived before they were shared: `Prompt { pipeline,
/// source, processed, params, attachments, files, notices }`.
impl std::fmt::Debug for Prompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stage = &*self.stage;
        f.debug_struct("Prompt")
            .field("pipeline", &stage.pipeline)
            .field("source", &stage.source)
            .field("processed", &stage.processed)
            .field("params", &stage.params)
            .field("attachments", &stage.attachments)
            .field("files", &stage.files)
            .field("notices", &stage.notices)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Stages;
    use crate::provider::Provider;

    #[test]
    fn metadata_is_a_view_of_stage_one() {
        let text = "/// flow: a\n/// tags: x, y\n/// owner: Ann\n/// param: top_k=3\nHi\n";
        let prompt = Pipeline::new(Provider::OpenAi).prepare(Source::new(text)).unwrap();
        assert_eq!(
            serde_json::to_string(&prompt.metadata()).unwrap(),
            r#"{"flow":"a","node":"","tags":["x","y","flow:a"],"entries":{"flow":"a","owner":"Ann","tags":"x, y"},"params":{"top_k":"3"}}"#
        );
        let off = Pipeline::builder(Provider::OpenAi)
            .stages(Stages { comments: false, ..Stages::default() })
            .build();
        let prompt = off.prepare(Source::new(text)).unwrap();
        assert_eq!(
            serde_json::to_string(&prompt.metadata()).unwrap(),
            r#"{"flow":"","node":"","tags":[],"entries":{},"params":{}}"#
        );
    }

    #[test]
    fn a_param_line_holds_json_values() {
        let text = "/// param: stop=[\"a\",\"b, c\"], temperature=0.2, logit_bias={\"1\": 2}\nHi\n";
        let prompt = Pipeline::new(Provider::OpenAi).prepare(Source::new(text)).unwrap();
        assert_eq!(prompt.params().stop, ["a", "b, c"]);
        assert_eq!(prompt.params().temperature, Some(0.2));
        assert_eq!(prompt.params().extra, [("logit_bias".to_owned(), "{\"1\": 2}".to_owned())]);
    }

    /// Where `needle` of the comment-free text is in `source`, through the
    /// deletions stage 1 reports (what [`Prompt::place`] does).
    fn map(source: &str, needle: &str) -> (usize, usize) {
        let prompt = Pipeline::new(Provider::OpenAi).prepare(Source::new(source)).unwrap();
        let offset = prompt.text().find(needle).unwrap();
        let err = prompt.place(Error::new(ErrorKind::NoMessages { provider: "x" }), offset);
        let at = err.position().unwrap();
        (at.line, at.column)
    }

    #[test]
    fn full_line_comments_shift_lines_back() {
        let source = "/// flow: x\n/// note: a=1\nHello [[ oops\n";
        assert_eq!(map(source, "[[ oops"), (3, 7));
    }

    #[test]
    fn trailing_comments_and_escapes_keep_columns() {
        let source = "a \\/// b /// gone\n  /// gone too\né [[ x ]]\n";
        assert_eq!(map(source, "b"), (1, 8));
        assert_eq!(map(source, "[[ x"), (3, 3));
    }

    #[test]
    fn comment_markers_in_code_stay() {
        let source = "```\n/// kept\n```\n/// gone\nend\n";
        assert_eq!(map(source, "kept"), (2, 5));
        assert_eq!(map(source, "end"), (5, 1));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Every character of the cleaned text maps to the same character in
        /// the prompt, whatever the mix of comments, code and escapes.
        #[test]
        fn every_kept_character_maps_to_itself(
            lines in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("/// c: v".to_owned()),
                    proptest::strategy::Just("```".to_owned()),
                    proptest::strategy::Just("x \\/// y".to_owned()),
                    "[a-cé /]{0,10}",
                ],
                0..12,
            ),
        ) {
            let source = lines.join("\n");
            let processed = prompt_comments::process(&source);
            for (offset, c) in processed.cleaned.char_indices() {
                let at = processed.deletions.to_input(offset);
                proptest::prop_assert_eq!(source[at..].chars().next(), Some(c));
            }
        }
    }
}
