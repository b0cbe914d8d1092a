//! The named control tokens the Standard sanitizer defangs: the suite's one
//! table, [`prompt_core::tokens::SPECIAL_TOKENS`] (which also says which
//! shapes are caught whatever their name), and the first-byte filter the
//! scanner derives from it.

pub(super) use prompt_core::tokens::{Name, SPECIAL_TOKENS, Shape};

use Name::{Exact, Numbered, Prefix};

/// Whether a unit code is the first of a name in [`SPECIAL_TOKENS`]: one
/// lookup turns most `<word>` and `[word]` away.
pub(super) const STARTS_A_NAME: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < SPECIAL_TOKENS.len() {
        let (Exact(name) | Numbered(name) | Prefix(name)) = SPECIAL_TOKENS[i].name;
        table[name.as_bytes()[0] as usize] = true;
        i += 1;
    }
    table
};
