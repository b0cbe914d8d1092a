//! Bundles: a bare narrative, or a `.lmmlz` zip archive holding the
//! narrative entry and its attachments.

#[cfg(feature = "bundle")]
use std::collections::HashSet;
#[cfg(feature = "bundle")]
use std::io::{Cursor, Write};

#[cfg(feature = "bundle")]
use zip::write::SimpleFileOptions;
#[cfg(feature = "bundle")]
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use crate::attachments::{AttachmentLimits, Attachments};
#[cfg(feature = "bundle")]
use crate::entry::{is_unsafe_name, read_limited};
use crate::error::{Error, ErrorKind};
use crate::narrative::decode_utf8;

/// The one top-level `.lmml` entry among `names`, the narrative of an
/// archive without a file name.
#[cfg(feature = "bundle")]
fn only_narrative(names: &[String]) -> Result<String, Error> {
    let mut narratives = names.iter().filter(|name| name.ends_with(".lmml") && !name.contains('/'));
    match (narratives.next(), narratives.next()) {
        (Some(name), None) => Ok(name.clone()),
        (first, second) => {
            let found = match (first, second) {
                (Some(a), Some(b)) => format!("it has more than one (`{a}`, `{b}`)"),
                _ => "it has none".to_owned(),
            };
            Err(Error::new(ErrorKind::MissingNarrativeEntry).with_name("*.lmml").with_detail(
                format!(
                    "without a file name to go by, a bundle's narrative is its one top-level \
                     `.lmml` entry, and {found}"
                ),
            ))
        }
    }
}

/// The first bytes of a zip archive; a bundle is a zip by content, not by name.
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";

/// A narrative with the attachments its references resolve from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    text: String,
    attachments: Attachments,
}

impl Bundle {
    /// A bundle from a file's bytes: a zip archive when they start with the
    /// zip magic `PK\x03\x04` (as lmml decides), otherwise bare narrative
    /// text with no attachments. `file_name` names the narrative entry (see
    /// [`Bundle::narrative_entry_name`]).
    ///
    /// # Errors
    ///
    /// As [`Bundle::from_zip`]; [`ErrorKind::InvalidUtf8`] for bare text
    /// that is not UTF-8.
    pub fn from_bytes(
        file_name: &str,
        bytes: &[u8],
        limits: &AttachmentLimits,
    ) -> Result<Bundle, Error> {
        if bytes.starts_with(ZIP_MAGIC) {
            return Bundle::from_zip(file_name, bytes, limits);
        }
        Ok(Bundle { text: decode_utf8(bytes)?.to_owned(), attachments: Attachments::none() })
    }

    /// A bundle from the bytes of a `.lmmlz` zip archive named `file_name`.
    ///
    /// Every entry name is checked before anything is read; then entries are
    /// read with `limits` enforced on the bytes actually inflated.
    /// Directory entries are skipped.
    ///
    /// Two entries of the same name are an error, not the last one winning:
    /// which one the author meant cannot be told.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArchive`], [`ErrorKind::TooManyEntries`],
    /// [`ErrorKind::UnsafeEntry`], [`ErrorKind::DuplicateEntry`],
    /// [`ErrorKind::EntryTooLarge`],
    /// [`ErrorKind::BundleTooLarge`], [`ErrorKind::MissingNarrativeEntry`],
    /// or [`ErrorKind::InvalidUtf8`] for a narrative entry that is not UTF-8;
    /// [`ErrorKind::BundlesUnsupported`] when the crate is built without its
    /// `bundle` feature.
    pub fn from_zip(
        file_name: &str,
        bytes: &[u8],
        limits: &AttachmentLimits,
    ) -> Result<Bundle, Error> {
        Bundle::zip(Some(file_name), bytes, limits)
    }

    /// A bundle from the bytes of a zip archive that has no file name (read
    /// from standard input, say): its narrative entry is its one top-level
    /// `.lmml` entry. Read as [`Bundle::from_zip`] reads.
    ///
    /// # Errors
    ///
    /// As [`Bundle::from_zip`]; [`ErrorKind::MissingNarrativeEntry`] when
    /// the archive has no top-level `.lmml` entry, or several;
    /// [`ErrorKind::BundlesUnsupported`] without the `bundle` feature.
    pub fn from_unnamed_zip(bytes: &[u8], limits: &AttachmentLimits) -> Result<Bundle, Error> {
        Bundle::zip(None, bytes, limits)
    }

