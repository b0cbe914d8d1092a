//! The text operations: processing, stripping, and extracting directives.
//! Each is a method of [`Dialect`], with a free function for the default
//! (`Standard`) dialect beside it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use prompt_core::text::{Deletions, Span};

use crate::dialect::Dialect;
use crate::directives::Directives;
use crate::processed::Processed;
use crate::scanner::{Cleaning, clean};

impl Dialect {
    /// Removes the comments of `text` and reads its directives (llmutils'
    /// `Process`).
    ///
    /// A full-line comment disappears with its line ending; an inline
    /// comment is cut with the spaces and tabs before it. Every other line,
    /// blank ones included, is kept exactly as written.
    ///
    /// ```
    /// use prompt_comments::Dialect;
    ///
    /// let p = Dialect::Llmutils.process("/// flow: support\nAnswer briefly. /// tone\n");
    /// assert_eq!(p.cleaned, "Answer briefly.\n");
    /// assert_eq!(p.flow, "support");
    /// assert_eq!(p.tags, ["flow:support"]);
    /// ```
    pub fn process(self, text: &str) -> Processed<'_> {
        let mut directives = Directives::default();
        let (cleaned, deletions) = clean(text, self, Cleaning::Process, Some(&mut directives));
        directives.finish(cleaned, deletions)
    }

    /// Removes the comments of `text` without reading directives (llmutils'
    /// `StripComments`). Text without `///` comes back borrowed.
    ///
    /// llmutils also drops every blank line here, even in text without
    /// comments; `Standard` keeps them, so its result equals
    /// [`Dialect::process`]'s `cleaned`.
    ///
    /// ```
    /// use prompt_comments::Dialect;
    ///
    /// let text = "Para one. /// draft\n\nPara two.";
    /// assert_eq!(Dialect::Standard.strip(text), "Para one.\n\nPara two.");
    /// assert_eq!(Dialect::Llmutils.strip(text), "Para one.\nPara two.");
    /// ```
    pub fn strip(self, text: &str) -> Cow<'_, str> {
        clean(text, self, Cleaning::Strip, None).0
    }

    /// [`Dialect::strip`], with what it deleted from `text` (in llmutils,
    /// the blank lines it drops too), so that an offset in the result maps
    /// back to `text`.
    ///
    /// ```
    /// use prompt_comments::Dialect;
    ///
    /// let text = "Para one. /// draft\n\nPara two.";
    /// let (stripped, deletions) = Dialect::Llmutils.strip_with_deletions(text);
    /// assert_eq!(stripped, "Para one.\nPara two.");
    /// let at = stripped.find("two").unwrap();
    /// assert_eq!(&text[deletions.to_input(at)..], "two.");
    /// ```
    pub fn strip_with_deletions(self, text: &str) -> (Cow<'_, str>, Deletions) {
        clean(text, self, Cleaning::Strip, None)
    }

    /// The `/// param:` assignments of `text` (llmutils' `ExtractParams`).
    ///
    /// ```
    /// use prompt_comments::Dialect;
    ///
    /// let params = Dialect::Standard.extract_params("/// param: temperature=0.7, max_tokens=1000");
    /// assert_eq!(params["temperature"], "0.7");
    /// assert_eq!(params["max_tokens"], "1000");
    /// ```
    pub fn extract_params(self, text: &str) -> BTreeMap<String, String> {
        self.process(text).params
    }

    /// Every directive of `text`, with `cleaned` left empty (llmutils'
    /// `ExtractMetadata`): its deletions are then the whole input.
    ///
    /// ```
    /// use prompt_comments::Dialect;
    ///
    /// let p = Dialect::Standard.extract_metadata("/// node: payment\nPay now.");
    /// assert_eq!((p.cleaned.as_ref(), p.node.as_str()), ("", "payment"));
    /// ```
    pub fn extract_metadata(self, text: &str) -> Processed<'static> {
        let mut directives = Directives::default();
        // Only the directives are wanted; the cleaned text is dropped here.
        drop(clean(text, self, Cleaning::Process, Some(&mut directives)));
        let mut everything = Deletions::new();
        everything.push(Span::new(0, text.len()));
        directives.finish(Cow::Borrowed(""), everything).into_owned()
    }
}

/// [`Dialect::process`] in the `Standard` dialect.
pub fn process(text: &str) -> Processed<'_> {
    Dialect::Standard.process(text)
}

/// [`Dialect::strip`] in the `Standard` dialect.
pub fn strip(text: &str) -> Cow<'_, str> {
    Dialect::Standard.strip(text)
}

/// [`Dialect::extract_params`] in the `Standard` dialect.
pub fn extract_params(text: &str) -> BTreeMap<String, String> {
    Dialect::Standard.extract_params(text)
}

/// [`Dialect::extract_metadata`] in the `Standard` dialect.
pub fn extract_metadata(text: &str) -> Processed<'static> {
    Dialect::Standard.extract_metadata(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_marker_means_borrowed() {
        for dialect in Dialect::ALL {
            let text = "Line one.\nLine two // two slashes\n";
            assert!(matches!(dialect.process(text).cleaned, Cow::Borrowed(t) if t == text));
        }
        assert!(matches!(strip("a\n\nb"), Cow::Borrowed(_)));
        assert!(matches!(Dialect::Llmutils.strip("a\nb"), Cow::Borrowed(_)));
        assert!(matches!(Dialect::Llmutils.strip("a\n\nb"), Cow::Owned(_)));
    }

    #[test]
    fn a_comment_header_is_sliced_off_without_copying() {
        let cleaned = process("/// flow: x\n/// node: y\nHello\n").cleaned;
        assert!(matches!(cleaned, Cow::Borrowed("Hello\n")));
    }

    #[test]
    fn separators_follow_llmutils_join() {
        let d = Dialect::Llmutils;
        assert_eq!(d.process("a\n/// c").cleaned, "a");
        assert_eq!(d.process("a\n/// c\n").cleaned, "a\n");
        assert_eq!(d.process("/// c\n\nA\n\nB").cleaned, "\nA\n\nB");
        assert_eq!(d.process("").cleaned, "");
        assert_eq!(d.process("/// only\n").cleaned, "");
        assert_eq!(d.strip("").as_ref(), "");
        assert_eq!(d.strip(" \n\t\n").as_ref(), "");
    }

    #[test]
    fn the_directive_list_is_sized_from_the_text() {
        // Grown by doubling, 4 100 directives would take a list of 8 192.
        let prose = "A line of prose: most of a prompt is text, not directives.\n";
        let unit = "/// flow: f\nText /// note\n/// param: a=1, b = 2, c\n/// Tag: x, y\n";
        let unit = format!("{unit}{}", prose.repeat(4));
        let text = unit.repeat(1025);
        let p = process(&text);
        assert_eq!(p.directives.len(), 4100);
        assert!(p.directives.capacity() <= 4100 + 4100 / 8, "{}", p.directives.capacity());
        assert_eq!(p.deletions.spans().len(), 3 * 1025);
    }

    #[test]
    fn extract_metadata_empties_cleaned() {
        let p = Dialect::Llmutils.extract_metadata("x /// tag: a\n");
        assert_eq!(p.cleaned, "");
        assert_eq!(p.tags, ["a"]);
        assert_eq!(extract_params("/// param: a=1").len(), 1);
        assert_eq!(extract_metadata("/// k: v").metadata["k"], "v");
    }
}
