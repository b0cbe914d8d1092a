//! MIME types by file extension, as lmml's renderer assigns them.

/// The MIME type of an embed named `name`, by its extension: the text
/// after the last `.`, compared lowercase (`a.JPG` is `image/jpeg`,
/// `a.tar.gz` is judged by `gz`). Anything unknown is
/// `application/octet-stream`.
///
/// ```
/// use narrative_segment::mime_type;
///
/// assert_eq!(mime_type("chart.PNG"), "image/png");
/// assert_eq!(mime_type("report.pdf"), "application/pdf");
/// assert_eq!(mime_type("notes"), "application/octet-stream");
/// ```
pub fn mime_type(name: &str) -> &'static str {
    let Some((_, extension)) = name.rsplit_once('.') else { return OCTET_STREAM };
    let extension = extension.to_ascii_lowercase();
    TABLE.iter().find(|(ext, _)| *ext == extension).map_or(OCTET_STREAM, |(_, mime)| mime)
}

const OCTET_STREAM: &str = "application/octet-stream";

/// The MIME type of `bytes` by their signature, for the types providers
/// take inline: PNG, JPEG, GIF, WebP and PDF; `None` for anything else.
///
/// ```
/// use narrative_segment::sniffed_type;
///
/// assert_eq!(sniffed_type(b"\x89PNG\r\n\x1a\n..."), Some("image/png"));
/// assert_eq!(sniffed_type(b"%PDF-1.7"), Some("application/pdf"));
/// assert_eq!(sniffed_type(b"hello"), None);
/// ```
pub fn sniffed_type(bytes: &[u8]) -> Option<&'static str> {
    const SIGNATURES: [(&[u8], &str); 6] = [
        (b"\x89PNG\r\n\x1a\n", "image/png"),
        (b"\xff\xd8\xff", "image/jpeg"),
        (b"GIF87a", "image/gif"),
        (b"GIF89a", "image/gif"),
        (b"%PDF-", "application/pdf"),
        (b"RIFF", "image/webp"),
    ];
    SIGNATURES.iter().find_map(|(signature, mime)| {
        let webp = *mime != "image/webp" || bytes.get(8..12) == Some(b"WEBP");
        (bytes.starts_with(signature) && webp).then_some(*mime)
    })
}

const TABLE: &[(&str, &str)] = &[
    // Images (rendered as `image_url` parts).
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("bmp", "image/bmp"),
    ("svg", "image/svg+xml"),
    ("avif", "image/avif"),
    ("tif", "image/tiff"),
    ("tiff", "image/tiff"),
    ("ico", "image/x-icon"),
    // Structured data.
    ("json", "application/json"),
    ("yaml", "application/yaml"),
    ("yml", "application/yaml"),
    ("toml", "application/toml"),
    ("xml", "application/xml"),
    ("csv", "text/csv"),
    ("html", "text/html"),
    ("htm", "text/html"),
    // Text and code.
    ("txt", "text/plain"),
    ("log", "text/plain"),
    ("md", "text/markdown"),
    ("diff", "text/x-diff"),
    ("patch", "text/x-diff"),
    ("py", "text/x-python"),
    ("rb", "text/x-ruby"),
    ("ex", "text/x-elixir"),
    ("exs", "text/x-elixir"),
    ("sh", "application/x-sh"),
    ("sql", "application/sql"),
    // Documents.
    ("pdf", "application/pdf"),
    ("doc", "application/msword"),
    ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    ("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    // Audio and video.
    ("mp3", "audio/mpeg"),
    ("wav", "audio/wav"),
    ("ogg", "audio/ogg"),
    ("m4a", "audio/mp4"),
    ("mp4", "video/mp4"),
    ("webm", "video/webm"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures() {
        assert_eq!(sniffed_type(b"\xff\xd8\xff\xe0"), Some("image/jpeg"));
        assert_eq!(sniffed_type(b"GIF89a"), Some("image/gif"));
        assert_eq!(sniffed_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        // A RIFF that is not WebP (a WAV) is not an image.
        assert_eq!(sniffed_type(b"RIFF\0\0\0\0WAVEfmt "), None);
        assert_eq!(sniffed_type(b"\x89PN"), None);
        assert_eq!(sniffed_type(b""), None);
    }

    #[test]
    fn extensions() {
        assert_eq!(mime_type("a.JPG"), "image/jpeg");
        assert_eq!(mime_type("a.tar.gz"), OCTET_STREAM);
        assert_eq!(mime_type("a.txt\r"), OCTET_STREAM);
        assert_eq!(mime_type("diagram.svg"), "image/svg+xml");
        assert_eq!(mime_type("x.exs"), "text/x-elixir");
        assert_eq!(mime_type(".md"), "text/markdown");
    }
}
