//! The normalized view the `Standard` sanitizer matches on.
//!
//! Each character of the text becomes zero or more one-byte units:
//! - ASCII is lowercased;
//! - default-ignorable characters (zero-width space and joiners, soft
//!   hyphen, word joiner, BOM, bidi controls, variation selectors, tags) and
//!   lone combining marks vanish, so they cannot split a token;
//! - other characters take their compatibility decomposition (NFKD) with
//!   combining marks dropped, when that is ASCII: fullwidth `＜｜ｓ｜＞`,
//!   mathematical `𝐬𝐲𝐬𝐭𝐞𝐦`, the long s `ſ` and ligatures such as `ﬆ` read
//!   as their ASCII look-alikes;
//! - a few look-alikes NFKC leaves alone are folded by hand: Cyrillic and
//!   Greek letters drawn exactly like Latin ones (`Ѕ`, `у`, `о`, `Α`, ...),
//!   dotless `ı` reads `i`, SentencePiece's `▁` reads `_`, bullets (`•`,
//!   `·`, `◦`, ...) read as `*`, colon look-alikes (`∶`, `꞉`, `ː`, ...)
//!   as `:`, the braille blank as a space, and NEL, LS and PS as line
//!   feeds;
//! - anything else is a letter or digit ([`ALNUM`]), a space, or
//!   [`OTHER`].
//!
//! Every unit remembers the byte range of the character it came from, so
//! edits land on character boundaries of the original text.

use unicode_normalization::char::{decompose_compatible, is_combining_mark};

use crate::ignorable::is_default_ignorable;

/// A non-ASCII letter or digit.
pub(super) const ALNUM: u8 = 0x80;
/// Any other character without an ASCII reading.
pub(super) const OTHER: u8 = 0x81;

/// One unit of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Unit {
    /// The lowercase ASCII reading, or [`ALNUM`] / [`OTHER`].
    pub(super) code: u8,
    /// The byte range of the source character.
    pub(super) start: usize,
    pub(super) end: usize,
}

/// The view of one text. ASCII text is its own view (lowercased on the
/// fly), so the common case allocates nothing.
pub(super) enum View<'a> {
    /// One unit per byte.
    Ascii(&'a [u8]),
    /// Built unit by unit.
    Units(Vec<Unit>),
}

