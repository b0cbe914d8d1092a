//! Python's formatting of values, for the Jinja2 profile: the format-spec
//! mini-language of `str.format` (`{:>10}`, `{:.2f}`, `{:,}`, `{0}`,
//! `{name}`, `{0[key]}`, `{!r}`) and `%`-formatting (the `format` filter:
//! `value % args`).
//!
//! Both write into a [`TextBuf`]: the bytes the format string keeps stay as
//! authored as they were, a string substituted as it is keeps its own
//! provenance, and a converted or padded piece is authored only when its
//! argument was.
//!
//! Every width and precision is checked against the string limit before
//! anything is padded or written: `{:>999999999}` is the string limit's
//! error, never an allocation of a gigabyte.

use std::fmt::Write as _;

use super::{ListKind, Repr, TooLong, Value, python};
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::provenance::TextBuf;

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, message)
}

fn too_long(limits: &Limits) -> Error {
    invalid(format!(
        "the result would be more than the string limit of {} bytes",
        limits.string_limit
    ))
}

/// Fails when `len` bytes would pass the string limit.
fn room(len: usize, limits: &Limits) -> Result<(), Error> {
    if len > limits.string_limit { Err(too_long(limits)) } else { Ok(()) }
}

/// Python's name of a value's type, as its error messages give it.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match &value.0 {
        Repr::Undefined => "Undefined",
        Repr::None => "NoneType",
        Repr::Bool(_) => "bool",
        Repr::Int(_) => "int",
        Repr::Float(_) => "float",
        Repr::Str(_) | Repr::Text(_) => "str",
        Repr::List(items) => match items.kind() {
            ListKind::List => "list",
            ListKind::Tuple => "tuple",
            ListKind::Generator => "generator",
            ListKind::DictView(view) => view.type_name(),
        },
        Repr::Map(_) => "dict",
        Repr::Callable(_) => "function",
        Repr::Module(_) => "module",
    }
}

/// Appends `piece` as the provenance of `source` says: authored when
/// `authored`, else one data piece.
fn push_piece(out: &mut TextBuf, piece: &str, authored: bool) {
    if authored { out.push_authored(piece) } else { out.push_data(piece) }
}

/// The bytes `range` of the string `value` (whose text is `s`), with their
/// provenance.
fn push_source(out: &mut TextBuf, value: &Value, s: &str, range: std::ops::Range<usize>) {
    if range.is_empty() {
        return;
    }
    out.push_string(&crate::provenance::slice(value, s, range));
}

// ---------------------------------------------------------------------------
// The format-spec mini-language.

/// A parsed format spec: `[[fill]align][sign]["z"]["#"]["0"][width]
/// [grouping]["." precision][type]`.
#[derive(Debug, Clone)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: char,
    /// `z`: a negative zero after rounding prints as zero.
    no_negative_zero: bool,
    alternate: bool,
    /// `0` before the width.
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

impl Spec {
    fn parse(spec: &str) -> Result<Spec, Error> {
        let chars: Vec<char> = spec.chars().collect();
        let mut i = 0;
        let is_align = |c: char| matches!(c, '<' | '>' | '=' | '^');
        let (mut fill, mut align) = (None, None);
        if chars.len() >= 2 && is_align(chars[1]) {
            fill = Some(chars[0]);
            align = Some(chars[1]);
            i = 2;
        } else if chars.first().is_some_and(|c| is_align(*c)) {
            align = Some(chars[0]);
            i = 1;
        }
        let mut sign = '-';
        if let Some(&c @ ('+' | '-' | ' ')) = chars.get(i) {
            sign = c;
            i += 1;
        }
        let no_negative_zero = chars.get(i) == Some(&'z');
        i += usize::from(no_negative_zero);
        let alternate = chars.get(i) == Some(&'#');
        i += usize::from(alternate);
        let zero = chars.get(i) == Some(&'0');
        i += usize::from(zero);
        let width = number(&chars, &mut i)?.unwrap_or(0);
        let mut grouping = None;
        if let Some(&c @ (',' | '_')) = chars.get(i) {
            grouping = Some(c);
            i += 1;
            if let Some(&d @ (',' | '_')) = chars.get(i) {
                return Err(invalid(if d == c {
                    format!("Cannot specify '{c}' with '{c}'.")
                } else {
                    "Cannot specify both ',' and '_'.".to_owned()
                }));
            }
        }
        let mut precision = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            precision = Some(
                number(&chars, &mut i)?
                    .ok_or_else(|| invalid("Format specifier missing precision"))?,
            );
        }
        let ty = chars.get(i).copied();
        if chars.len() > i + 1 {
            return Err(invalid("Invalid format specifier"));
        }
        Ok(Spec {
            fill,
            align,
            sign,
            no_negative_zero,
            alternate,
            zero,
            width,
            grouping,
            precision,
            ty,
        })
    }

    /// The fill and alignment, with `0` before the width taking the place
    /// of a fill and alignment that are not given.
    fn layout(&self, default: char) -> (char, char) {
        let fill = self.fill.unwrap_or(if self.zero { '0' } else { ' ' });
        let align = self.align.unwrap_or(if self.zero { '=' } else { default });
        (fill, align)
    }
}

