//! Reading directives out of comment text: `param: k=v, ...`, then any
//! `key: value`, with `flow`, `node` and `tag(s)` as special keys.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::dialect::Dialect;
use crate::processed::Processed;
use crate::warning::Warning;

/// What the comments of one prompt said, gathered in reading order.
#[derive(Debug, Default)]
pub(crate) struct Directives {
    params: BTreeMap<String, String>,
    metadata: BTreeMap<String, String>,
    flow: String,
    node: String,
    tags: Vec<String>,
    warnings: Vec<Warning>,
    /// `Standard`: where each param key was first set, and whether its
    /// override was warned about (once per key keeps warnings bounded by
    /// the keys).
    param_origins: BTreeMap<String, ParamOrigin>,
    columns: Option<ColumnCursor>,
}

#[derive(Debug)]
struct ParamOrigin {
    line: usize,
    warned: bool,
}

/// Where a comment sits in the text: warnings point into it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place<'t> {
    /// The whole text; comments are slices of it.
    pub(crate) text: &'t str,
    /// The 1-based line of the comment.
    pub(crate) line: usize,
    /// The byte offset where that line starts.
    pub(crate) line_start: usize,
}

impl Directives {
    /// Reads one comment: `text` is everything after its `///`, a slice of
    /// `place.text`.
    pub(crate) fn read(&mut self, text: &str, dialect: Dialect, place: Place<'_>) {
        let comment = text.trim();
        if let Some(list) = param_list(comment, dialect) {
            self.read_params(list, dialect, place);
        } else if let Some((key, value)) = key_value(comment) {
            self.read_key_value(key, value);
        }
        // Anything else is a plain comment: nothing to record.
    }

    fn read_params(&mut self, list: &str, dialect: Dialect, place: Place<'_>) {
        for pair in list.trim().split(',') {
            // A piece without `=` (or with an empty key) is not an assignment.
            let Some((key, value)) = pair.trim().split_once('=') else { continue };
            let key = key.trim();
            if !key.is_empty() {
                let value = value.trim();
                if dialect.warns_on_duplicate_params() {
                    self.note_param(key, value, place);
                }
                set(&mut self.params, key, value);
            }
        }
    }

    /// Remembers where `key` is first set, and warns (once) when a later
    /// assignment changes its value.
    fn note_param(&mut self, key: &str, value: &str, place: Place<'_>) {
        let Some(previous) = self.params.get(key) else {
            self.param_origins
                .insert(key.to_owned(), ParamOrigin { line: place.line, warned: false });
            return;
        };
        if previous == value {
            return;
        }
        let Some(origin) = self.param_origins.get_mut(key).filter(|origin| !origin.warned) else {
            return;
        };
        origin.warned = true;
        let first_line = origin.line;
        let column = column_of(&mut self.columns, place, key);
        self.warnings.push(Warning::duplicate_param(
            key,
            previous,
            value,
            first_line,
            (place.line, column),
        ));
    }

    fn read_key_value(&mut self, key: Cow<'_, str>, value: &str) {
        match key.as_ref() {
            "flow" => value.clone_into(&mut self.flow),
            "node" => value.clone_into(&mut self.node),
            "tag" | "tags" => self.tags.extend(
                value.split(',').map(str::trim).filter(|tag| !tag.is_empty()).map(str::to_owned),
            ),
            _ => {}
        }
        set(&mut self.metadata, &key, value);
    }

