//! The two dialects and the nine decision points where they differ.
//!
//! Both dialects run the same scanner ([`crate::scanner`]) and the same
//! directive reader ([`crate::directives`]). Every place where they part ways
//! asks one of the small predicates below, so the list of differences in the
//! crate docs is exactly the list of these methods.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Which rules to follow: the suite's own ([`Dialect::Standard`], the
/// default) or the Go package llmutils' byte for byte ([`Dialect::Llmutils`]).
///
/// Every operation of the crate is a method on `Dialect`; the free functions
/// ([`crate::process`], [`crate::strip`], ...) use [`Dialect::Standard`].
///
/// ```
/// use prompt_comments::Dialect;
///
/// let text = "Open file:///etc/hosts /// where the hosts live";
/// assert_eq!(Dialect::Llmutils.strip(text), "Open file:");
/// assert_eq!(Dialect::Standard.strip(text), "Open file:///etc/hosts");
/// assert_eq!("llmutils".parse::<Dialect>()?, Dialect::Llmutils);
/// # Ok::<(), prompt_comments::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// The suite's behaviour: llmutils with nine deliberate differences
    /// (listed in the crate docs), each fixing a way in which llmutils loses
    /// or leaks text, or changes it silently.
    #[default]
    Standard,
    /// The Go package llmutils (`github.com/patdeg/common/llmutils`),
    /// reproduced byte for byte, quirks included.
    Llmutils,
}

impl Dialect {
    /// Both dialects, `Standard` first.
    pub const ALL: [Dialect; 2] = [Dialect::Standard, Dialect::Llmutils];

    /// The dialect's name as the CLI spells it: `standard` or `llmutils`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Standard => "standard",
            Dialect::Llmutils => "llmutils",
        }
    }

    fn is_standard(self) -> bool {
        self == Dialect::Standard
    }

    /// Difference 1: a `///` glued to the character before it (one that is
    /// not whitespace) is text, so URLs of any scheme, base64 payloads and
    /// `word///x` keep it; a marker starts a line or follows whitespace.
    /// llmutils protects only `http:///` and `https:///`.
    pub(crate) fn glued_marker_is_text(self) -> bool {
        self.is_standard()
    }

    /// Difference 2: `///` inside a Markdown code span or fenced code block
    /// is text.
    pub(crate) fn code_is_text(self) -> bool {
        self.is_standard()
    }

    /// Difference 3: `\///` writes a literal `///`.
    pub(crate) fn has_escape(self) -> bool {
        self.is_standard()
    }

    /// Difference 4: `\r\n` is one line ending, so a cut line keeps it.
    /// llmutils splits on `\n` only and treats `\r` as text.
    pub(crate) fn crlf_is_line_ending(self) -> bool {
        self.is_standard()
    }

    /// Difference 5: llmutils' `StripComments` drops every blank line;
    /// `Standard` keeps them, as `Process` does.
    pub(crate) fn strip_drops_blank_lines(self) -> bool {
        !self.is_standard()
    }

    /// Difference 6: the `text` parts of array content are stripped too.
    pub(crate) fn strips_text_parts(self) -> bool {
        self.is_standard()
    }

    /// Difference 7: `param:` is matched ignoring ASCII case.
    pub(crate) fn param_ignores_case(self) -> bool {
        self.is_standard()
    }

    /// Difference 8: a leading byte order mark is not part of the text.
    /// llmutils keeps it (as Go's strings do), so a first-line comment
    /// after it is an inline one.
    pub(crate) fn ignores_byte_order_mark(self) -> bool {
        self.is_standard()
    }

    /// Difference 9: a `/// param:` key set again to another value is a
    /// [`WarningKind::DuplicateParam`](crate::WarningKind::DuplicateParam)
    /// (the last value still wins, as in llmutils).
    pub(crate) fn warns_on_duplicate_params(self) -> bool {
        self.is_standard()
    }

    /// Whether a `param:` list splits on commas only outside brackets and
    /// strings (Standard: `stop=["a","b"], temperature=0.2` is two
    /// assignments), or on every comma (llmutils).
    pub(crate) fn splits_params_on_json(self) -> bool {
        self.is_standard()
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Dialect {
    type Err = Error;

    /// Parses `standard` or `llmutils`, ignoring ASCII case.
    fn from_str(name: &str) -> Result<Dialect, Error> {
        Dialect::ALL
            .into_iter()
            .find(|dialect| dialect.as_str().eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::unknown_dialect(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn names_round_trip() {
        for dialect in Dialect::ALL {
            assert_eq!(dialect.as_str().parse::<Dialect>().unwrap(), dialect);
            assert_eq!(dialect.to_string(), dialect.as_str());
        }
        assert_eq!("LLMUTILS".parse::<Dialect>().unwrap(), Dialect::Llmutils);
        assert_eq!(Dialect::default(), Dialect::Standard);
    }

    #[test]
    fn unknown_names_are_rejected() {
        let err = "go".parse::<Dialect>().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnknownDialect);
        assert_eq!(err.snippet(), "go");
        assert_eq!(err.to_string(), "unknown dialect `go` (expected `standard` or `llmutils`)");
    }

    #[test]
    fn serde_uses_the_cli_names() {
        assert_eq!(serde_json::to_string(&Dialect::Llmutils).unwrap(), "\"llmutils\"");
        let dialect: Dialect = serde_json::from_str("\"standard\"").unwrap();
        assert_eq!(dialect, Dialect::Standard);
    }

    #[test]
    fn the_dialects_differ_at_exactly_nine_points() {
        let points = |d: Dialect| {
            [
                d.glued_marker_is_text(),
                d.code_is_text(),
                d.has_escape(),
                d.crlf_is_line_ending(),
                !d.strip_drops_blank_lines(),
                d.strips_text_parts(),
                d.param_ignores_case(),
                d.ignores_byte_order_mark(),
                d.warns_on_duplicate_params(),
            ]
        };
        assert_eq!(points(Dialect::Standard), [true; 9]);
        assert_eq!(points(Dialect::Llmutils), [false; 9]);
    }
}
