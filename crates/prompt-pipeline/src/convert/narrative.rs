//! `narrative-segment` messages into unified messages.

use narrative_segment::{ContentPart as NarrativePart, Encoding, Message as NarrativeMessage};

use super::{decode_base64, image_from_data_uri};
use crate::error::{Error, ErrorKind};
use crate::message::{ContentPart, Message, Role};

const FROM: &str = "narrative";

/// Converts rendered narrative messages (see
/// [`narrative_segment::render_turns`]) into unified messages, in order.
///
/// Images (`image_url` data URIs) become [`ContentPart::Image`] and
/// attachments [`ContentPart::File`] with their bytes decoded.
///
/// # Errors
///
/// [`ErrorKind::UnsupportedRole`] for a `tool` turn, or a `context` turn
/// kept as such; [`ErrorKind::UnconvertiblePart`] for an image that is not
/// an inline `data:` URI or an attachment whose base64 is invalid.
pub fn from_narrative(messages: Vec<NarrativeMessage>) -> Result<Vec<Message>, Error> {
    messages.into_iter().enumerate().map(|(index, message)| convert(index, message)).collect()
}

fn convert(index: usize, message: NarrativeMessage) -> Result<Message, Error> {
    let role = match message.role {
        narrative_segment::Role::System => Role::System,
        narrative_segment::Role::User => Role::User,
        narrative_segment::Role::Assistant => Role::Assistant,
        other => {
            return Err(Error::new(ErrorKind::UnsupportedRole {
                from: FROM,
                message: index,
                role: other.as_str().to_owned(),
            }));
        }
    };
    let content = message
        .content
        .into_iter()
        .map(|part| match part {
            NarrativePart::Text { text } => Ok(ContentPart::Text { text }),
            NarrativePart::ImageUrl { image_url } => {
                image_from_data_uri(FROM, index, &image_url.url)
            }
            NarrativePart::Attachment { name, mime, content, encoding } => {
                let data = match encoding {
                    None => content.into_bytes(),
                    Some(Encoding::Base64) => decode_base64(&content).ok_or_else(|| {
                        Error::new(ErrorKind::UnconvertiblePart {
                            from: FROM,
                            message: index,
                            part: format!("attachment `{name}`"),
                            reason: "the base64 data is invalid",
                        })
                    })?,
                };
                Ok(ContentPart::File { filename: name, media_type: mime, data })
            }
        })
        .collect::<Result<_, _>>()?;
    Ok(Message { role, content, name: None })
}

#[cfg(test)]
mod tests {
    use narrative_segment::ImageUrl;

    use super::*;

    #[test]
    fn parts_are_decoded() {
        let messages = vec![NarrativeMessage {
            role: narrative_segment::Role::User,
            content: vec![
                NarrativePart::Text { text: "see".into() },
                NarrativePart::ImageUrl {
                    image_url: ImageUrl { url: "data:image/png;base64,iVBORw==".into() },
                },
                NarrativePart::Attachment {
                    name: "a.pdf".into(),
                    mime: "application/pdf".into(),
                    content: "/wA=".into(),
                    encoding: Some(Encoding::Base64),
                },
                NarrativePart::Attachment {
                    name: "n.txt".into(),
                    mime: "text/plain".into(),
                    content: "hi".into(),
                    encoding: None,
                },
            ],
        }];
        let converted = from_narrative(messages).unwrap();
        assert_eq!(
            converted[0].content,
            [
                ContentPart::text("see"),
                ContentPart::Image { media_type: "image/png".into(), data: vec![137, 80, 78, 71] },
                ContentPart::File {
                    filename: "a.pdf".into(),
                    media_type: "application/pdf".into(),
                    data: vec![255, 0]
                },
                ContentPart::File {
                    filename: "n.txt".into(),
                    media_type: "text/plain".into(),
                    data: b"hi".to_vec()
                },
            ]
        );
    }

    #[test]
    fn tool_and_context_turns_are_refused() {
        for role in [narrative_segment::Role::Tool, narrative_segment::Role::Context] {
            let messages = vec![
                NarrativeMessage { role: narrative_segment::Role::User, content: vec![] },
                NarrativeMessage { role, content: vec![] },
            ];
            let err = from_narrative(messages).unwrap_err();
            assert_eq!(
                err.kind(),
                &ErrorKind::UnsupportedRole {
                    from: "narrative",
                    message: 1,
                    role: role.as_str().into()
                }
            );
        }
    }

    #[test]
    fn bad_base64_attachment_is_an_error() {
        let messages = vec![NarrativeMessage {
            role: narrative_segment::Role::User,
            content: vec![NarrativePart::Attachment {
                name: "a.bin".into(),
                mime: "application/octet-stream".into(),
                content: "%%".into(),
                encoding: Some(Encoding::Base64),
            }],
        }];
        assert_eq!(from_narrative(messages).unwrap_err().kind().as_str(), "unconvertible_part");
    }
}
