//! The [`Pipeline`]: an authored prompt file to a provider request.
//!
//! [`Pipeline::prepare`] runs stage 1 once per prompt (comments, metadata,
//! parameters) and gives a [`Prompt`]; [`Prompt::compile`] parses the
//! template once and gives a [`Compiled`] prompt; [`Compiled::build`] runs
//! stages 2 to 5 for one context and seed. A batch prepares and compiles
//! once and builds once per row.

use std::collections::BTreeMap;
use std::ops::Range;

use minijinja_brackets::{Context, Environment, Outcome, Template};
use narrative_segment::{
    Attachments, Bundle, ContextAs, Dialect, Limits, Narrative, RenderOptions, render_turns,
};
use serde::{Deserialize, Serialize};
use transcript_flip::{FlipOptions, Turn};

use crate::alternation::{Alternation, alternate};
use crate::convert::narrative::from_narrative;
use crate::convert::transcript::from_transcript;
use crate::error::{Error, ErrorKind, Location, Origin};
use crate::message::{ContentPart, Message, Role};
use crate::params::Params;
use crate::provider::{Built, Notice, Provider};
use crate::source_map::{SourceMap, locate, offset_of};

/// Which of the text stages run. All are on by default; the provider stage
/// is switched off with [`Pipeline::provider`]`(None)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct Stages {
    /// Stage 1: strip `///` comments and read their metadata. Off, the text
    /// goes on as written and there are no parameters.
    pub comments: bool,
    /// Stage 2: render the bracket template. Off, `[[ ]]` and `[% %]` are
    /// text.
    pub template: bool,
    /// Stage 3: split the narrative into role turns and resolve embeds. Off,
    /// the whole text is one message in the role [`Pipeline::context_as`]
    /// gives the preamble.
    pub segment: bool,
}

impl Default for Stages {
    fn default() -> Stages {
        Stages { comments: true, template: true, segment: true }
    }
}

/// The pipeline's configuration; cheap to share between threads.
#[derive(Debug, Clone)]
pub struct Pipeline {
    provider: Option<Provider>,
    stages: Stages,
    context_as: ContextAs,
    alternation: Alternation,
    dialect: Dialect,
    limits: Limits,
    environment: Environment,
    /// `name=value` pairs set over the prompt's own parameters.
    params: Vec<(String, String)>,
}

impl Pipeline {
    /// A pipeline with every stage on, building for `provider`: the
    /// preamble becomes the system message, same-role turns are arranged as
    /// the provider requires ([`Alternation::Auto`]), the narrative is read
    /// in the Standard dialect and the template with a default
    /// [`Environment`].
    pub fn new(provider: Provider) -> Pipeline {
        Pipeline {
            provider: Some(provider),
            stages: Stages::default(),
            context_as: ContextAs::System,
            alternation: Alternation::Auto,
            dialect: Dialect::Standard,
            limits: Limits::default(),
            environment: Environment::new(),
            params: Vec::new(),
        }
    }

    /// Sets the provider; `None` switches the provider stage off, so that
    /// [`Output::request`] is `None` and [`Output::messages`] is the result.
    pub fn provider(mut self, provider: Option<Provider>) -> Pipeline {
        self.provider = provider;
        self
    }

    /// Switches stages 1 to 3 on or off.
    pub fn stages(mut self, stages: Stages) -> Pipeline {
        self.stages = stages;
        self
    }

    /// Where the narrative's preamble (the text before the first role
    /// delimiter) goes: [`ContextAs::System`] (the default), `User`, or
    /// `Drop`. `Keep` makes a preamble an error, since no provider has a
    /// `context` role.
    pub fn context_as(mut self, context_as: ContextAs) -> Pipeline {
        self.context_as = context_as;
        self
    }

    /// Whether same-role turns are merged and the conversation made to
    /// start with the user before the provider stage.
    pub fn alternation(mut self, alternation: Alternation) -> Pipeline {
        self.alternation = alternation;
        self
    }

    /// The narrative dialect (Standard by default).
    pub fn dialect(mut self, dialect: Dialect) -> Pipeline {
        self.dialect = dialect;
        self
    }

    /// The size limits for bundles and embeds directories.
    pub fn limits(mut self, limits: Limits) -> Pipeline {
        self.limits = limits;
        self
    }

