//! A [`Compiled`] prompt (its template parsed once, owned, shareable), and
//! what building one gives: [`Built`], or [`Arranged`] without the provider
//! stage.

use std::sync::Arc;

use minijinja_brackets::{Outcome, Template};
use prompt_core::chat::Message;

use crate::error::Error;
use crate::prompt::Prompt;
use crate::provider::{Notice, Request};

/// A prompt whose template is parsed: build as many requests as needed.
///
/// It owns everything (`Clone + Send + Sync + 'static`; a clone shares the
/// prompt and the parsed template, minijinja-brackets' owned [`Template`]),
/// so it can be kept in a cache or a server and used from any thread.
#[derive(Debug, Clone)]
pub struct Compiled {
    prompt: Arc<Prompt>,
    /// `None` when the template stage is off.
    template: Option<Template>,
}

impl Compiled {
    /// Parses `prompt`'s template when the template stage is on.
    pub(crate) fn new(prompt: Prompt) -> Result<Compiled, Error> {
        let template = if prompt.pipeline.config.stages.template {
            let environment = &prompt.pipeline.config.environment;
            Some(environment.compile(prompt.text()).map_err(|err| prompt.template_error(err))?)
        } else {
            None
        };
        Ok(Compiled { prompt: Arc::new(prompt), template })
    }

    /// The prompt this was compiled from.
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }

    /// The parsed template, when the template stage is on.
    pub(crate) fn template(&self) -> Option<&Template> {
        self.template.as_ref()
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
}
