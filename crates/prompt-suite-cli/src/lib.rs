/*!
The `prompt-suite` command line, as a library so that the binary stays tiny
and the shell can be unit-tested.

This is not a stable API: scripts depend on the command-line contract in
`docs/cli-contract.md`, not on these items.

# Overview

* [`run`] parses the arguments, runs one subcommand and maps the outcome to
  the exit code: `0` success, `1` input rejected, `2` usage error.
* [`input`] reads the `FILE` argument or standard input, and JSON inputs
  strictly (`prompt_core::json`).
* [`output`] writes results to standard output; a closed pipe is success.
  [`output::json_within`] holds a JSON result to the output limit.
* [`diagnostic`] is the error every subcommand reports, and its two
  renderings (`--error-format human|json`); [`diagnostic::warn`] reports a
  warning, printed for people once the subcommand has run.
*/

#![forbid(unsafe_code)]

pub mod diagnostic;
pub mod input;
pub mod output;

mod args;
mod commands;
mod context;
mod prompt;
mod run;

pub use crate::run::run;
