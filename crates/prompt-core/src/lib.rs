/*!
The vocabulary the prompt-suite crates share.

The suite's stage crates (`prompt-comments`, `transcript-flip`,
`narrative-segment`, `minijinja-brackets`) never depend on one another; every
one of them may depend on this crate, which holds only what they must agree
on and no stage logic (ripgrep's `grep-matcher` is the model).

# Overview

* [`chat`]: the chat vocabulary: [`chat::Role`], [`chat::Message`] and its
  [`chat::Part`]s, whose bytes ([`chat::Data`]) are shared by every clone and
  encoded once, by the provider adapter that sends them.
* [`text`]: byte [`text::Span`]s, the [`text::LineIndex`] that places an
  offset at a line and a column counted in characters (a [`text::Cursor`]
  places many in one forward pass), the one
  [`text::snippet`] rule, and [`text::Deletions`], which maps an offset in
  a stage's output back to its input.
* [`diagnostic`]: the [`diagnostic::Diagnostic`] trait every library error
  and warning implements (kind, message, span, [`diagnostic::Origin`],
  help), and [`diagnostic::Report`], the JSON form with line, column and
  snippet computed once.
* [`annotated`]: the one renderer of diagnostics for people:
  [`annotated::Annotated`] draws an error, a warning or a note with its
  source line and carets under the span, as rustc does; every error type
  of the suite gives one with its `annotated()` method.
* [`tokens`]: the special tokens of the model families, as one table
  ([`tokens::SPECIAL_TOKENS`]) and the shapes whose every token is one
  ([`tokens::DELIMITED_SHAPES`]): what the transcript sanitizer defangs and
  what a bare chat template's special tokens are.
* [`json`]: JSON input read strictly and the same way everywhere: a leading
  byte order mark is ignored, a key repeated in one object is an error
  instead of silently taking the last value, and an integer outside the
  64-bit signed range is an error instead of silently becoming a float
  ([`json::Reader::any_integers`] allows any size for pass-through readers
  that keep each number's text). Every error says what and where: a
  [`json::JsonErrorKind`], a byte offset, a line and a column in characters,
  and the offending snippet.

# Example

```
use prompt_core::json::{self, JsonErrorKind};

let messages: Vec<serde_json::Value> = json::from_str("\u{feff}[{\"role\": \"user\"}]")?;
assert_eq!(messages[0]["role"], "user");

let err = json::from_str::<serde_json::Value>("{\"n\": 9223372036854775808}").unwrap_err();
assert_eq!(err.kind(), JsonErrorKind::IntegerOutOfRange);
assert_eq!((err.line(), err.column(), err.snippet()), (1, 7, "9223372036854775808"));
# Ok::<(), prompt_core::json::JsonError>(())
```
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod annotated;
pub mod chat;
pub mod diagnostic;
pub mod json;
pub mod text;
pub mod tokens;

/// The README's example runs as a doctest too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
