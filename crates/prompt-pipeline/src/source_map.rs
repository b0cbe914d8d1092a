//! Positions in the comment-free text mapped back to the prompt file.
//!
//! Stage 1 removes `///` comments; later stages report byte offsets in what
//! is left. The Standard dialect only ever deletes (a full-line comment with
//! its line ending, a trailing comment with the blanks before it, the `\` of
//! an escaped `\///`), so every line of the cleaned text is one line of the
//! prompt with pieces taken out, in order. [`SourceMap`] pairs the lines up
//! once, in linear time, and then maps any offset with a binary search and
//! one walk along the line.

use crate::error::{Location, Origin};

/// Pairs of line starts: `(offset in the cleaned text, offset in the prompt)`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SourceMap {
    lines: Vec<(usize, usize)>,
}

impl SourceMap {
    /// Pairs the lines of `cleaned` with the lines of `source` they came from.
    pub(crate) fn new(source: &str, cleaned: &str) -> SourceMap {
        let mut lines = Vec::new();
        let mut cleaned_lines = cleaned.split_inclusive('\n');
        let mut current = cleaned_lines.next();
        let (mut cleaned_at, mut source_at) = (0, 0);
        for line in source.split_inclusive('\n') {
            let Some(kept) = current else { break };
            // A line holding only a comment disappears, unless the marker is
            // text (inside a code block), in which case it stays verbatim.
            let full_comment = line.trim_start_matches([' ', '\t']).starts_with("///");
            if !full_comment || kept == line {
                lines.push((cleaned_at, source_at));
                cleaned_at += kept.len();
                current = cleaned_lines.next();
            }
            source_at += line.len();
        }
        SourceMap { lines }
    }

    /// The prompt offset of byte `offset` of the cleaned text.
    pub(crate) fn to_source(&self, source: &str, cleaned: &str, offset: usize) -> usize {
        let index = self.lines.partition_point(|&(start, _)| start <= offset);
        let Some(&(cleaned_start, source_start)) = index.checked_sub(1).map(|i| &self.lines[i])
        else {
            return offset.min(source.len());
        };
        // Walk the line: every character of the cleaned line is found, in
        // order, in the prompt line; what is skipped was deleted. The
        // character at `offset` itself is found too, so the result is its
        // start rather than the end of what precedes it.
        let offset = cleaned.floor_char_boundary(offset);
        let line_end = cleaned[offset..].find('\n').map_or(cleaned.len(), |i| offset + i + 1);
        let wanted = &cleaned[cleaned_start..line_end];
        let mut chars = source[source_start..].char_indices();
        let mut at = 0;
        for (i, c) in wanted.char_indices() {
            match chars.by_ref().find(|&(_, s)| s == c) {
                Some((found, _)) if cleaned_start + i == offset => return source_start + found,
                Some((found, s)) => at = found + s.len_utf8(),
                None => break,
            }
        }
        source_start + at
    }
}

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
    Location { origin, line, column, snippet: rest.chars().take(40).collect() }
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

    fn map(source: &str, offset_of_needle: &str) -> (usize, usize) {
        let cleaned = prompt_comments::strip(source);
        let map = SourceMap::new(source, &cleaned);
        let offset = cleaned.find(offset_of_needle).unwrap();
        let at = map.to_source(source, &cleaned, offset);
        let l = locate(Origin::Prompt, source, at);
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
            let cleaned = prompt_comments::strip(&source);
            let map = SourceMap::new(&source, &cleaned);
            for (offset, c) in cleaned.char_indices() {
                let at = map.to_source(&source, &cleaned, offset);
                prop_assert_eq!(source[at..].chars().next(), Some(c));
            }
        }
    }
}
