//! minijinja's own template suite, converted to bracket syntax, as a
//! ratcheting test of this crate (issue 15).
//!
//! Every case of minijinja's `minijinja/tests/inputs/` (Apache-2.0; see
//! `tests/minijinja-suite/README.md` for the commit and how to get it) is
//! rendered twice: as written,
//! by minijinja (the dev-dependency, configured as minijinja's own harness
//! `tests/test_templates.rs` configures it), and converted to bracket syntax
//! at test time, by this crate. A case *matches* when both give the same
//! output or both fail (error kinds are not compared: the two engines name
//! them differently; minijinja's message is printed beside ours).
//!
//! `tests/minijinja-suite/status.txt` lists every case that does not match
//! today with its category and reason. The test fails when a case that is
//! not listed differs, and when a listed case matches: the list stays true,
//! so a feature that lands must take its cases off the list.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use minijinja::value::{Rest, Serde, ValueOrKwargs};

const SUITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/minijinja-suite");

/// The environment variable naming minijinja's `minijinja/tests/inputs`
/// directory (a checkout at the commit in the README).
const INPUTS_VAR: &str = "PROMPT_SUITE_MINIJINJA_SUITE";
/// Set to `1` to make a missing suite a failure instead of a skip.
const REQUIRE_VAR: &str = "PROMPT_SUITE_REQUIRE_SUITE";

/// The copy of minijinja's suite beside the checkout (`../shared/peer`,
/// from the workspace root), as every developer and CI have it.
const PEER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/peer/minijinja-suite/minijinja/tests/inputs"
);

/// Where the suite's cases are: `$PROMPT_SUITE_MINIJINJA_SUITE`, else
/// `../shared/peer/minijinja-suite/minijinja/tests/inputs` beside the
/// checkout, else `tests/minijinja-suite/inputs` (git-ignored: minijinja's
/// files are not part of this repository). `None` when none exists, said
/// on the terminal even when cargo captures the test's output (the skip is
/// visible); a failure instead when `PROMPT_SUITE_REQUIRE_SUITE=1`.
fn suite_inputs() -> Option<PathBuf> {
    let candidates = match std::env::var_os(INPUTS_VAR) {
        Some(path) => vec![PathBuf::from(path)],
        None => vec![PathBuf::from(PEER), Path::new(SUITE).join("inputs")],
    };
    if let Some(path) = candidates.iter().find(|path| path.is_dir()) {
        return Some(path.clone());
    }
    let tried: Vec<String> = candidates.iter().map(|path| path.display().to_string()).collect();
    let note = format!(
        "minijinja's template suite is not at {} (set {INPUTS_VAR} to minijinja's \
         `minijinja/tests/inputs`, see tests/minijinja-suite/README.md)",
        tried.join(" nor ")
    );
    assert!(std::env::var_os(REQUIRE_VAR).is_none_or(|v| v != "1"), "{note}");
    visible(&format!("SKIPPED minijinja_suite: {note}"));
    None
}

/// Writes `line` to standard error past cargo's capture of the test's
/// output (`eprintln!` is captured; a write to the handle is not).
fn visible(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

// ---------------------------------------------------------------------------
// The converter: Jinja's default delimiters to bracket syntax.
// ---------------------------------------------------------------------------

/// A template the converter cannot spell in bracket syntax without changing
/// what it means.
#[derive(Debug, PartialEq, Eq)]
struct Unconvertible(String);

/// Converts a template written with Jinja's default delimiters to bracket
/// syntax: `{{ }}` → `[[ ]]`, `{% %}` → `[% %]`, `{# #}` → `[# #]`, the
/// whitespace markers kept (`{%-`, `-%}`, `{%+`, `+%}`), and a filter pipe
/// `|` → `->` outside string literals.
///
/// Tags are found as minijinja's lexer finds them: an opener is `{` followed
/// by `{`, `%` or `#`; a comment ends at the first `#}`; a tag ends at its
/// closer at bracket balance zero, outside strings (backslash escapes
/// skipped); `{% raw %}` runs to the first `{% endraw %}` (markers allowed)
/// and its body is copied verbatim. Text is copied verbatim, except that a
/// `[` that would open a bracket tag (followed by `[`, `%` or `#`, or by the
/// next tag) is printed as `[[ "[" ]]`. minijinja takes `{{+` and `+}}` as a
/// no-op whitespace marker; brackets has none for print tags (there it would
/// be a unary plus), so it is dropped. An unterminated tag, string, comment
/// or raw block is copied as it is: both engines then fail.
///
/// # Errors
///
/// When bracket syntax would end a comment or raw block earlier than Jinja
/// does (a `#]` inside a comment, a `[% endraw %]` inside a raw block).
fn to_brackets(source: &str) -> Result<String, Unconvertible> {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len() + source.len() / 8);
    let mut pos = 0;
    while pos < bytes.len() {
        let Some(open) = find_opener(bytes, pos) else {
            push_text(&mut out, &source[pos..], false);
            break;
        };
        push_text(&mut out, &source[pos..open], true);
        pos = convert_tag(source, open, &mut out)?;
    }
    Ok(out)
}