    /// The result, with the `flow:` and `node:` auto-tags appended from the
    /// final values.
    pub(crate) fn finish(mut self, cleaned: Cow<'_, str>) -> Processed<'_> {
        if !self.flow.is_empty() {
            self.tags.push(format!("flow:{}", self.flow));
        }
        if !self.node.is_empty() {
            self.tags.push(format!("node:{}", self.node));
        }
        let Directives { params, metadata, flow, node, tags, warnings, .. } = self;
        Processed { cleaned, params, metadata, flow, node, tags, warnings }
    }
}

/// The last column found, so that the columns of many warnings on one long
/// line are counted in one pass over it.
#[derive(Debug)]
struct ColumnCursor {
    line_start: usize,
    offset: usize,
    column: usize,
}

/// The 1-based column (in characters) where `part`, a slice of
/// `place.text` on its line, starts.
fn column_of(cursor: &mut Option<ColumnCursor>, place: Place<'_>, part: &str) -> usize {
    let offset = (part.as_ptr() as usize).saturating_sub(place.text.as_ptr() as usize);
    let offset = place.text.floor_char_boundary(offset.max(place.line_start));
    let cursor = match cursor {
        Some(c) if c.line_start == place.line_start && c.offset <= offset => c,
        _ => cursor.insert(ColumnCursor {
            line_start: place.line_start,
            offset: place.line_start,
            column: 1,
        }),
    };
    cursor.column += place.text[cursor.offset..offset].chars().count();
    cursor.offset = offset;
    cursor.column
}

/// `map[key] = value`, reusing the existing allocations when the key is
/// already there (prompts repeat their directives, e.g. in concatenations).
fn set(map: &mut BTreeMap<String, String>, key: &str, value: &str) {
    match map.get_mut(key) {
        Some(old) => value.clone_into(old),
        None => {
            map.insert(key.to_owned(), value.to_owned());
        }
    }
}

/// The assignment list of a `param:` comment. llmutils matches the prefix
/// exactly; `Standard` ignores ASCII case, like every other key.
fn param_list(comment: &str, dialect: Dialect) -> Option<&str> {
    const PREFIX: &str = "param:";
    let head = comment.as_bytes().get(..PREFIX.len())?;
    let matches = if dialect.param_ignores_case() {
        head.eq_ignore_ascii_case(PREFIX.as_bytes())
    } else {
        head == PREFIX.as_bytes()
    };
    // The prefix is ASCII, so the slice starts on a character boundary.
    matches.then(|| &comment[PREFIX.len()..])
}

/// `key: value` where the key is ASCII word characters right before the
/// colon and the value is not empty (llmutils' `^\s*(\w+):\s*(.+)$`, the
/// value then trimmed). The key comes back lowercased.
fn key_value(comment: &str) -> Option<(Cow<'_, str>, &str)> {
    let key_len = comment.bytes().take_while(|&b| b.is_ascii_alphanumeric() || b == b'_').count();
    if key_len == 0 || comment.as_bytes().get(key_len) != Some(&b':') {
        return None;
    }
    // `comment` is already trimmed, so a non-empty rest holds a non-space.
    let rest = &comment[key_len + 1..];
    if rest.is_empty() {
        return None;
    }
    let key = &comment[..key_len];
    let key = if key.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(key.to_ascii_lowercase())
    } else {
        Cow::Borrowed(key)
    };
    Some((key, rest.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(comments: &[&str], dialect: Dialect) -> Processed<'static> {
        let mut directives = Directives::default();
        for (i, comment) in comments.iter().enumerate() {
            directives.read(comment, dialect, Place { text: comment, line: i + 1, line_start: 0 });
        }
        directives.finish(Cow::Borrowed(""))
    }

    #[test]
    fn params_split_on_every_comma() {
        let p =
            read(&[" param: stop=END,STOP, flag, =orphan, empty=, a = b = c"], Dialect::Llmutils);
        let params: Vec<_> = p.params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(params, [("a", "b = c"), ("empty", ""), ("stop", "END")]);
        assert!(p.metadata.is_empty());
    }

    #[test]
    fn param_prefix_case_depends_on_the_dialect() {
        let llm = read(&[" PARAM: a=1"], Dialect::Llmutils);
        assert!(llm.params.is_empty());
        assert_eq!(llm.metadata["param"], "a=1");
        let std = read(&[" PARAM: a=1"], Dialect::Standard);
        assert_eq!(std.params["a"], "1");
        assert!(std.metadata.is_empty());
        // `params:` is another key in both.
        assert_eq!(read(&[" params: a=1"], Dialect::Standard).metadata["params"], "a=1");
    }

    #[test]
    fn key_value_rules() {
        let kv = |comment| key_value(comment).map(|(k, v)| (k.into_owned(), v));
        assert_eq!(kv("Note: keep it"), Some(("note".to_owned(), "keep it")));
        assert_eq!(kv("model:gpt-4"), Some(("model".to_owned(), "gpt-4")));
        assert_eq!(kv("time: 12:30 = noon"), Some(("time".to_owned(), "12:30 = noon")));
        assert_eq!(kv("k:\u{a0}v"), Some(("k".to_owned(), "v")));
        assert_eq!(kv("http://x.com"), Some(("http".to_owned(), "//x.com")));
        for no in ["flow:", "flow :", "prompt-id: x", "my key: x", "名前: x", "/ flow: x", ": x"]
        {
            assert_eq!(key_value(no), None, "{no:?}");
        }
    }

    #[test]
    fn tags_accumulate_then_auto_tags_follow() {
        let p = read(
            &["tags: a, a,, ", "node: n0", "flow: f1", "tag: b", "node: n1"],
            Dialect::Llmutils,
        );
        assert_eq!(p.tags, ["a", "a", "b", "flow:f1", "node:n1"]);
        assert_eq!(p.metadata["tags"], "a, a,,");
        assert_eq!((p.flow.as_str(), p.node.as_str()), ("f1", "n1"));
    }

    #[test]
    fn a_changed_param_is_warned_about_once_in_standard() {
        let comments = [" param: a=1, b=2", " param: a=1", " param: a=3, b=2, a=4", " param: a=5"];
        let p = read(&comments, Dialect::Standard);
        assert_eq!((p.params["a"].as_str(), p.params["b"].as_str()), ("5", "2"));
        let warnings: Vec<_> = p.warnings.iter().map(|w| (w.key(), w.line(), w.column())).collect();
        assert_eq!(warnings, [("a", 3, 9)]);
        assert!(p.warnings[0].message().contains("`3`, overrides `1` (first set on line 1)"));
        assert!(read(&comments, Dialect::Llmutils).warnings.is_empty());
        // `PARAM:` is the same directive in Standard.
        let p = read(&[" PARAM: é=1", " param: é=2"], Dialect::Standard);
        assert_eq!((p.warnings.len(), p.warnings[0].column()), (1, 9));
    }

    #[test]
    fn columns_of_many_warnings_on_one_line_count_characters() {
        let line = " param: é=1, ü=1, é=2, ü=2";
        let p = read(&[line], Dialect::Standard);
        let columns: Vec<_> = p.warnings.iter().map(|w| w.column()).collect();
        assert_eq!(columns, [19, 24]);
    }

    #[test]
    fn multibyte_text_is_safe() {
        let p = read(&["é", "param:é=ü,", "ñ: x", "pa"], Dialect::Standard);
        assert_eq!(p.params["é"], "ü");
        assert!(p.metadata.is_empty());
    }
}
