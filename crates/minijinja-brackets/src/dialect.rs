//! The two independent knobs of a template's language: its [`Syntax`] (how
//! tags are spelled) and its [`Profile`] (what the language means).

use std::sync::Arc;

/// How a template spells its tags. One lexer and one parser serve both.
///
/// | | `Brackets` (default) | `Jinja` |
/// |---|---|---|
/// | print | `[[ expr ]]` | `{{ expr }}` |
/// | statement | `[% stmt %]` | `{% stmt %}` |
/// | comment | `[# note #]` | `{# note #}` |
/// | filter | `value -> f` | `value \| f` |
///
/// With `Jinja`, the template text is read as Jinja2's lexer reads it:
/// every line ending (`\r\n`, `\r`) becomes `\n`, one final newline is
/// dropped, and `trim_blocks` leaves the newline after `{% raw %}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// `[[ ]]`, `[% %]`, `[# #]`, `->`.
    #[default]
    Brackets,
    /// `{{ }}`, `{% %}`, `{# #}`, `|`.
    Jinja,
}

impl Syntax {
    /// The byte that opens a tag (`[` or `{`), doubled or followed by `%`/`#`.
    pub(crate) fn open(self) -> u8 {
        match self {
            Syntax::Brackets => b'[',
            Syntax::Jinja => b'{',
        }
    }

    /// The byte that closes a print tag (`]` or `}`), doubled.
    pub(crate) fn close(self) -> u8 {
        match self {
            Syntax::Brackets => b']',
            Syntax::Jinja => b'}',
        }
    }

    /// The filter operator.
    pub(crate) fn pipe(self) -> &'static str {
        match self {
            Syntax::Brackets => "->",
            Syntax::Jinja => "|",
        }
    }

    /// `open` + `second` as text (`[%`, `{{`), for messages.
    pub(crate) fn opener(self, second: u8) -> String {
        String::from_utf8_lossy(&[self.open(), second]).into_owned()
    }

    /// `first` + `close`-side byte as text (`%]`, `}}`), for messages.
    pub(crate) fn closer(self, first: u8) -> String {
        String::from_utf8_lossy(&[first, self.close()]).into_owned()
    }

    /// The source as this syntax reads it: Jinja's line endings made `\n`
    /// and one final newline dropped (Jinja2's `keep_trailing_newline` is
    /// off by default); the brackets keep the text as it is.
    pub(crate) fn normalize(self, source: Arc<str>) -> Arc<str> {
        if self == Syntax::Brackets || !(source.contains('\r') || source.ends_with('\n')) {
            return source;
        }
        let mut text = source.replace("\r\n", "\n").replace('\r', "\n");
        if text.ends_with('\n') {
            text.pop();
        }
        Arc::from(text)
    }
}

/// What a template's language means: the reference's rules (the default)
/// or Jinja2's, for templates written for Python's Jinja2 (chat templates).
///
/// `Jinja2` differs from `Reference` in: `set` is scoped as in Jinja2
/// (block, loop and macro locals; `namespace` carries a value out) and
/// writes no store; there are no stores (`L`, `G`), no `chance`/`weighted`
/// and no `qr`/`st` (a syntax error naming the profile); values print as
/// Python prints them (`True`, `None`, `['a', 1]`, `2.0`); strings, maps
/// and lists have the methods Jinja2's sandbox allows (`s.strip()`,
/// `m.items()`, ...), and mutating ones are refused; undefined follows
/// Jinja2 (an attribute of undefined is an error); adjacent string
/// literals join; `tojson`, `round` and `format` are Python's; the
/// functions `raise_exception` and `strftime_now` and the
/// `generation` block exist. See docs/language.md, "the Jinja2 profile".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Profile {
    /// The language of docs/language.md.
    #[default]
    Reference,
    /// Jinja2's semantics, as transformers renders chat templates.
    Jinja2,
}

impl Profile {
    /// The profile's name as users write it (`reference`, `jinja2`).
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Reference => "reference",
            Profile::Jinja2 => "jinja2",
        }
    }
}

/// The syntax and the profile a template is compiled with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Dialect {
    pub(crate) syntax: Syntax,
    pub(crate) profile: Profile,
}