/// The next `{{`, `{%` or `{#` at or after `from`.
fn find_opener(bytes: &[u8], mut from: usize) -> Option<usize> {
    while let Some(i) = bytes[from..].iter().position(|&b| b == b'{') {
        let at = from + i;
        if matches!(bytes.get(at + 1), Some(b'{' | b'%' | b'#')) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Copies template text; `tag_follows` says a tag comes right after it.
fn push_text(out: &mut String, text: &str, tag_follows: bool) {
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let opens = match bytes.get(i + 1) {
            Some(next) => matches!(next, b'[' | b'%' | b'#'),
            None => tag_follows,
        };
        if b == b'[' && opens {
            out.push_str(&text[start..i]);
            out.push_str("[[ \"[\" ]]");
            start = i + 1;
        }
    }
    out.push_str(&text[start..]);
}

/// Converts the tag opening at `open`; returns the position after it.
fn convert_tag(source: &str, open: usize, out: &mut String) -> Result<usize, Unconvertible> {
    let bytes = source.as_bytes();
    let marker = bytes[open + 1];
    let ws = bytes.get(open + 2).copied().filter(|b| matches!(b, b'-' | b'+'));
    let body_start = open + 2 + usize::from(ws.is_some());
    match marker {
        b'#' => {
            let Some(end) = find(bytes, body_start, b"#}") else {
                out.push_str("[#");
                out.push_str(&source[open + 2..]);
                return Ok(source.len());
            };
            let body = &source[open + 2..end];
            if body.contains("#]") {
                return Err(Unconvertible(format!(
                    "the comment at byte {open} contains `#]`, which would end it early"
                )));
            }
            out.push_str("[#");
            out.push_str(body);
            out.push_str("#]");
            Ok(end + 2)
        }
        b'%' => {
            if let Some(len) = basic_tag(&source[body_start..], "raw", false) {
                let open_end = body_start + len;
                out.push_str("[%");
                out.push_str(&source[open + 2..open_end - 2]);
                out.push_str("%]");
                convert_raw_body(source, open_end, out)
            } else {
                convert_code(source, &source[open + 2..body_start], body_start, b"%}", out)
            }
        }
        _ => {
            // `{{+`: a no-op marker in minijinja, a unary plus in brackets.
            let marker = if ws == Some(b'-') { "-" } else { "" };
            convert_code(source, marker, body_start, b"}}", out)
        }
    }
}

/// minijinja's `skip_basic_tag`: `ws* name ws* [-+]? %}` at the start of
/// `rest` (a leading `-`/`+` allowed when `ws_marker`); the length up to and
/// including `%}`.
fn basic_tag(rest: &str, name: &str, ws_marker: bool) -> Option<usize> {
    let mut ptr = rest;
    if ws_marker {
        ptr = ptr.strip_prefix(['-', '+']).unwrap_or(ptr);
    }
    ptr = ptr.trim_start_matches(|c: char| c.is_ascii_whitespace());
    ptr = ptr.strip_prefix(name)?;
    ptr = ptr.trim_start_matches(|c: char| c.is_ascii_whitespace());
    ptr = ptr.strip_prefix(['-', '+']).unwrap_or(ptr);
    ptr = ptr.strip_prefix("%}")?;
    Some(rest.len() - ptr.len())
}

/// Copies a raw block's body from `start` and converts its `endraw` tag.
fn convert_raw_body(source: &str, start: usize, out: &mut String) -> Result<usize, Unconvertible> {
    let bytes = source.as_bytes();
    let mut from = start;
    while let Some(tag) = find(bytes, from, b"{%") {
        if let Some(len) = basic_tag(&source[tag + 2..], "endraw", true) {
            let body = &source[start..tag];
            if body_ends_bracket_raw(body) {
                return Err(Unconvertible(format!(
                    "the raw block at byte {start} contains `[% endraw %]`, which would end it early"
                )));
            }
            out.push_str(body);
            out.push_str("[%");
            out.push_str(&source[tag + 2..tag + 2 + len - 2]);
            out.push_str("%]");
            return Ok(tag + 2 + len);
        }
        from = tag + 2;
    }
    // No `{% endraw %}`: both engines report the unclosed raw block.
    out.push_str(&source[start..]);
    Ok(source.len())
}

/// Whether `body` holds a bracket `[% endraw %]` (any markers or spacing).
fn body_ends_bracket_raw(body: &str) -> bool {
    body.match_indices("[%").any(|(at, _)| {
        let rest = body[at + 2..].strip_prefix(['-', '+']).unwrap_or(&body[at + 2..]);
        rest.trim_start_matches(|c: char| c.is_ascii_whitespace()).starts_with("endraw")
    })
}

/// Converts a print or statement tag whose body starts at `body_start`
/// (after the opener and its whitespace `marker`):
/// `|` outside strings becomes `->`; the tag ends at `closer` at bracket
/// balance zero (after a `-`/`+` marker or not).
fn convert_code(
    source: &str,
    marker: &str,
    body_start: usize,
    closer: &[u8; 2],
    out: &mut String,
) -> Result<usize, Unconvertible> {
    let bytes = source.as_bytes();
    let print = closer == b"}}";
    out.push_str(if print { "[[" } else { "[%" });
    out.push_str(marker);
    let close_with = if print { "]]" } else { "%]" };
    let mut balance: isize = 0;
    let mut copied = body_start;
    let mut i = body_start;
    while i < bytes.len() {
        let b = bytes[i];
        if balance == 0 {
            let marked = matches!(b, b'-' | b'+') && bytes[i + 1..].starts_with(closer);
            if marked || bytes[i..].starts_with(closer) {
                out.push_str(&source[copied..i]);
                // `+}}` is minijinja's no-op marker; brackets has none there.
                if marked && !(print && b == b'+') {
                    out.push(char::from(b));
                }
                out.push_str(close_with);
                return Ok(i + usize::from(marked) + 2);
            }
        }
        match b {
            b'(' | b'[' | b'{' => balance += 1,
            b')' | b']' | b'}' => balance -= 1,
            b'|' => {
                out.push_str(&source[copied..i]);
                out.push_str("->");
                copied = i + 1;
            }
            b'"' | b'\'' => match string_end(bytes, i) {
                Some(end) => i = end,
                None => break,
            },
            _ => {}
        }
        i += 1;
    }
    // Unterminated tag or string: both engines fail on it.
    out.push_str(&source[copied..]);
    Ok(source.len())
}

/// The index of the quote closing the string opening at `open`.
fn string_end(bytes: &[u8], open: usize) -> Option<usize> {
    let quote = bytes[open];
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|i| from + i)
}

