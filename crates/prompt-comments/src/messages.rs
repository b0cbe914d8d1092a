//! Stripping the comments of a chat-completions `messages` array
//! (llmutils' `StripCommentsFromMessages`).
//!
//! Only a message object's `content` key (exactly that spelling) is touched;
//! roles, names, tool calls and non-object elements pass through unchanged,
//! and no directives are read. A string content is [stripped](Dialect::strip).
//! Content given as an array of parts is left alone by llmutils; `Standard`
//! strips the `text` of each `{"type": "text", "text": ...}` part.
//!
//! [`Dialect::strip_messages_json`] works on the JSON text itself: it
//! replaces the string literals it strips and copies every other byte, so
//! numbers, escapes, key order and layout stay exactly as written.

use std::borrow::Cow;
use std::fmt::Write as _;

use prompt_core::json::{JsonErrorKind, Reader, strip_bom};
use prompt_core::text::Span;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::dialect::Dialect;
use crate::error::Error;

impl Dialect {
    /// A copy of `messages` with the comments stripped from each message's
    /// content. The input is not changed.
    ///
    /// ```
    /// use prompt_comments::Dialect;
    /// use serde_json::json;
    ///
    /// let messages = [json!({"role": "user", "content": "/// debug\nTell me a joke"})];
    /// let stripped = Dialect::Standard.strip_messages(&messages);
    /// assert_eq!(stripped, [json!({"role": "user", "content": "Tell me a joke"})]);
    /// ```
    pub fn strip_messages(self, messages: &[Value]) -> Vec<Value> {
        let mut stripped = messages.to_vec();
        self.strip_messages_in_place(&mut stripped);
        stripped
    }

    /// Strips the comments from each message's content in place; contents
    /// without comments are not reallocated.
    pub fn strip_messages_in_place(self, messages: &mut [Value]) {
        for message in messages {
            let Value::Object(message) = message else { continue };
            match message.get_mut("content") {
                Some(Value::String(content)) => self.strip_string(content),
                Some(Value::Array(parts)) if self.strips_text_parts() => {
                    parts.iter_mut().for_each(|part| self.strip_text_part(part));
                }
                _ => {}
            }
        }
    }

    /// [`Dialect::strip_messages_in_place`] on a whole JSON document, which
    /// must be an array (the `messages` of a request).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotAnArray`](crate::ErrorKind::NotAnArray) when
    /// `document` is anything but an array; it is then left unchanged.
    ///
    /// ```
    /// use prompt_comments::{Dialect, ErrorKind};
    /// use serde_json::json;
    ///
    /// let mut doc = json!({"role": "user", "content": "hi"});
    /// let err = Dialect::Standard.strip_messages_document(&mut doc).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::NotAnArray);
    /// assert_eq!(err.snippet(), "object");
    /// ```
    pub fn strip_messages_document(self, document: &mut Value) -> Result<(), Error> {
        match document {
            Value::Array(messages) => {
                self.strip_messages_in_place(messages);
                Ok(())
            }
            other => Err(Error::not_an_array(json_type(other))),
        }
    }

