//! Reading directives out of comment text: `param: k=v, ...`, then any
//! `key: value`, with `flow`, `node` and `tag(s)` as special keys.

use std::borrow::Cow;
use std::collections::BTreeMap;

use prompt_core::text::{Deletions, Span, reserve_at_rate};

use crate::dialect::Dialect;
use crate::directive::{Directive, DirectiveKind};
use crate::processed::Processed;
use crate::trim::trim;
use crate::warning::Warning;

/// What the comments of one prompt said, gathered in reading order.
#[derive(Debug, Default)]
pub(crate) struct Directives<'a> {
    params: BTreeMap<String, String>,
    metadata: BTreeMap<String, String>,
    flow: String,
    node: String,
    tags: Vec<String>,
    warnings: Vec<Warning>,
    directives: Vec<Directive<'a>>,
    /// `Standard`: the line where each param key was first set, and whether
    /// its override was warned about (once per key keeps warnings bounded
    /// by the keys).
    param_origins: BTreeMap<String, ParamOrigin>,
}

#[derive(Debug)]
struct ParamOrigin {
    line: usize,
    warned: bool,
}

/// Where a comment sits in the text: directives and warnings point into it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place<'t> {
    /// The whole text; comments are slices of it.
    pub(crate) text: &'t str,
    /// The 1-based line of the comment.
    pub(crate) line: usize,
}

impl Place<'_> {
    /// The span of `part`, a slice of the text.
    fn span_of(self, part: &str) -> Span {
        let start = (part.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize);
        Span::new(start, start + part.len())
    }
}

impl<'a> Directives<'a> {
    /// Reads one comment: `text` is everything after its `///`, a slice of
    /// `place.text`.
    pub(crate) fn read(&mut self, text: &'a str, dialect: Dialect, place: Place<'a>) {
        let comment = trim(text);
        if let Some(list) = param_list(comment, dialect) {
            self.read_params(list, dialect, place);
        } else if let Some((key, value)) = key_value(comment) {
            self.read_key_value(&key, value);
            let span = place.span_of(comment);
            let (key, value) = (key, Cow::Borrowed(value));
            self.record(Directive { kind: DirectiveKind::Metadata, key, value, span }, place);
        }
        // Anything else is a plain comment: nothing to record.
    }

    fn read_params(&mut self, list: &'a str, dialect: Dialect, place: Place<'a>) {
        let pieces = Pieces { rest: Some(trim(list)), json: dialect.splits_params_on_json() };
        for pair in pieces {
            // A piece without `=` (or with an empty key) is not an assignment.
            let pair = trim(pair);
            let Some((key, value)) = pair.split_once('=') else { continue };
            let key = trim(key);
            if !key.is_empty() {
                let value = trim(value);
                if dialect.warns_on_duplicate_params() {
                    self.note_param(key, value, place);
                }
                set(&mut self.params, key, value);
                let span = place.span_of(pair);
                let (key, value) = (Cow::Borrowed(key), Cow::Borrowed(value));
                self.record(Directive { kind: DirectiveKind::Param, key, value, span }, place);
            }
        }
    }

    /// Adds `directive` to the list, which is sized from the rate of
    /// directives in the text so far ([`reserve_at_rate`]): a dense 10 MiB
    /// prompt holds 74 000 directives of 72 bytes.
    fn record(&mut self, directive: Directive<'a>, place: Place<'_>) {
        reserve_at_rate(&mut self.directives, directive.span.start, place.text.len());
        self.directives.push(directive);
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
        let span = place.span_of(key);
        self.warnings.push(Warning::duplicate_param(key, previous, value, origin.line, span));
    }

    fn read_key_value(&mut self, key: &str, value: &str) {
        match key {
            "flow" => value.clone_into(&mut self.flow),
            "node" => value.clone_into(&mut self.node),
            "tag" | "tags" => self.tags.extend(
                value.split(',').map(trim).filter(|tag| !tag.is_empty()).map(str::to_owned),
            ),
            _ => {}
        }
        set(&mut self.metadata, key, value);
    }

    /// The result, with the `flow:` and `node:` auto-tags appended from the
    /// final values.
    pub(crate) fn finish<'c>(mut self, cleaned: Cow<'c, str>, deletions: Deletions) -> Processed<'c>
    where
        'a: 'c,
    {
        if !self.flow.is_empty() {
            self.tags.push(format!("flow:{}", self.flow));
        }
        if !self.node.is_empty() {
            self.tags.push(format!("node:{}", self.node));
        }
        let Directives { params, metadata, flow, node, tags, warnings, directives, .. } = self;
        Processed { cleaned, params, metadata, flow, node, tags, warnings, directives, deletions }
    }
}

