//! Keyword names that come from values (`f(**options)`): a call's
//! [`Arguments`](crate::Arguments) borrow their names for the whole render,
//! so a map's keys are kept here, each distinct one once (shared with the
//! map, never copied), until the render ends.

use std::collections::HashMap;
use std::sync::Arc;

/// Where the keys live: an arena the render owns.
pub(crate) type KeyArena = typed_arena::Arena<Arc<str>>;

/// The names given by `**map` so far.
pub(crate) struct KeywordNames<'t> {
    arena: &'t KeyArena,
    known: HashMap<Arc<str>, &'t str>,
}

impl<'t> KeywordNames<'t> {
    pub(crate) fn new(arena: &'t KeyArena) -> KeywordNames<'t> {
        KeywordNames { arena, known: HashMap::new() }
    }

    /// `key` as a name borrowed for the render, and whether it is new
    /// (then the caller pays for keeping it).
    pub(crate) fn intern(&mut self, key: &Arc<str>) -> (&'t str, bool) {
        if let Some(name) = self.known.get(key) {
            return (name, false);
        }
        let stored: &'t Arc<str> = self.arena.alloc(Arc::clone(key));
        self.known.insert(Arc::clone(key), stored);
        (stored, true)
    }
}