/// The decimal number at `chars[*i..]`, if there is one.
fn number(chars: &[char], i: &mut usize) -> Result<Option<usize>, Error> {
    let start = *i;
    let mut n: usize = 0;
    while let Some(d) = chars.get(*i).and_then(|c| c.to_digit(10)) {
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(d as usize))
            .ok_or_else(|| invalid("Too many decimal digits in format string"))?;
        *i += 1;
    }
    Ok((*i > start).then_some(n))
}

/// `body` padded to `width` characters with `fill`: `<` left, `>` right,
/// `^` centered, `=` after the sign and prefix (`prefix_len` bytes).
fn pad(
    out: &mut String,
    body: &str,
    prefix_len: usize,
    fill: char,
    align: char,
    width: usize,
    limits: &Limits,
) -> Result<(), Error> {
    let count = width.saturating_sub(body.chars().count());
    room(out.len().saturating_add(body.len()).saturating_add(count * fill.len_utf8()), limits)?;
    let (left, right) = match align {
        '<' => (0, count),
        '^' => (count / 2, count - count / 2),
        _ => (count, 0),
    };
    if align == '=' {
        out.push_str(&body[..prefix_len]);
        out.extend(std::iter::repeat_n(fill, count));
        out.push_str(&body[prefix_len..]);
    } else {
        out.extend(std::iter::repeat_n(fill, left));
        out.push_str(body);
        out.extend(std::iter::repeat_n(fill, right));
    }
    Ok(())
}

/// `digits` with `sep` every `every` digits from the right; with zero
/// padding to `min_width`, zeros (and separators) are added in front, as
/// Python pads a grouped number (`format(1234, '08,')` is `0,001,234`).
fn group(digits: &str, sep: char, every: usize, min_width: usize) -> String {
    let mut reversed: Vec<char> = Vec::with_capacity(digits.len() * 2);
    let mut count = 0;
    let mut source = digits.chars().rev();
    loop {
        let next = source.next();
        if next.is_none() && reversed.len() >= min_width {
            break;
        }
        if count == every {
            reversed.push(sep);
            count = 0;
        }
        reversed.push(next.unwrap_or('0'));
        count += 1;
        if next.is_none() && reversed.len() >= min_width {
            break;
        }
    }
    reversed.iter().rev().collect()
}

/// The sign of a number as the spec asks for it.
fn sign_of(negative: bool, sign: char) -> &'static str {
    match (negative, sign) {
        (true, _) => "-",
        (false, '+') => "+",
        (false, ' ') => " ",
        _ => "",
    }
}

/// `value` formatted by the spec `spec` (`format(value, spec)`), appended
/// to `out`.
pub(crate) fn format_value(
    value: &Value,
    spec: &str,
    out: &mut String,
    limits: &Limits,
) -> Result<(), Error> {
    if spec.is_empty() {
        return python::write_str(value, out, limits.string_limit)
            .map_err(|TooLong| too_long(limits));
    }
    let parsed = Spec::parse(spec)?;
    match &value.0 {
        Repr::Str(_) | Repr::Text(_) => {
            format_str(value.as_str().unwrap_or_default(), &parsed, out, limits)
        }
        Repr::Int(n) => format_int(*n, "int", &parsed, out, limits),
        Repr::Bool(b) => format_int(i64::from(*b), "bool", &parsed, out, limits),
        Repr::Float(x) => format_float(*x, "float", &parsed, out, limits),
        _ => Err(invalid(format!(
            "unsupported format string passed to {}.__format__",
            type_name(value)
        ))),
    }
}

fn format_str(s: &str, spec: &Spec, out: &mut String, limits: &Limits) -> Result<(), Error> {
    match spec.ty {
        None | Some('s') => {}
        Some(c) => {
            return Err(invalid(format!("Unknown format code '{c}' for object of type 'str'")));
        }
    }
    if spec.sign != '-' {
        return Err(invalid("Sign not allowed in string format specifier"));
    }
    if spec.alternate {
        return Err(invalid("Alternate form (#) not allowed in string format specifier"));
    }
    if let Some(g) = spec.grouping {
        return Err(invalid(format!("Cannot specify '{g}' with 's'.")));
    }
    if spec.align == Some('=') {
        return Err(invalid("'=' alignment not allowed in string format specifier"));
    }
    let body = match spec.precision {
        Some(p) => s.char_indices().nth(p).map_or(s, |(at, _)| &s[..at]),
        None => s,
    };
    // `0` before the width pads a string on the right with zeros.
    let fill = spec.fill.unwrap_or(if spec.zero { '0' } else { ' ' });
    pad(out, body, 0, fill, spec.align.unwrap_or('<'), spec.width, limits)
}

