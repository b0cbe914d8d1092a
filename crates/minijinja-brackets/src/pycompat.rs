//! The Jinja2 profile's own built-ins, as transformers renders chat
//! templates: `tojson` as `json.dumps`, Python's `round`, the `format`
//! filter (`%` formatting), `trim` as Python's `str.strip` (keeping each
//! byte's provenance), and the functions `raise_exception(message)`
//! and `strftime_now(format)` (reading the environment's [`Clock`]).

use std::sync::Arc;

use crate::arguments::{Arguments, bad};
use crate::callable::{Filter, Function};
use crate::error::{Error, ErrorKind};
use crate::provenance::slice;
use crate::value::ops::check_string_size;
use crate::value::pyformat;
use crate::value::python::{Dumps, strip_range, write_dumps};
use crate::value::{Repr, Value};

/// The clock `strftime_now` reads (the Jinja2 profile).
///
/// ```
/// use minijinja_brackets::{Clock, Environment, Profile, Syntax, jiff};
///
/// let mut env = Environment::new();
/// env.set_syntax(Syntax::Jinja);
/// env.set_profile(Profile::Jinja2);
/// let now: jiff::Zoned = "2026-01-15T10:30:00+01:00[+01:00]".parse().unwrap();
/// env.set_clock(Clock::Fixed(now));
/// let out = env.render_str("{{ strftime_now('%d %b %Y') }}", &Default::default(), 0)?;
/// assert_eq!(out.output, "15 Jan 2026");
/// # Ok::<(), minijinja_brackets::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Clock {
    /// The system's local time when `strftime_now` runs (Python's
    /// `datetime.now()`, what transformers uses). Needs the `clock`
    /// feature (default); without it `strftime_now` fails with
    /// `invalid_operation`.
    #[default]
    Local,
    /// Always this time (a reproducible render; the CLI's `--now`).
    Fixed(jiff::Zoned),
}

impl Clock {
    /// Reads an RFC 3339 time (`Z` or a numeric offset, e.g.
    /// `2026-01-02T03:04:05+01:00`) as a time in that offset: what the
    /// command line's `--now` and the bindings' `now=` take for
    /// [`Clock::Fixed`].
    ///
    /// ```
    /// use minijinja_brackets::Clock;
    ///
    /// let at = Clock::parse_time("2026-01-02T03:04:05+01:00")?;
    /// assert_eq!(at.to_string(), "2026-01-02T03:04:05+01:00[+01:00]");
    /// assert!(Clock::parse_time("2026-01-02 03:04").is_err());
    /// # Ok::<(), String>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A sentence saying the text is not an RFC 3339 time.
    pub fn parse_time(text: &str) -> Result<jiff::Zoned, String> {
        use jiff::{Timestamp, tz};
        let invalid =
            || format!("`{text}` is not an RFC 3339 time (e.g. 2026-01-02T03:04:05+01:00)");
        let at: Timestamp = text.parse().map_err(|_| invalid())?;
        let offset = if text.ends_with(['Z', 'z']) {
            tz::Offset::UTC
        } else {
            let tail = text.get(text.len().saturating_sub(6)..).ok_or_else(invalid)?;
            let sign = match tail.as_bytes().first() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return Err(invalid()),
            };
            let hours: i32 = tail.get(1..3).and_then(|h| h.parse().ok()).ok_or_else(invalid)?;
            let minutes: i32 = tail.get(4..6).and_then(|m| m.parse().ok()).ok_or_else(invalid)?;
            tz::Offset::from_seconds(sign * (hours * 3600 + minutes * 60)).map_err(|_| invalid())?
        };
        Ok(at.to_zoned(tz::TimeZone::fixed(offset)))
    }

    /// The time now; without the `clock` feature (wasm, no system clock)
    /// only a fixed clock has one.
    fn now(&self) -> Result<jiff::Zoned, Error> {
        match self {
            #[cfg(feature = "clock")]
            Clock::Local => Ok(jiff::Zoned::now()),
            #[cfg(not(feature = "clock"))]
            Clock::Local => Err(invalid(
                "`strftime_now`: this build has no system clock; set a fixed clock (`Clock::Fixed`)",
            )),
            Clock::Fixed(at) => Ok(at.clone()),
        }
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, message)
}

/// The profile's filters, by name (they take the place of the reference's
/// of the same name).
pub(crate) fn filters() -> Vec<(&'static str, Filter)> {
    vec![
        ("tojson", Filter::new(tojson)),
        ("round", Filter::new(round)),
        ("format", Filter::new(format)),
        ("trim", Filter::new(trim)),
    ]
}

/// The profile's functions, by name, with `strftime_now` reading `clock`.
pub(crate) fn functions(clock: Clock) -> Vec<(&'static str, Function)> {
    let clock = Arc::new(clock);
    vec![
        ("raise_exception", Function { run: Arc::new(raise_exception) }),
        ("strftime_now", Function { run: Arc::new(move |args| strftime_now(&clock, args)) }),
    ]
}

