//! `narrative-segment` messages into unified messages.
//!
//! Adapted to narrative-segment's core messages (issue 14): the parts
//! already hold their bytes, so this only maps roles and parts to the
//! pipeline's own types, which pipeline-cli-14 removes.

use narrative_segment::Rendered;
use prompt_core::chat::{Part, Role as CoreRole};

use crate::error::{Error, ErrorKind};
use crate::message::{ContentPart, Message, Role};

const FROM: &str = "narrative";

/// Converts rendered narrative messages (see [`narrative_segment::render`])
/// into unified messages, in order; a preamble kept as `context` counts as
/// message 0.
///
/// # Errors
///
/// [`ErrorKind::UnsupportedRole`] for a `tool` turn, or a `context` turn
/// kept as such; [`ErrorKind::UnconvertiblePart`] for a part the pipeline
/// has no form for.
pub fn from_narrative(rendered: Rendered) -> Result<Vec<Message>, Error> {
    let unsupported = |message, role: &str| {
        Error::new(ErrorKind::UnsupportedRole { from: FROM, message, role: role.to_owned() })
    };
    if rendered.context.is_some() {
        return Err(unsupported(0, "context"));
    }
    rendered
        .messages
        .into_iter()
        .enumerate()
        .map(|(index, message)| {
            let role = match message.role {
                CoreRole::System => Role::System,
                CoreRole::User => Role::User,
                CoreRole::Assistant => Role::Assistant,
                other => return Err(unsupported(index, other.as_str())),
            };
            let content = message
                .content
                .into_iter()
                .map(|part| convert_part(index, part))
                .collect::<Result<_, _>>()?;
            Ok(Message { role, content, name: None })
        })
        .collect()
}

fn convert_part(index: usize, part: Part) -> Result<ContentPart, Error> {
    Ok(match part {
        Part::Text { text } => ContentPart::Text { text },
        Part::Image { media_type, data } => {
            ContentPart::Image { media_type, data: data.as_bytes().to_vec() }
        }
        Part::File { filename, media_type, data } => {
            ContentPart::File { filename, media_type, data: data.as_bytes().to_vec() }
        }
        other => {
            return Err(Error::new(ErrorKind::UnconvertiblePart {
                from: FROM,
                message: index,
                part: other.describe(),
                reason: "the pipeline has no form for it",
            }));
        }
    })
}

#[cfg(test)]
mod tests {
    use prompt_core::chat::Message as CoreMessage;

    use super::*;

    fn rendered(context: Option<Vec<Part>>, messages: Vec<CoreMessage>) -> Rendered {
        Rendered { context, messages, warnings: Vec::new() }
    }

    #[test]
    fn parts_keep_their_bytes() {
        let message = CoreMessage {
            role: CoreRole::User,
            content: vec![
                Part::text("see"),
                Part::image("image/png", vec![137, 80, 78, 71]),
                Part::file("a.pdf", "application/pdf", vec![255, 0]),
            ],
            name: None,
        };
        let converted = from_narrative(rendered(None, vec![message])).unwrap();
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
            ]
        );
    }

    #[test]
    fn tool_and_context_turns_are_refused() {
        let messages =
            vec![CoreMessage::text(CoreRole::User, ""), CoreMessage::text(CoreRole::Tool, "")];
        let err = from_narrative(rendered(None, messages)).unwrap_err();
        assert_eq!(
            err.kind(),
            &ErrorKind::UnsupportedRole { from: "narrative", message: 1, role: "tool".into() }
        );
        let err = from_narrative(rendered(Some(vec![]), vec![])).unwrap_err();
        assert_eq!(
            err.kind(),
            &ErrorKind::UnsupportedRole { from: "narrative", message: 0, role: "context".into() }
        );
    }
}
