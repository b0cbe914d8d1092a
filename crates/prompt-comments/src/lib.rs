/*!
Strip `///` authoring comments from prompts and extract the metadata they carry.

Prompt authors annotate templates with `///` comments that must never reach a
model, and put request metadata in them: `/// param: temperature=0.7`,
`/// flow: checkout`, `/// node: payment`, `/// tag: a, b`, or any
`/// key: value`.

# Overview

This crate is being built under its own issue; its API (processing, stripping,
metadata extraction, chat-message stripping, and the `Standard` and `Llmutils`
dialects) arrives there. The reference behaviour it reproduces in the
`Llmutils` dialect is the Go package llmutils.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]
