//! Stripping the comments of a chat-completions `messages` array
//! (llmutils' `StripCommentsFromMessages`).
//!
//! Only a message object's `content` key (exactly that spelling) is touched;
//! roles, names, tool calls and non-object elements pass through unchanged,
//! and no directives are read. A string content is [stripped](Dialect::strip).
//! Content given as an array of parts is left alone by llmutils; `Standard`
//! strips the `text` of each `{"type": "text", "text": ...}` part.

use std::borrow::Cow;

use serde_json::Value;

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

/// [`Dialect::strip_messages_in_place`] in the `Standard` dialect.
pub fn strip_messages_in_place(messages: &mut [Value]) {
    Dialect::Standard.strip_messages_in_place(messages);
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