// ---------------------------------------------------------------------------
// The cases and the two engines.
// ---------------------------------------------------------------------------

/// One file of the suite: its JSON context header and its template.
struct Case {
    name: String,
    context: serde_json::Value,
    context_text: String,
    template: String,
    settings: Settings,
}

/// The `$settings` of a case header, as minijinja's harness reads them.
#[derive(Default)]
struct Settings {
    keep_trailing_newline: bool,
    lstrip_blocks: bool,
    trim_blocks: bool,
    undefined: Option<String>,
    /// Custom delimiters or line statements/comments: no bracket equivalent.
    custom_syntax: bool,
}

impl Settings {
    fn of(context: &serde_json::Value) -> Settings {
        let Some(settings) = context.get("$settings") else {
            return Settings::default();
        };
        let flag = |name: &str| settings.get(name).and_then(serde_json::Value::as_bool);
        Settings {
            keep_trailing_newline: flag("keep_trailing_newline").unwrap_or(false),
            lstrip_blocks: flag("lstrip_blocks").unwrap_or(false),
            trim_blocks: flag("trim_blocks").unwrap_or(false),
            undefined: settings.get("undefined").and_then(|v| v.as_str().map(str::to_owned)),
            custom_syntax: ["markers", "line_statement_prefix", "line_comment_prefix"]
                .iter()
                .any(|key| settings.get(key).is_some_and(|v| !v.is_null())),
        }
    }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    paths.sort();
    paths
}