    /// The template environment (with the host's own filters and functions,
    /// limits, strictness).
    pub fn environment(mut self, environment: Environment) -> Pipeline {
        self.environment = environment;
        self
    }

    /// Request parameters set by the host, applied after the prompt's
    /// `/// param:` lines, so they win (`("model", "claude-sonnet-4-5")` to
    /// build a prompt written for another provider's model). They apply even
    /// when the comments stage is off.
    pub fn params<I, N, V>(mut self, pairs: I) -> Pipeline
    where
        I: IntoIterator<Item = (N, V)>,
        N: Into<String>,
        V: Into<String>,
    {
        self.params = pairs.into_iter().map(|(n, v)| (n.into(), v.into())).collect();
        self
    }

    /// The provider requests are built for, when the stage is on.
    pub fn get_provider(&self) -> Option<Provider> {
        self.provider
    }

    /// The bundle limits, for reading a [`Source`].
    pub fn get_limits(&self) -> &Limits {
        &self.limits
    }

    /// Runs stage 1 on `source`: strips comments, collects metadata and
    /// parses the parameters.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidParam`], at the `/// param:` line that set it
    /// (without a position for a value set with [`Pipeline::params`]).
    pub fn prepare(&self, source: Source) -> Result<Prompt<'_>, Error> {
        let Source { text, attachments } = source;
        let mut notices = Vec::new();
        let (cleaned, metadata, map) = if self.stages.comments {
            let processed = prompt_comments::process(&text);
            notices.extend(processed.warnings.iter().map(|warning| Notice::DuplicateParam {
                param: warning.key().to_owned(),
                line: warning.line(),
                column: warning.column(),
                message: warning.message().to_owned(),
            }));
            let cleaned = processed.cleaned.into_owned();
            let map = SourceMap::new(&text, &cleaned);
            let metadata = Metadata {
                flow: processed.flow,
                node: processed.node,
                tags: processed.tags,
                entries: processed.metadata,
                params: processed.params,
            };
            (Some(cleaned), metadata, map)
        } else {
            (None, Metadata::default(), SourceMap::default())
        };
        let pairs = metadata.params.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let mut params = Params::parse(pairs).map_err(|err| {
            let location = match err.kind() {
                ErrorKind::InvalidParam { name, .. } => param_location(&text, name),
                _ => None,
            };
            err.located(location)
        })?;
        // The host's own values have no place in the prompt to point at.
        params.apply(self.params.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
        Ok(Prompt {
            pipeline: self,
            source: text,
            cleaned,
            map,
            metadata,
            params,
            attachments,
            notices,
        })
    }

    /// Prepares, compiles and builds in one call.
    ///
    /// # Errors
    ///
    /// Any stage's error; see [`Error`].
    pub fn build(&self, source: Source, context: &Context, seed: u64) -> Result<Output, Error> {
        self.prepare(source)?.compile()?.build(context, seed)
    }
}

/// The text of a prompt and the attachments its references resolve from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    text: String,
    attachments: Attachments,
}

impl Source {
    /// A prompt without attachments.
    pub fn new(text: impl Into<String>) -> Source {
        Source { text: text.into(), attachments: Attachments::none() }
    }

    /// A prompt file's bytes: a `.lmmlz` bundle (a zip archive holding the
    /// narrative and its attachments) when they start like one, else bare
    /// UTF-8 text. `file_name` names the narrative entry of a bundle.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Narrative`] for an unreadable archive, one over `limits`,
    /// or text that is not UTF-8.
    pub fn from_bytes(file_name: &str, bytes: &[u8], limits: &Limits) -> Result<Source, Error> {
        let bundle = Bundle::from_bytes(file_name, bytes, limits)
            .map_err(|err| Error::new(ErrorKind::Narrative(err)))?;
        let (text, attachments) = bundle.into_parts();
        Ok(Source { text, attachments })
    }

    /// The same prompt with `attachments` (for example
    /// [`Attachments::directory`]) instead of its own.
    pub fn with_attachments(mut self, attachments: Attachments) -> Source {
        self.attachments = attachments;
        self
    }

    /// The prompt text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// What the `///` comments said, besides the parameters' typed values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// The last `/// flow:` value; empty when there is none.
    pub flow: String,
    /// The last `/// node:` value; empty when there is none.
    pub node: String,
    /// Every tag in order, then `flow:<flow>` and `node:<node>`.
    pub tags: Vec<String>,
    /// Every `/// key: value` entry (keys lowercased).
    pub entries: BTreeMap<String, String>,
    /// The `/// param:` assignments as written.
    pub params: BTreeMap<String, String>,
}