impl<'a> View<'a> {
    pub(super) fn new(text: &'a str) -> View<'a> {
        if text.is_ascii() {
            View::Ascii(text.as_bytes())
        } else {
            let mut units = Vec::new();
            build(text, &mut units);
            View::Units(units)
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            View::Ascii(bytes) => bytes.len(),
            View::Units(units) => units.len(),
        }
    }

    /// The code of unit `i`, `None` past the end.
    pub(super) fn code(&self, i: usize) -> Option<u8> {
        match self {
            View::Ascii(bytes) => bytes.get(i).map(u8::to_ascii_lowercase),
            View::Units(units) => units.get(i).map(|u| u.code),
        }
    }

    /// Where the character of unit `i` starts in the text.
    pub(super) fn start(&self, i: usize) -> usize {
        match self {
            View::Ascii(_) => i,
            View::Units(units) => units[i].start,
        }
    }

    /// Where the character of unit `i` ends in the text.
    pub(super) fn end(&self, i: usize) -> usize {
        match self {
            View::Ascii(_) => i + 1,
            View::Units(units) => units[i].end,
        }
    }

    /// The first unit in `from..limit` that is `<`, `[`, `]` or a line break
    /// (LF, CR, VT, FF); `limit` when there is none.
    pub(super) fn find_structural(&self, from: usize, limit: usize) -> usize {
        // LF, VT, FF and CR are 0x0a to 0x0d: one range test.
        let is_structural = |code: u8| matches!(code, b'<' | b'[' | b']' | b'\n'..=b'\r');
        let found = match self {
            View::Ascii(bytes) => {
                bytes.get(from..limit).and_then(|b| b.iter().position(|&c| is_structural(c)))
            }
            View::Units(units) => {
                units.get(from..limit).and_then(|u| u.iter().position(|u| is_structural(u.code)))
            }
        };
        found.map_or(limit.max(from), |k| from + k)
    }

    /// The first unit at or after byte `offset`.
    pub(super) fn unit_at(&self, offset: usize) -> usize {
        match self {
            View::Ascii(bytes) => offset.min(bytes.len()),
            View::Units(units) => units.partition_point(|u| u.start < offset),
        }
    }
}

/// Appends the view of `text` to `units`.
fn build(text: &str, units: &mut Vec<Unit>) {
    units.reserve(text.len());
    for (start, c) in text.char_indices() {
        let end = start + c.len_utf8();
        if c.is_ascii() {
            units.push(Unit { code: (c as u8).to_ascii_lowercase(), start, end });
            continue;
        }
        if let Some(latin) = latin_look_alike(c) {
            units.push(Unit { code: latin, start, end });
            continue;
        }
        match c {
            '\u{131}' => units.push(Unit { code: b'i', start, end }),
            '\u{2581}' => units.push(Unit { code: b'_', start, end }),
            // Look-alikes of the colon that NFKD leaves alone.
            '\u{2d0}' | '\u{2f8}' | '\u{589}' | '\u{5c3}' | '\u{16ec}' | '\u{205a}'
            | '\u{2236}' | '\u{a789}' => units.push(Unit { code: b':', start, end }),
            // A blank that is neither whitespace nor ignorable.
            '\u{2800}' => units.push(Unit { code: b' ', start, end }),
            // Bullets, which decorate a line as `*` does.
            '\u{b7}' | '\u{2022}' | '\u{2023}' | '\u{2043}' | '\u{2219}' | '\u{25e6}' => {
                units.push(Unit { code: b'*', start, end });
            }
            '\u{85}' | '\u{2028}' | '\u{2029}' => units.push(Unit { code: b'\n', start, end }),
            c if is_ignorable(c) => {}
            c => push_decomposed(c, start, end, units),
        }
    }
}

/// The NFKD reading of `c` without combining marks, when it is ASCII.
fn push_decomposed(c: char, start: usize, end: usize, units: &mut Vec<Unit>) {
    let first = units.len();
    let mut ascii = true;
    decompose_compatible(c, |d| {
        if is_combining_mark(d) {
            return;
        }
        if d.is_ascii() {
            units.push(Unit { code: (d as u8).to_ascii_lowercase(), start, end });
        } else {
            ascii = false;
        }
    });
    if !ascii {
        units.truncate(first);
        let code = if c.is_whitespace() {
            b' '
        } else if c.is_alphanumeric() {
            ALNUM
        } else {
            OTHER
        };
        units.push(Unit { code, start, end });
    }
}

/// Cyrillic and Greek letters drawn exactly like a Latin letter, so that
/// `Ѕуѕtеm:` (four Cyrillic letters) reads as `system:`. Only letters that are
/// indistinguishable in common fonts; NFKC leaves all of them alone.
fn latin_look_alike(c: char) -> Option<u8> {
    Some(match c {
        'а' | 'А' | 'α' | 'Α' => b'a',
        'В' | 'Β' => b'b',
        'с' | 'С' | 'ϲ' => b'c',
        'е' | 'Е' | 'Ε' => b'e',
        'Н' | 'Η' => b'h',
        'і' | 'І' | 'Ι' | 'ι' => b'i',
        'ј' | 'Ј' => b'j',
        'К' | 'Κ' => b'k',
        'М' | 'Μ' => b'm',
        'Ν' => b'n',
        'о' | 'О' | 'ο' | 'Ο' => b'o',
        'р' | 'Р' | 'ρ' | 'Ρ' => b'p',
        'ѕ' | 'Ѕ' => b's',
        'Т' | 'Τ' => b't',
        'у' | 'У' | 'Υ' => b'y',
        'х' | 'Х' | 'Χ' | 'χ' => b'x',
        'Ζ' => b'z',
        _ => return None,
    })
}

/// Characters that render as nothing, and lone combining marks.
fn is_ignorable(c: char) -> bool {
    is_default_ignorable(c) || is_combining_mark(c)
}

/// Whether a byte of the text may start or take part in something the
/// sanitizer rewrites. Text without any of them is returned untouched.
pub(super) fn is_trigger(byte: u8) -> bool {
    matches!(byte, b'<' | b'[' | b']' | b':' | b'#') || !byte.is_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str) -> Vec<u8> {
        let view = View::new(text);
        (0..view.len()).filter_map(|i| view.code(i)).collect()
    }

    #[test]
    fn look_alikes_read_as_ascii() {
        assert_eq!(codes("＜｜ＵＳＥＲ｜＞"), b"<|user|>");
        assert_eq!(codes("AbC<|"), b"abc<|");
        assert_eq!(codes("s\u{200b}y\u{200d}s\u{feff}tem"), b"system");
        assert_eq!(codes("ſyﬆem"), b"system");
        assert_eq!(codes("𝐬𝐲𝐬𝐭𝐞𝐦："), b"system:");
        assert_eq!(codes("assıstant"), b"assistant");
        assert_eq!(codes("Ѕуѕtеm"), b"system");
        assert_eq!(codes("Ηυmαn"), [b'h', ALNUM, b'm', b'a', b'n']);
        assert_eq!(codes("begin▁of"), b"begin_of");
        assert_eq!(codes("é\u{301}"), b"e");
        assert_eq!(codes("用\u{a0}\u{2028}—"), [ALNUM, b' ', b'\n', OTHER]);
    }

    #[test]
    fn units_keep_source_ranges() {
        let view = View::new("aﬆ<");
        let ranges: Vec<_> =
            (0..view.len()).map(|i| (view.code(i).unwrap(), view.start(i), view.end(i))).collect();
        assert_eq!(ranges, [(b'a', 0, 1), (b's', 1, 4), (b't', 1, 4), (b'<', 4, 5)]);
    }
}
