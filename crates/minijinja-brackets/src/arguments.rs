//! Binding call arguments to parameter names, shared by filters, tests,
//! functions and macros so they all report arity errors the same way.

use std::collections::HashMap;

use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::value::{Repr, Value};

/// How many names a lookup scans before a hash index pays off.
const SCAN: usize = 8;

/// Finds a name among many parameter or loop names in O(1): a macro or a
/// loop may bind thousands, and every read of a name looks among them.
/// Empty (and unused) for a few names, which a scan finds faster.
#[derive(Debug, Default)]
pub(crate) struct NameIndex<'a>(HashMap<&'a str, usize>);

impl<'a> NameIndex<'a> {
    /// The index of `names`, or none when they are few enough to scan.
    pub(crate) fn of(names: impl ExactSizeIterator<Item = &'a str>) -> NameIndex<'a> {
        if names.len() <= SCAN {
            return NameIndex::default();
        }
        let mut index = HashMap::with_capacity(names.len());
        for (position, name) in names.enumerate() {
            // The first of repeated names wins, as a scan would find it.
            index.entry(name).or_insert(position);
        }
        NameIndex(index)
    }

    /// Records a name bound after the index was made: the index grows with
    /// it, and is built once the names are too many to scan, so binding
    /// many names one by one stays linear.
    /// `name` is at `position`; `all` gives every name in order (asked
    /// once, when the index is built).
    pub(crate) fn add<I>(&mut self, name: &'a str, position: usize, all: impl FnOnce() -> I)
    where
        I: ExactSizeIterator<Item = &'a str>,
    {
        if !self.0.is_empty() {
            self.0.entry(name).or_insert(position);
        } else if position >= SCAN {
            *self = NameIndex::of(all());
        }
    }

    /// The position of `name`, from the index or, without one, from `scan`.
    pub(crate) fn position(
        &self,
        name: &str,
        scan: impl FnOnce() -> Option<usize>,
    ) -> Option<usize> {
        if self.0.is_empty() { scan() } else { self.0.get(name).copied() }
    }
}

/// The evaluated arguments of a call of a filter, test or function:
/// positional first, then `name=value` keyword arguments, with the
/// [`Limits`] the render runs under (what a callee builds must respect
/// them). Built-in and host filters, tests and functions all receive them.
///
/// ```
/// use minijinja_brackets::{Arguments, Environment, Value};
///
/// let mut env = Environment::new();
/// env.add_filter("pad", |value: Value, args: Arguments<'_>| {
///     let [width] = args.bind("filter `pad`", ["width"])?;
///     let width = width.as_i64().unwrap_or(8) as usize;
///     Ok(Value::from(format!("{:>width$}", value.to_string())))
/// });
/// let out = env.render_str("[[ 'ab' -> pad(width=4) ]]", &Default::default(), 0)?;
/// assert_eq!(out.output, "  ab");
/// # Ok::<(), minijinja_brackets::Error>(())
/// ```
pub struct Arguments<'a> {
    pub(crate) positional: Vec<Value>,
    pub(crate) keywords: Vec<(&'a str, Value)>,
    pub(crate) limits: &'a Limits,
}

impl std::fmt::Debug for Arguments<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arguments")
            .field("positional", &self.positional)
            .field("keywords", &self.keywords)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl<'a> Arguments<'a> {
    /// The positional arguments, in order.
    pub fn positional(&self) -> &[Value] {
        &self.positional
    }

    /// The keyword arguments, in the order written.
    pub fn keywords(&self) -> &[(&'a str, Value)] {
        &self.keywords
    }

    /// The keyword argument `name`, if given.
    pub fn keyword(&self, name: &str) -> Option<&Value> {
        self.keywords.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The limits of the render that makes the call.
    pub fn limits(&self) -> &'a Limits {
        self.limits
    }

    /// Binds the arguments to `names` in order; `None` where an argument is
    /// missing. Too many positional arguments, an unknown keyword or a
    /// parameter given twice is a `bad_arguments` error naming the callee,
    /// whose description is built only for that message.
    pub(crate) fn bind_names<'n>(
        self,
        callee: &dyn Fn() -> String,
        names: impl ExactSizeIterator<Item = &'n str> + Clone,
    ) -> Result<Vec<Option<Value>>, Error> {
        self.bind_catching(callee, names, false, false).map(|bound| bound.named)
    }

    /// As [`Self::bind_names`], for a signature that may catch the extra
    /// positional arguments (`varargs`: `*rest`) and the unknown keywords
    /// (`kwargs`: `**options`) instead of refusing them.
    pub(crate) fn bind_catching<'n>(
        self,
        callee: &dyn Fn() -> String,
        names: impl ExactSizeIterator<Item = &'n str> + Clone,
        varargs: bool,
        kwargs: bool,
    ) -> Result<Bound<'a>, Error> {
        if self.positional.len() > names.len() && !varargs {
            let plural = if names.len() == 1 { "" } else { "s" };
            return Err(Error::new(
                ErrorKind::BadArguments,
                format!(
                    "{} takes at most {} argument{plural}, got {}",
                    callee(),
                    names.len(),
                    self.positional.len()
                ),
            ));
        }
        let mut bound =
            Bound { named: vec![None; names.len()], varargs: Vec::new(), kwargs: Vec::new() };
        let mut positional = self.positional.into_iter();
        for (slot, value) in bound.named.iter_mut().zip(positional.by_ref()) {
            *slot = Some(value);
        }
        bound.varargs.extend(positional);
        let index = if self.keywords.is_empty() {
            NameIndex::default()
        } else {
            NameIndex::of(names.clone())
        };
        for (name, value) in self.keywords {
            let Some(index) = index.position(name, || names.clone().position(|n| n == name)) else {
                if kwargs {
                    bound.kwargs.push((name, value));
                    continue;
                }
                return Err(Error::new(
                    ErrorKind::BadArguments,
                    format!("{} has no parameter named `{name}`", callee()),
                ));
            };
            if bound.named[index].replace(value).is_some() {
                return Err(Error::new(
                    ErrorKind::BadArguments,
                    format!("{} got the argument `{name}` twice", callee()),
                ));
            }
        }
        Ok(bound)
    }

