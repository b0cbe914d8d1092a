/*!
Chat messages and request parameters turned into the exact request bodies
OpenAI, Anthropic and Gemini accept.

This crate is the last stage of the suite's pipeline. It owns the
provider-neutral conversation ([`Message`], [`Role`], [`ContentPart`]), the
typed request parameters authors write as `/// param: name=value`
([`Params`]), and one adapter per provider that builds the documented
request body ([`Provider::build`]).

# Overview

* [`Message`] holds a [`Role`] and a list of [`ContentPart`]s: text, an
  image, or any other file, with raw bytes that each adapter encodes as its
  provider wants (a `data:` URI, a base64 `source`, `inline_data`).
* [`Params::parse`] types the parameters once: `temperature=0.7` becomes the
  number 0.7, `max_tokens=1000` the integer 1000; a value that does not parse
  is an error naming the parameter.
* [`Provider::build`] returns a [`Built`]: the body ([`Request`], which
  serializes to exactly the provider's JSON) and [`Notice`]s for parameters
  the body does not carry. The per-provider modules ([`provider::openai`],
  [`provider::anthropic`], [`provider::gemini`]) hold the typed bodies.

# Example

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

Every refusal is an [`Error`] whose [`ErrorKind`] names the provider, the
message index and the part or parameter: a part the provider cannot carry, a
system message in mid-conversation, a conversation that does not start with
the user (where the provider requires it), a missing required parameter or
one out of the provider's range. Nothing is dropped silently.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use crate::error::{Error, ErrorKind};
pub use crate::message::{ContentPart, Message, Role};
pub use crate::params::Params;
pub use crate::provider::{Built, Notice, Provider, Request};

pub mod provider;

mod error;
mod message;
mod params;
