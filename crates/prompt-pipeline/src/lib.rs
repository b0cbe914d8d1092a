/*!
From an authored prompt file to the exact request body OpenAI, Anthropic,
Gemini or a local model's completions server accepts.

An author writes one file: `///` comments and metadata, bracket-template
logic, role-delimited narrative turns with embeds. The [`Pipeline`] runs the
suite's crates over it in order and hands the conversation to a provider
adapter:

1. **comments** (`prompt-comments`, Standard dialect): strip `///`
   comments, collect [`Metadata`] and parse `/// param:` lines into
   [`Params`];
2. **template** (`minijinja-brackets`): render `[[ ]]`/`[% %]` with a
   context and a seed; its writes and effects come back in
   [`Built::rendered`];
3. **segment** (`narrative-segment`): split the result into role turns and
   resolve embeds from a `.lmmlz` bundle or a directory ([`Source`]);
4. **arrange**: map the preamble (`context`, default: system), and for a
   provider that requires alternation (Anthropic, Gemini) merge same-role
   turns, once, with transcript-flip's `ensure_alternating` ([`Alternation`]
   says whether OpenAI and the provider-off result are arranged too);
5. **provider**: build the body with [`Provider::build`].

Stages 1 to 3 can each be switched off ([`Stages`]); the provider stage is
left out by calling [`Compiled::arrange`] instead of [`Compiled::build`]. A multi-speaker [`Transcript`] can enter
instead of a narrative: it is flipped for one speaker and appended to the
prompt's messages.

# Overview

* [`Pipeline`] holds the configuration ([`Pipeline::builder`] sets it);
  [`Pipeline::prepare`] runs stage 1 and gives a [`Prompt`];
  [`Prompt::compile`] parses the template once and gives a [`Compiled`]
  prompt, which owns what it holds (`Clone + Send + Sync + 'static`: keep it
  in a cache, use it from any thread); [`Compiled::build`] runs the rest for
  one context and seed and returns what was [`Built`] (`built.body` is the
  request), and [`Compiled::arrange`] stops before the provider stage and
  returns the [`Arranged`] messages; [`Batch`] builds one request
  per JSONL row of contexts on several threads, in input order, holding at
  most [`Batch::CHUNK_BYTES`] of rows at once, and reads each row strictly
  (`prompt_core::json`: duplicate keys and integers beyond 64 bits are
  `invalid_json` records); [`Batch::format`] writes a provider's batch file
  instead of bare bodies ([`Format`]: OpenAI JSONL, Anthropic's one
  streamed document, Gemini JSONL), each request with an id checked against
  the API's rules ([`Batch::id_field`]), error records apart.
* Templates the prompt includes, imports or extends resolve in its files
  (the directory [`Source::in_directory`] names, or its bundle's entries),
  never outside them, through [`Templates`]: each stripped of its `///`
  comments, its directives ignored with [`Notice::IgnoredDirective`], its
  errors placed in its own file (the template's `Origin::Named`, the file
  as [`Error::text`]).
  A source without files uses the environment's own templates.
  A bare `[[name]]` tag that printed an undefined name (a wiki link, a TOML
  `[[bin]]`) is a [`Notice::UndefinedVariable`] in the result, placed in the
  prompt file. A batch reports each distinct notice of its rows once, with
  the first row that gave it ([`Summary::notices`], [`RowNotice`]), at
  most [`Batch::MAX_NOTICES`] of them.
* [`Message`] holds a [`Role`] and [`Part`]s (text, image, file with raw,
  shared bytes): prompt-core's `prompt_core::chat` vocabulary, re-exported.
  narrative-segment renders it, transcript-flip flips and merges it, and the
  provider adapters read it; nothing converts between stages, and bytes are
  base64-encoded once, by the adapter.
* [`Params::parse`] types the parameters: `temperature=0.7` becomes the
  number 0.7. [`Params::tools`], [`Params::tool_choice`] and
  [`Params::response_schema`] hold the request-level declarations
  ([`Tool`], [`ToolChoice`], [`ResponseSchema`]; `/// tools:`,
  `/// tool_choice:`, `/// response_schema:` in a prompt, or
  [`PipelineBuilder::tools`] and its siblings); tool calls and results are
  [`Part::ToolCall`] and [`Part::ToolResult`] parts, written in a narrative
  as tool blocks (narrative-segment's `tool_parts`).
* [`ChatBody`] converts: [`ChatBody::parse`] reads an OpenAI Chat
  Completions request body strictly into messages and parameters, and
  [`ChatBody::convert`] builds it for any provider (`prompt-suite
  convert`); what the vocabulary cannot hold is an
  [`ErrorKind::InvalidRequest`], what the target cannot carry a
  [`Notice`] or the adapter's error.
* [`Provider::build`] returns the conversation [`Encoded`] for it: the body
  ([`Request`], which serializes to exactly the provider's JSON) and
  [`Notice`]s for parameters the body does not carry. [`provider::openai`], [`provider::anthropic`] and
  [`provider::gemini`] hold the typed bodies.
* [`Provider::Completions`] is the OpenAI-compatible `/v1/completions` of
  local model servers: the conversation rendered through the model's chat
  template ([`ChatTemplate`], set with [`PipelineBuilder::chat_template`])
  into one `prompt`, the messages handed to it as transformers' templates
  expect them ([`provider::completions`]); a special token of the model
  coming out of a message is `special_token_in_data`.

# Example

```
use prompt_pipeline::{Pipeline, Provider, Source};

let prompt = "\
/// param: model=claude-sonnet-4-5, max_tokens=300, temperature=0.2
You are [[ bot ]], a terse assistant. /// the name is set per tenant

## user
Hi!
";
let context = serde_json::from_str(r#"{"state": {"bot": "Penny"}}"#)?;
let built = Pipeline::new(Provider::Anthropic).build(Source::new(prompt), &context, 7)?;
let body = serde_json::to_string(&built.body)?;
assert_eq!(
    body,
    r#"{"model":"claude-sonnet-4-5","max_tokens":300,"system":"You are Penny, a terse assistant.","messages":[{"role":"user","content":[{"type":"text","text":"Hi!"}]}],"temperature":0.2}"#
);
# Ok::<(), Box<dyn std::error::Error>>(())
```

Building the provider body alone, from messages you have:

```
use prompt_pipeline::{Message, Params, Part, Provider, Role};

let messages = [
    Message::text(Role::System, "You are terse."),
    Message {
        role: Role::User,
        content: vec![
            Part::text("What is in this picture?"),
            Part::image("image/png", vec![137, 80, 78, 71]),
        ],
        name: None,
    },
];
let params = Params::parse([
    ("model", "claude-sonnet-4-5"),
    ("temperature", "0.2"),
    ("max_tokens", "300"),
])?;

let encoded = Provider::Anthropic.build(&messages, &params)?;
assert_eq!(
    serde_json::to_string(&encoded.body)?,
    r#"{"model":"claude-sonnet-4-5","max_tokens":300,"system":"You are terse.","messages":[{"role":"user","content":[{"type":"text","text":"What is in this picture?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}}]}],"temperature":0.2}"#
);
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Errors

Every refusal is one [`Error`]. Its [`ErrorKind`] wraps each stage's own
error as it is (a template's `syntax_error`, a narrative's `missing_entry`, a
transcript's `missing_columns`) or names the problem itself: a parameter
that does not parse or is out of range, a part or a role a provider cannot
carry, a conversation a provider cannot take (Anthropic and Gemini refuse
one that does not alternate: the pipeline merges before them, callers of
[`Provider::build`] must too). It is a `prompt_core` [`Diagnostic`]: a byte
span in the text named by its [`Origin`] (the prompt file, the rendered
narrative, the transcript), which [`Error::text`] keeps; [`Error::report`]
gives its line, column (characters) and snippet. Positions in the
comment-free text are mapped back to the prompt file, so the line is the one
the author sees. Nothing is dropped
silently: parameters a provider has no field for are [`Notice`]s.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use crate::alternation::Alternation;
pub use crate::batch::{Batch, RowNotice, Summary};
pub use crate::compiled::{Arranged, Built, Compiled, Full};
pub use crate::config::{Pipeline, PipelineBuilder, Stages};
pub use crate::convert::ChatBody;
pub use crate::envelope::{BatchFile, Format, RowLine};
pub use crate::error::{Error, ErrorKind};
pub use crate::params::{Effort, Params};
pub use crate::prompt::{Metadata, Prompt};
pub use crate::provider::{Encoded, Notice, ParseProviderError, Provider, Request};
pub use crate::source::{Source, Transcript};
pub use crate::templates::{RunFiles, Templates};
pub use crate::tools::{ResponseSchema, Tool, ToolChoice};
pub use chat_template::ChatTemplate;
pub use minijinja_brackets::Context;
#[cfg(feature = "entropy")]
pub use minijinja_brackets::random_seed;
pub use narrative_segment::{AttachmentLimits, Attachments, ContextAs, RoleAliases};
pub use prompt_core::chat::{Message, Part, Role};
pub use prompt_core::diagnostic::{Diagnostic, Origin};

pub mod provider;

/// The README's example runs as a doctest too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

mod alternation;
mod arrange;
mod batch;
mod compiled;
mod config;
mod convert;
mod envelope;
mod error;
mod params;
mod pipeline;
mod prompt;
mod source;
mod templates;
mod tools;
