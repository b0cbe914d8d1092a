//! What every entry and file goes through before and while it is read: a
//! name check and a bounded read. Below both the bundle reader and
//! [`crate::Root`], which share them.

#[cfg(any(feature = "bundle", feature = "directory"))]
use std::io::Read;

#[cfg(any(feature = "bundle", feature = "directory"))]
use crate::error::{Error, ErrorKind};

/// Whether `name` is unsafe as an entry or file name: empty, absolute
/// (`/x`), with a backslash, a NUL byte, or a `..` segment.
///
/// ```
/// use narrative_segment::is_unsafe_name;
///
/// assert!(is_unsafe_name("../secret.txt"));
/// assert!(is_unsafe_name("a/../../b"));
/// assert!(is_unsafe_name("/etc/passwd"));
/// assert!(is_unsafe_name("dir\\file"));
/// assert!(!is_unsafe_name("img/chart..v2.png"));
/// ```
pub fn is_unsafe_name(name: &str) -> bool {
    name.is_empty()
        || name.starts_with('/')
        || name.contains(['\\', '\0'])
        || name.split('/').any(|segment| segment == "..")
}

/// Reads at most `limit` bytes, failing with [`ErrorKind::EntryTooLarge`]
/// as soon as one more arrives, whatever the source claimed its size was.
/// A read error is an error of kind `on_error` (a damaged zip entry is an
/// invalid archive, not an I/O failure).
#[cfg(any(feature = "bundle", feature = "directory"))]
pub(crate) fn read_limited(
    reader: impl Read,
    limit: u64,
    on_error: ErrorKind,
) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|err| Error::new(on_error).with_detail(err.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(Error::new(ErrorKind::EntryTooLarge)
            .with_detail(format!("more than the limit of {limit} bytes")));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_names() {
        for name in ["", "/a", "a\\b", "..", "a/..", "../a", "a/../b", "a\0b"] {
            assert!(is_unsafe_name(name), "{name:?}");
        }
        for name in ["a", "a/b.png", "..a", "a..", ".hidden", "a/./b"] {
            assert!(!is_unsafe_name(name), "{name:?}");
        }
    }

    #[cfg(any(feature = "bundle", feature = "directory"))]
    #[test]
    fn read_limited_stops_at_the_limit() {
        assert_eq!(read_limited(&b"abc"[..], 3, ErrorKind::Io).unwrap(), b"abc");
        let err = read_limited(&b"abcd"[..], 3, ErrorKind::Io).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::EntryTooLarge);
    }
}