/// A prompt after stage 1: comment-free text, metadata and parameters.
#[derive(Debug, Clone)]
pub struct Prompt<'p> {
    pipeline: &'p Pipeline,
    source: String,
    /// `None` when the comments stage is off (the text is `source`).
    cleaned: Option<String>,
    map: SourceMap,
    metadata: Metadata,
    params: Params,
    attachments: Attachments,
    /// What stage 1 noticed (a `/// param:` key set twice).
    notices: Vec<Notice>,
}

impl<'p> Prompt<'p> {
    /// The text stage 2 reads: the prompt without its comments.
    pub fn text(&self) -> &str {
        self.cleaned.as_deref().unwrap_or(&self.source)
    }

    /// The metadata the comments carried.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The typed parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// What stage 1 noticed about the prompt (a `/// param:` key set again
    /// to another value); every [`Output::notices`] starts with these.
    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    /// Parses the template once (when the template stage is on).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Template`] for a syntax error, an unknown filter or
    /// test, at its line in the prompt file.
    pub fn compile(&self) -> Result<Compiled<'_>, Error> {
        let template = if self.pipeline.stages.template {
            let template = self
                .pipeline
                .environment
                .compile(self.text())
                .map_err(|err| self.template_error(err))?;
            Some(template)
        } else {
            None
        };
        Ok(Compiled { prompt: self, template })
    }

    /// The location in the prompt file of byte `offset` of [`Prompt::text`].
    fn prompt_location(&self, offset: usize) -> Location {
        let offset = match &self.cleaned {
            Some(cleaned) => self.map.to_source(&self.source, cleaned, offset),
            None => offset,
        };
        locate(Origin::Prompt, &self.source, offset)
    }

    fn template_error(&self, err: minijinja_brackets::Error) -> Error {
        let location = err.span().map(|span| self.prompt_location(span.start));
        Error::new(ErrorKind::Template(err)).located(location)
    }
}

/// A prompt whose template is parsed: build as many requests as needed.
/// `Sync`, so threads can share one.
#[derive(Debug)]
pub struct Compiled<'a> {
    prompt: &'a Prompt<'a>,
    template: Option<Template>,
}

/// A multi-speaker transcript that enters instead of (or after) the
/// narrative: flipped for one speaker, then handed to the provider stage.
#[derive(Debug, Clone)]
pub struct Transcript {
    turns: Vec<Turn>,
    speaker: String,
    options: FlipOptions,
}

impl Transcript {
    /// `turns` seen by `speaker`, with the default [`FlipOptions`].
    pub fn new(turns: Vec<Turn>, speaker: impl Into<String>) -> Transcript {
        Transcript { turns, speaker: speaker.into(), options: FlipOptions::new() }
    }

    /// A JSON transcript (`[{"speaker": ..., "text": ...}, ...]`) seen by
    /// `speaker`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Transcript`] at the line and column of the JSON.
    pub fn from_json(json: &str, speaker: impl Into<String>) -> Result<Transcript, Error> {
        let turns = transcript_flip::turns_from_json(json).map_err(|err| {
            // Positions in JSON do not count a byte order mark.
            let text = prompt_core::json::strip_bom(json);
            let location = match (err.line(), err.column()) {
                (Some(line), Some(column)) => {
                    Some(locate(Origin::Transcript, text, offset_of(text, line, column)))
                }
                _ => None,
            };
            Error::new(ErrorKind::Transcript(err)).located(location)
        })?;
        Ok(Transcript::new(turns, speaker))
    }

    /// The same transcript flipped with `options`.
    pub fn options(mut self, options: FlipOptions) -> Transcript {
        self.options = options;
        self
    }
}

/// One built request and everything the stages produced on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The provider's request body and its notices; `None` when the
    /// provider stage is off.
    pub request: Option<Built>,
    /// The conversation handed to the provider stage.
    pub messages: Vec<Message>,
    /// The template's result: output text, writes and effects; `None` when
    /// the template stage is off. [`Outcome::apply_to`] carries the writes
    /// into the caller's context (the stores are not copied per request).
    pub rendered: Option<Outcome>,
    /// Everything that was given but is not in the body, so nothing is left
    /// out without a word: the prompt's notices ([`Prompt::notices`]), then
    /// the provider's ([`Built::notices`]).
    pub notices: Vec<Notice>,
}

