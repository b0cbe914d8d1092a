//! The two behaviours of the crate: exact LLMR, and the hardened default.

use serde::{Deserialize, Serialize};

/// Which behaviour [`crate::flip`], [`crate::ensure_alternating_with`] and
/// [`crate::sanitize_with`] follow.
///
/// The differences are listed in the crate documentation; on inputs that
/// have none of those features both modes give the same output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// The suite's hardened behaviour (the default): a sanitizer for every
    /// control-token family, sanitized speaker labels, extra fields that are
    /// never dropped silently, no `"(continue)"` cue when
    /// `ensure_final_user` is off, optional `name` fields, and look-alike
    /// speaker ids refused.
    #[default]
    Standard,
    /// Reproduces the R package LLMR (`transcript_as_messages`,
    /// `ensure_alternating_messages`) exactly, byte for byte.
    Llmr,
}