fn format_int(
    n: i64,
    name: &str,
    spec: &Spec,
    out: &mut String,
    limits: &Limits,
) -> Result<(), Error> {
    let (radix, every) = match spec.ty {
        None | Some('d' | 'n') => (10, 3),
        Some('b') => (2, 4),
        Some('o') => (8, 4),
        Some('x' | 'X') => (16, 4),
        Some('c') => (0, 0),
        Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => {
            return format_float(n as f64, name, spec, out, limits);
        }
        Some(c) => {
            return Err(invalid(format!("Unknown format code '{c}' for object of type '{name}'")));
        }
    };
    if spec.precision.is_some() {
        return Err(invalid("Precision not allowed in integer format specifier"));
    }
    let ty = spec.ty.unwrap_or('d');
    if let Some(g) = spec.grouping
        && (ty == 'n' || ty == 'c' || (g == ',' && radix != 10))
    {
        return Err(invalid(format!("Cannot specify '{g}' with '{ty}'.")));
    }
    let (fill, align) = spec.layout('>');
    if ty == 'c' {
        if spec.sign != '-' {
            return Err(invalid("Sign not allowed with integer format specifier 'c'"));
        }
        if spec.alternate {
            return Err(invalid(
                "Alternate form (#) not allowed with integer format specifier 'c'",
            ));
        }
        let c = u32::try_from(n)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| invalid("%c arg not in range(0x110000)"))?;
        return pad(out, c.encode_utf8(&mut [0; 4]), 0, fill, align, spec.width, limits);
    }
    let magnitude = n.unsigned_abs();
    let digits = match ty {
        'b' => format!("{magnitude:b}"),
        'o' => format!("{magnitude:o}"),
        'x' => format!("{magnitude:x}"),
        'X' => format!("{magnitude:X}"),
        _ => magnitude.to_string(),
    };
    let mut head = sign_of(n < 0, spec.sign).to_owned();
    if spec.alternate {
        head.push_str(match ty {
            'b' => "0b",
            'o' => "0o",
            'x' => "0x",
            'X' => "0X",
            _ => "",
        });
    }
    let digits = match spec.grouping {
        Some(sep) => {
            let zero_fill = fill == '0' && align == '=';
            let min = if zero_fill { spec.width.saturating_sub(head.len()) } else { 0 };
            room(min, limits)?;
            group(&digits, sep, every, min)
        }
        None => digits,
    };
    pad(out, &(head.clone() + &digits), head.len(), fill, align, spec.width, limits)
}

/// `{:.Ne}` digits of a non-negative finite `a`: the mantissa and the
/// decimal exponent.
fn scientific(a: f64, decimals: usize) -> (String, i32) {
    let text = format!("{a:.decimals$e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    (mantissa.to_owned(), exponent.parse().unwrap_or(0))
}

/// Python's exponent: a sign and at least two digits (`e+04`).
fn exponent_text(e: i32, upper: bool) -> String {
    let sign = if e < 0 { '-' } else { '+' };
    format!("{}{sign}{:02}", if upper { 'E' } else { 'e' }, e.unsigned_abs())
}

/// Drops a fraction's trailing zeros, and the point with them.
fn strip_zeros(mut s: String) -> String {
    if s.contains('.') {
        let kept = s.trim_end_matches('0').trim_end_matches('.').len();
        s.truncate(kept);
    }
    s
}

/// The digits of a non-negative finite `a` in Python's float presentation
/// `ty` (`None`: the spec gave a precision but no type).
fn float_body(a: f64, ty: Option<char>, precision: Option<usize>, alternate: bool) -> String {
    let upper = matches!(ty, Some('E' | 'G'));
    match ty {
        Some('f' | 'F') => {
            let p = precision.unwrap_or(6);
            let mut s = format!("{a:.p$}");
            if alternate && p == 0 {
                s.push('.');
            }
            s
        }
        Some('%') => {
            let p = precision.unwrap_or(6);
            let mut s = format!("{:.p$}", a * 100.0);
            if alternate && p == 0 {
                s.push('.');
            }
            s.push('%');
            s
        }
        Some('e' | 'E') => {
            let p = precision.unwrap_or(6);
            let (mut mantissa, e) = scientific(a, p);
            if alternate && p == 0 {
                mantissa.push('.');
            }
            mantissa + &exponent_text(e, upper)
        }
        _ => {
            // `g`, `G`, `n`, and no type with a precision.
            let p = precision.unwrap_or(6).max(1);
            let (_, e) = if a == 0.0 { (String::new(), 0) } else { scientific(a, p - 1) };
            let limit = if ty.is_none() { p as i64 - 1 } else { p as i64 };
            let fixed = -4 <= i64::from(e) && i64::from(e) < limit;
            let (mut number, exponent) = if fixed {
                let decimals = usize::try_from(p as i64 - 1 - i64::from(e)).unwrap_or(0);
                (format!("{a:.decimals$}"), String::new())
            } else {
                let (mantissa, e) = scientific(a, p - 1);
                (mantissa, exponent_text(e, upper))
            };
            if alternate {
                if !number.contains('.') {
                    number.push('.');
                }
            } else {
                number = strip_zeros(number);
                if ty.is_none() && fixed && !number.contains('.') {
                    number.push_str(".0");
                }
            }
            number + &exponent
        }
    }
}

fn format_float(
    x: f64,
    name: &str,
    spec: &Spec,
    out: &mut String,
    limits: &Limits,
) -> Result<(), Error> {
    match spec.ty {
        None | Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'n' | '%') => {}
        Some(c) => {
            return Err(invalid(format!("Unknown format code '{c}' for object of type '{name}'")));
        }
    }
    if let (Some(g), Some('n')) = (spec.grouping, spec.ty) {
        return Err(invalid(format!("Cannot specify '{g}' with 'n'.")));
    }
    // A precision writes that many digits: paid before they are made.
    room(spec.precision.unwrap_or(0).saturating_add(400), limits)?;
    let upper = matches!(spec.ty, Some('E' | 'F' | 'G'));
    let a = x.abs();
    let mut body = if x.is_nan() {
        "nan".to_owned()
    } else if x.is_infinite() {
        "inf".to_owned()
    } else if spec.ty.is_none() && spec.precision.is_none() {
        let mut s = String::new();
        python::write_float(&mut s, a);
        s
    } else {
        float_body(a, spec.ty, spec.precision, spec.alternate)
    };
    if !x.is_finite() && spec.ty == Some('%') {
        body.push('%');
    }
    if upper {
        body = body.to_uppercase();
    }
    let is_zero = body.bytes().all(|b| matches!(b, b'0' | b'.' | b'%' | b'e' | b'E' | b'+' | b'-'));
    let negative =
        x.is_sign_negative() && !x.is_nan() && !(spec.no_negative_zero && is_zero && x.is_finite());
    let head = sign_of(negative, spec.sign);
    let (fill, align) = spec.layout('>');
    let body = match spec.grouping {
        Some(sep) => {
            let end = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(body.len());
            let zero_fill = fill == '0' && align == '=';
            let min = if zero_fill {
                spec.width.saturating_sub(head.len() + body.len() - end)
            } else {
                0
            };
            room(min, limits)?;
            group(&body[..end], sep, 3, min) + &body[end..]
        }
        None => body,
    };
    pad(out, &(head.to_owned() + &body), head.len(), fill, align, spec.width, limits)
}

