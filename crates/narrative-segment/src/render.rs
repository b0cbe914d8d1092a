//! Rendering turns as chat messages: `{role, content: [parts]}`.

use serde::{Deserialize, Serialize};

use crate::base64;
use crate::mime::mime_type;
use crate::narrative::{Embed, ResolvedNarrative};
use crate::role::Role;
use crate::segment::Turn;

/// What becomes of the `context` preamble turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextAs {
    /// Kept with the role `context`, as lmml does; the caller maps it.
    #[default]
    Keep,
    /// Sent as a `system` message.
    System,
    /// Sent as a `user` message.
    User,
    /// Left out of the messages.
    Drop,
}

/// How turns are rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RenderOptions {
    /// Keep an embed only if its raw size is at most this many bytes (base64
    /// growth not counted); larger ones are left out of the message, never
    /// truncated. The text part is never limited. `None`: no limit.
    pub max_embed_bytes: Option<u64>,
    /// What becomes of the `context` turn.
    pub context_as: ContextAs,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks (`context` only with [`ContextAs::Keep`]).
    pub role: Role,
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
    /// An embed whose MIME type is `image/*`.
    ImageUrl {
        /// The image as a data URI.
        image_url: ImageUrl,
    },
    /// Any other embed.
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

/// The URL of an [`ContentPart::ImageUrl`].
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
    /// The part for `embed`: an image data URI for an `image/*` MIME type,
    /// an attachment otherwise.
    pub fn for_embed(embed: &Embed) -> ContentPart {
        let mime = mime_type(&embed.name);
        if mime.starts_with("image/") {
            let mut url = format!("data:{mime};base64,");
            base64::encode_into(&embed.content, &mut url);
            return ContentPart::ImageUrl { image_url: ImageUrl { url } };
        }
        let (content, encoding) = match std::str::from_utf8(&embed.content) {
            Ok(text) => (text.to_owned(), None),
            Err(_) => {
                let mut encoded = String::new();
                base64::encode_into(&embed.content, &mut encoded);
                (encoded, Some(Encoding::Base64))
            }
        };
        ContentPart::Attachment {
            name: embed.name.clone(),
            mime: mime.to_owned(),
            content,
            encoding,
        }
    }
}

/// Renders each turn as a message: the text part first (the raw turn text,
/// `""` for an empty turn), then one part per embed of the turn that fits
/// `max_embed_bytes`, in first-occurrence order.
pub fn render_turns(
    resolved: &ResolvedNarrative,
    turns: &[Turn<'_>],
    options: &RenderOptions,
) -> Vec<Message> {
    turns
        .iter()
        .filter_map(|turn| {
            let role = match (turn.role, options.context_as) {
                (Role::Context, ContextAs::Drop) => return None,
                (Role::Context, ContextAs::System) => Role::System,
                (Role::Context, ContextAs::User) => Role::User,
                (role, _) => role,
            };
            let mut content = vec![ContentPart::Text { text: turn.text.clone().into_owned() }];
            content.extend(
                turn.embeds
                    .iter()
                    .filter_map(|name| resolved.embed(name))
                    .filter(|embed| {
                        options
                            .max_embed_bytes
                            .is_none_or(|limit| embed.content.len() as u64 <= limit)
                    })
                    .map(ContentPart::for_embed),
            );
            Some(Message { role, content })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachments::Attachments;
    use crate::dialect::Dialect;
    use crate::narrative::Narrative;

    #[test]
    fn parts_limits_and_context() {
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
        let messages = render_turns(&resolved, &turns, &options);
        assert_eq!(
            serde_json::to_string(&messages).unwrap(),
            r#"[{"role":"system","content":[{"type":"text","text":"intro\n"}]},{"role":"user","content":[{"type":"text","text":"@a.png @b.pdf @c.txt\n"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw=="}},{"type":"attachment","name":"b.pdf","mime":"application/pdf","content":"/wA=","encoding":"base64"}]}]"#
        );
        let roles = |context_as| {
            let options = RenderOptions { context_as, ..RenderOptions::default() };
            render_turns(&resolved, &turns, &options).iter().map(|m| m.role).collect::<Vec<_>>()
        };
        assert_eq!(roles(ContextAs::Keep), [Role::Context, Role::User]);
        assert_eq!(roles(ContextAs::User), [Role::User, Role::User]);
        let dropped = RenderOptions { context_as: ContextAs::Drop, ..RenderOptions::default() };
        let messages = render_turns(&resolved, &turns, &dropped);
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].content.len(), 4);
        let round_trip: Vec<Message> =
            serde_json::from_str(&serde_json::to_string(&messages).unwrap()).unwrap();
        assert_eq!(round_trip, messages);
    }
}
