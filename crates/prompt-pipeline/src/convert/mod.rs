//! Conversions from each source crate's message types into the unified
//! [`Message`](crate::Message) and [`ContentPart`](crate::ContentPart): one
//! module per crate. A part that has no unified form is an error naming the
//! message, never dropped.

pub(crate) mod narrative;
pub(crate) mod transcript;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::error::{Error, ErrorKind};
use crate::message::ContentPart;

/// An image part from a `data:<mime>;base64,<data>` URI.
fn image_from_data_uri(
    from: &'static str,
    message: usize,
    url: &str,
) -> Result<ContentPart, Error> {
    let unconvertible = |reason| {
        Error::new(ErrorKind::UnconvertiblePart {
            from,
            message,
            part: "image_url".to_owned(),
            reason,
        })
    };
    let rest = url
        .strip_prefix("data:")
        .ok_or_else(|| unconvertible("only inline `data:` images can be sent"))?;
    let (media_type, data) = rest
        .split_once(";base64,")
        .ok_or_else(|| unconvertible("the `data:` URI is not base64"))?;
    let data = decode_base64(data).ok_or_else(|| unconvertible("the base64 data is invalid"))?;
    Ok(ContentPart::Image { media_type: media_type.to_owned(), data })
}

fn decode_base64(data: &str) -> Option<Vec<u8>> {
    STANDARD.decode(data.as_bytes()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_uris() {
        let part = image_from_data_uri("narrative", 0, "data:image/png;base64,AP8H").unwrap();
        assert_eq!(
            part,
            ContentPart::Image { media_type: "image/png".into(), data: vec![0, 255, 7] }
        );
        for (url, reason) in [
            ("https://x.example/a.png", "only inline `data:` images can be sent"),
            ("data:image/png,abc", "the `data:` URI is not base64"),
            ("data:image/png;base64,!!", "the base64 data is invalid"),
        ] {
            let err = image_from_data_uri("transcript", 3, url).unwrap_err();
            assert_eq!(
                err.kind(),
                &ErrorKind::UnconvertiblePart {
                    from: "transcript",
                    message: 3,
                    part: "image_url".into(),
                    reason
                }
            );
        }
    }
}