    /// Binds the arguments to the parameter `names` in order, undefined
    /// where one is missing.
    ///
    /// # Errors
    ///
    /// `bad_arguments`, naming `callee` (e.g. ``"filter `pad`"``), for too
    /// many positional arguments, an unknown keyword, or a parameter given
    /// twice.
    pub fn bind<const N: usize>(self, callee: &str, names: [&str; N]) -> Result<[Value; N], Error> {
        let mut out: [Value; N] = std::array::from_fn(|_| Value::UNDEFINED);
        // Positional arguments alone, not too many (most calls of a
        // built-in): what binding by name gives, without its `Vec`.
        if self.keywords.is_empty() && self.positional.len() <= N {
            for (slot, value) in out.iter_mut().zip(self.positional) {
                *slot = value;
            }
            return Ok(out);
        }
        let bound = self.bind_names(&|| callee.to_owned(), names.iter().copied())?;
        for (slot, value) in out.iter_mut().zip(bound) {
            *slot = value.unwrap_or_default();
        }
        Ok(out)
    }
}

/// Arguments bound to a signature: a value (or none) per named parameter,
/// then what a `*rest` and a `**options` parameter catch.
pub(crate) struct Bound<'a> {
    pub(crate) named: Vec<Option<Value>>,
    pub(crate) varargs: Vec<Value>,
    pub(crate) kwargs: Vec<(&'a str, Value)>,
}

/// A `bad_arguments` error.
pub(crate) fn bad(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::BadArguments, message)
}

/// A Rust type a host filter, test or function takes a value or an
/// argument as, converted when it is called (`|s: String, n: i64| ...`):
/// [`Value`] (anything given), `String`, `i64`, `usize` (an integer of at
/// least 0), `f64` (an integer or a float), `bool`, `Vec<T>` (a list
/// whose every item converts) and `Option<T>` (none, undefined or an
/// argument not given is `None`). A value of another kind is a
/// `bad_arguments` error naming the argument and both kinds; an argument
/// not given that is not an `Option` is one too.
pub trait ArgType: Sized {
    /// What the type takes, as an error says it: `a string`, `an integer`.
    fn expected() -> String;

    /// The argument from `value` (`None`: not given); `None` when it does
    /// not convert.
    fn from_arg(value: Option<&Value>) -> Option<Self>;

    /// What `value`, which does not convert, is, as an error says it: its
    /// kind (`an integer`), or for a list which of its items does not.
    fn mismatch(value: &Value) -> String {
        describe_kind(value)
    }
}

impl ArgType for Value {
    fn expected() -> String {
        "a value".to_owned()
    }

    fn from_arg(value: Option<&Value>) -> Option<Value> {
        value.cloned()
    }
}

impl ArgType for String {
    fn expected() -> String {
        "a string".to_owned()
    }

    fn from_arg(value: Option<&Value>) -> Option<String> {
        value?.as_str().map(str::to_owned)
    }
}

impl ArgType for i64 {
    fn expected() -> String {
        "an integer".to_owned()
    }

    fn from_arg(value: Option<&Value>) -> Option<i64> {
        value?.as_i64()
    }
}

impl ArgType for usize {
    fn expected() -> String {
        "an integer of at least 0".to_owned()
    }

    fn from_arg(value: Option<&Value>) -> Option<usize> {
        usize::try_from(value?.as_i64()?).ok()
    }
}

impl ArgType for f64 {
    fn expected() -> String {
        "a number".to_owned()
    }

    fn from_arg(value: Option<&Value>) -> Option<f64> {
        value?.as_f64()
    }
}

impl ArgType for bool {
    fn expected() -> String {
        "a boolean".to_owned()
    }

    fn from_arg(value: Option<&Value>) -> Option<bool> {
        match value?.0 {
            Repr::Bool(b) => Some(b),
            _ => None,
        }
    }
}

