//! What one directive said, and where it was written.

use std::borrow::Cow;

use prompt_core::text::Span;

/// Which kind of directive a [`Directive`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DirectiveKind {
    /// One `key=value` assignment of a `/// param:` comment (which holds
    /// one per comma-separated piece); it went to [`Processed::params`](crate::Processed::params).
    Param,
    /// A `/// key: value` comment; it went to
    /// [`Processed::metadata`](crate::Processed::metadata) (and `flow`,
    /// `node` or `tags` for those keys).
    Metadata,
}

/// One directive of a prompt, in text order, with the span it was written
/// at: what a later stage needs to point at the directive that set a value
/// (an invalid `temperature`, say) without reading the comments again.
///
/// ```
/// use prompt_comments::DirectiveKind;
///
/// let text = "Hi /// param: temperature=hot, top_p = 1\n/// Flow: checkout\n";
/// let p = prompt_comments::process(text);
/// let found: Vec<_> = p
///     .directives
///     .iter()
///     .map(|d| (d.kind, d.key.as_ref(), d.value.as_ref(), &text[d.span.range()]))
///     .collect();
/// assert_eq!(
///     found,
///     [
///         (DirectiveKind::Param, "temperature", "hot", "temperature=hot"),
///         (DirectiveKind::Param, "top_p", "1", "top_p = 1"),
///         (DirectiveKind::Metadata, "flow", "checkout", "Flow: checkout"),
///     ]
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Directive<'a> {
    /// A param assignment or a metadata entry.
    pub kind: DirectiveKind,
    /// The key as the result records it: a param key as written, a
    /// metadata key lowercased.
    pub key: Cow<'a, str>,
    /// The value as the result records it (trimmed).
    pub value: Cow<'a, str>,
    /// The bytes of the input the directive was written as: `key=value` of
    /// a param piece, `key: value` of a metadata comment (trimmed, from the
    /// key as written to the end of the value).
    pub span: Span,
}

impl Directive<'_> {
    /// The same directive owning its text, free of the input's lifetime.
    pub fn into_owned(self) -> Directive<'static> {
        Directive {
            kind: self.kind,
            key: Cow::Owned(self.key.into_owned()),
            value: Cow::Owned(self.value.into_owned()),
            span: self.span,
        }
    }
}