    #[cfg(not(feature = "bundle"))]
    fn zip(
        file_name: Option<&str>,
        bytes: &[u8],
        limits: &AttachmentLimits,
    ) -> Result<Bundle, Error> {
        let _ = (file_name, bytes, limits);
        Err(Error::new(ErrorKind::BundlesUnsupported))
    }

    /// [`Bundle::from_zip`], with the narrative entry named after
    /// `file_name`, or without one the only top-level `.lmml` entry.
    #[cfg(feature = "bundle")]
    fn zip(
        file_name: Option<&str>,
        bytes: &[u8],
        limits: &AttachmentLimits,
    ) -> Result<Bundle, Error> {
        let invalid = |err: zip::result::ZipError| {
            Error::new(ErrorKind::InvalidArchive).with_detail(err.to_string())
        };
        let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(invalid)?;
        // The archive keeps one entry per name (the last); it only tells
        // that it dropped some.
        if archive.has_duplicate_names() {
            let error = Error::new(ErrorKind::DuplicateEntry);
            let start = usize::try_from(archive.central_directory_start()).unwrap_or(usize::MAX);
            return Err(match duplicate_name(bytes, start) {
                Some(name) => error.with_name(name),
                None => error,
            });
        }
        if archive.len() > limits.max_entries {
            return Err(Error::new(ErrorKind::TooManyEntries).with_detail(format!(
                "{} entries, more than the limit of {}",
                archive.len(),
                limits.max_entries
            )));
        }
        // Every name is checked before a single entry is inflated.
        let mut names = Vec::with_capacity(archive.len());
        let mut seen = HashSet::with_capacity(archive.len());
        for index in 0..archive.len() {
            let name = match archive.name_for_index(index) {
                Some(Ok(name)) => name.into_owned(),
                Some(Err(err)) => return Err(invalid(err)),
                None => return Err(Error::new(ErrorKind::InvalidArchive)),
            };
            if is_unsafe_name(&name) {
                return Err(Error::new(ErrorKind::UnsafeEntry).with_name(name));
            }
            // Two spellings (CP437 and UTF-8) of one name.
            if !seen.insert(name.clone()) {
                return Err(Error::new(ErrorKind::DuplicateEntry).with_name(name));
            }
            names.push(name);
        }
        let narrative_name = match file_name {
            Some(file_name) => Bundle::narrative_entry_name(file_name),
            None => only_narrative(&names)?,
        };
        let mut narrative = None;
        let mut entries = Vec::new();
        let mut total: u64 = 0;
        for (index, name) in names.into_iter().enumerate() {
            let file = archive.by_index(index).map_err(|err| invalid(err).with_name(&name))?;
            if file.is_dir() {
                continue;
            }
            let bytes = read_limited(file, limits.max_entry_bytes, ErrorKind::InvalidArchive)
                .map_err(|err| err.with_name(&name))?;
            total += bytes.len() as u64;
            if total > limits.max_total_bytes {
                return Err(Error::new(ErrorKind::BundleTooLarge).with_detail(format!(
                    "more than the limit of {} bytes uncompressed",
                    limits.max_total_bytes
                )));
            }
            if name == narrative_name {
                narrative = Some(bytes);
            } else {
                entries.push((name, bytes));
            }
        }
        let narrative = narrative.ok_or_else(|| {
            Error::new(ErrorKind::MissingNarrativeEntry).with_name(&narrative_name)
        })?;
        let text =
            decode_utf8(&narrative).map_err(|err| err.with_name(&narrative_name))?.to_owned();
        Ok(Bundle { text, attachments: Attachments::from_entries(entries)? })
    }

    /// The narrative entry of an archive named `file_name`: its base name
    /// with one trailing `z` removed (`convo.lmmlz` gives `convo.lmml`), or
    /// with `.lmml` appended when it ends in neither `.lmml` nor `.lmmlz`.
    ///
    /// ```
    /// use narrative_segment::Bundle;
    ///
    /// assert_eq!(Bundle::narrative_entry_name("talks/convo.lmmlz"), "convo.lmml");
    /// assert_eq!(Bundle::narrative_entry_name("convo.lmml"), "convo.lmml");
    /// assert_eq!(Bundle::narrative_entry_name("convo.zip"), "convo.zip.lmml");
    /// ```
    pub fn narrative_entry_name(file_name: &str) -> String {
        let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
        if let Some(stem) = base.strip_suffix(".lmmlz") {
            format!("{stem}.lmml")
        } else if base.ends_with(".lmml") {
            base.to_owned()
        } else {
            format!("{base}.lmml")
        }
    }

