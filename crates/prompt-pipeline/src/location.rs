//! Lines and columns of byte offsets, for the positions the pipeline's
//! errors carry. Offsets in the comment-free text reach the prompt file
//! through the deletions stage 1 reports (`prompt_comments::Processed::deletions`),
//! never by comparing texts.

use crate::error::{Location, Origin};

/// The location of byte `offset` of `text` (clamped to a character
/// boundary): 1-based line and column in characters, and the rest of the line
/// (at most 40 characters) as the snippet.
pub(crate) fn locate(origin: Origin, text: &str, offset: usize) -> Location {
    let offset = text.floor_char_boundary(offset);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..line_start].bytes().filter(|&b| b == b'\n').count() + 1;
    let column = text[line_start..offset].chars().count() + 1;
    let rest = &text[offset..];
    let rest = &rest[..rest.find(['\n', '\r']).unwrap_or(rest.len())];
    Location { origin, line, column, snippet: rest.chars().take(40).collect(), name: None }
}

/// The byte offset of 1-based `line` and `column` (in characters) in `text`,
/// clamped to the text.
pub(crate) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    text[start..]
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(text.len(), |(i, _)| start + i)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Where `needle` of the comment-free text is in `source`, through
    /// the deletions stage 1 reports (what the pipeline does).
    fn map(source: &str, needle: &str) -> (usize, usize) {
        let processed = prompt_comments::process(source);
        let offset = processed.cleaned.find(needle).unwrap();
        let l = locate(Origin::Prompt, source, processed.deletions.to_input(offset));
        (l.line, l.column)
    }

    #[test]
    fn full_line_comments_shift_lines_back() {
        let source = "/// flow: x\n/// param: a=1\nHello [[ oops\n";
        assert_eq!(map(source, "[[ oops"), (3, 7));
    }

    #[test]
    fn trailing_comments_and_escapes_keep_columns() {
        let source = "a \\/// b /// gone\n  /// gone too\né [[ x ]]\n";
        assert_eq!(map(source, "b"), (1, 8));
        assert_eq!(map(source, "[[ x"), (3, 3));
    }

    #[test]
    fn comment_markers_in_code_stay() {
        let source = "```\n/// kept\n```\n/// gone\nend\n";
        assert_eq!(map(source, "kept"), (2, 5));
        assert_eq!(map(source, "end"), (5, 1));
    }

    #[test]
    fn offsets_and_positions_round_trip() {
        let text = "ab\nçé\n";
        assert_eq!(offset_of(text, 2, 2), 5);
        let l = locate(Origin::Rendered, text, 5);
        assert_eq!((l.line, l.column, l.snippet.as_str()), (2, 2, "é"));
        assert_eq!(offset_of(text, 9, 1), text.len());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Every character of the cleaned text maps to the same character in
        /// the prompt, whatever the mix of comments, code and escapes.
        #[test]
        fn every_kept_character_maps_to_itself(
            lines in prop::collection::vec(
                prop_oneof![
                    Just("/// c: v".to_owned()),
                    Just("```".to_owned()),
                    Just("x \\/// y".to_owned()),
                    "[a-cé /]{0,10}",
                ],
                0..12,
            ),
        ) {
            let source = lines.join("\n");
            let processed = prompt_comments::process(&source);
            for (offset, c) in processed.cleaned.char_indices() {
                let at = processed.deletions.to_input(offset);
                prop_assert_eq!(source[at..].chars().next(), Some(c));
            }
        }
    }
}
