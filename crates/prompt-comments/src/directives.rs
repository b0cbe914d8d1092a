//! Reading directives out of comment text: `param: k=v, ...`, then any
//! `key: value`, with `flow`, `node` and `tag(s)` as special keys.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::dialect::Dialect;
use crate::processed::Processed;

/// What the comments of one prompt said, gathered in reading order.
#[derive(Debug, Default)]
pub(crate) struct Directives {
    params: BTreeMap<String, String>,
    metadata: BTreeMap<String, String>,
    flow: String,
    node: String,
    tags: Vec<String>,
}

impl Directives {
    /// Reads one comment: `text` is everything after its `///`.
    pub(crate) fn read(&mut self, text: &str, dialect: Dialect) {
        let comment = text.trim();
        if let Some(list) = param_list(comment, dialect) {
            self.read_params(list);
        } else if let Some((key, value)) = key_value(comment) {
            self.read_key_value(key, value);
        }
        // Anything else is a plain comment: nothing to record.
    }

    fn read_params(&mut self, list: &str) {
        for pair in list.trim().split(',') {
            // A piece without `=` (or with an empty key) is not an assignment.
            let Some((key, value)) = pair.trim().split_once('=') else { continue };
            let key = key.trim();
            if !key.is_empty() {
                set(&mut self.params, key, value.trim());
            }
        }
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
        let Directives { params, metadata, flow, node, tags } = self;
        Processed { cleaned, params, metadata, flow, node, tags }
    }
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
        for comment in comments {
            directives.read(comment, dialect);
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
    fn multibyte_text_is_safe() {
        let p = read(&["é", "param:é=ü,", "ñ: x", "pa"], Dialect::Standard);
        assert_eq!(p.params["é"], "ü");
        assert!(p.metadata.is_empty());
    }
}
