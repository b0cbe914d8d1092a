//! Speakers who only look like the point of view (`Standard` mode).
//!
//! An id that differs from the point-of-view speaker's by zero-width
//! characters, spaces or look-alike letters (`B\u{200b}`, `B `, Cyrillic
//! `Веn` for `Ben`) is another speaker, so its turns become user messages,
//! but their label reads as the agent's own name: the agent would take
//! someone else's words for its own. Such a transcript is refused.
//!
//! Two ids look alike when their *looks* are equal: the id in NFKC, without
//! default-ignorable characters, trimmed, then mapped to its Unicode TR39
//! confusable skeleton. Case alone never makes ids look alike (`ben` is
//! another speaker than `Ben`, as in LLMR), even where a skeleton would fold
//! it.

use std::collections::HashSet;

use unicode_normalization::UnicodeNormalization;

use crate::ignorable::is_default_ignorable;
use crate::{Error, ErrorKind};

/// How many checked ids are kept in a list before a set takes over: a
/// transcript has a handful of speakers, and comparing a few short strings
/// is cheaper than hashing one per turn.
const FEW: usize = 16;

/// The point-of-view speaker, and the other ids already told apart from it.
pub(crate) struct PointOfView<'a> {
    id: &'a str,
    looks: Looks,
    /// The first [`FEW`] ids checked, most recent first.
    few: Vec<&'a str>,
    /// Every other id checked, so that each costs one skeleton however many
    /// turns it has.
    many: HashSet<&'a str>,
}

impl<'a> PointOfView<'a> {
    pub(crate) fn new(id: &'a str) -> PointOfView<'a> {
        PointOfView { id, looks: Looks::of(id), few: Vec::new(), many: HashSet::new() }
    }

    /// Checks `other`, the speaker of turn `index`, which is not the point
    /// of view's id.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::AmbiguousSpeaker`] when `other` looks like the point of
    /// view.
    pub(crate) fn check(&mut self, other: &'a str, index: usize) -> Result<(), Error> {
        if !self.first_time(other) || !self.looks.alike(&Looks::of(other)) {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::AmbiguousSpeaker,
            format!(
                "the speaker {} looks like the point-of-view speaker {} but is another id: \
                 its turns would be shown under the agent's own name; rename one of them",
                shown(other),
                shown(self.id),
            ),
        )
        .at_index(index))
    }
}

impl<'a> PointOfView<'a> {
    /// Whether `other` has not been checked before (and remembers it).
    fn first_time(&mut self, other: &'a str) -> bool {
        if let Some(at) = self.few.iter().position(|&id| id == other) {
            // Speakers take turns: keep the recent ones in front.
            self.few[..=at].rotate_right(1);
            return false;
        }
        if self.few.len() < FEW {
            self.few.insert(0, other);
            return true;
        }
        self.many.insert(other)
    }
}

/// What an id looks like.
struct Looks {
    /// NFKC, without default-ignorable characters, trimmed.
    normalized: String,
    /// The TR39 skeleton of `normalized`.
    skeleton: String,
}

impl Looks {
    fn of(id: &str) -> Looks {
        let normalized: String = id.nfkc().filter(|&c| !is_default_ignorable(c)).collect();
        let normalized = normalized.trim().to_owned();
        let skeleton = unicode_security::skeleton(&normalized).collect();
        Looks { normalized, skeleton }
    }

    /// Equal skeletons, unless the ids differ by case alone.
    fn alike(&self, other: &Looks) -> bool {
        self.skeleton == other.skeleton
            && (self.normalized == other.normalized
                || self.normalized.to_lowercase() != other.normalized.to_lowercase())
    }
}

/// An id for a message: quoted with invisible characters escaped, cut at 40
/// characters, and with the code points of a non-ASCII id, which is where
/// look-alikes hide.
fn shown(id: &str) -> String {
    const MAX: usize = 40;
    let head: String = id.chars().take(MAX).collect();
    let mut shown = format!("{head:?}");
    if head.len() < id.len() {
        shown.push_str("...");
    }
    if !head.is_ascii() {
        let points: Vec<String> = head.chars().map(|c| format!("U+{:04X}", u32::from(c))).collect();
        shown.push_str(&format!(" ({})", points.join(" ")));
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alike(a: &str, b: &str) -> bool {
        Looks::of(a).alike(&Looks::of(b))
    }

    #[test]
    fn look_alikes_are_alike() {
        for other in
            ["B\u{200b}en", "Ben ", " Ben", "\u{feff}Ben", "Веn", "Ｂｅｎ", "𝐁𝐞𝐧", "Be\u{ad}n"]
        {
            assert!(alike("Ben", other), "{other:?}");
        }
        assert!(alike("Bill", "BiII"));
        assert!(alike("", "\u{200b} "));
    }

    #[test]
    fn case_and_real_differences_are_not() {
        for other in ["ben", "BEN", "Bén", "Ana", "Benn", "B en"] {
            assert!(!alike("Ben", other), "{other:?}");
        }
        // Case alone, even hidden behind an invisible character.
        assert!(!alike("Ben", "ben\u{200b}"));
    }

    #[test]
    fn each_id_is_checked_once() {
        let mut pov = PointOfView::new("Ben");
        for (index, id) in ["Ana", "Cy", "Ana", "Ana", "Cy"].into_iter().enumerate() {
            pov.check(id, index).unwrap();
        }
        assert_eq!((pov.few.len(), pov.many.len()), (2, 0));
        let err = pov.check("Веn", 5).unwrap_err();
        assert_eq!((err.kind(), err.index()), (ErrorKind::AmbiguousSpeaker, Some(5)));
        assert!(err.message().contains(r#""Веn" (U+0412 U+0435 U+006E)"#), "{}", err.message());
        assert!(err.message().contains(r#"speaker "Ben""#), "{}", err.message());
    }

    #[test]
    fn many_speakers_are_each_checked_once() {
        let ids: Vec<String> = (0..100).map(|i| format!("id{i}")).collect();
        let mut pov = PointOfView::new("Ben");
        for round in 0..3 {
            for (i, id) in ids.iter().enumerate() {
                pov.check(id, round * 100 + i).unwrap();
            }
        }
        assert_eq!((pov.few.len(), pov.many.len()), (FEW, 100 - FEW));
        assert!(pov.check("Веn", 300).is_err());
    }

    #[test]
    fn shown_ids_are_bounded_and_escaped() {
        assert_eq!(shown("B\u{200b}"), r#""B\u{200b}" (U+0042 U+200B)"#);
        assert_eq!(shown(&"x".repeat(100)), format!("{:?}...", "x".repeat(40)));
    }
}