    /// Strips the comments from each message's content of `json`, a JSON
    /// array of messages, and returns the text with only those contents
    /// changed: every other byte is the input's (numbers of any size,
    /// escapes, key order, whitespace), and a leading byte order mark is
    /// dropped. The text is read strictly: a key written twice in one
    /// object is an error, not a silent "last one wins".
    ///
    /// ```
    /// use prompt_comments::Dialect;
    ///
    /// let json = r#"[{"role": "user", "content": "Hi /// draft", "seq": 123456789012345678901234567890}]"#;
    /// assert_eq!(
    ///     Dialect::Standard.strip_messages_json(json)?,
    ///     r#"[{"role": "user", "content": "Hi", "seq": 123456789012345678901234567890}]"#
    /// );
    /// # Ok::<(), prompt_comments::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidJson`](crate::ErrorKind::InvalidJson) (not JSON,
    /// or a repeated key) and
    /// [`ErrorKind::NotAnArray`](crate::ErrorKind::NotAnArray) (JSON, but
    /// not an array), each with its line and column.
    pub fn strip_messages_json(self, json: &str) -> Result<String, Error> {
        let source = strip_bom(json);
        // Any integer: numbers are copied as written, never parsed.
        let reader = Reader::new().any_integers();
        let document: &RawValue = reader.parse(source).map_err(|err| {
            // serde_json names a syntax error best while it builds values
            // ("trailing comma" where a raw read says "key must be a
            // string"): on this error path only, ask it.
            let better = reader.parse::<Value>(source).err().filter(|better| {
                better.kind() == JsonErrorKind::Syntax && better.offset() == err.offset()
            });
            Error::invalid_json(better.as_ref().unwrap_or(&err), json.len() - source.len())
        })?;
        let body = document.get();
        if !body.starts_with('[') {
            // A span of the text as given: after its byte order mark.
            let span = span_in(source, body).shifted(json.len() - source.len());
            return Err(Error::not_an_array(raw_type(body)).at(json, span));
        }
        let mut edits = Edits::new(source);
        // The text is known to be JSON: these cannot fail, and a shape
        // serde does not expect is left as it is.
        let messages: Vec<&RawValue> = serde_json::from_str(body).unwrap_or_default();
        for message in messages {
            let Some(Message { content: Some(content) }) = object(message) else {
                continue;
            };
            match content.get().as_bytes().first() {
                Some(b'"') => self.strip_literal(content, &mut edits),
                Some(b'[') if self.strips_text_parts() => {
                    let parts: Vec<&RawValue> =
                        serde_json::from_str(content.get()).unwrap_or_default();
                    for part in parts {
                        if let Some(Part { kind: Some(kind), text: Some(text) }) = object(part)
                            && kind == "text"
                        {
                            self.strip_literal(text, &mut edits);
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(edits.finish())
    }

    /// Replaces the JSON value `literal` with its stripped text, if it is a
    /// string and stripping changes it.
    fn strip_literal(self, literal: &RawValue, edits: &mut Edits<'_>) {
        let Ok(mut text) = serde_json::from_str::<String>(literal.get()) else { return };
        let before = text.len();
        self.strip_string(&mut text);
        if text.len() != before {
            edits.replace(literal.get(), &text);
        }
    }

    fn strip_text_part(self, part: &mut Value) {
        let Value::Object(part) = part else { return };
        if part.get("type").and_then(Value::as_str) != Some("text") {
            return;
        }
        if let Some(Value::String(text)) = part.get_mut("text") {
            self.strip_string(text);
        }
    }

    fn strip_string(self, text: &mut String) {
        let stripped = match self.strip(text) {
            // A borrowed result is a slice of the text: the same length
            // means the whole of it, unchanged.
            Cow::Borrowed(same) if same.len() == text.len() => return,
            Cow::Borrowed(piece) => piece.to_owned(),
            Cow::Owned(stripped) => stripped,
        };
        *text = stripped;
    }
}

/// [`Dialect::strip_messages`] in the `Standard` dialect.
pub fn strip_messages(messages: &[Value]) -> Vec<Value> {
    Dialect::Standard.strip_messages(messages)
}

/// [`Dialect::strip_messages_json`] in the `Standard` dialect.
///
/// # Errors
///
/// As [`Dialect::strip_messages_json`].
pub fn strip_messages_json(json: &str) -> Result<String, Error> {
    Dialect::Standard.strip_messages_json(json)
}

/// [`Dialect::strip_messages_in_place`] in the `Standard` dialect.
pub fn strip_messages_in_place(messages: &mut [Value]) {
    Dialect::Standard.strip_messages_in_place(messages);
}

/// `value` read as `T` when it is a JSON object, and only then: serde
/// reads a struct from an array too, field by field (`["a /// b"]` would be
/// a message whose `content` is `"a /// b"`), and an element that is not an
/// object passes through untouched.
fn object<'a, T: Deserialize<'a>>(value: &'a RawValue) -> Option<T> {
    value.get().starts_with('{').then(|| serde_json::from_str(value.get()).ok()).flatten()
}

/// The one key of a message that is stripped.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

/// What makes a content part a text part.
#[derive(Deserialize)]
struct Part<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
}

/// The output: the source with some string literals replaced, in order.
struct Edits<'a> {
    source: &'a str,
    out: String,
    copied: usize,
}

impl<'a> Edits<'a> {
    fn new(source: &'a str) -> Edits<'a> {
        Edits { source, out: String::with_capacity(source.len()), copied: 0 }
    }

    /// Replaces `literal`, a slice of the source after the last edit, with
    /// `text` as a JSON string.
    fn replace(&mut self, literal: &str, text: &str) {
        let range = span_in(self.source, literal).range();
        self.out.push_str(&self.source[self.copied..range.start]);
        // serde_json's own escaping; writing into a String cannot fail.
        let _ = write!(self.out, "{}", Value::from(text));
        self.copied = range.end;
    }

    fn finish(mut self) -> String {
        self.out.push_str(&self.source[self.copied..]);
        self.out
    }
}

/// Where `part`, a slice of `source`, lies in it.
fn span_in(source: &str, part: &str) -> Span {
    let start = (part.as_ptr() as usize).saturating_sub(source.as_ptr() as usize).min(source.len());
    Span::new(start, start + part.len())
}

/// The JSON type of a value's text.
fn raw_type(json: &str) -> &'static str {
    match json.as_bytes().first() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_string_content_in_objects_changes() {
        let messages = [
            json!({"role": "tool", "content": "r /// x", "name": "n /// kept"}),
            json!({"role": "user", "Content": "x /// y"}),
            json!({"role": "user", "content": null}),
            json!({"role": "user"}),
            json!("/// a bare string"),
            json!(42),
        ];
        let stripped = Dialect::Llmutils.strip_messages(&messages);
        assert_eq!(stripped[0], json!({"role": "tool", "content": "r", "name": "n /// kept"}));
        assert_eq!(stripped[1..], messages[1..]);
    }

    #[test]
    fn text_parts_depend_on_the_dialect() {
        let messages = [json!({"role": "user", "content": [
            {"type": "text", "text": "Look. /// hidden"},
            {"type": "image_url", "image_url": {"url": "data:/// x"}, "text": "a /// b"},
            {"type": "text", "text": 7},
            "/// raw string part"
        ]})];
        assert_eq!(Dialect::Llmutils.strip_messages(&messages), messages);
        let stripped = Dialect::Standard.strip_messages(&messages);
        assert_eq!(stripped[0]["content"][0], json!({"type": "text", "text": "Look."}));
        let parts = |m: &Value| m["content"].as_array().unwrap()[1..].to_vec();
        assert_eq!(parts(&stripped[0]), parts(&messages[0]));
    }

    #[test]
    fn documents_must_be_arrays() {
        for (mut doc, found) in [
            (json!({}), "object"),
            (json!("s"), "string"),
            (json!(null), "null"),
            (json!(1.5), "number"),
            (json!(true), "boolean"),
        ] {
            let before = doc.clone();
            let err = Dialect::Standard.strip_messages_document(&mut doc).unwrap_err();
            assert_eq!(err.snippet(), found);
            assert_eq!(doc, before);
        }
        let mut doc = json!([{"content": "a /// b"}]);
        Dialect::Standard.strip_messages_document(&mut doc).unwrap();
        assert_eq!(doc, json!([{"content": "a"}]));
    }

    /// The text API and the value API strip the same contents.
    #[track_caller]
    fn same_as_values(dialect: Dialect, json: &str) -> String {
        let text = dialect.strip_messages_json(json).unwrap();
        let mut document: Value = serde_json::from_str(json).unwrap();
        dialect.strip_messages_document(&mut document).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), document, "{json}");
        text
    }

    #[test]
    fn the_json_text_keeps_every_byte_but_the_stripped_strings() {
        let json = r#"[ {"z": 1.50, "content": "a /// b", "id": 123456789012345678901234567890},
  "/// not a message", {"content": null}, {"role": "user", "content": [
    {"type": "text", "text": "Look. /// hidden"}, {"type": "t\u0065xt", "text": "x /// y"},
    {"type": "image_url", "text": "a /// b"}, {"type": "text", "text": 7}]} ]
"#;
        let standard = same_as_values(Dialect::Standard, json);
        let expected = json
            .replace(r#""a /// b", "id""#, r#""a", "id""#)
            .replace(r#""Look. /// hidden""#, r#""Look.""#)
            .replace(r#""x /// y""#, r#""x""#);
        assert_eq!(standard, expected);
        let llmutils = same_as_values(Dialect::Llmutils, json);
        assert_eq!(llmutils, json.replace(r#""a /// b", "id""#, r#""a", "id""#));
    }

    /// A message or a part that is not an object is never read as one:
    /// serde would take an array for a struct, field by field, so
    /// `["nested /// x"]` had its first string stripped as a `content`
    /// (and `["text", "a /// b"]` as a text part, in Standard).
    #[test]
    fn arrays_are_not_messages_or_parts() {
        let json = r#"[["nested /// x"], ["a /// b", "c /// d"], [["deep /// e"]],
  {"role": "user", "content": [["text", "in /// part"], ["text"], {"type": "text", "text": "t /// u"}]},
  {"content": ["flat /// f"]}, "/// bare", 7, null, {"content": "k /// l"}]"#;
        assert_eq!(same_as_values(Dialect::Llmutils, json), json.replace(r#""k /// l""#, r#""k""#));
        assert_eq!(
            same_as_values(Dialect::Standard, json),
            json.replace(r#""k /// l""#, r#""k""#).replace(r#""t /// u""#, r#""t""#)
        );
    }

    #[test]
    fn edited_strings_are_escaped_and_unchanged_ones_kept_as_written() {
        let json = r#"[{"content": "caf\u00e9 \"q\" /// c\nnext"}, {"content": "caf\u00e9"}]"#;
        assert_eq!(
            same_as_values(Dialect::Standard, json),
            r#"[{"content": "café \"q\"\nnext"}, {"content": "caf\u00e9"}]"#
        );
    }

    #[test]
    fn json_text_errors_have_positions() {
        let err = Dialect::Standard.strip_messages_json("\n  {\"role\": \"user\"}").unwrap_err();
        assert_eq!(
            (err.kind(), err.snippet()),
            (crate::ErrorKind::NotAnArray, "{\"role\": \"user\"}")
        );
        assert_eq!(err.to_string(), "expected a JSON array of messages, found object");
        assert_eq!((err.line(), err.column()), (Some(2), Some(3)));
        let err = Dialect::Standard
            .strip_messages_json(r#"[{"role": "user", "role": "system", "content": "x"}]"#)
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidJson);
        assert_eq!(err.to_string(), "duplicate key `role` in an object");
        assert_eq!((err.line(), err.column(), err.snippet()), (Some(1), Some(19), "\"role\""));
        let err = Dialect::Llmutils.strip_messages_json("[1,").unwrap_err();
        assert_eq!(
            (err.kind(), err.line(), err.column()),
            (crate::ErrorKind::InvalidJson, Some(1), Some(3))
        );
    }

    #[test]
    fn errors_are_diagnostics_placed_in_the_text_given() {
        use prompt_core::diagnostic::{Diagnostic, Report};

        let json = "\u{feff}\n  {\"role\": \"user\"}";
        let err = Dialect::Standard.strip_messages_json(json).unwrap_err();
        assert_eq!(&json[Diagnostic::span(&err).unwrap().range()], "{\"role\": \"user\"}");
        let report = Report::new(&err, Some(json));
        assert_eq!(
            (report.kind.as_str(), report.line, report.column, report.snippet.as_deref()),
            ("not_an_array", err.line(), err.column(), Some(err.snippet()))
        );
        let json = "\u{feff}[{\"a\": 1, \"a\": 2}]";
        let err = Dialect::Standard.strip_messages_json(json).unwrap_err();
        let report = Report::new(&err, Some(json));
        assert_eq!(
            (report.kind.as_str(), report.line, report.column, report.snippet.as_deref()),
            ("invalid_json", Some(1), Some(11), Some("\"a\""))
        );
        assert_eq!((err.line(), err.column()), (Some(1), Some(11)));
        let err = "go".parse::<Dialect>().unwrap_err();
        assert_eq!((Diagnostic::kind(&err), Diagnostic::span(&err)), ("unknown_dialect", None));
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        assert_eq!(
            Dialect::Standard.strip_messages_json("\u{feff}[{\"content\": \"a /// b\"}]").unwrap(),
            r#"[{"content": "a"}]"#
        );
    }

    #[test]
    fn key_order_is_kept() {
        let messages = [json!({"z": 1, "content": "a /// b", "a": 2})];
        let text = serde_json::to_string(&strip_messages(&messages)).unwrap();
        assert_eq!(text, r#"[{"z":1,"content":"a","a":2}]"#);
        let mut in_place = messages.to_vec();
        strip_messages_in_place(&mut in_place);
        assert_eq!(serde_json::to_string(&in_place).unwrap(), text);
    }
}
