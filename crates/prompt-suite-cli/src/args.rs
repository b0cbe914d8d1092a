//! Argument definitions, and nothing else: one struct per subcommand lives in
//! that subcommand's module, this file holds the shared pieces.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

use crate::commands::Command;

/// The whole command line.
#[derive(Debug, Parser)]
#[command(
    name = "prompt-suite",
    version,
    about = "Turn what people write for language models into exactly what the models' APIs accept.",
    long_about = None,
    propagate_version = true,
    arg_required_else_help = true,
    max_term_width = 100
)]
pub(crate) struct Args {
    /// How errors are printed on standard error.
    #[arg(long, value_enum, global = true, default_value_t = ErrorFormat::Human)]
    pub(crate) error_format: ErrorFormat,

    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The two renderings of a [`crate::diagnostic::Diagnostic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ErrorFormat {
    /// `error[kind]: message`, then the source line with a caret.
    Human,
    /// One JSON object: `{"error": {"kind", "message", "line", "column", "snippet"}}`.
    Json,
}

/// The input argument every subcommand shares.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct InputArg {
    /// The input file; standard input when absent or `-`.
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,
}