// ---------------------------------------------------------------------------
// `str.format`.

/// Python's `str.format` on the string `value` (whose text is `s`):
/// replacement fields `{}`, `{0}`, `{name}`, `{name.attr}`, `{0[key]}`,
/// with a conversion (`!s`, `!r`, `!a`) and a format spec (`{:>10}`, with
/// nested fields: `{:{width}}`); `{{` and `}}` are braces.
pub(crate) fn str_format(
    value: &Value,
    s: &str,
    positional: &[Value],
    keywords: &[(&str, Value)],
    limits: &Limits,
) -> Result<Value, Error> {
    let mut out = TextBuf::default();
    let mut numbering = Numbering::default();
    let args = FormatArgs { positional, keywords };
    let mut literal = 0;
    let mut i = 0;
    let bytes = s.as_bytes();
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') => {
                push_source(&mut out, value, s, literal..i + 1);
                i += 2;
                literal = i;
            }
            b'}' if bytes.get(i + 1) == Some(&b'}') => {
                push_source(&mut out, value, s, literal..i + 1);
                i += 2;
                literal = i;
            }
            b'}' => return Err(invalid("Single '}' encountered in format string")),
            b'{' => {
                push_source(&mut out, value, s, literal..i);
                let end = field_end(s, i + 1)?;
                replace(&s[i + 1..end], &args, &mut numbering, &mut out, limits, 0)?;
                i = end + 1;
                literal = i;
            }
            _ => i += 1,
        }
        room(out.len(), limits)?;
    }
    push_source(&mut out, value, s, literal..s.len());
    room(out.len(), limits)?;
    Ok(out.into_value())
}

/// The arguments of a `str.format` call.
struct FormatArgs<'a, 'k> {
    positional: &'a [Value],
    keywords: &'a [(&'k str, Value)],
}

/// Python's field numbering: automatic (`{}`) and manual (`{0}`) cannot
/// be mixed.
#[derive(Default)]
struct Numbering {
    next: usize,
    manual: bool,
}

/// The index of the `}` closing the field whose text starts at `from`
/// (nested `{...}` in its spec counted).
fn field_end(s: &str, from: usize) -> Result<usize, Error> {
    let mut depth = 1usize;
    let mut in_brackets = false;
    for (at, c) in s[from..].char_indices() {
        match c {
            '[' if depth == 1 => in_brackets = true,
            ']' => in_brackets = false,
            '{' if !in_brackets => depth += 1,
            '}' if !in_brackets || depth > 1 => {
                depth -= 1;
                if depth == 0 {
                    return Ok(from + at);
                }
            }
            _ => {}
        }
    }
    Err(invalid("expected '}' before end of string"))
}

