//! Rendering turns as chat messages: `prompt_core::chat::Message`s, whose
//! parts carry the embeds' bytes as they are (lmml's wire shape is
//! [`crate::lmml`], at the edge).

use std::fmt;

use prompt_core::chat::{Message, Part, Role};
use prompt_core::diagnostic::Diagnostic;
use serde::{Deserialize, Serialize};

use crate::dialect::Dialect;
use crate::mime::{mime_type, sniffed_type};
use crate::narrative::{Embed, ResolvedNarrative};
use crate::role::TurnRole;
use crate::segment::Turn;
use crate::span::{Position, Span};

/// What becomes of the `context` preamble turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextAs {
    /// Kept with the role `context`, as lmml does: chat APIs have no such
    /// role, so it is held apart ([`Rendered::context`]) for the caller to
    /// map; [`crate::lmml::messages`] writes it first, as `context`.
    #[default]
    Keep,
    /// Sent as a `system` message.
    System,
    /// Sent as a `user` message.
    User,
    /// Left out of the messages.
    Drop,
}

/// How turns are rendered: [`RenderOptions::new`] (the defaults), then a
/// `with_` method per setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct RenderOptions {
    /// Keep an embed only if its raw size is at most this many bytes (any
    /// encoding's growth not counted); larger ones are left out of the message, never
    /// truncated, each with a [`WarningKind::EmbedTooLarge`] warning from
    /// [`render`]. The text part is never limited. `None`: no limit.
    pub max_embed_bytes: Option<u64>,
    /// What becomes of the `context` turn.
    pub context_as: ContextAs,
}

impl RenderOptions {
    /// The defaults: no embed limit, the `context` turn kept.
    pub const fn new() -> RenderOptions {
        RenderOptions { max_embed_bytes: None, context_as: ContextAs::Keep }
    }

    /// With [`RenderOptions::max_embed_bytes`] set to `bytes`.
    pub const fn with_max_embed_bytes(mut self, bytes: Option<u64>) -> RenderOptions {
        self.max_embed_bytes = bytes;
        self
    }

    /// With [`RenderOptions::context_as`] set to `context_as`.
    pub const fn with_context_as(mut self, context_as: ContextAs) -> RenderOptions {
        self.context_as = context_as;
        self
    }
}

/// The part for `embed`: an image for an `image/*` MIME type (by the name's
/// extension, [`mime_type`]), a file otherwise; its bytes as they are.
///
/// ```
/// use narrative_segment::{Attachments, Dialect, Narrative, part_for_embed};
/// use prompt_core::chat::Part;
///
/// let attachments = Attachments::from_entries([("a.png", vec![0x89, b'P'])])?;
/// let resolved = Narrative::parse("@a.png", Dialect::Standard).resolve(&attachments)?;
/// let embed = resolved.embed("a.png").unwrap();
/// assert_eq!(part_for_embed(embed), Part::image("image/png", vec![0x89, b'P']));
/// # Ok::<(), narrative_segment::Error>(())
/// ```
pub fn part_for_embed(embed: &Embed) -> Part {
    let mime = mime_type(&embed.name);
    let data = embed.content.clone();
    if mime.starts_with("image/") {
        Part::image(mime, data)
    } else {
        Part::file(embed.name.clone(), mime, data)
    }
}

/// The part for `embed` in the Standard dialect: as [`part_for_embed`], but
/// typed by its bytes when their signature names another type than the
/// extension (with the two types, for the warning).
fn standard_part(embed: &Embed) -> (Part, Option<(&'static str, &'static str)>) {
    let by_name = mime_type(&embed.name);
    let data = embed.content.as_bytes();
    match sniffed_type(data) {
        Some(by_bytes) if by_bytes != by_name => {
            let part = if by_bytes.starts_with("image/") {
                Part::image(by_bytes, data)
            } else {
                Part::file(embed.name.clone(), by_bytes, data)
            };
            (part, Some((by_name, by_bytes)))
        }
        _ => (part_for_embed(embed), None),
    }
}

/// The messages of a narrative, and what was left out of them.
///
/// Nothing is left out silently: each embed [`RenderOptions`] kept out of
/// its message has its [`Warning`], and a preamble kept as `context` is
/// [`Rendered::context`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "the warnings say which embeds were left out"]
pub struct Rendered {
    /// The parts of the `context` preamble, with [`ContextAs::Keep`] (it
    /// comes before every message): a chat API has no `context` role, so
    /// the caller maps it. `None` with the other [`ContextAs`] values, or
    /// when there is no preamble.
    pub context: Option<Vec<Part>>,
    /// One message per turn but a kept or dropped preamble (a preamble
    /// given another role as [`ContextAs`] says is the first).
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
    /// The embed's first occurrence.
    span: Span,
    position: Position,
    detail: String,
    /// A mismatch's types: the extension's, the bytes'.
    media: Option<(&'static str, &'static str)>,
}

