//! A [`Compiled`] prompt (its template parsed once, owned, shareable), and
//! what building one gives: [`Built`], or [`Arranged`] without the provider
//! stage.

use minijinja_brackets::{Effect, Outcome, StoreWrite, Template};
use prompt_core::chat::Message;
use serde::Serialize;

use crate::error::Error;
use crate::prompt::{Metadata, Prompt};
use crate::provider::{Notice, Request};
use crate::templates::Templates;

/// A prompt whose template is parsed: build as many requests as needed.
///
/// It owns everything (`Clone + Send + Sync + 'static`; a clone shares the
/// prompt and the parsed template, minijinja-brackets' owned [`Template`]),
/// so it can be kept in a cache or a server and used from any thread.
#[derive(Debug, Clone)]
pub struct Compiled {
    prompt: Prompt,
    /// `None` when the template stage is off.
    template: Option<Template>,
    /// The templates it loads from its own files; `None` when it has none
    /// (the environment's own store serves it then).
    templates: Option<Templates>,
}

impl Compiled {
    /// Parses `prompt`'s template when the template stage is on.
    ///
    /// A prompt with files (a directory or a bundle) loads the templates its
    /// `include`, `import` and `extends` name from them, each stripped of
    /// its `///` comments (unless the comments stage is off), into a store
    /// of its own; one without uses the environment's store and loader.
    pub(crate) fn new(prompt: Prompt) -> Result<Compiled, Error> {
        if !prompt.pipeline().config.stages.template {
            return Ok(Compiled { prompt, template: None, templates: None });
        }
        let configured = &prompt.pipeline().config.environment;
        let (environment, templates) = if prompt.files().is_none() {
            (configured.clone(), None)
        } else {
            let mut environment = configured.with_own_store();
            // Included files are read as the prompt is: without their
            // comments unless the comments stage is off.
            let files = prompt.files().clone();
            let templates = if prompt.pipeline().config.stages.comments {
                Templates::stripped(files)
            } else {
                Templates::new(files)
            };
            templates.install(&mut environment);
            (environment, Some(templates))
        };
        let template = environment
            .compile(prompt.text())
            .map_err(|err| prompt.template_error(err, templates.as_ref()))?;
        Ok(Compiled { prompt, template: Some(template), templates })
    }

    /// The prompt this was compiled from.
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }

    /// The parsed template, when the template stage is on.
    pub(crate) fn template(&self) -> Option<&Template> {
        self.template.as_ref()
    }

    /// The templates loaded from the prompt's files, when it has files.
    pub(crate) fn templates(&self) -> Option<&Templates> {
        self.templates.as_ref()
    }

    /// What the templates loaded so far noticed: a `///` directive in an
    /// included file, which is ignored (only the prompt file's count). A
    /// batch says them once, after its rows.
    pub fn include_notices(&self) -> Vec<Notice> {
        self.templates.as_ref().map_or_else(Vec::new, Templates::notices)
    }
}
/// The conversation the stages arranged, before the provider stage
/// ([`Compiled::arrange`](crate::Compiled::arrange)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Arranged {
    /// The conversation, as the provider stage would receive it.
    pub messages: Vec<Message>,
    /// The template's result: output text, writes and effects; `None` when
    /// the template stage is off. [`Outcome::apply_to`] carries the writes
    /// into the caller's context (the stores are not copied per request).
    pub rendered: Option<Outcome>,
    /// What the prompt's stage 1 noticed ([`Prompt::notices`]), then the
    /// later stages: each bare `[[name]]` tag that printed an undefined name
    /// ([`Notice::UndefinedVariable`]), an embed typed by its bytes.
    pub notices: Vec<Notice>,
    /// The seed the template stage drew from (the one passed in), there
    /// even when that stage is off, so that any build can be replayed.
    pub seed: u64,
}

