//! Speakers who only look like the point of view (`Standard` mode).
//!
//! An id that differs from the point-of-view speaker's by zero-width
//! characters, spaces or look-alike letters (`B\u{200b}`, `B `, Cyrillic
//! `Веn` for `Ben`) is another speaker, so its turns become user messages,
//! but their label reads as the agent's own name: the agent would take
//! someone else's words for its own. Such a transcript is refused.
//!
//! Two ids look alike when their *looks* are equal: the id in NFKC, without
//! the characters that show nothing ([`is_invisible`]), with each run of
//! blanks ([`is_blank`]) read as one space and the blanks at either end
//! left out, then mapped to its Unicode TR39 confusable skeleton. Case alone
//! never makes ids look alike (`ben` is another speaker than `Ben`, as in
//! LLMR), even where a skeleton would fold it.
//!
//! An id holding a control character ([`control_in`]) is refused outright
//! (`invalid_speaker`): NUL, ESC, DEL or a line break has no business in a
//! name, and a terminal or a label would act on it.

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
    /// The point of view of `id`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidSpeaker`] when `id` holds a control character.
    pub(crate) fn new(id: &'a str) -> Result<PointOfView<'a>, Error> {
        if let Some(control) = control_in(id) {
            return Err(holds_control("the point-of-view speaker", id, control));
        }
        Ok(PointOfView { id, looks: Looks::of(id), few: Vec::new(), many: HashSet::new() })
    }

    /// Checks `other`, the speaker of turn `index`, which is not the point
    /// of view's id.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidSpeaker`] when `other` holds a control character,
    /// [`ErrorKind::AmbiguousSpeaker`] when it looks like the point of view.
    pub(crate) fn check(&mut self, other: &'a str, index: usize) -> Result<(), Error> {
        if !self.first_time(other) {
            return Ok(());
        }
        if let Some(control) = control_in(other) {
            return Err(holds_control("the speaker", other, control).at_index(index));
        }
        if !self.looks.alike(&Looks::of(other)) {
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

/// The first character of `id` that controls rather than shows: General
/// Category Cc (C0 such as NUL, ESC, tab and line feed; DEL; C1 such as NEL
/// and CSI) or a line or paragraph separator (Zl, Zp).
pub(crate) fn control_in(id: &str) -> Option<char> {
    id.chars().find(|&c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
}

/// The error for an id holding `control`.
fn holds_control(who: &str, id: &str, control: char) -> Error {
    Error::new(
        ErrorKind::InvalidSpeaker,
        format!(
            "{who} {} holds the control character U+{:04X}: a speaker id must not hold \
             control characters or line breaks",
            shown(id),
            u32::from(control)
        ),
    )
}

/// Characters that show nothing: Default_Ignorable_Code_Point (zero-width
/// characters, joiners, bidi controls, variation selectors, tags, the
/// Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the Mongolian vowel
/// separator) and controls (Cc). TR39's skeleton drops the first kind too;
/// both are left out before the id is trimmed, so `Ben\u{3164}` ends in `n`.
fn is_invisible(c: char) -> bool {
    is_default_ignorable(c) || c.is_control()
}

/// Characters that show as a blank: White_Space (the spaces U+0020, U+00A0,
/// U+1680, U+2000..U+200A, U+202F, U+205F, U+3000, and the line breaks) and
/// the braille blank U+2800, the one character TR39's confusables map to a
/// space that is not White_Space (a test checks this against the crate's
/// data).
fn is_blank(c: char) -> bool {
    c.is_whitespace() || c == '\u{2800}'
}

/// What an id looks like.
struct Looks {
    /// NFKC, without invisible characters, each run of blanks one space,
    /// without blanks at either end.
    normalized: String,
    /// The TR39 skeleton of `normalized`.
    skeleton: String,
}

impl Looks {
    fn of(id: &str) -> Looks {
        let mut normalized = String::with_capacity(id.len());
        // A blank is written only once something follows it.
        let mut blank = false;
        for c in id.nfkc() {
            // Tab and line feed are blanks before they are controls.
            if is_blank(c) {
                blank = !normalized.is_empty();
                continue;
            }
            if is_invisible(c) {
                continue;
            }
            if blank {
                normalized.push(' ');
                blank = false;
            }
            normalized.push(c);
        }
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

    /// Blanks and invisible characters of every kind at either end, and
    /// inside: controls (which `check` refuses before looking), Hangul
    /// fillers, spaces of every width, the braille blank, tags, variation
    /// selectors.
    #[test]
    fn blank_and_invisible_characters_do_not_tell_ids_apart() {
        let hidden = [
            '\u{2800}',
            '\0',
            '\x7f',
            '\x1b',
            '\u{9b}',
            '\u{3164}',
            '\u{115f}',
            '\u{1160}',
            '\u{ffa0}',
            '\u{a0}',
            '\u{2000}',
            '\u{2007}',
            '\u{200a}',
            '\u{202f}',
            '\u{205f}',
            '\u{3000}',
            '\u{1680}',
            '\u{180e}',
            '\u{2028}',
            '\u{e0041}',
            '\u{e007f}',
            '\u{fe0f}',
            '\u{e0100}',
            '\u{2062}',
            '\u{34f}',
        ];
        for c in hidden {
            for other in [format!("Ben{c}"), format!("{c}Ben"), format!("{c}Ben{c}{c}")] {
                assert!(alike("Ben", &other), "{other:?}");
            }
        }
        // A blank inside is a gap, however it is written; an invisible
        // character inside is nothing.
        assert!(alike("Ben Li", "Ben\u{2800}Li"));
        assert!(alike("Ben Li", "Ben \u{3000} Li"));
        assert!(alike("BenLi", "Ben\u{3164}Li"));
        assert!(!alike("BenLi", "Ben\u{2800}Li"));
    }

    /// The two sets are Unicode's, not a guess: every character TR39 reads
    /// as nothing is one `is_invisible` drops, and every character whose
    /// confusable prototype is a space is one `is_blank` reads as a blank.
    #[test]
    fn the_character_classes_agree_with_the_unicode_data() {
        let mut disagree = Vec::new();
        for c in (0..=0x10_ffff_u32).filter_map(char::from_u32) {
            let one = c.to_string();
            let skeleton: String = unicode_security::skeleton(&one).collect();
            if skeleton.is_empty() != is_default_ignorable(c) {
                disagree.push(format!("U+{:04X} ignorable", u32::from(c)));
            }
            if skeleton == " " && !is_blank(c) {
                disagree.push(format!("U+{:04X} blank", u32::from(c)));
            }
        }
        assert!(disagree.is_empty(), "{disagree:?}");
    }

    #[test]
    fn controls_are_found() {
        for id in ["Ben\0", "Ben\x1b[2J", "Ben\x7f", "Ben\u{9b}", "A\nB", "A\tB", "A\u{2028}B"] {
            assert!(control_in(id).is_some(), "{id:?}");
        }
        for id in ["Ben", "Ben\u{2800}", "Ben\u{200b}", "Ana María"] {
            assert_eq!(control_in(id), None, "{id:?}");
        }
        let err = PointOfView::new("Ben\x1b").err().unwrap();
        assert_eq!(err.kind(), ErrorKind::InvalidSpeaker);
        assert!(err.message().contains("U+001B"), "{}", err.message());
        let mut pov = PointOfView::new("Ben").unwrap();
        let err = pov.check("Ana\0", 3).unwrap_err();
        assert_eq!((err.kind(), err.index()), (ErrorKind::InvalidSpeaker, Some(3)));
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
        let mut pov = PointOfView::new("Ben").unwrap();
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
        let mut pov = PointOfView::new("Ben").unwrap();
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