fn cases(inputs: &Path) -> Vec<Case> {
    files(inputs)
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            let text = fs::read_to_string(&path).unwrap();
            let (header, template) = text
                .split_once("\n---\n")
                .unwrap_or_else(|| panic!("{name}: no `---` line after the context"));
            let context: serde_json::Value = serde_json::from_str(header)
                .unwrap_or_else(|err| panic!("{name}: bad context header: {err}"));
            let settings = Settings::of(&context);
            Case {
                name,
                context,
                context_text: header.to_owned(),
                template: template.to_owned(),
                settings,
            }
        })
        .collect()
}

/// The templates of `inputs/refs/` that cases include, import or extend.
fn refs(inputs: &Path) -> Vec<(String, String)> {
    files(&inputs.join("refs"))
        .into_iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt" || ext == "html"))
        .map(|path| {
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            (name, fs::read_to_string(&path).unwrap())
        })
        .collect()
}

/// An engine's result: its output, or its error.
type Rendered = Result<String, Failure>;

/// An engine's error: its kind, as the engine names it, and its message.
struct Failure {
    kind: String,
    message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl Failure {
    /// Whether minijinja's error (`self`) is of the kind this crate's error
    /// `ours` is: a loose mapping, since the engines cut kinds differently.
    fn same_kind(&self, ours: &Failure) -> bool {
        let expected: &[&str] = match self.kind.as_str() {
            "SyntaxError" => &["syntax_error"],
            "UnknownFilter" => &["unknown_filter"],
            "UnknownTest" => &["unknown_test"],
            "UnknownFunction" => &["unknown_function"],
            "UndefinedError" => &["undefined_error"],
            "TooManyArguments" | "MissingArgument" => &["bad_arguments"],
            "InvalidOperation" | "CannotUnpack" => {
                &["invalid_operation", "bad_arguments", "recursion_limit"]
            }
            _ => &[],
        };
        expected.contains(&ours.kind.as_str())
    }
}

/// Renders a case as minijinja's harness does (`tests/test_templates.rs`):
/// the refs added by file name, the case's settings, `get_args`, and a
/// one-shot iterator over `0..3` as `one_shot_iterator`.
fn minijinja(case: &Case, refs: &[(String, String)]) -> Rendered {
    use minijinja::{Environment, UndefinedBehavior, Value, context, syntax::SyntaxConfig};

    let mut env = Environment::new();
    env.set_formatter(print_as_brackets);
    env.add_function("get_args", |args: Rest<ValueOrKwargs>| -> Value {
        Value::from(args.into_values())
    });
    env.set_undefined_behavior(match case.settings.undefined.as_deref() {
        Some("strict") => UndefinedBehavior::Strict,
        Some("chainable") => UndefinedBehavior::Chainable,
        Some("semi_strict") => UndefinedBehavior::SemiStrict,
        _ => UndefinedBehavior::Lenient,
    });
    env.set_syntax(
        SyntaxConfig::builder()
            .keep_trailing_newline(case.settings.keep_trailing_newline)
            .trim_blocks(case.settings.trim_blocks)
            .lstrip_blocks(case.settings.lstrip_blocks)
            .build()
            .unwrap(),
    );
    for (name, source) in refs {
        env.add_template(name, source).unwrap();
    }
    let error = |err: minijinja::Error| Failure {
        kind: format!("{:?}", err.kind()),
        message: err.to_string(),
    };
    env.add_template(&case.name, &case.template).map_err(error)?;
    let template = env.get_template(&case.name).map_err(error)?;
    let ctx = Value::from(Serde(&case.context));
    template
        .render(context! { one_shot_iterator => Value::make_one_shot_iterator(0..3), ..ctx })
        .map_err(error)
}

/// minijinja's printing of values changed to the bracket language's
/// (docs/language.md, "values and printing"): booleans as `true`/`false`,
/// none as nothing, floats in Rust's shortest form (`2`, not `2.0`), lists
/// and maps as compact JSON. Everything else (strings, HTML
/// escaping, strict undefined) is minijinja's own. Only what a tag prints
/// changes: `~`, `string` and `join` still give minijinja's text.
fn print_as_brackets(
    out: &mut minijinja::Output<'_>,
    state: &mut minijinja::State<'_, '_>,
    value: &minijinja::Value,
) -> std::result::Result<(), minijinja::Error> {
    use minijinja::value::ValueKind;

    let io = |_| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, "write failed");
    match value.kind() {
        ValueKind::Bool => write!(out, "{}", value.is_true()).map_err(io),
        ValueKind::None => Ok(()),
        ValueKind::Number if !value.is_integer() => {
            let float = f64::try_from(value.clone())?;
            write!(out, "{float}").map_err(io)
        }
        // Macros, modules and iterators are objects of these kinds too; only
        // what minijinja shows as a list or a map is one.
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable
            if value.to_string().starts_with(['[', '{']) =>
        {
            let json = serde_json::to_string(value).map_err(|err| {
                minijinja::Error::new(minijinja::ErrorKind::BadSerialization, err.to_string())
            })?;
            out.write_str(&json).map_err(io)
        }
        _ => minijinja::escape_formatter(out, state, value),
    }
}

