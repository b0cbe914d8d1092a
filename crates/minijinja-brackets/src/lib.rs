/*!
A Jinja dialect for prompts: `[[ expr ]]`, `[% stmt %]`, `[# comment #]`.

The bracket delimiters survive inside chat front-ends that already use
`{{...}}` macros. Filters chain with `->`, variables live in three scopes
(state, chat-local `L`, global `G`), and `chance`/`weighted` blocks draw from a
seedable random stream so that a seed reproduces a render exactly.

# Overview

This crate is being built under its own issue; its API (environment, templates,
values, the nom parser and the tree-walking evaluator with limits) arrives
there. The language is defined in the suite's `docs/language.md`.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]