impl Compiled<'_> {
    /// Runs stages 2 to 5 with `context` and `seed`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Template`] (at its line in the prompt file),
    /// [`ErrorKind::Narrative`] (in the prompt, or in the rendered narrative
    /// when the template ran), a conversion error, or a provider error.
    pub fn build(&self, context: &Context, seed: u64) -> Result<Output, Error> {
        self.run(context, seed, None)
    }

    /// As [`Compiled::build`], with `transcript` flipped and appended after
    /// the prompt's own messages (which usually are just its system text).
    ///
    /// # Errors
    ///
    /// As [`Compiled::build`], and [`ErrorKind::Transcript`] when flipping
    /// fails.
    pub fn build_with_transcript(
        &self,
        context: &Context,
        seed: u64,
        transcript: &Transcript,
    ) -> Result<Output, Error> {
        self.run(context, seed, Some(transcript))
    }

    fn run(
        &self,
        context: &Context,
        seed: u64,
        transcript: Option<&Transcript>,
    ) -> Result<Output, Error> {
        let prompt = self.prompt;
        let pipeline = prompt.pipeline;
        let rendered = match &self.template {
            Some(template) => Some(
                template.render_outcome(context, seed).map_err(|err| prompt.template_error(err))?,
            ),
            None => None,
        };
        let text = rendered.as_ref().map_or(prompt.text(), |r| r.output.as_str());
        let mut messages = if pipeline.stages.segment {
            self.segment(text, rendered.as_ref().map(|r| r.data_ranges.as_slice()))?
        } else {
            whole_text(text, pipeline.context_as)?
        };
        if let Some(transcript) = transcript {
            let flipped =
                transcript_flip::flip(&transcript.turns, &transcript.speaker, &transcript.options)
                    .map_err(|err| Error::new(ErrorKind::Transcript(err)))?;
            messages.extend(from_transcript(flipped)?);
        }
        if pipeline.alternation.applies(pipeline.provider) {
            messages = alternate(messages)?;
        }
        let request = match pipeline.provider {
            Some(provider) => Some(provider.build(&messages, &prompt.params)?),
            None => None,
        };
        let mut notices = prompt.notices.clone();
        notices.extend(request.iter().flat_map(|built| built.notices.iter().cloned()));
        Ok(Output { request, messages, rendered, notices })
    }

    /// Stage 3: turns, embeds, and the preamble mapped. `data_ranges` are
    /// the bytes of a rendered `text` that came from values (`None` when the
    /// template did not run): they are data, so no delimiter, embed or
    /// reference is ever recognised in them.
    fn segment(
        &self,
        text: &str,
        data_ranges: Option<&[Range<usize>]>,
    ) -> Result<Vec<Message>, Error> {
        let prompt = self.prompt;
        let pipeline = prompt.pipeline;
        let location = |offset: usize| {
            if data_ranges.is_some() {
                locate(Origin::Rendered, text, offset)
            } else {
                prompt.prompt_location(offset)
            }
        };
        let narrative = match data_ranges {
            Some(data_ranges) => Narrative::parse_with_data(text, pipeline.dialect, data_ranges),
            None => Narrative::parse(text, pipeline.dialect),
        };
        let resolved = narrative.resolve(&prompt.attachments).map_err(|err| {
            let at = err.offset().map(location);
            Error::new(ErrorKind::Narrative(err)).located(at)
        })?;
        let turns = resolved.segment();
        let options = RenderOptions { max_embed_bytes: None, context_as: pipeline.context_as };
        // Messages are rendered from turns one for one (a dropped preamble
        // aside), so a conversion error's index names its turn, whose
        // delimiter is where the author can fix it.
        let kept: Vec<_> = turns
            .iter()
            .filter(|turn| {
                turn.role != narrative_segment::Role::Context
                    || pipeline.context_as != ContextAs::Drop
            })
            .collect();
        from_narrative(render_turns(&resolved, &turns, &options)).map(tidy).map_err(|err| {
            let index = match err.kind() {
                ErrorKind::UnsupportedRole { message, .. }
                | ErrorKind::UnconvertiblePart { message, .. } => Some(*message),
                _ => None,
            };
            let at = index
                .and_then(|i| kept.get(i))
                .map(|turn| location(turn.delimiter.unwrap_or(turn.span).start));
            err.located(at)
        })
    }
}