/// One replacement field (its text without the braces) written to `out`.
fn replace(
    field: &str,
    args: &FormatArgs<'_, '_>,
    numbering: &mut Numbering,
    out: &mut TextBuf,
    limits: &Limits,
    depth: usize,
) -> Result<(), Error> {
    if depth > 1 {
        return Err(invalid("Max string recursion exceeded"));
    }
    // The field name runs to `!` or `:` outside `[...]`.
    let mut name_end = field.len();
    let mut in_brackets = false;
    for (at, c) in field.char_indices() {
        match c {
            '[' => in_brackets = true,
            ']' => in_brackets = false,
            '!' | ':' if !in_brackets => {
                name_end = at;
                break;
            }
            '{' if !in_brackets => return Err(invalid("unexpected '{' in field name")),
            _ => {}
        }
    }
    let (name, rest) = field.split_at(name_end);
    let (conversion, spec) = match rest.strip_prefix('!') {
        Some(after) => {
            let mut chars = after.chars();
            let c = chars
                .next()
                .ok_or_else(|| invalid("end of string while looking for conversion specifier"))?;
            let tail = chars.as_str();
            match tail.strip_prefix(':') {
                Some(spec) => (Some(c), spec),
                None if tail.is_empty() => (Some(c), ""),
                None => return Err(invalid("expected ':' after conversion specifier")),
            }
        }
        None => (None, rest.strip_prefix(':').unwrap_or("")),
    };
    let value = lookup(name, args, numbering)?;
    // Nested fields in the spec (`{:{width}}`), formatted first.
    let spec = if spec.contains(['{', '}']) {
        let mut nested = TextBuf::default();
        let mut i = 0;
        let mut literal = 0;
        let bytes = spec.as_bytes();
        while i < bytes.len() {
            match bytes[i] {
                b'{' => {
                    nested.push_authored(&spec[literal..i]);
                    let end = field_end(spec, i + 1)?;
                    replace(&spec[i + 1..end], args, numbering, &mut nested, limits, depth + 1)?;
                    i = end + 1;
                    literal = i;
                }
                b'}' => return Err(invalid("Single '}' encountered in format string")),
                _ => i += 1,
            }
        }
        nested.push_authored(&spec[literal..]);
        room(nested.len(), limits)?;
        std::borrow::Cow::Owned(nested.finish().0)
    } else {
        std::borrow::Cow::Borrowed(spec)
    };
    let converted = match conversion {
        None => value,
        Some('s') => {
            if value.as_str().is_some() {
                value
            } else {
                let mut text = String::new();
                python::write_str(&value, &mut text, limits.string_limit)
                    .map_err(|TooLong| too_long(limits))?;
                Value::string(text)
            }
        }
        Some(c @ ('r' | 'a')) => {
            let mut text = String::new();
            python::write_repr(&value, &mut text, limits.string_limit)
                .map_err(|TooLong| too_long(limits))?;
            if c == 'a' {
                text = ascii(&text);
                room(text.len(), limits)?;
            }
            Value::string(text)
        }
        Some(c) => return Err(invalid(format!("Unknown conversion specifier {c}"))),
    };
    // A string substituted as it is keeps its provenance.
    if spec.is_empty() && converted.as_str().is_some() {
        out.push_string(&converted);
        return Ok(());
    }
    let mut text = String::new();
    format_value(&converted, &spec, &mut text, limits)?;
    push_piece(out, &text, converted.is_all_authored() && !converted.is_undefined());
    Ok(())
}

/// The value a field name names: an argument, then `.attr` and `[key]`
/// steps (a key of digits is an integer).
fn lookup(
    name: &str,
    args: &FormatArgs<'_, '_>,
    numbering: &mut Numbering,
) -> Result<Value, Error> {
    let head_end = name.find(['.', '[']).unwrap_or(name.len());
    let (head, mut steps) = name.split_at(head_end);
    let mut value =
        if head.is_empty() {
            if numbering.manual {
                return Err(invalid(
                    "cannot switch from manual field specification to automatic field numbering",
                ));
            }
            numbering.next += 1;
            let at = numbering.next - 1;
            args.positional.get(at).cloned().ok_or_else(|| {
                invalid(format!("Replacement index {at} out of range for positional args tuple"))
            })?
        } else if head.bytes().all(|b| b.is_ascii_digit()) {
            if numbering.next > 0 {
                return Err(invalid(
                    "cannot switch from automatic field numbering to manual field specification",
                ));
            }
            numbering.manual = true;
            let at: usize =
                head.parse().map_err(|_| invalid("Too many decimal digits in format string"))?;
            args.positional.get(at).cloned().ok_or_else(|| {
                invalid(format!("Replacement index {at} out of range for positional args tuple"))
            })?
        } else {
            args.keywords.iter().find(|(k, _)| *k == head).map(|(_, v)| v.clone()).ok_or_else(
                || invalid(format!("no argument named {head:?} (KeyError: '{head}')")),
            )?
        };
    while !steps.is_empty() {
        if let Some(rest) = steps.strip_prefix('.') {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            if end == 0 {
                return Err(invalid("Empty attribute in format string"));
            }
            value = value.get(&rest[..end]).cloned().unwrap_or_default();
            steps = &rest[end..];
        } else if let Some(rest) = steps.strip_prefix('[') {
            let end = rest.find(']').ok_or_else(|| invalid("Missing ']' in format string"))?;
            let key = &rest[..end];
            if key.is_empty() {
                return Err(invalid("Empty attribute in format string"));
            }
            let index = match key.parse::<i64>() {
                Ok(n) if key.bytes().all(|b| b.is_ascii_digit()) => Value::from(n),
                _ => Value::str(key),
            };
            value = super::ops::get_item(&value, &index).unwrap_or_default();
            steps = &rest[end + 1..];
            if !steps.is_empty() && !steps.starts_with(['.', '[']) {
                return Err(invalid("Only '.' or '[' may follow ']' in format field specifier"));
            }
        } else {
            return Err(invalid("Only '.' or '[' may follow ']' in format field specifier"));
        }
    }
    Ok(value)
}