    /// A bundle of `text` and named attachments, e.g. to write with
    /// [`Bundle::to_zip`].
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnsafeEntry`] for an unsafe attachment name.
    pub fn from_parts<N, B>(
        text: impl Into<String>,
        entries: impl IntoIterator<Item = (N, B)>,
    ) -> Result<Bundle, Error>
    where
        N: Into<String>,
        B: Into<prompt_core::chat::Data>,
    {
        Ok(Bundle { text: text.into(), attachments: Attachments::from_entries(entries)? })
    }

    /// The bundle as a deflated `.lmmlz` zip archive to be saved as
    /// `file_name`: the narrative entry (named after `file_name`), then the
    /// attachments in name order. Attachments from a directory are not
    /// written (a directory is not listed).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArchive`] if the archive cannot be assembled (an
    /// entry over 4 GiB); [`ErrorKind::BundlesUnsupported`] when the crate is
    /// built without its `bundle` feature.
    pub fn to_zip(&self, file_name: &str) -> Result<Vec<u8>, Error> {
        #[cfg(not(feature = "bundle"))]
        {
            let _ = file_name;
            Err(Error::new(ErrorKind::BundlesUnsupported))
        }
        #[cfg(feature = "bundle")]
        self.write_zip(file_name)
    }

    #[cfg(feature = "bundle")]
    fn write_zip(&self, file_name: &str) -> Result<Vec<u8>, Error> {
        let fail = |err: &dyn std::fmt::Display| {
            Error::new(ErrorKind::InvalidArchive).with_detail(err.to_string())
        };
        let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        let narrative = (Bundle::narrative_entry_name(file_name), self.text.as_bytes());
        let entries = self.attachments.entries().map(|(name, bytes)| (name.to_owned(), bytes));
        for (name, bytes) in std::iter::once(narrative).chain(entries) {
            writer.start_file(name, options).map_err(|err| fail(&err))?;
            writer.write_all(bytes).map_err(|err| fail(&err))?;
        }
        Ok(writer.finish().map_err(|err| fail(&err))?.into_inner())
    }

    /// The narrative text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The attachments (none for a bare narrative).
    pub fn attachments(&self) -> &Attachments {
        &self.attachments
    }

    /// The narrative text and the attachments.
    pub fn into_parts(self) -> (String, Attachments) {
        (self.text, self.attachments)
    }
}

/// The first name the central directory of the zip archive `bytes`
/// (starting at `start`) holds twice, read from its headers (the archive
/// API merges duplicates): each header is 46 bytes, then the name, the
/// extra field and the comment, whose lengths are at offsets 28, 30, 32.
#[cfg(feature = "bundle")]
fn duplicate_name(bytes: &[u8], start: usize) -> Option<String> {
    let field = |at: usize| -> Option<usize> {
        let pair = bytes.get(at..at.checked_add(2)?)?;
        Some(usize::from(u16::from_le_bytes([pair[0], pair[1]])))
    };
    let mut seen = HashSet::new();
    let mut at = start;
    while bytes.get(at..)?.starts_with(b"PK\x01\x02") {
        let (name, extra, comment) = (field(at + 28)?, field(at + 30)?, field(at + 32)?);
        let name_start = at + 46;
        let raw = bytes.get(name_start..name_start + name)?;
        if !seen.insert(raw) {
            return Some(String::from_utf8_lossy(raw).into_owned());
        }
        at = name_start + name + extra + comment;
    }
    None
}

#[cfg(all(test, not(feature = "bundle")))]
mod without_the_feature {
    use super::*;

    #[test]
    fn bundles_are_a_typed_error() {
        let bytes = b"PK\x03\x04 the rest of an archive";
        let err =
            Bundle::from_bytes("talk.lmmlz", bytes, &AttachmentLimits::default()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BundlesUnsupported);
        let bundle = Bundle::from_parts("## user\nhi", [("a.png", b"PNG".to_vec())]).unwrap();
        assert_eq!(bundle.to_zip("talk.lmmlz").unwrap_err().kind(), ErrorKind::BundlesUnsupported);
        // A bare narrative needs no zip reader.
        let bare = Bundle::from_bytes("talk.lmml", b"## user\nhi", &AttachmentLimits::default());
        assert_eq!(bare.unwrap().text(), "## user\nhi");
    }
}

