//! JSON messages kept as written: what [`crate::alternate_json`] merges.
//!
//! A message is read into its role, its content and its other fields, each
//! field's value kept as the JSON text it was written as (only the
//! insignificant whitespace goes), so that numbers keep their digits,
//! however long, and strings their escapes. Only a merged text content is
//! written anew.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::{self, Write as _};

use serde::de::{self, Deserialize, Deserializer, MapAccess};
use serde_json::value::RawValue;

use crate::alternate::Mergeable;
use crate::{CONTINUE_CUE, Role};

/// The fields of one JSON object in input order, values as written.
pub(crate) struct Fields<'a>(pub(crate) Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'a> Fields<'a> {
    /// The value of `key`, if the object has it.
    pub(crate) fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.0.iter().find(|(k, _)| k == key).map(|&(_, value)| value)
    }
}

impl<'de> Deserialize<'de> for Fields<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Fields<'de>, D::Error> {
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = Fields<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
                let mut fields = Vec::new();
                while let Some((Key(key), value)) = map.next_entry::<Key<'de>, &'de RawValue>()? {
                    fields.push((key, value));
                }
                Ok(Fields(fields))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// An object key, borrowed when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key<'de>, D::Error> {
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }

            fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(key)))
            }

            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }

            fn visit_string<E: de::Error>(self, key: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key)))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

/// A message of [`crate::alternate_json`].
pub(crate) struct RawMessage<'a> {
    role: Option<Role>,
    content: Option<RawContent<'a>>,
    /// Every other field: its key, and its value as written, minified.
    extra: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

enum RawContent<'a> {
    /// A text string, decoded (the one thing a merge changes).
    Text(String),
    /// Anything else, as written, minified.
    Json(Cow<'a, str>),
}

impl<'a> RawMessage<'a> {
    /// The message of an object's fields; `Err` says what is wrong.
    pub(crate) fn from_fields(fields: Fields<'a>) -> Result<RawMessage<'a>, &'static str> {
        let mut message = RawMessage { role: None, content: None, extra: Vec::new() };
        for (key, value) in fields.0 {
            let text = value.get();
            match key.as_ref() {
                "role" => {
                    let role: String =
                        decode_string(text).ok_or("a message's `role` must be text")?;
                    message.role = Some(Role::from(role.as_str()));
                }
                "content" => {
                    message.content = Some(match decode_string(text) {
                        Some(content) => RawContent::Text(content),
                        None => RawContent::Json(minify(text)),
                    });
                }
                _ => message.extra.push((key, minify(text))),
            }
        }
        Ok(message)
    }

    /// Appends the message as compact JSON: role, content, then the other
    /// fields in input order (the key order of [`crate::Message`]).
    fn write(&self, out: &mut String) {
        out.push('{');
        let mut separator = "";
        let mut key = |out: &mut String, key: &str| {
            out.push_str(separator);
            push_string(out, key);
            out.push(':');
            separator = ",";
        };
        if let Some(role) = &self.role {
            key(out, "role");
            push_string(out, role.as_str());
        }
        match &self.content {
            Some(RawContent::Text(text)) => {
                key(out, "content");
                push_string(out, text);
            }
            Some(RawContent::Json(json)) => {
                key(out, "content");
                out.push_str(json);
            }
            None => {}
        }
        for (name, value) in &self.extra {
            key(out, name);
            out.push_str(value);
        }
        out.push('}');
    }
}

/// `messages` as one compact JSON array.
pub(crate) fn to_json(messages: &[RawMessage<'_>]) -> String {
    let mut out = String::from("[");
    for (i, message) in messages.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        message.write(&mut out);
    }
    out.push(']');
    out
}

