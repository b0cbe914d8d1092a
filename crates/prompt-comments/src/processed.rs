//! The result of processing a prompt: the cleaned text and its directives.

use std::borrow::Cow;
use std::collections::BTreeMap;

use prompt_core::text::Deletions;
use serde::{Deserialize, Serialize};

use crate::directive::Directive;
use crate::warning::Warning;

/// A prompt with its `///` comments removed, and what its directives said.
///
/// Serializes (with serde) to the CLI's `--json` shape, keys in this order:
/// `{"cleaned", "params", "metadata", "flow", "node", "tags"}`.
///
/// `params` and `metadata` are [`BTreeMap`]s, so their keys come out sorted
/// (by bytes). Sorting makes the JSON independent of the order the author
/// happened to write the directives in, so equal metadata gives equal bytes
/// (diffs, caches and golden files stay stable). It is also the order Go's
/// `encoding/json` writes llmutils' maps in, and it needs nothing beyond std.
///
/// ```
/// let p = prompt_comments::process("/// param: temperature=0.7, max_tokens=1000\nHi");
/// let json = serde_json::to_string(&p)?;
/// assert_eq!(
///     json,
///     r#"{"cleaned":"Hi","params":{"max_tokens":"1000","temperature":"0.7"},"metadata":{},"flow":"","node":"","tags":[]}"#
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Processed<'a> {
    /// The prompt without its comments. Borrowed from the input whenever the
    /// result is a piece of it (always when the input has no `///`).
    pub cleaned: Cow<'a, str>,
    /// `/// param: key=value, key2=value2` assignments; the last one wins.
    pub params: BTreeMap<String, String>,
    /// Every other `/// key: value` comment, keys lowercased; the last one
    /// wins. `flow`, `node`, `tag` and `tags` are recorded here too.
    pub metadata: BTreeMap<String, String>,
    /// The last `/// flow:` value; empty when there is none.
    pub flow: String,
    /// The last `/// node:` value; empty when there is none.
    pub node: String,
    /// Every `/// tag:`/`/// tags:` item in order (duplicates kept), then
    /// `flow:<flow>` and `node:<node>` when those are set.
    pub tags: Vec<String>,
    /// What deserves a look, in text order (`Standard`: a `/// param:` key
    /// set again to another value, once per key). Not part of the JSON
    /// shape: the CLI prints warnings on standard error.
    #[serde(skip)]
    pub warnings: Vec<Warning>,
    /// Every directive read, in text order, each with its span in the
    /// input (a `/// param:` comment gives one per assignment). Not part of
    /// the JSON shape.
    #[serde(skip)]
    pub directives: Vec<Directive<'a>>,
    /// What was deleted from the input to make `cleaned` (comments, the
    /// blanks before them, full comment lines with their endings, the `\`
    /// of `\///`, a leading byte order mark): maps any offset of `cleaned`
    /// back to the input. Not part of the JSON shape.
    ///
    /// ```
    /// let text = "/// flow: x\nHello [[ oops /// draft\n";
    /// let p = prompt_comments::process(text);
    /// let at = p.cleaned.find("[[").unwrap();
    /// assert_eq!(&text[p.deletions.to_input(at)..][..2], "[[");
    /// ```
    #[serde(skip)]
    pub deletions: Deletions,
}

impl Processed<'_> {
    /// The same result owning its text, free of the input's lifetime.
    pub fn into_owned(self) -> Processed<'static> {
        Processed {
            cleaned: Cow::Owned(self.cleaned.into_owned()),
            params: self.params,
            metadata: self.metadata,
            flow: self.flow,
            node: self.node,
            tags: self.tags,
            warnings: self.warnings,
            directives: self.directives.into_iter().map(Directive::into_owned).collect(),
            deletions: self.deletions,
        }
    }
}
