//! The pipeline's configuration: a [`Pipeline`], made by a
//! [`PipelineBuilder`].

use std::sync::Arc;

use chat_template::ChatTemplate;
use minijinja_brackets::Environment;
use narrative_segment::{AttachmentLimits, ContextAs, Dialect, RoleAliases, SegmentOptions};
use serde::{Deserialize, Serialize};

use crate::alternation::Alternation;
use crate::provider::Provider;
use crate::templates::RunFiles;
use crate::tools::{ResponseSchema, Tool, ToolChoice};

/// Which of the text stages run. All are on by default; the provider stage
/// is left out by calling [`Compiled::arrange`](crate::Compiled::arrange)
/// instead of [`Compiled::build`](crate::Compiled::build).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Stages {
    /// Stage 1: strip `///` comments and read their metadata. Off, the text
    /// goes on as written and there are no parameters.
    pub comments: bool,
    /// Stage 2: render the bracket template. Off, `[[ ]]` and `[% %]` are
    /// text.
    pub template: bool,
    /// Stage 3: split the narrative into role turns and resolve embeds. Off,
    /// the whole text is one message in the role
    /// [`PipelineBuilder::context_as`] gives the preamble.
    pub segment: bool,
}

impl Default for Stages {
    fn default() -> Stages {
        Stages::all()
    }
}

impl Stages {
    /// Every stage on (the default); switch one off with a `with_` method:
    /// `Stages::all().with_template(false)`.
    pub const fn all() -> Stages {
        Stages { comments: true, template: true, segment: true }
    }

    /// Stage 1, [`Stages::comments`], on or off.
    pub const fn with_comments(mut self, on: bool) -> Stages {
        self.comments = on;
        self
    }

    /// Stage 2, [`Stages::template`], on or off.
    pub const fn with_template(mut self, on: bool) -> Stages {
        self.template = on;
        self
    }

    /// Stage 3, [`Stages::segment`], on or off.
    pub const fn with_segment(mut self, on: bool) -> Stages {
        self.segment = on;
        self
    }
}

/// How to turn an authored prompt into a request: the provider, the stages,
/// and each stage's settings. Cheap to clone and to share between threads
/// (the settings are behind one `Arc`); made by [`Pipeline::builder`], or
/// [`Pipeline::new`] for the defaults.
#[derive(Debug, Clone)]
pub struct Pipeline {
    pub(crate) config: Arc<Config>,
}

/// A pipeline's settings (see the [`PipelineBuilder`] methods).
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) provider: Provider,
    pub(crate) stages: Stages,
    pub(crate) context_as: ContextAs,
    pub(crate) alternation: Alternation,
    /// The narrative's dialect and the other names its delimiters may
    /// give the roles: made once here, borrowed by every build.
    pub(crate) segmenting: SegmentOptions,
    pub(crate) attachment_limits: AttachmentLimits,
    pub(crate) environment: Environment,
    /// The run's own files, never served as templates.
    pub(crate) run_files: RunFiles,
    /// `name=value` pairs set over the prompt's own parameters.
    pub(crate) params: Vec<(String, String)>,
    /// Declarations set over the prompt's directives.
    pub(crate) tools: Option<Vec<Tool>>,
    pub(crate) tool_choice: Option<ToolChoice>,
    pub(crate) response_schema: Option<ResponseSchema>,
    /// What [`Provider::Completions`] renders the conversation through.
    pub(crate) chat_template: Option<ChatTemplate>,
    /// The system message put before the conversation, and the user
    /// message put after it (after a transcript too).
    pub(crate) system: Option<String>,
    pub(crate) instruction: Option<String>,
}

/// Sets a [`Pipeline`]'s settings, then [`PipelineBuilder::build`]s it.
#[derive(Debug, Clone)]
pub struct PipelineBuilder {
    config: Config,
}

impl Pipeline {
    /// A pipeline with every stage on, building for `provider`: the
    /// preamble becomes the system message, same-role turns are arranged as
    /// the provider requires ([`Alternation::Auto`]), the narrative is read
    /// in the Standard dialect and the template with a default
    /// [`Environment`]. The same as `Pipeline::builder(provider).build()`.
    pub fn new(provider: Provider) -> Pipeline {
        Pipeline::builder(provider).build()
    }

    /// A builder starting from [`Pipeline::new`]'s settings.
    pub fn builder(provider: Provider) -> PipelineBuilder {
        PipelineBuilder {
            config: Config {
                provider,
                stages: Stages::default(),
                context_as: ContextAs::System,
                alternation: Alternation::Auto,
                segmenting: SegmentOptions::new(Dialect::Standard),
                attachment_limits: AttachmentLimits::default(),
                environment: Environment::new(),
                run_files: RunFiles::new(),
                params: Vec::new(),
                tools: None,
                tool_choice: None,
                response_schema: None,
                chat_template: None,
                system: None,
                instruction: None,
            },
        }
    }

    /// The provider [`Compiled::build`](crate::Compiled::build) builds for.
    pub fn provider(&self) -> Provider {
        self.config.provider
    }

    /// The stages that run.
    pub fn stages(&self) -> Stages {
        self.config.stages
    }

    /// The size limits for bundles and embeds directories, for reading a
    /// [`Source`](crate::Source).
    pub fn attachment_limits(&self) -> &AttachmentLimits {
        &self.config.attachment_limits
    }

    /// The template environment.
    pub fn environment(&self) -> &Environment {
        &self.config.environment
    }

    /// The chat template [`Provider::Completions`] renders through, when
    /// one is set.
    pub fn chat_template(&self) -> Option<&ChatTemplate> {
        self.config.chat_template.as_ref()
    }
}