/// Renders a case with this crate: the template converted, minijinja's
/// default of dropping one final newline applied to the source first (this
/// crate always keeps it, a documented difference), the context as the
/// state store, strict mode for `undefined: strict`, and `get_args` (its
/// positional arguments, then its keyword arguments as a map, as
/// minijinja's); a `*.html` case (or ref) inside
/// `[% autoescape true %]`.
fn brackets(case: &Case, refs: &[(String, String)]) -> Result<Rendered, Unconvertible> {
    use minijinja_brackets::{Context, Environment, Value};

    // minijinja drops one final newline of every template it is given, and
    // its harness escapes templates named `*.html`; this language escapes
    // inside `autoescape` blocks only, so that is the conversion.
    let trimmed = |name: &str, mut source: &'_ str| {
        if !case.settings.keep_trailing_newline {
            source = source.strip_suffix('\n').unwrap_or(source);
            source = source.strip_suffix('\r').unwrap_or(source);
        }
        let converted = to_brackets(source)?;
        Ok(match name.ends_with(".html") {
            true => format!("[% autoescape true %]{converted}[% endautoescape %]"),
            false => converted,
        })
    };
    let converted = trimmed(&case.name, &case.template)?;
    let mut env = Environment::new();
    env.set_strict(case.settings.undefined.as_deref() == Some("strict"));
    env.set_trim_blocks(case.settings.trim_blocks);
    env.set_lstrip_blocks(case.settings.lstrip_blocks);
    // minijinja's `Rest<ValueOrKwargs>`: the positional arguments, then the
    // keyword arguments as one map when there are any.
    env.add_function("get_args", |args: minijinja_brackets::Arguments<'_>| {
        let mut values = args.positional().to_vec();
        if !args.keywords().is_empty() {
            let map =
                args.keywords().iter().map(|(name, value)| ((*name).to_owned(), value.clone()));
            values.push(map.collect());
        }
        Ok(Value::from(values))
    });
    let error = |err: minijinja_brackets::Error| Failure {
        kind: err.kind().to_string(),
        message: err.message().to_owned(),
    };
    let context = match Context::from_json(&format!("{{\"state\": {}}}", case.context_text)) {
        Ok(context) => context,
        Err(err) => return Ok(Err(error(err))),
    };
    // A panic is a bug of this crate, reported as the case's outcome so
    // that the rest of the suite still runs.
    // The refs, converted, by file name, as minijinja's harness adds them;
    // the case itself under its name, so that errors name it.
    let mut templates = Vec::with_capacity(refs.len());
    for (name, source) in refs {
        templates.push((name, trimmed(name, source)?));
    }
    let render = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for (name, source) in &templates {
            env.add_template(name, source)?;
        }
        env.add_template(&case.name, &converted)?;
        env.template(&case.name)
            .and_then(|template| template.render_outcome(&context, 0))
            .map(|outcome| outcome.output)
    }));
    Ok(match render {
        Ok(rendered) => rendered.map_err(error),
        Err(panic) => Err(Failure { kind: "PANIC".into(), message: panic_message(&*panic).into() }),
    })
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(message), _) => message,
        (_, Some(message)) => message,
        _ => "(no message)",
    }
}