/// The whole text as one message, in the role the preamble is given.
fn whole_text(text: &str, context_as: ContextAs) -> Result<Vec<Message>, Error> {
    let role = match context_as {
        ContextAs::System => Role::System,
        ContextAs::User => Role::User,
        ContextAs::Drop => return Ok(Vec::new()),
        _ => {
            return Err(Error::new(ErrorKind::UnsupportedRole {
                from: "narrative",
                message: 0,
                role: "context".to_owned(),
            }));
        }
    };
    Ok(tidy(vec![Message::text(role, text)]))
}

/// Trims the blank lines around each text part (a narrative keeps them, as
/// they separate turns in the file) and the whitespace at its end, and
/// leaves out text parts and then messages that hold nothing but whitespace.
/// The indentation of the first line is kept (it may be an indented code
/// block).
fn tidy(messages: Vec<Message>) -> Vec<Message> {
    messages
        .into_iter()
        .filter_map(|mut message| {
            message.content.retain_mut(|part| match part {
                ContentPart::Text { text } => {
                    let trimmed = without_blank_lines_around(text);
                    if trimmed.len() != text.len() {
                        *text = trimmed.to_owned();
                    }
                    !text.is_empty()
                }
                _ => true,
            });
            (!message.content.is_empty()).then_some(message)
        })
        .collect()
}

/// `text` without its leading blank lines and its trailing whitespace.
fn without_blank_lines_around(text: &str) -> &str {
    let text = text.trim_end();
    let blank = text.len() - text.trim_start().len();
    match text[..blank].rfind('\n') {
        Some(newline) => &text[newline + 1..],
        None => text,
    }
}

/// Where `/// param: ... name=...` sets `name`: the last such line.
fn param_location(source: &str, name: &str) -> Option<Location> {
    let mut found = None;
    let mut start = 0;
    for line in source.split_inclusive('\n') {
        if let Some(marker) = line.find("///")
            && line[marker..].to_ascii_lowercase().contains("param:")
            && let Some(at) = find_assignment(&line[marker..], name)
        {
            found = Some(start + marker + at);
        }
        start += line.len();
    }
    found.map(|offset| locate(Origin::Prompt, source, offset))
}

