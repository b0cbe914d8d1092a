/*!
Split a Markdown narrative into role turns and render them as chat content
parts.

A narrative is a Markdown-superset document that carries a whole conversation:
turns opened by role delimiters (`## Turn 1 -- user`, `<!-- assistant -->`),
inline embeds (`@@@diagram.png` ... `@@@`) and references to attached files
(`@report.pdf`), resolved from a `.lmmlz` bundle or a directory.

# Overview

This crate is being built under its own issue; its API (embed location,
resolution, segmentation, rendering, the `Standard` and `Lmml` dialects) arrives
there. The reference behaviour it reproduces in the `Lmml` dialect is the Elixir
package lmml 0.2.0.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]