/// How the two engines compare on a case.
enum Outcome {
    Same,
    BothFail { theirs: Failure, ours: Failure },
    Differs { theirs: Rendered, ours: Result<Rendered, Unconvertible> },
}

fn compare(case: &Case, refs: &[(String, String)]) -> Outcome {
    if case.settings.custom_syntax {
        let ours = Err(Unconvertible("custom delimiters or line statements".into()));
        return Outcome::Differs { theirs: minijinja(case, refs), ours };
    }
    match (minijinja(case, refs), brackets(case, refs)) {
        (Ok(theirs), Ok(Ok(ours))) if theirs == ours => Outcome::Same,
        (Err(theirs), Ok(Err(ours))) if ours.kind != "PANIC" => Outcome::BothFail { theirs, ours },
        (theirs, ours) => Outcome::Differs { theirs, ours },
    }
}

// ---------------------------------------------------------------------------
// The status list.
// ---------------------------------------------------------------------------

/// A listed case: why it does not match today.
struct Listed {
    category: String,
    reason: String,
}

/// Reads `status.txt`: `case category reason...` per line, `#` comments.
fn status() -> BTreeMap<String, Listed> {
    let path = Path::new(SUITE).join("status.txt");
    let text = fs::read_to_string(&path).unwrap();
    let mut listed = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (case, rest) = field(line);
        let (category, reason) = field(rest);
        assert!(valid_category(category), "status.txt:{}: bad category `{category}`", n + 1);
        assert!(!reason.is_empty(), "status.txt:{}: `{case}` needs a reason", n + 1);
        let entry = Listed { category: category.to_owned(), reason: reason.to_owned() };
        assert!(
            listed.insert(case.to_owned(), entry).is_none(),
            "status.txt:{}: `{case}` is listed twice",
            n + 1
        );
    }
    listed
}

/// The first word of `text` and the rest, without leading whitespace.
fn field(text: &str) -> (&str, &str) {
    let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    (word, rest.trim_start())
}

/// `missing:<feature>`, `bug:<n>` or `difference:<reason>`.
fn valid_category(category: &str) -> bool {
    match category.split_once(':') {
        Some(("missing" | "difference", what)) => !what.is_empty(),
        Some(("bug", n)) => n.parse::<u32>().is_ok_and(|n| n > 0),
        _ => false,
    }
}

fn show(result: &Result<Rendered, Unconvertible>) -> String {
    match result {
        Ok(Ok(output)) => format!("output {output:?}"),
        Ok(Err(error)) => format!("error {error}"),
        Err(Unconvertible(why)) => format!("not convertible: {why}"),
    }
}