/// `raise_exception(message)`: the render fails with `template_raised`
/// and the template's message.
fn raise_exception(args: Arguments<'_>) -> Result<Value, Error> {
    let [message] = args.bind("function `raise_exception`", ["message"])?;
    Err(Error::new(ErrorKind::TemplateRaised, message.to_string()))
}

/// `strftime_now(format)`: the clock's time, formatted as C's strftime.
fn strftime_now(clock: &Clock, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [format] = args.bind("function `strftime_now`", ["format"])?;
    let Some(format) = format.as_str() else {
        return Err(bad("`strftime_now` takes a format string"));
    };
    check_string_size(format.len().saturating_mul(16), limits)?;
    let now = clock.now()?;
    let text = jiff::fmt::strtime::format(format, &now)
        .map_err(|e| invalid(format!("`strftime_now`: {e}")))?;
    Ok(Value::string(text))
}

/// transformers' `tojson`: `json.dumps(value, ensure_ascii=False,
/// indent=None, separators=None, sort_keys=False)`, no HTML escaping.
fn tojson(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let [ensure_ascii, indent, separators, sort_keys] =
        args.bind("filter `tojson`", ["ensure_ascii", "indent", "separators", "sort_keys"])?;
    let indent = match &indent.0 {
        Repr::Undefined | Repr::None => None,
        Repr::Int(n) => Some(" ".repeat(usize::try_from(*n).unwrap_or(0).min(64))),
        _ => match indent.as_str() {
            Some(text) if text.len() <= 64 => Some(text.to_owned()),
            _ => return Err(bad("`tojson`: `indent` must be an integer or a short string")),
        },
    };
    let separators = match (&separators.0, separators.as_list()) {
        (Repr::Undefined | Repr::None, _) => None,
        (_, Some(items)) if items.len() == 2 => {
            match (items.first().and_then(Value::as_str), items.get(1).and_then(Value::as_str)) {
                (Some(a), Some(b)) if a.len() <= 64 && b.len() <= 64 => {
                    Some((a.to_owned(), b.to_owned()))
                }
                _ => return Err(bad("`tojson`: `separators` must be two short strings")),
            }
        }
        _ => return Err(bad("`tojson`: `separators` must be two strings")),
    };
    let options = Dumps {
        ensure_ascii: ensure_ascii.is_true(),
        indent,
        separators,
        sort_keys: sort_keys.is_true(),
    };
    let mut out = String::new();
    write_dumps(&value, &options, &mut out, limits.string_limit).map_err(invalid)?;
    Ok(Value::string(out))
}

/// Jinja2's `trim(chars=None)`: Python's `str.strip` (its whitespace,
/// `str.isspace`). A string's result is a slice of it, so each byte keeps
/// its provenance (`'<<SYS>>\n' + content | trim` keeps `<<SYS>>`
/// authored); any other value is printed first, as the reference's `trim`
/// prints it, and is data.
fn trim(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let Some(text) = value.as_str() else { return crate::filters::trim(value, args) };
    let limits = args.limits;
    let [chars] = args.bind("filter `trim`", ["chars"])?;
    let chars = match &chars.0 {
        Repr::Undefined | Repr::None => None,
        _ => Some(chars.as_str().ok_or_else(|| bad("`trim`: `chars` must be a string"))?),
    };
    let trimmed = slice(&value, text, strip_range(text, chars, true, true));
    match crate::filters::is_safe(&value) {
        true => crate::filters::marked_safe(trimmed, limits),
        false => Ok(trimmed),
    }
}

/// Python's `round(value, precision)` (halves to even), or `ceil` and
/// `floor` by `method`; an integer rounded to 0 places stays an integer.
fn round(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let [precision, method] = args.bind("filter `round`", ["precision", "method"])?;
    let precision = match &precision.0 {
        Repr::Undefined | Repr::None => 0,
        Repr::Int(n) => (*n).clamp(-300, 300),
        _ => return Err(bad("`round`: `precision` must be an integer")),
    };
    let method = method.as_str().unwrap_or("common");
    if let (Repr::Int(_), "common") = (&value.0, method)
        && precision >= 0
    {
        return Ok(value);
    }
    let Some(x) = value.as_f64() else {
        return Err(invalid(format!("`round` needs a number, not {}", value.kind().as_str())));
    };
    let factor = 10f64.powi(precision as i32);
    let scaled = x * factor;
    let rounded = match method {
        "common" => scaled.round_ties_even(),
        "ceil" => scaled.ceil(),
        "floor" => scaled.floor(),
        other => {
            return Err(bad(format!("`round`: unknown method {other:?} (common, ceil, floor)")));
        }
    };
    Ok(Value::from(rounded / factor))
}

/// Jinja2's `format` filter: `str(value) % args` (Python's `%`
/// formatting), or `% kwargs` with keyword arguments (`%(name)s`).
fn format(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    pyformat::percent_format(&value, &args.positional, &args.keywords, args.limits)
}