/// Python's `ascii()` of a repr: every character past ASCII escaped.
fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let n = c as u32;
        let _ = match n {
            0..0x80 => {
                out.push(c);
                Ok(())
            }
            0x80..0x100 => write!(out, "\\x{n:02x}"),
            0x100..0x10000 => write!(out, "\\u{n:04x}"),
            _ => write!(out, "\\U{n:08x}"),
        };
    }
    out
}

// ---------------------------------------------------------------------------
// `%`-formatting.

/// Jinja2's `format` filter: `str(value) % args`, or `% kwargs` (a
/// mapping) when keyword arguments are given; both at once is an error.
pub(crate) fn percent_format(
    value: &Value,
    positional: &[Value],
    keywords: &[(&str, Value)],
    limits: &Limits,
) -> Result<Value, Error> {
    if !positional.is_empty() && !keywords.is_empty() {
        return Err(invalid(
            "`format` can't handle positional and keyword arguments at the same time",
        ));
    }
    let printed;
    let (template, source) = match value.as_str() {
        Some(s) => (s, value),
        None => {
            let mut text = String::new();
            python::write_str(value, &mut text, limits.string_limit)
                .map_err(|TooLong| too_long(limits))?;
            printed = Value::string(text);
            (printed.as_str().unwrap_or_default(), &printed)
        }
    };
    let mapping = (!keywords.is_empty()).then(|| {
        let map = keywords.iter().map(|(k, v)| (std::sync::Arc::from(*k), v.clone())).collect();
        Value::map(map)
    });
    let mut out = TextBuf::default();
    let mut next = 0usize;
    let mut literal = 0;
    let chars: Vec<(usize, char)> = template.char_indices().collect();
    let mut ci = 0;
    // The next positional argument (the mapping itself when formatting
    // with keywords).
    let mut take = |next: &mut usize| -> Result<Value, Error> {
        if let Some(map) = &mapping {
            return Ok(map.clone());
        }
        let arg = positional
            .get(*next)
            .cloned()
            .ok_or_else(|| invalid("not enough arguments for format string"))?;
        *next += 1;
        Ok(arg)
    };
    while ci < chars.len() {
        let (at, c) = chars[ci];
        if c != '%' {
            ci += 1;
            continue;
        }
        push_source(&mut out, source, template, literal..at);
        ci += 1;
        let peek = |ci: usize| chars.get(ci).map(|(_, c)| *c);
        if peek(ci) == Some('%') {
            push_source(&mut out, source, template, chars[ci].0..chars[ci].0 + 1);
            ci += 1;
            literal = chars.get(ci).map_or(template.len(), |(b, _)| *b);
            continue;
        }
        let mut key_arg = None;
        if peek(ci) == Some('(') {
            let Some(map) = &mapping else {
                return Err(invalid("format requires a mapping"));
            };
            let mut depth = 1;
            let start = ci + 1;
            ci += 1;
            while depth > 0 {
                match peek(ci) {
                    Some('(') => depth += 1,
                    Some(')') => depth -= 1,
                    Some(_) => {}
                    None => return Err(invalid("incomplete format key")),
                }
                ci += 1;
            }
            let key_start = chars[start].0;
            let key_end = chars[ci - 1].0;
            let key = &template[key_start..key_end];
            key_arg = Some(map.get(key).cloned().ok_or_else(|| {
                invalid(format!("no argument named {key:?} (KeyError: '{key}')"))
            })?);
        }
        let mut flags = Printf::default();
        while let Some(f @ ('-' | '+' | ' ' | '#' | '0')) = peek(ci) {
            match f {
                '-' => flags.left = true,
                '+' => flags.plus = true,
                ' ' => flags.space = true,
                '#' => flags.alternate = true,
                _ => flags.zero = true,
            }
            ci += 1;
        }
        let star = |next: &mut usize, take: &mut dyn FnMut(&mut usize) -> Result<Value, Error>| {
            match take(next)?.0 {
                Repr::Int(n) => Ok(n),
                _ => Err(invalid("* wants int")),
            }
        };
        if peek(ci) == Some('*') {
            let n = star(&mut next, &mut take)?;
            flags.left |= n < 0;
            flags.width = usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX);
            ci += 1;
        } else {
            flags.width = digits(&chars, &mut ci)?.unwrap_or(0);
        }
        if peek(ci) == Some('.') {
            ci += 1;
            if peek(ci) == Some('*') {
                let n = star(&mut next, &mut take)?;
                flags.precision = Some(usize::try_from(n.max(0)).unwrap_or(0));
                ci += 1;
            } else {
                flags.precision = Some(digits(&chars, &mut ci)?.unwrap_or(0));
            }
        }
        while matches!(peek(ci), Some('h' | 'l' | 'L')) {
            ci += 1;
        }
        let Some(conversion) = peek(ci) else {
            return Err(invalid("incomplete format"));
        };
        let arg = match key_arg {
            Some(arg) => arg,
            None => take(&mut next)?,
        };
        if conversion == '%' {
            return Err(invalid(format!("unsupported format character '%' (0x25) at index {ci}")));
        }
        let mut piece = String::new();
        room(flags.width.max(flags.precision.unwrap_or(0)).saturating_add(out.len()), limits)?;
        flags.convert(&arg, conversion, ci, &mut piece, limits)?;
        if conversion == 's' && piece.len() == arg.as_str().map_or(usize::MAX, str::len) {
            // A string kept as it is keeps its provenance.
            out.push_string(&arg);
        } else {
            push_piece(&mut out, &piece, arg.is_all_authored() && !arg.is_undefined());
        }
        room(out.len(), limits)?;
        ci += 1;
        literal = chars.get(ci).map_or(template.len(), |(b, _)| *b);
    }
    push_source(&mut out, source, template, literal..template.len());
    if mapping.is_none() && next < positional.len() {
        return Err(invalid("not all arguments converted during string formatting"));
    }
    room(out.len(), limits)?;
    Ok(out.into_value())
}

