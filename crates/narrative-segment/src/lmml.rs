//! lmml's wire shape of rendered messages, at the edge: what the command
//! line prints and the conformance fixtures compare. Inside the suite a
//! message is a `prompt_core::chat::Message` whose parts hold raw bytes;
//! only here do they become data URIs and base64 text.
//!
//! ```
//! use narrative_segment::{Attachments, Dialect, Narrative, RenderOptions, lmml, render};
//!
//! let attachments = Attachments::from_entries([("a.png", vec![0x89, b'P', b'N', b'G'])])?;
//! let resolved =
//!     Narrative::parse("Be brief.\n## user\nsee @a.png\n", Dialect::Standard).resolve(&attachments)?;
//! let rendered = render(&resolved, &resolved.segment(), &RenderOptions::default());
//! assert_eq!(
//!     serde_json::to_string(&lmml::messages(&rendered)).unwrap(),
//!     r#"[{"role":"context","content":[{"type":"text","text":"Be brief.\n"}]},{"role":"user","content":[{"type":"text","text":"see @a.png\n"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw=="}}]}]"#
//! );
//! # Ok::<(), narrative_segment::Error>(())
//! ```

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use prompt_core::chat::Part;
use serde::{Deserialize, Serialize};

use crate::render::Rendered;
use crate::role::TurnRole;

/// One message in lmml's shape: `{"role", "content": [parts]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks (`context` for a preamble kept as such).
    pub role: TurnRole,
    /// The text part, then one part per kept embed.
    pub content: Vec<ContentPart>,
}

/// One part of a message's content, serialized in lmml's shape:
///
/// - `{"type": "text", "text": "..."}`
/// - `{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}`
/// - `{"type": "attachment", "name": "...", "mime": "...", "content": "..."}`,
///   with `"encoding": "base64"` added when the content is not UTF-8.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    /// The turn's text, exactly as written.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    ImageUrl {
        /// The image as a data URI.
        image_url: ImageUrl,
    },
    /// Any other file.
    Attachment {
        /// The embed name.
        name: String,
        /// The MIME type by extension (see [`crate::mime_type`]).
        mime: String,
        /// The content: verbatim when it is UTF-8 (as lmml sends it), else
        /// base64 (lmml sends raw bytes, which JSON cannot carry).
        content: String,
        /// `Some(Base64)` when `content` is base64.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encoding: Option<Encoding>,
    },
}

/// The URL of a [`ContentPart::ImageUrl`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageUrl {
    /// `data:<mime>;base64,<data>`.
    pub url: String,
}

/// How an attachment's content is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// Standard base64 with padding.
    Base64,
}

impl ContentPart {
    /// `part` in lmml's shape; `None` for a kind of part lmml has no shape
    /// for (a narrative renders only text, images and files, so never for
    /// [`render`](crate::render)'s parts).
    pub fn from_part(part: &Part) -> Option<ContentPart> {
        Some(match part {
            Part::Text { text } => ContentPart::Text { text: text.clone() },
            Part::Image { media_type, data, .. } => {
                let mut url = format!("data:{media_type};base64,");
                STANDARD.encode_string(data, &mut url);
                ContentPart::ImageUrl { image_url: ImageUrl { url } }
            }
            Part::File { filename, media_type, data } => {
                let (content, encoding) = match std::str::from_utf8(data) {
                    Ok(text) => (text.to_owned(), None),
                    Err(_) => (STANDARD.encode(data), Some(Encoding::Base64)),
                };
                ContentPart::Attachment {
                    name: filename.clone(),
                    mime: media_type.clone(),
                    content,
                    encoding,
                }
            }
            _ => return None,
        })
    }
}

/// The messages of `rendered` in lmml's shape, one per rendered turn: a
/// preamble kept as `context` first, then every message.
pub fn messages(rendered: &Rendered) -> Vec<Message> {
    let parts = |parts: &[Part]| parts.iter().filter_map(ContentPart::from_part).collect();
    let context = rendered
        .context
        .iter()
        .map(|content| Message { role: TurnRole::Context, content: parts(content) });
    let messages = rendered.messages.iter().map(|message| Message {
        role: TurnRole::Chat(message.role),
        content: parts(&message.content),
    });
    context.chain(messages).collect()
}

#[cfg(test)]
mod tests {
    use prompt_core::chat::Role;

    use super::*;
    use crate::attachments::Attachments;
    use crate::dialect::Dialect;
    use crate::narrative::Narrative;
    use crate::render::{ContextAs, RenderOptions, render};

    #[test]
    fn the_wire_shape_of_each_part_and_the_context() {
        let attachments = Attachments::from_entries([
            ("a.png", vec![0x89, b'P', b'N', b'G']),
            ("b.pdf", vec![0xff, 0x00]),
            ("c.txt", b"hello".to_vec()),
        ])
        .unwrap();
        let text = "intro\n## user\n@a.png @b.pdf @c.txt\n";
        let resolved = Narrative::parse(text, Dialect::Standard).resolve(&attachments).unwrap();
        let turns = resolved.segment();
        let options = RenderOptions { max_embed_bytes: Some(4), context_as: ContextAs::System };
        let rendered = render(&resolved, &turns, &options);
        assert_eq!(
            serde_json::to_string(&messages(&rendered)).unwrap(),
            r#"[{"role":"system","content":[{"type":"text","text":"intro\n"}]},{"role":"user","content":[{"type":"text","text":"@a.png @b.pdf @c.txt\n"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw=="}},{"type":"attachment","name":"b.pdf","mime":"application/pdf","content":"/wA=","encoding":"base64"}]}]"#
        );
        let roles = |context_as| {
            let options = RenderOptions { context_as, ..RenderOptions::default() };
            let rendered = render(&resolved, &turns, &options);
            messages(&rendered).iter().map(|m| m.role).collect::<Vec<_>>()
        };
        assert_eq!(roles(ContextAs::Keep), [TurnRole::Context, TurnRole::Chat(Role::User)]);
        assert_eq!(roles(ContextAs::User), [Role::User, Role::User]);
        assert_eq!(roles(ContextAs::Drop), [Role::User]);
        let dropped = RenderOptions { context_as: ContextAs::Drop, ..RenderOptions::default() };
        let wire = messages(&render(&resolved, &turns, &dropped));
        assert_eq!(wire[0].content.len(), 4);
        let round_trip: Vec<Message> =
            serde_json::from_str(&serde_json::to_string(&wire).unwrap()).unwrap();
        assert_eq!(round_trip, wire);
    }

    #[test]
    fn base64_is_standard_with_padding() {
        for (bytes, encoded) in
            [(&b""[..], ""), (b"f", "Zg=="), (b"fo", "Zm8="), (b"foo", "Zm9v"), (b"\xff\0", "/wA=")]
        {
            let part =
                ContentPart::from_part(&Part::file("x.bin", "application/octet-stream", bytes));
            let expected = if std::str::from_utf8(bytes).is_ok() {
                (String::from_utf8(bytes.to_vec()).unwrap(), None)
            } else {
                (encoded.to_owned(), Some(Encoding::Base64))
            };
            let Some(ContentPart::Attachment { content, encoding, .. }) = part else { panic!() };
            assert_eq!((content, encoding), expected);
            let image = ContentPart::from_part(&Part::image("image/png", bytes)).unwrap();
            let ContentPart::ImageUrl { image_url } = image else { panic!() };
            assert_eq!(image_url.url, format!("data:image/png;base64,{encoded}"));
        }
    }
}
