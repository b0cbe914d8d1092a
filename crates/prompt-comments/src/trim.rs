//! `str::trim` with a fast path for the usual case: the ends of a comment,
//! a key or a value are ASCII, where whitespace is six bytes. Only when an
//! end is a non-ASCII character (which may be a Unicode space: a no-break
//! space, an ideographic space) does the full `str::trim` decide, so the
//! result is always exactly `str::trim`'s.

/// The ASCII characters that are Unicode `White_Space` (what
/// `char::is_whitespace` says of them): tab, line feed, vertical tab, form
/// feed, carriage return and space. `u8::is_ascii_whitespace` leaves out the
/// vertical tab, so it is not used.
#[inline]
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r' | b' ')
}

/// `text.trim()`.
#[inline]
pub(crate) fn trim(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut start = 0;
    while start < bytes.len() && is_ascii_space(bytes[start]) {
        start += 1;
    }
    let mut end = bytes.len();
    while end > start && is_ascii_space(bytes[end - 1]) {
        end -= 1;
    }
    // Both cuts are after or before an ASCII byte: character boundaries.
    let rest = &text[start..end];
    match (rest.as_bytes().first(), rest.as_bytes().last()) {
        (Some(&first), Some(&last)) if !first.is_ascii() || !last.is_ascii() => rest.trim(),
        _ => rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unicode_spaces_at_either_end_are_trimmed() {
        for text in [
            "",
            " ",
            "a",
            " a ",
            "\t\x0B\x0Ca\r\n",
            "\u{a0}a",
            "a\u{3000}",
            " \u{2003} a \u{a0} ",
            "é",
            " é ",
            "\u{85}",
            "\x1Fa\x1F",
            "a \u{200b}",
        ] {
            assert_eq!(trim(text), text.trim(), "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn it_is_str_trim(text in "[ \t\n\r\x0B\x0C\u{a0}\u{3000}\u{85}\u{200b}aé,=]{0,12}") {
            proptest::prop_assert_eq!(trim(&text), text.trim());
        }
    }
}
