/*!
See a multi-speaker transcript from one speaker's side, as provider-safe chat
messages.

Multi-agent and group-chat applications keep one shared transcript of
`{speaker, text}` turns. Each agent must see it from its own point of view: its
own turns as `assistant` messages, everyone else's as labelled `user` messages,
sanitized against forged role headers and control tokens, and arranged so that
every provider accepts the array.

# Overview

This crate is being built under its own issue; its API (flipping, alternation,
sanitizing, the `Standard` and `Llmr` modes) arrives there. The reference
behaviour it reproduces in the `Llmr` mode is the R package LLMR.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]