impl Mergeable for RawMessage<'_> {
    fn role(&self) -> Option<&Role> {
        self.role.as_ref()
    }

    fn text(&self) -> Option<&str> {
        match &self.content {
            Some(RawContent::Text(text)) => Some(text),
            _ => None,
        }
    }

    fn text_mut(&mut self) -> Option<&mut String> {
        match &mut self.content {
            Some(RawContent::Text(text)) => Some(text),
            _ => None,
        }
    }

    /// Fields agree when they have the same keys (in any order) with the
    /// same values as written (whitespace aside): a number is never
    /// compared through a float that could round two of them together.
    fn differing_field<'s>(&'s self, other: &'s Self) -> Option<&'s str> {
        // The common case: the same fields in the same order.
        if self.extra == other.extra {
            return None;
        }
        let theirs: HashMap<&str, &str> =
            other.extra.iter().map(|(key, value)| (key.as_ref(), value.as_ref())).collect();
        let ours: HashMap<&str, &str> =
            self.extra.iter().map(|(key, value)| (key.as_ref(), value.as_ref())).collect();
        self.extra
            .iter()
            .find(|(key, value)| theirs.get(key.as_ref()) != Some(&value.as_ref()))
            .or_else(|| other.extra.iter().find(|(key, _)| !ours.contains_key(key.as_ref())))
            .map(|(key, _)| key.as_ref())
    }

    fn without_fields(self) -> Self {
        RawMessage { role: self.role, content: self.content, extra: Vec::new() }
    }

    fn cue() -> Self {
        RawMessage {
            role: Some(Role::User),
            content: Some(RawContent::Text(CONTINUE_CUE.to_owned())),
            extra: Vec::new(),
        }
    }
}

/// The string a JSON string literal stands for; `None` for any other value.
fn decode_string(json: &str) -> Option<String> {
    if json.starts_with('"') { serde_json::from_str(json).ok() } else { None }
}

/// `json` (valid JSON) without insignificant whitespace; borrowed when it
/// has none.
pub(crate) fn minify(json: &str) -> Cow<'_, str> {
    let bytes = json.as_bytes();
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let mut in_string = false;
    let mut escaped = false;
    let mut out: Option<String> = None;
    let mut copied = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if is_space(b) {
            // Whitespace is ASCII, so `i` is a character boundary.
            let out = out.get_or_insert_with(|| String::with_capacity(json.len()));
            out.push_str(&json[copied..i]);
            copied = i + 1;
        }
    }
    match out {
        None => Cow::Borrowed(json),
        Some(mut out) => {
            out.push_str(&json[copied..]);
            Cow::Owned(out)
        }
    }
}

/// Appends `text` as a JSON string literal, as serde_json writes it.
fn push_string(out: &mut String, text: &str) {
    // Writing into a String cannot fail.
    let _ = write!(out, "{}", serde_json::Value::from(text));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minify_drops_only_whitespace_outside_strings() {
        assert_eq!(
            minify(r#"{ "a" : [1, 2.50 ,{"b c":"d \" e"}] }"#),
            r#"{"a":[1,2.50,{"b c":"d \" e"}]}"#
        );
        assert!(matches!(minify(r#"[1,"a b"]"#), Cow::Borrowed(_)));
        assert_eq!(minify("\"a\\\\\" "), "\"a\\\\\"");
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        for text in ["plain", "q\"b\\s/", "\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}", "é ✓ 𝐬", ""] {
            let mut out = String::new();
            push_string(&mut out, text);
            assert_eq!(out, serde_json::to_string(text).unwrap(), "{text:?}");
        }
    }

    #[test]
    fn fields_keep_values_as_written() {
        let json = r#"{"role": "user", "n": 123456789012345678901234567890, "k\u0041": [1.0, -0]}"#;
        let fields: Fields<'_> = serde_json::from_str(json).unwrap();
        let message = RawMessage::from_fields(fields).unwrap();
        assert_eq!(
            to_json(&[message]),
            r#"[{"role":"user","n":123456789012345678901234567890,"kA":[1.0,-0]}]"#
        );
    }
}