#[test]
fn minijinja_suite_matches_or_is_listed() {
    let Some(inputs) = suite_inputs() else { return };
    let refs = refs(&inputs);
    let cases = cases(&inputs);
    let mut listed = status();
    let mut report = String::new();
    let mut failures = Vec::new();
    let (mut same, mut both_fail, mut other_kind) = (0, 0, 0);
    let mut by_category: BTreeMap<String, usize> = BTreeMap::new();
    for case in &cases {
        let entry = listed.remove(&case.name);
        match (compare(case, &refs), entry) {
            (Outcome::Same, None) => same += 1,
            (Outcome::BothFail { theirs, ours }, None) => {
                both_fail += 1;
                let agree = if theirs.same_kind(&ours) {
                    "same kind"
                } else {
                    other_kind += 1;
                    "other kind"
                };
                writeln!(
                    report,
                    "both fail  {} ({agree})\n  minijinja: {theirs}\n  brackets:  {ours}",
                    case.name
                )
                .unwrap();
            }
            (Outcome::Same | Outcome::BothFail { .. }, Some(entry)) => failures.push(format!(
                "{} now matches minijinja: take it off status.txt (was {}: {})",
                case.name, entry.category, entry.reason
            )),
            (Outcome::Differs { .. }, Some(entry)) => {
                *by_category.entry(entry.category.clone()).or_default() += 1;
                writeln!(report, "listed     {}  {}  {}", case.name, entry.category, entry.reason)
                    .unwrap();
            }
            (Outcome::Differs { theirs, ours }, None) => failures.push(format!(
                "{} differs and is not listed in status.txt\n  converted: {:?}\n  minijinja: {}\n  brackets:  {}",
                case.name,
                brackets_source(case),
                show(&Ok(theirs)),
                show(&ours),
            )),
        }
    }
    for name in listed.keys() {
        failures.push(format!("status.txt lists `{name}`, which is no case of the suite"));
    }
    let total_listed: usize = by_category.values().sum();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for (category, count) in &by_category {
        *kinds.entry(category.split(':').next().unwrap()).or_default() += count;
    }
    println!("{report}");
    // The figure, on the terminal in every run (CI's log included).
    visible(&format!(
        "minijinja_suite ({}): {} of {} cases match ({same} same output, {both_fail} both fail, \
         {other_kind} of them with errors of another kind); {total_listed} listed: {}",
        inputs.display(),
        same + both_fail,
        cases.len(),
        kinds.iter().map(|(kind, n)| format!("{kind} {n}")).collect::<Vec<_>>().join(", "),
    ));
    for (category, count) in &by_category {
        println!("  {count:3}  {category}");
    }
    assert!(failures.is_empty(), "{} problem(s):\n{}", failures.len(), failures.join("\n"));
}

fn brackets_source(case: &Case) -> String {
    let mut source = case.template.as_str();
    if !case.settings.keep_trailing_newline {
        source = source.strip_suffix('\n').unwrap_or(source);
    }
    match to_brackets(source) {
        Ok(converted) => converted,
        Err(Unconvertible(why)) => why,
    }
}

// ---------------------------------------------------------------------------
// The converter, checked by hand.
// ---------------------------------------------------------------------------

fn convert(source: &str) -> String {
    to_brackets(source).unwrap()
}

#[test]
fn converts_the_three_delimiters_and_pipes() {
    assert_eq!(convert("a {{ x|upper }} b"), "a [[ x->upper ]] b");
    assert_eq!(
        convert("{% for x in xs|sort %}{{ x }}{% endfor %}"),
        "[% for x in xs->sort %][[ x ]][% endfor %]"
    );
    assert_eq!(convert("{# note | not a filter #}x"), "[# note | not a filter #]x");
    assert_eq!(convert("{{ a | b(1) | c }}"), "[[ a -> b(1) -> c ]]");
}

#[test]
fn keeps_whitespace_markers() {
    assert_eq!(
        convert("{%- if x -%} {{- y -}} {%+ endif +%}"),
        "[%- if x -%] [[- y -]] [%+ endif +%]"
    );
    assert_eq!(convert("{#- c -#}"), "[#- c -#]");
    // `{{+`/`+}}` mean nothing in minijinja; in brackets they would be a unary plus.
    assert_eq!(convert("{{+ x +}}"), "[[ x ]]");
    assert_eq!(convert("{{ a-}}"), "[[ a-]]");
}

