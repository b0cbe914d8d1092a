//! Rendering turns as chat messages: `{role, content: [parts]}`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::base64;
use crate::mime::mime_type;
use crate::narrative::{Embed, ResolvedNarrative};
use crate::role::Role;
use crate::segment::Turn;
use crate::span::{Locator, Position};

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
    /// truncated, each with a [`WarningKind::EmbedTooLarge`] warning from
    /// [`render`]. The text part is never limited. `None`: no limit.
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

/// The messages of a narrative, and what was left out of them.
///
/// Nothing is left out silently: each embed [`RenderOptions`] kept out of
/// its message has its [`Warning`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "the warnings say which embeds were left out"]
pub struct Rendered {
    /// One message per turn (the `context` turn as [`ContextAs`] says).
    pub messages: Vec<Message>,
    /// What was left out, in message order.
    pub warnings: Vec<Warning>,
}

/// Something [`render`] left out, typed: printed by the command line as
/// `warning[<kind>]: <message>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    kind: WarningKind,
    name: String,
    position: Position,
    detail: String,
}

/// The kinds of [`Warning`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WarningKind {
    /// An embed larger than [`RenderOptions::max_embed_bytes`], left out of
    /// its message, e.g. a 5 MB `scan.pdf` under a 1 MB limit.
    EmbedTooLarge,
}

impl WarningKind {
    /// The snake_case name the command line prints: `embed_too_large`.
    pub fn as_str(&self) -> &'static str {
        match self {
            WarningKind::EmbedTooLarge => "embed_too_large",
        }
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Warning {
    /// What was left out.
    pub fn kind(&self) -> WarningKind {
        self.kind
    }

    /// The embed concerned.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where the embed's first occurrence (which decides its turn) is in
    /// the narrative.
    pub fn position(&self) -> Position {
        self.position
    }

    /// The 1-based line of [`Warning::position`].
    pub fn line(&self) -> usize {
        self.position.line
    }

    /// The 1-based column, in characters, of [`Warning::position`].
    pub fn column(&self) -> usize {
        self.position.column
    }

    /// The message without the position, for people.
    pub fn message(&self) -> String {
        match self.kind {
            WarningKind::EmbedTooLarge => {
                format!("the embed `{}` is left out of its message ({})", self.name, self.detail)
            }
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at line {}, column {}", self.message(), self.line(), self.column())
    }
}

/// Renders each turn as a message: the text part first (the raw turn text,
/// `""` for an empty turn), then one part per embed of the turn that fits
/// `max_embed_bytes`, in first-occurrence order; each embed that does not
/// fit is a [`WarningKind::EmbedTooLarge`] warning instead.
///
/// ```
/// use narrative_segment::{Attachments, Dialect, Narrative, RenderOptions, render};
///
/// let attachments = Attachments::from_entries([("scan.pdf", vec![0u8; 2048])])?;
/// let resolved = Narrative::parse("## user\nsee @scan.pdf\n", Dialect::Standard)
///     .resolve(&attachments)?;
/// let options = RenderOptions { max_embed_bytes: Some(1024), ..RenderOptions::default() };
/// let rendered = render(&resolved, &resolved.segment(), &options);
/// assert_eq!(rendered.messages[0].content.len(), 1); // the text only
/// assert_eq!(rendered.warnings[0].kind().as_str(), "embed_too_large");
/// assert_eq!(
///     rendered.warnings[0].to_string(),
///     "the embed `scan.pdf` is left out of its message (2048 bytes; the limit is 1024) \
///      at line 2, column 5"
/// );
/// # Ok::<(), narrative_segment::Error>(())
/// ```
pub fn render(
    resolved: &ResolvedNarrative,
    turns: &[Turn<'_>],
    options: &RenderOptions,
) -> Rendered {
    let mut warnings = Vec::new();
    // Positions are found once all are known, in offset order: one pass.
    let mut offsets = Vec::new();
    let messages = turns
        .iter()
        .filter_map(|turn| {
            let role = match (turn.role, options.context_as) {
                (Role::Context, ContextAs::Drop) => return None,
                (Role::Context, ContextAs::System) => Role::System,
                (Role::Context, ContextAs::User) => Role::User,
                (role, _) => role,
            };
            let mut content = vec![ContentPart::Text { text: turn.text.clone().into_owned() }];
            for embed in turn.embeds.iter().filter_map(|name| resolved.embed(name)) {
                let size = embed.content.len() as u64;
                match options.max_embed_bytes {
                    Some(limit) if size > limit => {
                        offsets.push((embed.span.start, warnings.len()));
                        warnings.push(Warning {
                            kind: WarningKind::EmbedTooLarge,
                            name: embed.name.clone(),
                            position: Position { offset: 0, line: 1, column: 1 },
                            detail: format!("{size} bytes; the limit is {limit}"),
                        });
                    }
                    _ => content.push(ContentPart::for_embed(embed)),
                }
            }
            Some(Message { role, content })
        })
        .collect();
    offsets.sort_unstable();
    let mut locator = Locator::new(resolved.text());
    for (offset, index) in offsets {
        warnings[index].position = locator.position(offset);
    }
    Rendered { messages, warnings }
}

/// The messages of [`render`], without its warnings: for callers that set
/// no [`RenderOptions::max_embed_bytes`], where nothing is ever left out.
/// With a limit, use [`render`], which says what it left out.
pub fn render_turns(
    resolved: &ResolvedNarrative,
    turns: &[Turn<'_>],
    options: &RenderOptions,
) -> Vec<Message> {
    render(resolved, turns, options).messages
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
        let Rendered { messages, warnings } = render(&resolved, &turns, &options);
        let left_out: Vec<(&str, &str, usize, usize)> =
            warnings.iter().map(|w| (w.kind().as_str(), w.name(), w.line(), w.column())).collect();
        assert_eq!(left_out, [("embed_too_large", "c.txt", 3, 15)]);
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
