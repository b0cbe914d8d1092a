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
   ([`Occurrence`]) with its byte [`Span`]. [`Bundle`] reads a `.lmmlz`
   archive (or bare text) into the narrative text and its [`Attachments`];
   [`Attachments::directory`] serves files from a directory instead.
2. [`Narrative::resolve`] gives every distinct embed its content (an
   [`Embed`] of a [`ResolvedNarrative`]); [`Narrative::validate`] reports
   every problem at once.
3. [`segment`] (or [`ResolvedNarrative::segment`]) splits the text into
   [`Turn`]s, each with its [`Role`] and the embeds of its first
   occurrences. Nothing is trimmed: turn texts and delimiter lines together
   restore the narrative byte for byte.
4. [`render_turns`] maps turns to [`Message`]s of [`ContentPart`]s: the text,
   then images as `image_url` data URIs and other files as attachments with
   a [`mime_type`], within [`RenderOptions`] (`max_embed_bytes`,
   [`ContextAs`]).

# Example

```
use narrative_segment::{
    Attachments, ContextAs, Dialect, Narrative, RenderOptions, Role, render_turns,
};

let text = "You review layouts.\n\n## Turn 1 -- user\nThe page looks broken: @capture.png\n\n\
            ## Turn 2 -- assistant\nThe sidebar is too wide.\n";
let attachments = Attachments::from_entries([("capture.png", vec![0x89, b'P', b'N', b'G'])])?;
let resolved = Narrative::parse(text, Dialect::Standard).resolve(&attachments)?;

let turns = resolved.segment();
let roles: Vec<Role> = turns.iter().map(|turn| turn.role).collect();
assert_eq!(roles, [Role::Context, Role::User, Role::Assistant]);
assert_eq!(turns[1].text, "The page looks broken: @capture.png\n\n");
assert_eq!(turns[1].embeds, ["capture.png"]);

let options = RenderOptions { context_as: ContextAs::System, ..RenderOptions::default() };
let messages = render_turns(&resolved, &turns, &options);
assert_eq!(messages[0].role, Role::System);
assert_eq!(messages[1].content.len(), 2); // the text, then the image
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Dialects

[`Dialect::Standard`] (the default) and [`Dialect::Lmml`] share one parser
and one segmenter and differ in six documented places: delimiters inside
code, comment delimiters with other words, role words, the reference name
rule, embed placement and line endings. The table is on [`Dialect`].

# Errors

Every failure is an [`Error`] whose [`ErrorKind`] says what went wrong; it
names the embed or entry concerned and, for the narrative's own text, the
line, column and offending snippet: invalid UTF-8 (with the byte offset),
an unresolvable or missing reference, an unsafe entry name, a zip archive
that is unreadable or over its [`Limits`].

# Input safety

Parsing and segmentation are linear in the input and never fail. Bundles
are checked before anything is read (entry names) and while they are read
(entry count, per-entry and total uncompressed sizes, counted on the bytes
actually inflated); directory lookups never leave the directory, symbolic
links included.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use crate::{
    attachments::{Attachments, Limits, is_unsafe_name},
    bundle::Bundle,
    dialect::Dialect,
    error::{Error, ErrorKind},
    mime::mime_type,
    narrative::{Embed, EmbedOrigin, Narrative, ResolvedNarrative},
    render::{
        ContentPart, ContextAs, Encoding, ImageUrl, Message, RenderOptions, Rendered, Warning,
        WarningKind, render, render_turns,
    },
    role::{Role, message_roles, roles},
    root::{Root, RootFile},
    segment::{SegmentOptions, Turn, segment},
    span::{Position, Span},
    syntax::{Occurrence, OccurrenceKind},
};

/// The README's example runs as a doctest too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

mod attachments;
mod base64;
mod bundle;
mod data;
mod delimiter;
mod dialect;
mod error;
mod mime;
mod narrative;
mod render;
mod role;
mod root;
mod segment;
mod source;
mod span;
mod syntax;