/// One built request and everything the stages produced on the way
/// ([`Compiled::build`](crate::Compiled::build)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Built {
    /// The provider's request body.
    pub body: Request,
    /// The model the request is for: in the body for OpenAI and Anthropic,
    /// in the URL for Gemini (`models/{model}:generateContent`), so it is
    /// kept here for the endpoint and a Gemini batch.
    pub model: Option<String>,
    /// The conversation handed to the provider stage.
    pub messages: Vec<Message>,
    /// The template's result, as in [`Arranged::rendered`].
    pub rendered: Option<Outcome>,
    /// Everything that was given but is not in the body, so nothing is left
    /// out without a word: the prompt's notices ([`Prompt::notices`]), the
    /// later stages' (as in [`Arranged::notices`]), then the provider's.
    pub notices: Vec<Notice>,
    /// The seed, as in [`Arranged::seed`].
    pub seed: u64,
}

/// Everything one build produced, as one JSON object (`build --full`, and
/// each row of `batch --full`):
/// `{"body", "notices", "messages", "metadata", "writes", "effects",
/// "seed"}`, in this order; `body` is `null` without the provider stage
/// ([`Arranged::full`]), `writes` and `effects` empty without the template
/// stage. It borrows what it shows: nothing is copied to encode it.
#[derive(Debug, Clone, Copy, Serialize)]
#[non_exhaustive]
pub struct Full<'a> {
    /// The request body.
    pub body: Option<&'a Request>,
    /// What was given but is not in the body.
    pub notices: &'a [Notice],
    /// The conversation handed to the provider stage.
    pub messages: &'a [Message],
    /// What the prompt's `///` comments said.
    pub metadata: Metadata<'a>,
    /// The template's assignments, in order.
    pub writes: &'a [StoreWrite],
    /// The template's `qr`/`st` requests, in order.
    pub effects: &'a [Effect],
    /// The seed the build drew from, always (replay it with this seed).
    pub seed: u64,
}

impl Built {
    /// Where the request goes: the path of the provider's endpoint
    /// ([`Provider::path`](crate::Provider::path)), Gemini's naming
    /// [`Built::model`]; `None` only for Gemini without a model.
    ///
    /// ```
    /// use prompt_pipeline::{Context, Pipeline, Provider, Source};
    ///
    /// let prompt = "/// param: model=gemini-2.5-flash\n## user\nHi!";
    /// let context = Context::default();
    /// let built = Pipeline::new(Provider::Gemini).build(Source::new(prompt), &context, 0)?;
    /// assert_eq!(built.path().as_deref(), Some("/v1beta/models/gemini-2.5-flash:generateContent"));
    /// # Ok::<(), prompt_pipeline::Error>(())
    /// ```
    pub fn path(&self) -> Option<std::borrow::Cow<'static, str>> {
        self.body.provider().path(self.model.as_deref())
    }

    /// The whole of this build, with the metadata of `prompt` (the one it
    /// was built from).
    pub fn full<'a>(&'a self, prompt: &'a Prompt) -> Full<'a> {
        let rendered = self.rendered.as_ref();
        Full::new(Some(&self.body), &self.notices, &self.messages, prompt, rendered, self.seed)
    }
}

impl Arranged {
    /// The whole of this arrangement (`body` `null`), with the metadata of
    /// `prompt` (the one it was arranged from).
    pub fn full<'a>(&'a self, prompt: &'a Prompt) -> Full<'a> {
        Full::new(None, &self.notices, &self.messages, prompt, self.rendered.as_ref(), self.seed)
    }
}

impl<'a> Full<'a> {
    fn new(
        body: Option<&'a Request>,
        notices: &'a [Notice],
        messages: &'a [Message],
        prompt: &'a Prompt,
        rendered: Option<&'a Outcome>,
        seed: u64,
    ) -> Full<'a> {
        let (writes, effects) = match rendered {
            Some(rendered) => (rendered.writes.as_slice(), rendered.effects.as_slice()),
            None => (&[][..], &[][..]),
        };
        Full { body, notices, messages, metadata: prompt.metadata(), writes, effects, seed }
    }
}
