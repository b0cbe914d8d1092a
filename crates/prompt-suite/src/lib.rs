/*!
prompt-suite turns what people write for language models into exactly what the
models' APIs accept.

This crate is a facade: it holds no code of its own and re-exports each member
crate under a short name, so that one dependency gives the whole suite and
`prompt_suite::brackets::Environment` reads well. Each member is usable alone;
depend on it directly to compile only what you need.

# How the pieces fit

An authored prompt file passes through up to five stages, each a crate of its
own: four independent ones, then the pipeline that assembles them.

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

All of them speak one vocabulary, [`core`] (`prompt-core`): one chat
`Message` with its `Role` and `Part`s, byte spans and line indexes, and the
`Diagnostic` trait every error and warning implements.

# Modules and crates

Each short module name is one crate, re-exported whole; each but `core` is
behind a cargo feature of the same name, all on by default. One more default
feature, `bundle`, gives `segment` and `pipeline` `.lmmlz` zip bundles (the
`zip` crate); without it a bundle is the typed error
`segment::ErrorKind::BundlesUnsupported`.

| Module | Crate | Feature | What it is |
| --- | --- | --- | --- |
| [`core`] | `prompt-core` | (always) | the shared vocabulary: chat messages, text positions, diagnostics, strict JSON |
| [`comments`] | `prompt-comments` | `comments` | `///` authoring comments and their metadata |
| [`brackets`] | `minijinja-brackets` | `brackets` | the bracket template language |
| [`chat_template`] | `chat-template` | `chat-template` | open models' chat templates as transformers renders them, with data ranges |
| [`segment`] | `narrative-segment` | `segment` | Markdown narratives to role turns, bundles, attachments |
| [`flip`] | `transcript-flip` | `flip` | one speaker's view of a transcript, alternation, sanitizing |
| [`pipeline`] | `prompt-pipeline` | `pipeline` | an authored prompt file to a provider request; batches |

```
use prompt_suite::core::chat::{Message, Role};

let message = Message::text(Role::User, "Hi!");
assert_eq!(
    serde_json::to_string(&message)?,
    r#"{"role":"user","content":[{"type":"text","text":"Hi!"}]}"#
);
# Ok::<(), serde_json::Error>(())
```
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]

// Every Rust block of the guides runs as a doctest of this crate, which
// depends on every member (`docs` is a symlink to the workspace's `docs/`,
// stored whole in the package). The member crates' READMEs run in their own
// crates; the workspace README's shell blocks run in the CLI's tests.
#[cfg(doctest)]
mod guides {
    #[doc = include_str!("../docs/chat-templates.md")]
    struct ChatTemplates;
    #[doc = include_str!("../docs/comments.md")]
    struct Comments;
    #[doc = include_str!("../docs/flip.md")]
    struct Flip;
    #[doc = include_str!("../docs/language.md")]
    struct Language;
    #[doc = include_str!("../docs/pipeline.md")]
    struct Pipeline;
    #[doc = include_str!("../docs/segment.md")]
    struct Segment;
    #[doc = include_str!("../docs/state.md")]
    struct State;
    #[doc = include_str!("../docs/testing-prompts.md")]
    struct TestingPrompts;
}

#[cfg(feature = "chat-template")]
pub use chat_template;
#[cfg(feature = "brackets")]
pub use minijinja_brackets as brackets;
#[cfg(feature = "segment")]
pub use narrative_segment as segment;
#[cfg(feature = "comments")]
pub use prompt_comments as comments;
pub use prompt_core as core;
#[cfg(feature = "pipeline")]
pub use prompt_pipeline as pipeline;
#[cfg(feature = "flip")]
pub use transcript_flip as flip;