impl<T: ArgType> ArgType for Vec<T> {
    fn expected() -> String {
        format!("a list of items each {}", T::expected())
    }

    fn from_arg(value: Option<&Value>) -> Option<Vec<T>> {
        value?.as_list()?.iter().map(|item| T::from_arg(Some(item))).collect()
    }

    fn mismatch(value: &Value) -> String {
        let items = value.as_list().unwrap_or_default();
        match items.iter().position(|item| T::from_arg(Some(item)).is_none()) {
            Some(at) => format!("a list whose item {at} is {}", T::mismatch(&items[at])),
            None => describe_kind(value),
        }
    }
}

impl<T: ArgType> ArgType for Option<T> {
    fn expected() -> String {
        T::expected()
    }

    fn from_arg(value: Option<&Value>) -> Option<Option<T>> {
        match value {
            None => Some(None),
            Some(value) if value.is_none_or_undefined() => Some(None),
            Some(value) => T::from_arg(Some(value)).map(Some),
        }
    }
}

/// Converts argument `at` (`None`: the value filtered or tested) of the
/// callee `what` (``filter `shout` ``), or says why it does not.
pub(crate) fn typed_arg<T: ArgType>(
    what: &str,
    at: Option<usize>,
    value: Option<&Value>,
) -> Result<T, Error> {
    if let Some(converted) = T::from_arg(value) {
        return Ok(converted);
    }
    let expected = T::expected();
    let which = match at {
        Some(n) => format!("argument {}", n + 1),
        None => "the value".to_owned(),
    };
    Err(bad(match value {
        None => format!("{what} needs {which} ({expected})"),
        Some(value) => {
            format!("{what}: {which} must be {expected}, not {}", T::mismatch(value))
        }
    }))
}

/// A value's kind with its article, for errors: `an integer`, `none`.
fn describe_kind(value: &Value) -> String {
    let kind = value.kind().as_str();
    match kind {
        "undefined" | "none" => kind.to_owned(),
        _ if kind.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

/// What a typed host filter or function returns: a value (`String`,
/// `i64`, `f64`, `bool`, `usize`, [`Value`], `Vec<Value>`) or a
/// `Result` of one with [`Error`].
pub trait IntoResult {
    /// The returned value, or the error.
    #[doc(hidden)]
    fn into_result(self) -> Result<Value, Error>;
}

impl<T: Into<Value>> IntoResult for Result<T, Error> {
    fn into_result(self) -> Result<Value, Error> {
        self.map(Into::into)
    }
}

macro_rules! plain_results {
    ($($ty:ty),*) => {$(
        impl IntoResult for $ty {
            fn into_result(self) -> Result<Value, Error> {
                Ok(self.into())
            }
        }
    )*};
}

plain_results!(Value, String, i64, i32, usize, f64, bool, Vec<Value>);

#[cfg(test)]
mod tests {
    use super::*;

    fn args(positional: &[i64], keywords: &[(&'static str, i64)]) -> Arguments<'static> {
        static LIMITS: std::sync::LazyLock<Limits> = std::sync::LazyLock::new(Limits::default);
        Arguments {
            limits: &LIMITS,
            positional: positional.iter().map(|&n| Value::from(n)).collect(),
            keywords: keywords.iter().map(|&(k, n)| (k, Value::from(n))).collect(),
        }
    }

    #[test]
    fn binding_and_its_errors() {
        let [a, b] = args(&[1], &[("b", 2)]).bind("f", ["a", "b"]).unwrap();
        assert_eq!((a, b), (Value::from(1), Value::from(2)));
        let [a, b] = args(&[], &[]).bind("f", ["a", "b"]).unwrap();
        assert!(a.is_undefined() && b.is_undefined());
        let err = args(&[1, 2], &[]).bind("macro `m`", ["a"]).unwrap_err();
        assert_eq!(err.message(), "macro `m` takes at most 1 argument, got 2");
        assert_eq!(
            args(&[], &[("c", 1)]).bind("f", ["a"]).unwrap_err().kind(),
            ErrorKind::BadArguments
        );
        assert!(args(&[1], &[("a", 1)]).bind("f", ["a"]).unwrap_err().message().contains("twice"));
    }

    /// Positional arguments alone bind without the name table, to the
    /// same values as binding by name.
    #[test]
    fn positional_arguments_bind_in_order() {
        let [a, b, c] = args(&[1, 2], &[]).bind("f", ["a", "b", "c"]).unwrap();
        assert_eq!((a, b), (Value::from(1), Value::from(2)));
        assert!(c.is_undefined());
        let by_name = args(&[1, 2], &[]).bind_names(&|| "f".into(), ["a", "b", "c"].into_iter());
        assert_eq!(by_name.unwrap(), [Some(Value::from(1)), Some(Value::from(2)), None]);
        let [] = args(&[], &[]).bind("f", []).unwrap();
        let err = args(&[1], &[]).bind("filter `upper`", []).unwrap_err();
        assert_eq!(err.message(), "filter `upper` takes at most 0 arguments, got 1");
    }
}
