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
use crate::value::ops::{check_string_size, string_too_long};
use crate::value::python::{Dumps, strip_range, write_dumps, write_float, write_repr};
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

/// A `%` conversion's flags, width and precision (`%-8s`, `%05.1f`).
struct Spec {
    left: bool,
    zero: bool,
    plus: bool,
    space: bool,
    width: usize,
    precision: Option<usize>,
}

impl Spec {
    fn parse(flags: &str) -> Result<Spec, Error> {
        let mut spec =
            Spec { left: false, zero: false, plus: false, space: false, width: 0, precision: None };
        let mut rest = flags;
        while let Some(c) = rest.chars().next().filter(|c| "-0+ #".contains(*c)) {
            match c {
                '-' => spec.left = true,
                '0' => spec.zero = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                _ => {}
            }
            rest = &rest[1..];
        }
        let (width, precision) = match rest.split_once('.') {
            Some((w, p)) => (w, Some(p)),
            None => (rest, None),
        };
        let number = |text: &str| -> Result<usize, Error> {
            match text.parse::<usize>() {
                Ok(n) if n <= 10_000 => Ok(n),
                _ => Err(invalid(format!("`format`: unsupported width or precision {text:?}"))),
            }
        };
        spec.width = if width.is_empty() { 0 } else { number(width)? };
        spec.precision = match precision {
            Some("") => Some(0),
            Some(p) => Some(number(p)?),
            None => None,
        };
        Ok(spec)
    }

    /// A number's sign (`-`, or `+`/space when asked) then its digits.
    fn sign(&self, out: &mut String, negative: bool, digits: &str) {
        if negative {
            out.push('-');
        } else if self.plus {
            out.push('+');
        } else if self.space {
            out.push(' ');
        }
        out.push_str(digits);
    }

    /// `piece` padded to the width: on the right with `-`, with zeros after
    /// the sign for a number with `0`, else with spaces on the left.
    fn pad(&self, out: &mut String, piece: &str, numeric: bool) {
        let fill = self.width.saturating_sub(piece.chars().count());
        if self.left {
            out.push_str(piece);
            out.extend(std::iter::repeat_n(' ', fill));
        } else if self.zero && numeric {
            let signed = piece.starts_with(['-', '+', ' ']);
            let (sign, digits) = piece.split_at(usize::from(signed));
            out.push_str(sign);
            out.extend(std::iter::repeat_n('0', fill));
            out.push_str(digits);
        } else {
            out.extend(std::iter::repeat_n(' ', fill));
            out.push_str(piece);
        }
    }
}

/// Jinja2's `format` filter: `value % args` (Python's `%` formatting) with
/// `%s`, `%r`, `%d`/`%i`, `%f`/`%.Nf`, `%x`, `%%`, and `%(name)s` with
/// keyword arguments.
fn format(value: Value, args: Arguments<'_>) -> Result<Value, Error> {
    let limits = args.limits;
    let Some(template) = value.as_str() else {
        return Err(invalid(format!("`format` needs a string, not {}", value.kind().as_str())));
    };
    let mut out = String::new();
    let mut next = 0;
    let mut rest = template;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let mut spec = &rest[at + 1..];
        let keyed = if let Some(inner) = spec.strip_prefix('(') {
            let Some(close) = inner.find(')') else {
                return Err(invalid("`format`: incomplete `%(name)` key"));
            };
            spec = &inner[close + 1..];
            Some(&inner[..close])
        } else {
            None
        };
        let precision_end = spec.find(|c: char| c.is_ascii_alphabetic() || c == '%');
        let Some(end) = precision_end else {
            return Err(invalid("`format`: incomplete format"));
        };
        let flags = &spec[..end];
        let conversion = spec.as_bytes()[end];
        rest = &spec[end + 1..];
        if conversion == b'%' {
            out.push('%');
            continue;
        }
        let arg = match keyed {
            Some(key) => args.keywords.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone()),
            None => {
                next += 1;
                args.positional.get(next - 1).cloned()
            }
        }
        .ok_or_else(|| invalid("`format`: not enough arguments for the format string"))?;
        let spec = Spec::parse(flags)?;
        let mut piece = String::new();
        match conversion {
            b's' => arg
                .write_printed(&mut piece, limits.string_limit)
                .map_err(string_too_long(limits))?,
            b'r' => write_repr(&arg, &mut piece, limits.string_limit)
                .map_err(string_too_long(limits))?,
            b'd' | b'i' => match arg.0 {
                Repr::Int(n) => spec.sign(&mut piece, n < 0, &n.unsigned_abs().to_string()),
                Repr::Bool(b) => piece.push(if b { '1' } else { '0' }),
                Repr::Float(x) if x.is_finite() => {
                    spec.sign(&mut piece, x < 0.0, &format!("{}", x.abs().trunc()))
                }
                _ => return Err(invalid("`format`: %d needs a number")),
            },
            b'f' | b'F' => match arg.as_f64() {
                Some(x) => {
                    let digits = format!("{:.*}", spec.precision.unwrap_or(6).min(100), x.abs());
                    spec.sign(&mut piece, x.is_sign_negative() && x != 0.0, &digits);
                }
                None => return Err(invalid("`format`: %f needs a number")),
            },
            b'g' => match arg.as_f64() {
                Some(x) => write_float(&mut piece, x),
                None => return Err(invalid("`format`: %g needs a number")),
            },
            b'x' => match arg.0 {
                Repr::Int(n) => spec.sign(&mut piece, n < 0, &format!("{:x}", n.unsigned_abs())),
                _ => return Err(invalid("`format`: %x needs an integer")),
            },
            other => {
                return Err(invalid(format!(
                    "`format`: unsupported format character {:?}",
                    other as char
                )));
            }
        }
        let numeric = conversion != b's' && conversion != b'r';
        check_string_size(out.len().saturating_add(spec.width.max(piece.len())), limits)?;
        spec.pad(&mut out, &piece, numeric);
        check_string_size(out.len(), limits)?;
    }
    out.push_str(rest);
    check_string_size(out.len(), limits)?;
    if next < args.positional.len() {
        return Err(invalid("`format`: not all arguments converted during string formatting"));
    }
    Ok(Value::string(out))
}