/// The offset of `name` followed by optional blanks and `=` in `comment`.
fn find_assignment(comment: &str, name: &str) -> Option<usize> {
    comment.match_indices(name).map(|(i, _)| i).find(|&i| {
        comment[i + name.len()..].trim_start().starts_with('=')
            && (i == 0 || !comment.as_bytes()[i - 1].is_ascii_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_trims_and_leaves_out_blank_turns() {
        let messages =
            vec![Message::text(Role::System, "\n  \n"), Message::text(Role::User, "\nhi\n\n")];
        assert_eq!(tidy(messages), [Message::text(Role::User, "hi")]);
        let code = vec![Message::text(Role::User, "\n\n    let x = 1;\n  \n")];
        assert_eq!(tidy(code), [Message::text(Role::User, "    let x = 1;")]);
        assert_eq!(without_blank_lines_around(" \r\n\t a \n b \r\n"), "\t a \n b");
    }

    #[test]
    fn param_errors_point_at_their_line() {
        let source = "/// param: max_tokens=5\nHi\n/// param: top_p=1, temperature = warm\n";
        let err = Pipeline::new(Provider::OpenAi).prepare(Source::new(source)).unwrap_err();
        assert_eq!((err.line(), err.column()), (Some(3), Some(21)));
        assert_eq!(err.snippet(), Some("temperature = warm"));
        assert_eq!(err.origin(), Some(Origin::Prompt));
    }

    #[test]
    fn host_params_win_over_the_prompts() {
        let source = "/// param: model=gpt-4o, temperature=0.9\nHi\n";
        let pipeline = Pipeline::new(Provider::Anthropic)
            .params([("model", "claude-sonnet-4-5"), ("max_tokens", "50")]);
        let prompt = pipeline.prepare(Source::new(source)).unwrap();
        let params = prompt.params();
        assert_eq!(params.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!((params.temperature, params.max_tokens), (Some(0.9), Some(50)));
        // Also with the comments stage off, where the prompt sets none.
        let off = Stages { comments: false, ..Stages::default() };
        let without_comments = pipeline.clone().stages(off);
        let prompt = without_comments.prepare(Source::new(source)).unwrap();
        assert_eq!(prompt.params().max_tokens, Some(50));
        // A bad host value is refused without a place in the prompt.
        let bad = Pipeline::new(Provider::OpenAi).params([("temperature", "warm")]);
        let err = bad.prepare(Source::new(source)).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::InvalidParam { .. }), "{err}");
        assert_eq!(err.line(), None);
    }

    fn build(pipeline: Pipeline, text: &str) -> Result<Output, Error> {
        let context: Context = serde_json::from_str(r#"{"state": {"x": "X"}}"#).unwrap();
        pipeline.build(Source::new(text), &context, 3)
    }

    const PROMPT: &str = "/// param: max_tokens=9\nPre [[ x ]]\n## user\nHi\n";

    #[test]
    fn each_stage_can_be_switched_off() {
        let messages_only = Pipeline::new(Provider::OpenAi).provider(None);
        let all = build(messages_only.clone(), PROMPT).unwrap();
        assert_eq!(all.request, None);
        assert_eq!(
            all.messages,
            [Message::text(Role::System, "Pre X"), Message::text(Role::User, "Hi")]
        );
        let off = |comments, template, segment| {
            let stages = Stages { comments, template, segment };
            build(messages_only.clone().stages(stages), PROMPT).unwrap().messages
        };
        assert_eq!(
            off(false, true, true)[0],
            Message::text(Role::System, "/// param: max_tokens=9\nPre X")
        );
        assert_eq!(off(true, false, true)[0], Message::text(Role::System, "Pre [[ x ]]"));
        assert_eq!(off(true, true, false), [Message::text(Role::System, "Pre X\n## user\nHi")]);
        assert_eq!(
            build(messages_only.stages(Stages::default()), PROMPT).unwrap().messages.len(),
            2
        );
    }

    #[test]
    fn the_preamble_goes_where_it_is_told() {
        let with = |context_as| {
            build(Pipeline::new(Provider::OpenAi).provider(None).context_as(context_as), PROMPT)
        };
        assert_eq!(with(ContextAs::User).unwrap().messages[0], Message::text(Role::User, "Pre X"));
        assert_eq!(with(ContextAs::Drop).unwrap().messages, [Message::text(Role::User, "Hi")]);
        let err = with(ContextAs::Keep).unwrap_err();
        assert_eq!(err.kind().as_str(), "unsupported_role");
        assert_eq!(
            (err.origin(), err.line(), err.column()),
            (Some(Origin::Rendered), Some(1), Some(1))
        );
    }

    #[test]
    fn positions_without_the_template_stage_are_in_the_prompt() {
        let pipeline =
            Pipeline::new(Provider::OpenAi).stages(Stages { template: false, ..Stages::default() });
        let err =
            build(pipeline, "/// a comment\n/// another\nSee @x.png\n## user\nHi\n").unwrap_err();
        assert_eq!(err.kind().as_str(), "unresolvable_reference");
        assert_eq!(
            (err.origin(), err.line(), err.column()),
            (Some(Origin::Prompt), Some(3), Some(5))
        );
        assert_eq!(err.snippet(), Some("@x.png"));
    }

    #[test]
    fn a_transcript_alone_enters_at_the_provider_stage() {
        let pipeline = Pipeline::new(Provider::Gemini);
        let prompt = pipeline.prepare(Source::new("")).unwrap();
        let transcript = Transcript::from_json(
            r#"[{"speaker": "a", "text": "hi"}, {"speaker": "b", "text": "yo"}]"#,
            "b",
        )
        .unwrap();
        let output = prompt
            .compile()
            .unwrap()
            .build_with_transcript(&Context::default(), 0, &transcript)
            .unwrap();
        assert_eq!(
            output.messages,
            [
                Message::text(Role::User, "a: hi"),
                Message::text(Role::Assistant, "yo"),
                Message::text(Role::User, "(continue)")
            ]
        );
        let err = Transcript::from_json("[\n  {\"text\": 1}\n]", "b").unwrap_err();
        assert_eq!((err.origin(), err.line()), (Some(Origin::Transcript), Some(2)));
    }

    #[test]
    fn compiled_prompts_are_shared_between_threads() {
        fn sync<T: Sync>() {}
        sync::<Compiled<'_>>();
        sync::<Pipeline>();
    }
}
