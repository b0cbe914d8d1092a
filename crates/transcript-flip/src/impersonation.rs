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
use crate::warning::quoted;
use crate::{Error, ErrorKind, Warning};

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
    /// The point of view as compared for near misses: its looks,
    /// lowercase.
    folded: Vec<char>,
    /// The closest near miss so far: its distance, id and first turn.
    near: Option<(usize, &'a str, usize)>,
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
        let looks = Looks::of(id);
        let folded = looks.normalized.to_lowercase().chars().collect();
        Ok(PointOfView { id, looks, few: Vec::new(), many: HashSet::new(), folded, near: None })
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
        let looks = Looks::of(other);
        if !self.looks.alike(&looks) {
            self.remember_near_miss(other, &looks, index);
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
    /// What the transcript says of the point of view, once every turn is
    /// checked: nothing when it spoke (`spoke`); otherwise a warning, or an
    /// error when an id is a near miss of it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnknownSpeaker`] when the point of view never speaks
    /// and another id differs from it by case alone or by a few edits
    /// ([`near_miss_distance`]): the closest (the first of those as close),
    /// at its first turn.
    pub(crate) fn finish(self, spoke: bool) -> Result<Option<Warning>, Error> {
        if spoke {
            return Ok(None);
        }
        let Some((_, near, index)) = self.near else {
            return Ok(Some(Warning::speaker_not_in_transcript(self.id)));
        };
        Err(Error::new(
            ErrorKind::UnknownSpeaker,
            format!(
                "the speaker {} never speaks in the transcript; did you mean {}?",
                quoted(self.id),
                quoted(near)
            ),
        )
        .at_index(index))
    }

    /// Keeps `other` (first seen at turn `index`) when it is a nearer miss
    /// of the point of view than any before it.
    fn remember_near_miss(&mut self, other: &'a str, looks: &Looks, index: usize) {
        let best = self.near.map_or(usize::MAX, |(distance, ..)| distance);
        let folded: Vec<char> = looks.normalized.to_lowercase().chars().collect();
        if let Some(distance) = near_miss_distance(&self.folded, &folded)
            && distance < best
        {
            self.near = Some((distance, other, index));
        }
    }

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

/// The longest id (in characters) compared by edit distance: a near miss
/// is a typing slip, and longer ids compare by case alone, which keeps each
/// comparison bounded.
const NEAR_MISS_CHARS: usize = 64;

/// How far `other` is from the point of view `pov` (both as [`Looks`]
/// normalizes them, lowercase), when it is a near miss: 0 when they differ
/// by case alone, else their edit distance (insertions, deletions,
/// substitutions, and swaps of two neighbours) when it is at most one per
/// four characters of `pov`, and at most 2. `None` otherwise.
fn near_miss_distance(pov: &[char], other: &[char]) -> Option<usize> {
    if pov == other {
        return Some(0);
    }
    let max = (pov.len() / 4).min(2);
    if max == 0
        || pov.len().abs_diff(other.len()) > max
        || pov.len() > NEAR_MISS_CHARS
        || other.len() > NEAR_MISS_CHARS
    {
        return None;
    }
    // Optimal string alignment, three rows.
    let width = other.len() + 1;
    let mut before: Vec<usize> = vec![0; width];
    let mut previous: Vec<usize> = (0..width).collect();
    let mut current: Vec<usize> = vec![0; width];
    for i in 1..=pov.len() {
        current[0] = i;
        for j in 1..width {
            let cost = usize::from(pov[i - 1] != other[j - 1]);
            let mut best = (previous[j] + 1).min(current[j - 1] + 1).min(previous[j - 1] + cost);
            if i > 1 && j > 1 && pov[i - 1] == other[j - 2] && pov[i - 2] == other[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    let distance = previous[width - 1];
    (distance <= max).then_some(distance)
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

    fn near(pov: &str, other: &str) -> Option<usize> {
        let fold = |id: &str| Looks::of(id).normalized.to_lowercase().chars().collect::<Vec<_>>();
        near_miss_distance(&fold(pov), &fold(other))
    }

    #[test]
    fn near_misses_are_case_or_a_few_edits() {
        assert_eq!(near("Ben", "ben"), Some(0));
        assert_eq!(near("Ben", "BEN "), Some(0));
        // Three letters allow no edit: `Ken` is another person.
        assert_eq!(near("Ben", "Ken"), None);
        assert_eq!(near("Anna", "Ana"), Some(1));
        assert_eq!(near("Anna", "Anan"), Some(1));
        assert_eq!(near("Moderator", "Modreator"), Some(1));
        assert_eq!(near("Moderator", "moderatr"), Some(1));
        assert_eq!(near("Moderator", "Mdoeratro"), Some(2));
        assert_eq!(near("Moderator", "Mod"), None);
        assert_eq!(near("Anna", "Bob"), None);
        let long = "x".repeat(100);
        assert_eq!(near(&long, &"X".repeat(100)), Some(0));
        assert_eq!(near(&long, &"x".repeat(99)), None);
    }

    #[test]
    fn finish_reports_a_missing_point_of_view() {
        let mut pov = PointOfView::new("Ben").unwrap();
        pov.check("Ana", 0).unwrap();
        let warning = pov.finish(false).unwrap().unwrap();
        assert_eq!(warning.kind(), crate::WarningKind::SpeakerNotInTranscript);
        let mut pov = PointOfView::new("Ben").unwrap();
        for (index, id) in ["Ana", "BEN", "ben"].into_iter().enumerate() {
            pov.check(id, index).unwrap();
        }
        let err = pov.finish(false).unwrap_err();
        assert_eq!((err.kind(), err.index()), (ErrorKind::UnknownSpeaker, Some(1)));
        assert!(err.message().contains("did you mean `BEN`?"), "{}", err.message());
        let pov = PointOfView::new("Ben").unwrap();
        assert_eq!(pov.finish(true), Ok(None));
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