/// The kinds of [`Warning`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WarningKind {
    /// An embed larger than [`RenderOptions::max_embed_bytes`], left out of
    /// its message, e.g. a 5 MB `scan.pdf` under a 1 MB limit.
    EmbedTooLarge,
    /// An embed whose bytes are of another type than its extension says (a
    /// PNG named `.jpg`), sent with the bytes' type (Standard dialect only;
    /// lmml judges by the extension alone).
    MediaTypeMismatch,
}

impl WarningKind {
    /// The snake_case name the command line prints: `embed_too_large`.
    pub fn as_str(&self) -> &'static str {
        match self {
            WarningKind::EmbedTooLarge => "embed_too_large",
            WarningKind::MediaTypeMismatch => "media_type_mismatch",
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
            WarningKind::MediaTypeMismatch => {
                format!("the embed `{}`: {}", self.name, self.detail)
            }
        }
    }

    /// For [`WarningKind::MediaTypeMismatch`]: the type the extension names
    /// and the type of the bytes (which is sent).
    pub fn media_types(&self) -> Option<(&'static str, &'static str)> {
        match self.kind {
            WarningKind::MediaTypeMismatch => self.media,
            _ => None,
        }
    }
}

impl Diagnostic for Warning {
    fn kind(&self) -> &'static str {
        self.kind.as_str()
    }

    /// The embed's first occurrence in the narrative.
    fn span(&self) -> Option<Span> {
        Some(self.span)
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

/// Renders each turn as a message: the text part first (the raw turn text,
/// `""` for an empty turn), then one part per embed of the turn that fits
/// `max_embed_bytes`, in first-occurrence order; each embed that does not
/// fit is a [`WarningKind::EmbedTooLarge`] warning instead. In the Standard
/// dialect an embed whose bytes are a PNG, JPEG, GIF, WebP or PDF of another
/// type than its extension says is sent with the bytes' type, with a
/// [`WarningKind::MediaTypeMismatch`] warning. The preamble goes as
/// [`RenderOptions::context_as`] says.
///
/// ```
/// use narrative_segment::{Attachments, Dialect, Narrative, RenderOptions, render};
///
/// let attachments = Attachments::from_entries([("scan.pdf", vec![0u8; 2048])])?;
/// let resolved = Narrative::parse("## user\nsee @scan.pdf\n", Dialect::Standard)
///     .resolve(&attachments)?;
/// let options = RenderOptions::new().with_max_embed_bytes(Some(1024));
/// let rendered = render(&resolved, &resolved.segment(), &options);
/// assert_eq!(rendered.messages[0].content.len(), 1); // the text only
/// assert_eq!(rendered.warnings[0].kind().as_str(), "embed_too_large");
/// assert_eq!(
///     rendered.warnings[0].to_string(),
///     "the embed `scan.pdf` is left out of its message (2048 bytes; the limit is 1024)"
/// );
/// assert_eq!((rendered.warnings[0].line(), rendered.warnings[0].column()), (2, 5));
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
    let mut context: Option<Vec<Part>> = None;
    let mut messages = Vec::with_capacity(turns.len());
    let by_bytes = resolved.narrative().dialect() == Dialect::Standard;
    for turn in turns {
        let role = match (turn.role, options.context_as) {
            (TurnRole::Context, ContextAs::Drop) => continue,
            (TurnRole::Context, ContextAs::System) => Some(Role::System),
            (TurnRole::Context, ContextAs::User) => Some(Role::User),
            (TurnRole::Context, ContextAs::Keep) => None,
            (TurnRole::Chat(role), _) => Some(role),
        };
        let mut content = vec![Part::text(turn.text.as_ref())];
        for embed in turn.embeds.iter().filter_map(|name| resolved.embed(name)) {
            let size = embed.content.len() as u64;
            match options.max_embed_bytes {
                Some(limit) if size > limit => {
                    offsets.push((embed.span.start, warnings.len()));
                    warnings.push(Warning {
                        kind: WarningKind::EmbedTooLarge,
                        name: embed.name.clone(),
                        span: embed.span,
                        position: Position { line: 1, column: 1 },
                        detail: format!("{size} bytes; the limit is {limit}"),
                        media: None,
                    });
                }
                _ if by_bytes => {
                    let (part, mismatch) = standard_part(embed);
                    if let Some((by_name, by_bytes)) = mismatch {
                        let detail = format!(
                            "the extension says {by_name}, the bytes are {by_bytes}; sent as {by_bytes}"
                        );
                        offsets.push((embed.span.start, warnings.len()));
                        warnings.push(Warning {
                            kind: WarningKind::MediaTypeMismatch,
                            name: embed.name.clone(),
                            span: embed.span,
                            position: Position { line: 1, column: 1 },
                            detail,
                            media: mismatch,
                        });
                    }
                    content.push(part);
                }
                _ => content.push(part_for_embed(embed)),
            }
        }
        match role {
            Some(role) => messages.push(Message { role, content, name: None }),
            // Only the first turn is a preamble; should a caller hand in
            // more, their parts stay together, in order.
            None => context.get_or_insert_with(Vec::new).extend(content),
        }
    }
    offsets.sort_unstable();
    let mut cursor = prompt_core::text::Cursor::new(resolved.text());
    for (offset, index) in offsets {
        warnings[index].position = cursor.position(offset);
    }
    Rendered { context, messages, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachments::Attachments;
    use crate::dialect::Dialect;
    use crate::narrative::Narrative;

    #[test]
    fn a_lying_extension_is_typed_by_the_bytes_in_the_standard_dialect() {
        let png = b"\x89PNG\r\n\x1a\nrest".to_vec();
        let attachments = Attachments::from_entries([("photo.jpg", png.clone())]).unwrap();
        let text = "## user\nsee @photo.jpg\n";
        let standard = Narrative::parse(text, Dialect::Standard).resolve(&attachments).unwrap();
        let rendered = render(&standard, &standard.segment(), &RenderOptions::default());
        assert_eq!(rendered.messages[0].content[1], Part::image("image/png", png.clone()));
        let warning = &rendered.warnings[0];
        assert_eq!(warning.kind(), WarningKind::MediaTypeMismatch);
        assert_eq!(warning.media_types(), Some(("image/jpeg", "image/png")));
        assert_eq!((warning.line(), warning.column()), (2, 5));
        // lmml judges by the extension alone.
        let lmml = Narrative::parse(text, Dialect::Lmml).resolve(&attachments).unwrap();
        let rendered = render(&lmml, &lmml.segment(), &RenderOptions::default());
        assert_eq!(rendered.messages[0].content[1], Part::image("image/jpeg", png));
        assert!(rendered.warnings.is_empty());
    }

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
        let rendered = render(&resolved, &turns, &options);
        let left_out: Vec<(&str, &str, usize, usize)> = rendered
            .warnings
            .iter()
            .map(|w| (w.kind().as_str(), w.name(), w.line(), w.column()))
            .collect();
        assert_eq!(left_out, [("embed_too_large", "c.txt", 3, 15)]);
        let report = prompt_core::diagnostic::Report::new(&rendered.warnings[0], Some(text));
        assert_eq!(
            (report.line, report.column, report.snippet.as_deref()),
            (Some(3), Some(15), Some("@c.txt"))
        );
        assert_eq!(
            rendered.messages[1].content[1..3],
            [
                Part::image("image/png", vec![0x89, b'P', b'N', b'G']),
                Part::file("b.pdf", "application/pdf", vec![0xff, 0x00])
            ]
        );
        assert_eq!(rendered.messages[0], Message::text(Role::System, "intro\n"));
        let user =
            render(&resolved, &turns, &RenderOptions { context_as: ContextAs::User, ..options });
        assert_eq!(user.messages.iter().map(|m| m.role).collect::<Vec<_>>(), [Role::User; 2]);
        let kept = render(&resolved, &turns, &RenderOptions::default());
        assert_eq!(kept.context, Some(vec![Part::text("intro\n")]));
        assert_eq!(kept.messages.len(), 1);
        let dropped = RenderOptions { context_as: ContextAs::Drop, ..RenderOptions::default() };
        let rendered = render(&resolved, &turns, &dropped);
        assert_eq!((rendered.context.as_ref(), rendered.messages.len()), (None, 1));
        assert_eq!(rendered.messages[0].content.len(), 4);
    }

    /// The bytes of an embed are read once and shared by every render and
    /// every narrative resolved against the same attachments (a batch's
    /// rows): none copies them.
    #[test]
    fn renders_share_embed_bytes() {
        let attachments = Attachments::from_entries([("a.png", vec![7; 1 << 16])]).unwrap();
        let image = |text: &str| {
            let resolved = Narrative::parse(text, Dialect::Standard).resolve(&attachments).unwrap();
            let rendered = render(&resolved, &resolved.segment(), &RenderOptions::default());
            match rendered.messages[0].content.last() {
                Some(Part::Image { data, .. }) => data.clone(),
                other => panic!("not an image: {other:?}"),
            }
        };
        let (first, second) = (image("## user\n@a.png"), image("## user\nrow 2 @a.png"));
        assert!(std::ptr::eq(first.as_bytes(), second.as_bytes()));
        let fetched = attachments.fetch("a.png").unwrap();
        assert!(std::ptr::eq(first.as_bytes(), fetched.as_bytes()));
    }
}