impl PipelineBuilder {
    /// Sets the provider requests are built for.
    pub fn provider(mut self, provider: Provider) -> PipelineBuilder {
        self.config.provider = provider;
        self
    }

    /// Switches stages 1 to 3 on or off.
    pub fn stages(mut self, stages: Stages) -> PipelineBuilder {
        self.config.stages = stages;
        self
    }

    /// Where the narrative's preamble (the text before the first role
    /// delimiter) goes: [`ContextAs::System`] (the default), `User`, or
    /// `Drop`. `Keep` makes a preamble an error, since no provider has a
    /// `context` role.
    pub fn context_as(mut self, context_as: ContextAs) -> PipelineBuilder {
        self.config.context_as = context_as;
        self
    }

    /// Whether same-role turns are merged and the conversation made to
    /// start with the user before the provider stage.
    pub fn alternation(mut self, alternation: Alternation) -> PipelineBuilder {
        self.config.alternation = alternation;
        self
    }

    /// The narrative dialect (Standard by default).
    pub fn dialect(mut self, dialect: Dialect) -> PipelineBuilder {
        self.config.segmenting.dialect = dialect;
        self
    }

    /// Other names the narrative's delimiters may give the roles
    /// (`#### You:` and `#### ChatGPT:` with `You=user`,
    /// `ChatGPT=assistant`), as `prompt-suite build --role-alias` sets them;
    /// none by default. They apply in the Standard dialect only.
    pub fn role_aliases(mut self, aliases: RoleAliases) -> PipelineBuilder {
        self.config.segmenting.aliases = aliases;
        self
    }

    /// The size limits for bundles and embeds directories.
    pub fn attachment_limits(mut self, limits: AttachmentLimits) -> PipelineBuilder {
        self.config.attachment_limits = limits;
        self
    }

    /// The template environment (with the host's own filters and functions,
    /// limits, strictness).
    pub fn environment(mut self, environment: Environment) -> PipelineBuilder {
        self.config.environment = environment;
        self
    }

    /// The files the run reads or writes besides its templates (rows,
    /// context, tools, ...): a prompt's `include`, `import` and `extends`
    /// never load one of them from its files (`not_a_template`).
    pub fn run_files(mut self, files: RunFiles) -> PipelineBuilder {
        self.config.run_files = files;
        self
    }

    /// Request parameters set by the host, applied after the prompt's
    /// `/// param:` lines, so they win (`("model", "claude-sonnet-4-5")` to
    /// build a prompt written for another provider's model). They apply even
    /// when the comments stage is off.
    pub fn params<I, N, V>(mut self, pairs: I) -> PipelineBuilder
    where
        I: IntoIterator<Item = (N, V)>,
        N: Into<String>,
        V: Into<String>,
    {
        self.config.params = pairs.into_iter().map(|(n, v)| (n.into(), v.into())).collect();
        self
    }

    /// The tools, over the prompt's `/// tools:` (whose file is then not
    /// read).
    pub fn tools(mut self, tools: Vec<Tool>) -> PipelineBuilder {
        self.config.tools = Some(tools);
        self
    }

    /// The tool choice, over the prompt's `/// tool_choice:`.
    pub fn tool_choice(mut self, choice: ToolChoice) -> PipelineBuilder {
        self.config.tool_choice = Some(choice);
        self
    }

    /// The response schema, over the prompt's `/// response_schema:` (whose
    /// file is then not read).
    pub fn response_schema(mut self, schema: ResponseSchema) -> PipelineBuilder {
        self.config.response_schema = Some(schema);
        self
    }

    /// The model's chat template, which [`Provider::Completions`] renders
    /// the built conversation through into its `prompt` (the chat providers
    /// do not use it). Without one, a completions build is
    /// [`ErrorKind::MissingChatTemplate`](crate::ErrorKind::MissingChatTemplate).
    ///
    /// ```
    /// use prompt_pipeline::{ChatTemplate, Context, Pipeline, Provider, Source};
    ///
    /// let template = ChatTemplate::from_jinja(
    ///     "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}<|assistant|>",
    ///     &chat_template::Options::default(),
    /// )?;
    /// let pipeline = Pipeline::builder(Provider::Completions).chat_template(template).build();
    /// let source = Source::new("/// param: model=phi-4-mini\nYou are [[ bot ]].\n## user\nHi!\n");
    /// let context = serde_json::from_str(r#"{"state": {"bot": "Penny"}}"#)?;
    /// let built = pipeline.build(source, &context, 7)?;
    /// assert_eq!(
    ///     serde_json::to_string(&built.body)?,
    ///     r#"{"model":"phi-4-mini","prompt":"<|system|>You are Penny.<|end|><|user|>Hi!<|end|><|assistant|>"}"#
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn chat_template(mut self, template: ChatTemplate) -> PipelineBuilder {
        self.config.chat_template = Some(template);
        self
    }

    /// A system message before every conversation this pipeline builds
    /// (before the prompt's own messages); omitted when empty. As
    /// transcript-flip's `with_system`.
    pub fn system(mut self, text: impl Into<String>) -> PipelineBuilder {
        self.config.system = Some(text.into()).filter(|text| !text.is_empty());
        self
    }

    /// A user message after every conversation this pipeline builds (after
    /// the prompt's messages and a transcript): the cue the model answers;
    /// omitted when empty. As transcript-flip's `with_instruction`.
    pub fn instruction(mut self, text: impl Into<String>) -> PipelineBuilder {
        self.config.instruction = Some(text.into()).filter(|text| !text.is_empty());
        self
    }

    /// The pipeline with these settings.
    pub fn build(self) -> Pipeline {
        Pipeline { config: Arc::new(self.config) }
    }
}