#[test]
fn pipes_and_delimiters_inside_strings_stay() {
    assert_eq!(convert(r#"{{ "a|b" ~ 'c|d' | upper }}"#), r#"[[ "a|b" ~ 'c|d' -> upper ]]"#);
    assert_eq!(convert(r#"{{ "}}" }}"#), r#"[[ "}}" ]]"#);
    assert_eq!(convert(r#"{{ "say \"|\"" |e }}"#), r#"[[ "say \"|\"" ->e ]]"#);
    assert_eq!(convert(r#"{% set x = '%}' %}"#), r#"[% set x = '%}' %]"#);
}

#[test]
fn closers_count_only_at_bracket_balance_zero() {
    assert_eq!(convert("{{ {'a': {'b': 1}}}}"), "[[ {'a': {'b': 1}}]]");
    assert_eq!(convert("{{ x[y[0]]}}"), "[[ x[y[0]]]]");
    assert_eq!(convert("{% set d = {'k': v|int} %}"), "[% set d = {'k': v->int} %]");
}

#[test]
fn raw_blocks_are_copied_verbatim() {
    assert_eq!(
        convert("{% raw %}{{ a|b }} {% x %}{% endraw %}{{ c|d }}"),
        "[% raw %]{{ a|b }} {% x %}[% endraw %][[ c->d ]]"
    );
    assert_eq!(convert("{%- raw -%} x {%- endraw -%}"), "[%- raw -%] x [%- endraw -%]");
    assert_eq!(convert("{% raw %}[[ x ]]{% endraw %}"), "[% raw %][[ x ]][% endraw %]");
    assert!(to_brackets("{% raw %}[% endraw %]{% endraw %}").is_err());
    // Unclosed: copied, so that brackets reports it as minijinja does.
    assert_eq!(convert("{% raw %}x"), "[% raw %]x");
}

#[test]
fn text_that_would_open_a_bracket_tag_is_printed() {
    assert_eq!(convert("[[x]] [%y [#z [a]"), r#"[[ "[" ]][x]] [[ "[" ]]%y [[ "[" ]]#z [a]"#);
    assert_eq!(convert("a[{{ x }}]"), r#"a[[ "[" ]][[ x ]]]"#);
    assert_eq!(convert("]] %] #]"), "]] %] #]");
}

#[test]
fn comments_end_at_the_first_closer() {
    assert_eq!(convert("{# {{ x }} #}{{ y }}"), "[# {{ x }} #][[ y ]]");
    assert!(to_brackets("{# a #] b #}").is_err());
    assert_eq!(convert("{# open"), "[# open");
}

#[test]
fn unterminated_tags_are_copied() {
    assert_eq!(convert("{{ x|y"), "[[ x->y");
    assert_eq!(convert("{{ 'open|x }}"), "[[ 'open|x }}");
    assert_eq!(convert("{% if x"), "[% if x");
}

/// Cases of the suite, converted by hand (the template after its `---`).
#[test]
fn suite_cases_convert_as_written_by_hand() {
    let Some(inputs) = suite_inputs() else { return };
    let template = |name: &str| {
        let text = fs::read_to_string(inputs.join(name)).unwrap();
        text.split_once("\n---\n").unwrap().1.to_owned()
    };
    // A `[` right before a tag is printed, or `[[%` would open a print tag.
    assert_eq!(
        convert(&template("loop_over_none.txt")),
        "[[ \"[\" ]][% for item in seq %][% endfor %]]\n"
    );
    assert_eq!(
        convert(&template("call.txt")),
        "[% with f = range %][% for x in f(upper) %][[ \"[\" ]][[ x ]]][% endfor %][% endwith %]\n\
         [% for k, v in dict(a=1, b=2, c=3)->dictsort %][[ \"[\" ]][[ k ]]:[[ v ]]][% endfor %]\n"
    );
    assert_eq!(
        convert(&template("loop_controls.txt")),
        "[% for item in range(10) -%]\n  [%- if item is odd %][% continue %][% endif %]\n  \
         [%- if item > 5 %][% break %][% endif %]\n  [[- item ]]\n[%- endfor %]"
    );
    assert_eq!(
        convert(&template("err_raw_block_missing_end.txt")),
        "[% raw %]this raw block is missing an end tag\n"
    );
    // `|` inside a string and in a filter chain of the same tag.
    assert!(
        convert(&template("kwarg_ifexpr.txt"))
            .contains("[[ 'x\\ny'->indent(width=wide if wide else 2)->tojson ]]")
    );
}
