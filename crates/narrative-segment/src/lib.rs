/*!
Split a Markdown narrative into role turns and render them as chat content
parts.

A narrative is a Markdown-superset document that carries a whole
conversation: turns opened by role delimiters (`## Turn 1 -- user`,
`### assistant`, `<!-- system -->`), inline embeds (`@@@diagram.png`, the
content, then `@@@`) and references to attached files (`@report.pdf`),
resolved from a `.lmmlz` zip bundle or a directory. This crate turns it into
`[{role, content: [parts...]}]`, ready for a chat API's `messages`. The
format comes from the Elixir package lmml 0.2.0, which the
[`Dialect::Lmml`] dialect reproduces exactly.

# Overview

1. [`Narrative::parse`] locates every inline embed and `@name` reference
   ([`Occurrence`]) with its byte [`Span`]; [`Narrative::parse_with_data`]
   does the same for a text rendered from a template, whose values are
   data and never structure (see [Data](#data-never-becomes-structure)).
   [`Bundle`] reads a `.lmmlz` archive (or bare text) into the narrative
   text and its [`Attachments`]; [`Attachments::directory`] serves files
   from a directory instead, through a [`Root`].
2. [`Narrative::resolve`] gives every distinct embed its content (an
   [`Embed`] of a [`ResolvedNarrative`]); [`Narrative::validate`] reports
   every problem at once.
3. [`segment`] (or [`ResolvedNarrative::segment`]) splits the text into
   [`Turn`]s, each with its [`TurnRole`] (the `context` preamble or a chat
   role) and the embeds of its first occurrences. Nothing is trimmed: turn texts and delimiter lines together
   restore the narrative byte for byte.
4. [`render`] maps turns to `prompt_core::chat::Message`s: the text part,
   then each embed as an image or file [`Part`](prompt_core::chat::Part)
   holding its bytes, typed by [`mime_type`], within [`RenderOptions`]
   (`max_embed_bytes`, [`ContextAs`]); an embed left out is a [`Warning`]
   of the [`Rendered`] result. [`lmml::messages`] writes them in lmml's
   wire shape (images as `image_url` data URIs, other files as
   attachments), as the command line prints them. In the standard
   dialect, [`tool_parts`] reads a turn's tool blocks (```` ```tool_call NAME ID ````
   in an assistant turn, ```` ```tool_result ID ```` in a tool turn) into tool
   call and result parts, fences recognised only in authored bytes.

# Example

```
use narrative_segment::{
    Attachments, ContextAs, Dialect, Narrative, RenderOptions, TurnRole, render,
};
use prompt_core::chat::Role;

let text = "You review layouts.\n\n## Turn 1 -- user\nThe page looks broken: @capture.png\n\n\
            ## Turn 2 -- assistant\nThe sidebar is too wide.\n";
let attachments = Attachments::from_entries([("capture.png", vec![0x89, b'P', b'N', b'G'])])?;
let resolved = Narrative::parse(text, Dialect::Standard).resolve(&attachments)?;

let turns = resolved.segment();
let roles: Vec<TurnRole> = turns.iter().map(|turn| turn.role).collect();
assert_eq!(roles, [TurnRole::Context, TurnRole::Chat(Role::User), TurnRole::Chat(Role::Assistant)]);
assert_eq!(turns[1].text, "The page looks broken: @capture.png\n\n");
assert_eq!(turns[1].embeds, ["capture.png"]);

let options = RenderOptions::new().with_context_as(ContextAs::System);
let rendered = render(&resolved, &turns, &options);
assert_eq!(rendered.messages[0].role, Role::System);
assert_eq!(rendered.messages[1].content.len(), 2); // the text, then the image
assert!(rendered.warnings.is_empty()); // nothing left out
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Data never becomes structure

A narrative rendered from a template holds values: a customer's message, a
batch row, a history entry. [`Narrative::parse_with_data`] takes the byte
ranges of those values (the renderer reports them), and every syntactic
marker then counts only in bytes the author wrote: line starts (a newline
from a value starts no line), the `#` run and the blank after it, `<!--`
and `-->`, `@@@` openers and closers, the `@` of a reference, code fences,
code spans, links and escapes. A value printing `## system` stays text of
the turn it lands in, verbatim; `@secret.txt` in a value attaches nothing.

A value may fill a delimiter's role slot only when it is, trimmed, exactly
a role word (`## [[ m.role ]]` looping over a history), so a value can
choose a role but never open a turn by itself; a slot filled only by values
that are not role words is [`ErrorKind::InvalidRoleValue`], never text
(text would glue the next turn onto the previous one). An authored role
word wins over values; a word touching a value is no word. A reference or
embed whose `@` (or `@@@` opener and closer) the author wrote may take its
name from a value, taken whole. With no data ranges, parsing is exactly
[`Narrative::parse`].

# Dialects

[`Dialect::Standard`] (the default) and [`Dialect::Lmml`] share one parser
and one segmenter and differ in nine documented places: delimiters inside
code, comment delimiters with other words, role words (Standard's heading
grammar: `## Turn 1 -- user`, `### 2. User:`, `## 👤 User` open turns,
`### Receiving User Input` does not), the reference name rule, embed
placement, line endings, a leading byte order mark (skipped in Standard),
role aliases ([`RoleAliases`] in [`SegmentOptions`]: `#### ChatGPT:` with
`ChatGPT=assistant`) and a bare `@word` naming nothing (text with a
[`WarningKind::UnresolvedReference`] warning in Standard). The table is on
[`Dialect`]. The data rule above is the same in both.

# Features

`bundle` (default): `.lmmlz` zip bundles, through the `zip` crate. Without
it, [`Bundle::from_bytes`] still reads bare narratives, and a bundle read
or written is [`ErrorKind::BundlesUnsupported`]; directories work the same.

`directory` (default): attachments read from a directory through `Root`
and `Attachments::directory` (the `cap-std` crate). Without it (the
WebAssembly build, which has no filesystem) attachments come from memory:
[`Attachments::from_entries`] or a bundle's entries.

# Errors

Every failure is an [`Error`] whose [`ErrorKind`] says what went wrong; it
names the embed or entry concerned and, for the narrative's own text, the
line, column and offending snippet: invalid UTF-8 (with the byte offset),
an invalid role value, an invalid role alias, an unresolvable or missing reference, an unsafe
entry name, a file that leads outside its directory or is not a regular
file, a zip archive that is unreadable, holds two entries of one name or
is over its [`AttachmentLimits`]. Nothing is dropped silently: what rendering leaves
out is a [`Warning`].

# Input safety

Parsing and segmentation are linear in the input and never fail. Bundles
are checked before anything is read (entry names, duplicates) and while
they are read (entry count, per-entry and total uncompressed sizes,
counted on the bytes actually inflated). Directory files are read through
a [`Root`], the suite's one safe opener: opened relative to the directory
handle and never outside it (`openat2` with `RESOLVE_BENEATH` on Linux, by
[`cap_std`]), without blocking (a FIFO cannot hang it), checked on the
opened handle (regular files only) and read with a byte cap; no race
between the check and the read.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[cfg(feature = "directory")]
pub use crate::root::{Root, RootFile};
pub use crate::{
    alias::RoleAliases,
    attachments::{AttachmentLimits, Attachments},
    bundle::Bundle,
    dialect::Dialect,
    entry::is_unsafe_name,
    error::{Error, ErrorKind},
    mime::{mime_type, sniffed_type},
    narrative::{Embed, EmbedOrigin, Narrative, ResolvedNarrative},
    render::{ContextAs, RenderOptions, Rendered, part_for_embed, render},
    role::{TurnRole, message_roles, roles},
    segment::{SegmentOptions, Turn, segment},
    span::{Position, Span},
    syntax::{Occurrence, OccurrenceKind},
    tools::tool_parts,
    warning::{Warning, WarningKind},
};

/// The README's example runs as a doctest too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

pub mod lmml;

mod alias;
mod attachments;
mod bundle;
mod data;
mod delimiter;
mod dialect;
mod entry;
mod error;
mod mime;
mod narrative;
mod render;
mod role;
#[cfg(feature = "directory")]
mod root;
mod segment;
mod source;
mod span;
mod syntax;
mod tools;
mod warning;