/// The decimal number at `chars[*ci..]`, if there is one.
fn digits(chars: &[(usize, char)], ci: &mut usize) -> Result<Option<usize>, Error> {
    let plain: Vec<char> =
        chars[*ci..].iter().map(|(_, c)| *c).take_while(char::is_ascii_digit).collect();
    let mut i = 0;
    let n = number(&plain, &mut i)?;
    *ci += i;
    Ok(n)
}

/// A `%` conversion's flags, width and precision.
#[derive(Debug, Default)]
struct Printf {
    left: bool,
    zero: bool,
    plus: bool,
    space: bool,
    alternate: bool,
    width: usize,
    precision: Option<usize>,
}

impl Printf {
    /// The sign of a number: `-`, or `+`/space when asked.
    fn sign(&self, negative: bool) -> &'static str {
        match (negative, self.plus, self.space) {
            (true, _, _) => "-",
            (false, true, _) => "+",
            (false, false, true) => " ",
            _ => "",
        }
    }

    /// One conversion of `arg` (the character `conversion`, at `index`),
    /// padded to the width.
    fn convert(
        &self,
        arg: &Value,
        conversion: char,
        index: usize,
        out: &mut String,
        limits: &Limits,
    ) -> Result<(), Error> {
        let max = limits.string_limit;
        let (body, prefix_len, numeric) = match conversion {
            's' | 'r' | 'a' => {
                let mut text = String::new();
                match conversion {
                    's' => python::write_str(arg, &mut text, max),
                    _ => python::write_repr(arg, &mut text, max),
                }
                .map_err(|TooLong| too_long(limits))?;
                if conversion == 'a' {
                    text = ascii(&text);
                }
                if let Some(p) = self.precision
                    && let Some((at, _)) = text.char_indices().nth(p)
                {
                    text.truncate(at);
                }
                (text, 0, false)
            }
            'c' => {
                let c = match (&arg.0, arg.as_str()) {
                    (Repr::Int(n), _) => u32::try_from(*n)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| invalid("%c arg not in range(0x110000)"))?,
                    (_, Some(s)) if s.chars().count() == 1 => s.chars().next().unwrap_or(' '),
                    _ => return Err(invalid("%c requires int or char")),
                };
                (c.to_string(), 0, false)
            }
            'd' | 'i' | 'u' | 'x' | 'X' | 'o' => {
                let n = match &arg.0 {
                    Repr::Int(n) => *n,
                    Repr::Bool(b) => i64::from(*b),
                    Repr::Float(x) if matches!(conversion, 'd' | 'i' | 'u') => {
                        if !x.is_finite() {
                            return Err(invalid("cannot convert float infinity or NaN to integer"));
                        }
                        x.trunc().clamp(i64::MIN as f64, i64::MAX as f64) as i64
                    }
                    _ => {
                        let wants = if matches!(conversion, 'd' | 'i' | 'u') {
                            "a real number"
                        } else {
                            "an integer"
                        };
                        return Err(invalid(format!(
                            "%{conversion} format: {wants} is required, not {}",
                            type_name(arg)
                        )));
                    }
                };
                let m = n.unsigned_abs();
                let mut digits = match conversion {
                    'x' => format!("{m:x}"),
                    'X' => format!("{m:X}"),
                    'o' => format!("{m:o}"),
                    _ => m.to_string(),
                };
                if let Some(p) = self.precision
                    && digits.len() < p
                {
                    digits = "0".repeat(p - digits.len()) + &digits;
                }
                let mut head = self.sign(n < 0).to_owned();
                if self.alternate {
                    head.push_str(match conversion {
                        'x' => "0x",
                        'X' => "0X",
                        'o' => "0o",
                        _ => "",
                    });
                }
                let prefix = head.len();
                (head + &digits, prefix, true)
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let x = match &arg.0 {
                    Repr::Int(n) => *n as f64,
                    Repr::Bool(b) => f64::from(u8::from(*b)),
                    Repr::Float(x) => *x,
                    _ => {
                        return Err(invalid(format!(
                            "must be real number, not {}",
                            type_name(arg)
                        )));
                    }
                };
                let lower = conversion.to_ascii_lowercase();
                let mut body = if x.is_nan() {
                    "nan".to_owned()
                } else if x.is_infinite() {
                    "inf".to_owned()
                } else {
                    float_body(
                        x.abs(),
                        Some(lower),
                        Some(self.precision.unwrap_or(6)),
                        self.alternate,
                    )
                };
                if conversion.is_ascii_uppercase() {
                    body = body.to_uppercase();
                }
                let head = self.sign(x.is_sign_negative() && !x.is_nan());
                (head.to_owned() + &body, head.len(), x.is_finite())
            }
            other => {
                return Err(invalid(format!(
                    "unsupported format character '{other}' ({:#x}) at index {index}",
                    other as u32
                )));
            }
        };
        let (fill, align) = if self.left {
            (' ', '<')
        } else if self.zero && numeric {
            ('0', '=')
        } else {
            (' ', '>')
        };
        pad(out, &body, prefix_len, fill, align, self.width, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(value: Value, spec: &str) -> Result<String, String> {
        let mut out = String::new();
        let _python = python::PythonPrinting::set(true);
        format_value(&value, spec, &mut out, &Limits::default())
            .map(|()| out)
            .map_err(|e| e.message().to_owned())
    }

    #[test]
    fn format_specs_match_python() {
        // python3 -c "print(format(X, SPEC))" for each row.
        let cases: &[(Value, &str, &str)] = &[
            (Value::from("ab"), "05", "ab000"),
            (Value::from(5), "<05", "50000"),
            (Value::from(1234), "08,", "0,001,234"),
            (Value::from(1234), "010,", "00,001,234"),
            (Value::from(10.0), ".2", "1e+01"),
            (Value::from(100.0), ".3", "1e+02"),
            (Value::from(0.0001), ".2", "0.0001"),
            (Value::from(-0.001), "z.1f", "0.0"),
            (Value::from(5), "#010x", "0x00000005"),
            (Value::from(-5), "#010x", "-0x0000005"),
            (Value::from(65), ">5c", "    A"),
            (Value::from(12345.6), "_", "12_345.6"),
            (Value::from(1234567), "_b", "1_0010_1101_0110_1000_0111"),
            (Value::from(1234567), "_x", "12_d687"),
            (Value::from(0.5), ".0f", "0"),
            (Value::from(2.5), ".0f", "2"),
            (Value::from(0.125), ".2f", "0.12"),
            (Value::from(1e22), ",.0f", "10,000,000,000,000,000,000,000"),
            (Value::from(-1.5), "*=10", "-******1.5"),
            (Value::from(true), "d", "1"),
            (Value::from(true), ".2f", "1.00"),
            (Value::from(123456789.0), "g", "1.23457e+08"),
            (Value::from(0.1), "%", "10.000000%"),
            (Value::from(9.96), ".2", "1e+01"),
            (Value::from(0.000099999), ".2", "0.0001"),
            (Value::from(0.0), ".3", "0.0"),
            (Value::from(0.0), "g", "0"),
            (Value::from(99999.5), "g", "99999.5"),
            (Value::from(1.0), "#g", "1.00000"),
            (Value::from("ab"), "x^5", "xabxx"),
            (Value::from("abcdef"), "10.3s", "abc       "),
        ];
        for (value, s, python) in cases {
            assert_eq!(spec(value.clone(), s).as_deref(), Ok(*python), "format({value:?}, {s:?})");
        }
        assert_eq!(
            spec(Value::from(3), ".2").unwrap_err(),
            "Precision not allowed in integer format specifier"
        );
        assert_eq!(
            spec(Value::from(2.0), "d").unwrap_err(),
            "Unknown format code 'd' for object of type 'float'"
        );
        assert_eq!(
            spec(Value::NONE, ">5").unwrap_err(),
            "unsupported format string passed to NoneType.__format__"
        );
    }

    #[test]
    fn huge_widths_and_precisions_hit_the_limit_before_allocating() {
        let limits = Limits::default();
        for s in [">999999999", "999999999999999", ".999999999f", "0999999999,"] {
            let mut out = String::new();
            let err = format_value(&Value::from(1), s, &mut out, &limits).unwrap_err();
            assert!(
                err.message().contains("limit") || err.message().contains("Precision"),
                "{s}: {err}"
            );
            assert!(out.capacity() < 1 << 20, "{s}");
        }
        let err =
            format_value(&Value::from(1), "99999999999999999999999", &mut String::new(), &limits)
                .unwrap_err();
        assert_eq!(err.message(), "Too many decimal digits in format string");
    }

    #[test]
    fn grouping_pads_with_zeros_and_separators() {
        assert_eq!(group("1234", ',', 3, 0), "1,234");
        assert_eq!(group("1234", ',', 3, 8), "0,001,234");
        assert_eq!(group("1", '_', 4, 0), "1");
        assert_eq!(group("", ',', 3, 0), "");
    }
}