#[cfg(all(test, feature = "bundle"))]
mod tests {
    use super::*;

    #[test]
    fn written_bundles_read_back() {
        let bundle = Bundle::from_parts("## user\n@a.png", [("a.png", b"PNG".to_vec())]).unwrap();
        let bytes = bundle.to_zip("dir/talk.lmmlz").unwrap();
        let read = Bundle::from_bytes("talk.lmmlz", &bytes, &AttachmentLimits::default()).unwrap();
        assert_eq!(read, bundle);
        let err =
            Bundle::from_bytes("other.lmmlz", &bytes, &AttachmentLimits::default()).unwrap_err();
        assert_eq!(
            (err.kind(), err.name()),
            (ErrorKind::MissingNarrativeEntry, Some("other.lmml"))
        );
    }

    /// Without a file name, the narrative is the one top-level `.lmml`
    /// entry; none or several is an error saying so.
    #[test]
    fn an_unnamed_bundle_reads_its_only_narrative() {
        let limits = AttachmentLimits::default();
        let bundle = Bundle::from_parts("## user\n@a.png", [("a.png", b"PNG".to_vec())]).unwrap();
        let bytes = bundle.to_zip("whatever-name.lmmlz").unwrap();
        assert_eq!(Bundle::from_unnamed_zip(&bytes, &limits).unwrap(), bundle);
        // An `.lmml` entry below the top is an attachment, not a narrative.
        let nested = Bundle::from_parts("x", [("notes/old.lmml", b"y".to_vec())]).unwrap();
        let read = Bundle::from_unnamed_zip(&nested.to_zip("t.lmmlz").unwrap(), &limits).unwrap();
        assert_eq!(read.text(), "x");
        let two = Bundle::from_parts("x", [("other.lmml", b"y".to_vec())]).unwrap();
        let err = Bundle::from_unnamed_zip(&two.to_zip("t.lmmlz").unwrap(), &limits).unwrap_err();
        assert_eq!((err.kind(), err.name()), (ErrorKind::MissingNarrativeEntry, Some("*.lmml")));
        assert!(
            err.to_string().ends_with("and it has more than one (`t.lmml`, `other.lmml`)"),
            "{err}"
        );
        let none = Bundle::from_parts("x", [("a.png", b"y".to_vec())]).unwrap();
        let mut bytes = none.to_zip("t.lmmlz").unwrap();
        // The narrative entry renamed to a name that is no narrative.
        let at = memchr::memmem::find(&bytes, b"t.lmml").unwrap();
        bytes[at..at + 6].copy_from_slice(b"t.txt_");
        let at = memchr::memmem::rfind(&bytes, b"t.lmml").unwrap();
        bytes[at..at + 6].copy_from_slice(b"t.txt_");
        let err = Bundle::from_unnamed_zip(&bytes, &limits).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MissingNarrativeEntry);
        assert!(err.to_string().ends_with("and it has none"), "{err}");
    }

    /// A bundle of `talk.lmml` and entries named `a.png` and `b.png`, whose
    /// second name is then overwritten in place with `a.png` (zip writers
    /// refuse duplicates; archives from elsewhere need not).
    fn bundle_with_two_a_png() -> Vec<u8> {
        let bundle = Bundle::from_parts(
            "@a.png",
            [("a.png", b"first".to_vec()), ("b.png", b"second".to_vec())],
        )
        .unwrap();
        let mut bytes = bundle.to_zip("talk.lmmlz").unwrap();
        let mut at = 0;
        while let Some(i) = memchr::memmem::find(&bytes[at..], b"b.png") {
            bytes[at + i..at + i + 5].copy_from_slice(b"a.png");
            at += i + 5;
        }
        bytes
    }

    #[test]
    fn two_entries_of_one_name_are_an_error_naming_it() {
        let bytes = bundle_with_two_a_png();
        let err =
            Bundle::from_bytes("talk.lmmlz", &bytes, &AttachmentLimits::default()).unwrap_err();
        assert_eq!((err.kind(), err.name()), (ErrorKind::DuplicateEntry, Some("a.png")));
        assert_eq!(err.to_string(), "the bundle holds two entries named `a.png`");
    }
}