/// The comma-separated pieces of a `param:` list, as `str::split(',')`
/// gives them; with `json`, splitting only at commas outside `[...]`,
/// `{...}` and double-quoted strings (with `\"` escapes), so a JSON value
/// stays whole. Unbalanced brackets keep the rest as one piece (the value is
/// then refused where it is typed, never cut silently). Linear, and it
/// allocates nothing: a file of dense `param:` comments reads one list per
/// line.
struct Pieces<'a> {
    /// What is left to split; `None` once the last piece was given.
    rest: Option<&'a str>,
    json: bool,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        let cut =
            if self.json { top_level_comma(rest) } else { memchr::memchr(b',', rest.as_bytes()) };
        match cut {
            Some(i) => {
                self.rest = Some(&rest[i + 1..]);
                Some(&rest[..i])
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

/// The first comma of `list` outside brackets and strings. A piece always
/// starts outside both (a cut is only made there), so the scan of the next
/// piece starts from a clean state.
fn top_level_comma(list: &str) -> Option<usize> {
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    for (i, b) in list.bytes().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
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
    Some((key, trim(rest)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The comments read one per line, as after `///` on lines of one text.
    fn read(comments: &[&str], dialect: Dialect) -> Processed<'static> {
        let text = comments.join("\n");
        let mut directives = Directives::default();
        let mut start = 0;
        for (i, comment) in comments.iter().enumerate() {
            let comment = &text[start..start + comment.len()];
            directives.read(comment, dialect, Place { text: &text, line: i + 1 });
            start += comment.len() + 1;
        }
        let processed = directives.finish(Cow::Borrowed(""), Deletions::new());
        processed.into_owned()
    }

    /// The 1-based line and column of each warning in the comments.
    fn places(comments: &[&str], p: &Processed<'_>) -> Vec<(usize, usize)> {
        let text = comments.join("\n");
        let place = |w: &Warning| prompt_core::text::position(&text, w.span().start);
        p.warnings.iter().map(place).map(|at| (at.line, at.column)).collect()
    }

    #[test]
    fn params_split_on_every_comma() {
        let p =
            read(&[" param: stop=END,STOP, flag, =orphan, empty=, a = b = c"], Dialect::Llmutils);
        let params: Vec<_> = p.params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(params, [("a", "b = c"), ("empty", ""), ("stop", "END")]);
        assert!(p.metadata.is_empty());
    }

    proptest::proptest! {
        /// Without JSON, the pieces are exactly `split(',')`'s; with it,
        /// they still cover the list, separated by single commas.
        #[test]
        fn pieces_cover_the_list(list in "[a-z,\\[\\]{}\"\\\\ ]{0,24}") {
            let plain: Vec<_> = Pieces { rest: Some(&list), json: false }.collect();
            proptest::prop_assert_eq!(&plain, &list.split(',').collect::<Vec<_>>());
            let json: Vec<_> = Pieces { rest: Some(&list), json: true }.collect();
            proptest::prop_assert_eq!(json.join(","), list);
        }
    }

    #[test]
    fn standard_params_keep_json_values_whole() {
        let p = read(
            &[
                r#" param: stop=["a, b", "]"], logit_bias={"1": -1, "2": 3}, temperature=0.2, s="x, y""#,
            ],
            Dialect::Standard,
        );
        let params: Vec<_> = p.params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            params,
            [
                ("logit_bias", r#"{"1": -1, "2": 3}"#),
                ("s", r#""x, y""#),
                ("stop", r#"["a, b", "]"]"#),
                ("temperature", "0.2")
            ]
        );
        // Unbalanced: the rest is one piece, refused where it is typed.
        let p = read(&[" param: stop=[\"a\", top_p=1"], Dialect::Standard);
        assert_eq!(p.params["stop"], "[\"a\", top_p=1");
        // llmutils still splits on every comma.
        let p = read(&[r#" param: stop=["a","b"]"#], Dialect::Llmutils);
        assert_eq!(p.params["stop"], r#"["a""#);
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
        let keys: Vec<_> = p.warnings.iter().map(Warning::key).collect();
        assert_eq!((keys, places(&comments, &p)), (vec!["a"], vec![(3, 9)]));
        assert!(p.warnings[0].message().contains("`3`, overrides `1` (first set on line 1)"));
        assert!(read(&comments, Dialect::Llmutils).warnings.is_empty());
        // `PARAM:` is the same directive in Standard.
        let comments = [" PARAM: é=1", " param: é=2"];
        let p = read(&comments, Dialect::Standard);
        assert_eq!(places(&comments, &p), [(2, 9)]);
    }

    #[test]
    fn columns_of_many_warnings_on_one_line_count_characters() {
        let line = " param: é=1, ü=1, é=2, ü=2";
        let p = read(&[line], Dialect::Standard);
        assert_eq!(places(&[line], &p), [(1, 19), (1, 24)]);
    }

    #[test]
    fn multibyte_text_is_safe() {
        let p = read(&["é", "param:é=ü,", "ñ: x", "pa"], Dialect::Standard);
        assert_eq!(p.params["é"], "ü");
        assert!(p.metadata.is_empty());
    }
}
