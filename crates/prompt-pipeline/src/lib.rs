/*!
From an authored prompt file to the exact request body OpenAI, Anthropic or
Gemini accepts.

An author writes one file: `///` comments and metadata, bracket-template
logic, role-delimited narrative turns with embeds. The [`Pipeline`] runs the
suite's crates over it in order and hands the conversation to a provider
adapter:

1. **comments** (`prompt-comments`, Standard dialect): strip `///`
   comments, collect [`Metadata`] and parse `/// param:` lines into
   [`Params`];
2. **template** (`minijinja-brackets`): render `[[ ]]`/`[% %]` with a
   context and a seed; its writes and effects come back in
   [`Output::rendered`];
3. **segment** (`narrative-segment`): split the result into role turns and
   resolve embeds from a `.lmmlz` bundle or a directory ([`Source`]);
4. **arrange**: map the preamble (`context`, default: system), merge
   same-role turns where the provider requires alternation
   ([`Alternation`], with transcript-flip's `ensure_alternating`);
5. **provider**: build the body with [`Provider::build`].

Stages 1 to 3 can each be switched off ([`Stages`]), and so can the provider
stage ([`Pipeline::provider`]). A multi-speaker [`Transcript`] can enter
instead of a narrative: it is flipped for one speaker and appended to the
prompt's messages.

# Overview

* [`Pipeline`] holds the configuration; [`Pipeline::prepare`] runs stage 1
  and gives a [`Prompt`]; [`Prompt::compile`] parses the template once and
  gives a [`Compiled`] prompt; [`Compiled::build`] runs the rest for one
  context and seed and returns an [`Output`]; [`Batch`] builds one request
  per JSONL row of contexts on several threads, in input order, holding at
  most [`Batch::CHUNK_BYTES`] of rows at once, and reads each row strictly
  (`prompt_core::json`: duplicate keys and integers beyond 64 bits are
  `invalid_json` records).
* [`Message`] holds a [`Role`] and [`ContentPart`]s (text, image, file with
  raw bytes): the provider-neutral conversation every stage converts into
  ([`from_narrative`], [`from_transcript`]).
* [`Params::parse`] types the parameters: `temperature=0.7` becomes the
  number 0.7.
* [`Provider::build`] returns a [`Built`]: the body ([`Request`], which
  serializes to exactly the provider's JSON) and [`Notice`]s for parameters
  the body does not carry. [`provider::openai`], [`provider::anthropic`] and
  [`provider::gemini`] hold the typed bodies.

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
let output = Pipeline::new(Provider::Anthropic).build(Source::new(prompt), &context, 7)?;
let body = serde_json::to_string(&output.request.unwrap().body)?;
assert_eq!(
    body,
    r#"{"model":"claude-sonnet-4-5","max_tokens":300,"system":"You are Penny, a terse assistant.","messages":[{"role":"user","content":[{"type":"text","text":"Hi!"}]}],"temperature":0.2}"#
);
# Ok::<(), Box<dyn std::error::Error>>(())
```

Building the provider body alone, from messages you have:

```
use prompt_pipeline::{ContentPart, Message, Params, Provider, Role};

let messages = [
    Message::text(Role::System, "You are terse."),
    Message {
        role: Role::User,
        content: vec![
            ContentPart::text("What is in this picture?"),
            ContentPart::Image { media_type: "image/png".into(), data: vec![137, 80, 78, 71] },
        ],
        name: None,
    },
];
let params = Params::parse([("temperature", "0.2"), ("max_tokens", "300")])?;

let built = Provider::Anthropic.build(&messages, &params)?;
assert_eq!(
    serde_json::to_string(&built.body)?,
    r#"{"max_tokens":300,"system":"You are terse.","messages":[{"role":"user","content":[{"type":"text","text":"What is in this picture?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}}]}],"temperature":0.2}"#
);
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Errors

Every refusal is one [`Error`]. Its [`ErrorKind`] wraps each stage's own
error as it is (a template's `syntax_error`, a narrative's `missing_entry`, a
transcript's `missing_columns`) or names the problem itself: a parameter
that does not parse or is out of range, a part a provider cannot carry, a
part of another crate with no unified form, a conversation a provider cannot
take. [`Error::line`] and [`Error::column`] point into the text named by
[`Error::origin`]: positions in the comment-free text are mapped back to the
prompt file, so the line is the one the author sees. Nothing is dropped
silently: parameters a provider has no field for are [`Notice`]s.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use crate::alternation::Alternation;
pub use crate::batch::{Batch, Summary};
pub use crate::convert::narrative::from_narrative;
pub use crate::convert::transcript::from_transcript;
pub use crate::error::{Error, ErrorKind, Origin};
pub use crate::message::{ContentPart, Message, Role};
pub use crate::params::Params;
pub use crate::pipeline::{
    Compiled, Metadata, Output, Pipeline, Prompt, Source, Stages, Transcript,
};
pub use crate::provider::{Built, Notice, Provider, Request};
pub use minijinja_brackets::Context;
pub use narrative_segment::{AttachmentLimits, Attachments, ContextAs};

pub mod provider;

/// The README's example runs as a doctest too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

mod alternation;
mod batch;
mod convert;
mod error;
mod message;
mod params;
mod pipeline;
mod source_map;
