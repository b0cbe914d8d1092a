/*!
prompt-suite turns what people write for language models into exactly what the
models' APIs accept.

This crate is a facade: it holds no code of its own and re-exports each member
crate under a short name, so that one dependency gives the whole suite and
`prompt_suite::brackets::Environment` reads well. Each member is usable alone;
depend on it directly to compile only what you need.

# How the pieces fit

An authored prompt file passes through up to four independent stages, each a
crate of its own:

1. [`comments`] (`prompt-comments`) removes `///` authoring comments, which must
   never reach a model, and collects the `/// key: value` metadata they carry
   (request parameters, flow, node, tags).
2. [`brackets`] (`minijinja-brackets`) renders the bracket template language
   (`[[ expr ]]`, `[% stmt %]`, `[# #]`) with state, chat-local and global
   variables and seedable `chance`/`weighted` blocks.
3. [`segment`] (`narrative-segment`) splits a Markdown narrative with role
   delimiters and `@@@` embeds into role turns and renders them as chat
   content parts.
4. [`flip`] (`transcript-flip`) shows a multi-speaker transcript from one
   speaker's side (own turns as `assistant`, others as labelled `user`),
   sanitized and made provider-safe.

5. [`pipeline`] (`prompt-pipeline`) turns the resulting conversation and the
   metadata's request parameters into the exact request body of OpenAI,
   Anthropic or Gemini.

None of the first four depends on another; the order above is the one the
suite's pipeline uses, and the `prompt-suite` command-line tool exposes each
stage as a subcommand.

# Crate features

All are on by default; each turns on one member crate and its re-export.

* **comments** - `prompt_suite::comments`, the `prompt-comments` crate.
* **flip** - `prompt_suite::flip`, the `transcript-flip` crate.
* **segment** - `prompt_suite::segment`, the `narrative-segment` crate.
* **brackets** - `prompt_suite::brackets`, the `minijinja-brackets` crate.
* **pipeline** - `prompt_suite::pipeline`, the `prompt-pipeline` crate.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[cfg(feature = "brackets")]
pub use minijinja_brackets as brackets;
#[cfg(feature = "segment")]
pub use narrative_segment as segment;
#[cfg(feature = "comments")]
pub use prompt_comments as comments;
#[cfg(feature = "pipeline")]
pub use prompt_pipeline as pipeline;
#[cfg(feature = "flip")]
pub use transcript_flip as flip;
