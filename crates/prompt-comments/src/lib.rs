/*!
Strip `///` authoring comments from prompts and extract the metadata they carry.

Prompt authors annotate templates with `///` comments that must never reach a
model, and put request metadata in them: `/// param: temperature=0.7`,
`/// flow: checkout`, `/// node: payment`, `/// tag: a, b`, or any
`/// key: value`. This crate removes the comments and collects the metadata,
either exactly as the Go package llmutils does or by the suite's own, safer
rules.

# Overview

* [`process`] removes the comments and reads the directives into a
  [`Processed`] (`cleaned`, `params`, `metadata`, `flow`, `node`, `tags`).
* [`strip`] only removes the comments; [`extract_params`] and
  [`extract_metadata`] only read the directives.
* [`strip_messages_json`] cleans the contents of a chat-completions
  `messages` array given as JSON text, changing nothing else (numbers of any
  size, escapes and layout stay as written); [`strip_messages`] and
  [`strip_messages_in_place`] do the same on [`serde_json::Value`]s.
* [`Processed::warnings`] lists what deserves a look ([`Warning`]: a
  `/// param:` key set again to another value), beside the result.
* The stage reports what it did, so nobody downstream guesses:
  [`Processed::directives`] lists every [`Directive`] with the byte span it
  was written at, and [`Processed::deletions`] (a
  [`prompt_core::text::Deletions`]) maps any offset of the cleaned text back
  to the input; [`Dialect::strip_with_deletions`] reports a strip the same
  way.
* [`Dialect`] picks the rules; every operation is a method on it, and the
  free functions use the default, [`Dialect::Standard`].

The cleaned text is a [`Cow`](std::borrow::Cow): text without `///` comes
back borrowed, never copied, and so does any result that is one piece of the
input (a prompt whose comments all sit in a header, say).

# Example

```
use prompt_comments::Dialect;

let prompt = "\
/// flow: checkout
/// node: payment
/// param: temperature=0.2, max_tokens=300
/// tag: billing
You are a careful payment assistant. /// keep it formal
See the `///` doc syntax at file:///srv/docs/index.html
";
let p = prompt_comments::process(prompt);
assert_eq!(
    p.cleaned,
    "You are a careful payment assistant.\nSee the `///` doc syntax at file:///srv/docs/index.html\n"
);
assert_eq!(p.params["temperature"], "0.2");
assert_eq!((p.flow.as_str(), p.node.as_str()), ("checkout", "payment"));
assert_eq!(p.tags, ["billing", "flow:checkout", "node:payment"]);

// llmutils cuts at every `///` but `http:///`/`https:///`.
let llm = Dialect::Llmutils.process(prompt);
assert_eq!(llm.cleaned, "You are a careful payment assistant.\nSee the `\n");
```

# Syntax

A comment starts at the first `///` of a line that is not text (see below:
in Standard, a `///` glued to the character before it is text)
and runs to the end of the line. A line that holds only whitespace before the
marker is a full-line comment and disappears with its line ending; otherwise
the comment is cut off with the spaces and tabs before it. Every comment is
read for a directive, in this order:

1. `param: k=v, k2=v2` sets request parameters. Pieces are split on every
   comma (a value can never hold one), at the first `=`, and trimmed; pieces
   without `=` or with an empty key are skipped.
2. `key: value`, the key being ASCII letters, digits and `_` right before the
   colon and the value not empty, sets `metadata[key]` (key lowercased).
   `flow` and `node` also set [`Processed::flow`] and [`Processed::node`];
   `tag` and `tags` append their comma-separated items to
   [`Processed::tags`]. Note that prose such as `/// Note: be brief` is a
   `note` entry too.
3. Anything else is a plain comment.

The last value of a key wins (in Standard, a param key set again to another
value is also a [`WarningKind::DuplicateParam`] warning); tags accumulate;
`flow:<flow>` and `node:<node>` are appended to the tags at the end.

# Dialects

[`Dialect::Llmutils`] reproduces llmutils byte for byte, quirks included.
[`Dialect::Standard`] (the default) differs in exactly nine places:

1. **A glued `///` is text.** A comment marker starts its line (after
   optional whitespace) or follows a whitespace character (Unicode
   `White_Space`: a space, a tab, a no-break or ideographic space); a `///`
   glued to the character before it is text. So URLs of any scheme
   (`file:///etc/hosts`, `unix:///run/docker.sock`, `http://a.com///raw`),
   base64 payloads (`eHD//////////3QAA`) and `word///x` keep their slashes.
   llmutils cuts at every `///` but `http:///` and `https:///`.
2. **Markdown code.** `///` inside an inline code span or a fenced code block
   (```` ``` ```` or `~~~`) is text, so a Rust doc comment in a code sample
   survives. llmutils cuts there.
3. **Escape.** `\///` writes a literal `///` (the backslash is removed);
   llmutils has no escape.
4. **CRLF.** `\r\n` is a line ending: a cut line keeps its `\r\n`, so output
   never mixes endings. llmutils splits on `\n` only and loses the `\r` of a
   cut line.
5. **Blank lines.** [`Dialect::strip`] keeps the input's blank lines, as
   [`Dialect::process`] does; llmutils' `StripComments` drops every blank
   line, merging paragraphs.
6. **Content parts.** In messages, content given as an array of parts has each
   `{"type": "text", "text": ...}` part stripped; llmutils leaves array
   content alone, so those comments reach the model.
7. **`param:` case.** `PARAM:` and `Param:` are the param directive, matched
   without regard to case like every other key; in llmutils they are a
   `param` metadata entry.
8. **Byte order mark.** A leading UTF-8 byte order mark is not part of the
   text (editors on Windows write one): `"\u{feff}/// flow: x\nHi"` cleans
   to `"Hi"`. llmutils keeps it, so its first comment is an inline one and
   the mark stays on a line of its own.
9. **Overridden params are warned about.** A `/// param:` key set again to
   another value gives one [`WarningKind::DuplicateParam`] per key, at the
   first override, with its line and column; the last value still wins, as
   in llmutils, which says nothing.

# Errors

Processing text cannot fail. [`Error`] reports an unknown dialect name (from
[`str::parse`]) and a `messages` document that is not JSON or not an array
([`Dialect::strip_messages_json`], [`Dialect::strip_messages_document`]);
[`Error::kind`] tells which, and JSON errors carry their span, line and
column. [`Error`] and [`Warning`] implement
[`prompt_core::diagnostic::Diagnostic`] (kind, message, byte span in the text
given); lines and columns, in characters, come from `prompt_core::text`.
JSON text is read strictly (`prompt_core::json`): a leading byte order mark
is ignored, and a key written twice in one object is an error rather than a
silent "last one wins".

# Input safety

Every input is accepted: there is no recursion, the work is linear in the
input's length (one `memmem` pass for the markers, one pass per line holding
one), and the result is never longer than the input. Warnings are bounded by
the number of distinct param keys (one per key); directives and deletions by
the comments (each a few words, its text borrowed from the input). JSON
nesting is limited to 128 levels.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use crate::dialect::Dialect;
pub use crate::directive::{Directive, DirectiveKind};
pub use crate::error::{Error, ErrorKind};
pub use crate::messages::{strip_messages, strip_messages_in_place, strip_messages_json};
pub use crate::process::{extract_metadata, extract_params, process, strip};
pub use crate::processed::Processed;
pub use crate::warning::{Warning, WarningKind};

mod dialect;
mod directive;
mod directives;
mod error;
mod markdown;
mod marker;
mod messages;
mod output;
mod process;
mod processed;
mod scanner;
mod trim;
mod warning;

// The README's example runs as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
struct ReadmeDoctests;
