//! Where references are resolved from: nothing (a bare narrative), the
//! entries of a bundle, or the files of a directory; and the size limits
//! that keep hostile archives in their place (name safety and bounded
//! reads are `entry.rs`).

use std::collections::BTreeMap;
#[cfg(feature = "directory")]
use std::collections::HashMap;
#[cfg(feature = "directory")]
use std::path::Path;
#[cfg(feature = "directory")]
use std::sync::{Arc, Mutex, PoisonError};

use prompt_core::chat::Data;

use crate::entry::is_unsafe_name;
use crate::error::{Error, ErrorKind};
#[cfg(feature = "directory")]
use crate::root::{FileId, Root};

/// Size limits for attachments, checked while bytes are read (never by
/// trusting a size an archive declares).
///
/// Built from the defaults, each limit changed by its `with_` method:
///
/// ```
/// use narrative_segment::AttachmentLimits;
///
/// let limits = AttachmentLimits::new().with_max_entries(16).with_max_entry_bytes(1 << 20);
/// assert_eq!((limits.max_entries, limits.max_total_bytes), (16, 256 << 20));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AttachmentLimits {
    /// The most entries a bundle may hold, the narrative included.
    /// Default: 4096.
    pub max_entries: usize,
    /// The largest one attachment may be, uncompressed, in bytes; the
    /// narrative entry too. Default: 64 MiB.
    pub max_entry_bytes: u64,
    /// The largest all attachments may be together, uncompressed, in bytes.
    /// Default: 256 MiB.
    pub max_total_bytes: u64,
}

impl Default for AttachmentLimits {
    fn default() -> AttachmentLimits {
        AttachmentLimits::new()
    }
}

impl AttachmentLimits {
    /// The default limits.
    pub const fn new() -> AttachmentLimits {
        AttachmentLimits {
            max_entries: 4096,
            max_entry_bytes: 64 << 20,
            max_total_bytes: 256 << 20,
        }
    }

    /// With [`AttachmentLimits::max_entries`] set to `entries`.
    pub const fn with_max_entries(mut self, entries: usize) -> AttachmentLimits {
        self.max_entries = entries;
        self
    }

    /// With [`AttachmentLimits::max_entry_bytes`] set to `bytes`.
    pub const fn with_max_entry_bytes(mut self, bytes: u64) -> AttachmentLimits {
        self.max_entry_bytes = bytes;
        self
    }

    /// With [`AttachmentLimits::max_total_bytes`] set to `bytes`.
    pub const fn with_max_total_bytes(mut self, bytes: u64) -> AttachmentLimits {
        self.max_total_bytes = bytes;
        self
    }
}

/// The attachments references resolve from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Attachments {
    source: Source,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
enum Source {
    #[default]
    None,
    Entries(BTreeMap<String, Data>),
    #[cfg(feature = "directory")]
    Directory {
        root: Arc<Root>,
        limits: AttachmentLimits,
        read: ReadOnce,
    },
}

#[cfg(feature = "directory")]
/// The files a directory source has read, by file identity (device and
/// inode: every name and link reaching one file shares its entry), so that
/// resolving the same reference again (every row of a batch) shares the
/// bytes read the first time instead of reading (or copying) them again. Shared by clones, holds
/// at most the limits' `max_total_bytes`, and left out of comparisons: it
/// is a cache, not part of the value.
#[derive(Debug, Clone, Default)]
struct ReadOnce(Arc<Mutex<ReadFiles>>);

#[cfg(feature = "directory")]
#[derive(Debug, Default)]
struct ReadFiles {
    files: HashMap<FileId, Data>,
    bytes: u64,
}

#[cfg(feature = "directory")]
impl ReadOnce {
    /// The bytes of the file `id`, read by `read` on the first call only.
    fn get_or_read(
        &self,
        id: &FileId,
        budget: u64,
        read: impl FnOnce() -> Result<Vec<u8>, Error>,
    ) -> Result<Data, Error> {
        // A panic elsewhere cannot leave the map half-written: take it as is.
        let lock = || self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(bytes) = lock().files.get(id) {
            return Ok(bytes.clone());
        }
        let bytes = Data::from(read()?);
        let mut cache = lock();
        let size = bytes.len() as u64;
        if cache.bytes.saturating_add(size) <= budget && !cache.files.contains_key(id) {
            cache.bytes += size;
            cache.files.insert(id.clone(), bytes.clone());
        }
        Ok(bytes)
    }
}

#[cfg(feature = "directory")]
impl PartialEq for ReadOnce {
    fn eq(&self, _: &ReadOnce) -> bool {
        true
    }
}

#[cfg(feature = "directory")]
impl Eq for ReadOnce {}

impl Attachments {
    /// No attachments: a bare narrative, where only inline embeds resolve.
    pub fn none() -> Attachments {
        Attachments::default()
    }

    /// Named entries held in memory, as read from a bundle.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnsafeEntry`] for the first unsafe name (see
    /// [`is_unsafe_name`]).
    pub fn from_entries<N, B>(
        entries: impl IntoIterator<Item = (N, B)>,
    ) -> Result<Attachments, Error>
    where
        N: Into<String>,
        B: Into<Data>,
    {
        let mut map = BTreeMap::new();
        for (name, bytes) in entries {
            let name = name.into();
            if is_unsafe_name(&name) {
                return Err(Error::new(ErrorKind::UnsafeEntry).with_name(name));
            }
            map.insert(name, bytes.into());
        }
        Ok(Attachments { source: Source::Entries(map) })
    }

    #[cfg(feature = "directory")]
    /// The files under `root`, opened once as a [`Root`]: a name resolves to
    /// a regular file inside `root` only, opened relative to the directory
    /// without ever leaving it, without blocking and without a race between
    /// the check and the read (see [`Root`] for the rules, links included).
    ///
    /// Each file is read once: later fetches of it (by any name or link
    /// reaching it), through these attachments or a clone of them, return
    /// the bytes read the first time, so resolving many narratives (a batch)
    /// reads no file twice. At most `limits.max_total_bytes` are kept; files
    /// past that are read on every fetch. The name's safety, the file's
    /// presence and its kind are still checked on every fetch.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`] when `root` is not a readable directory.
    pub fn directory(
        root: impl AsRef<Path>,
        limits: AttachmentLimits,
    ) -> Result<Attachments, Error> {
        Ok(Attachments::root(Root::open(root)?, limits))
    }

    #[cfg(feature = "directory")]
    /// The files under an opened [`Root`], as [`Attachments::directory`].
    pub fn root(root: Root, limits: AttachmentLimits) -> Attachments {
        Attachments {
            source: Source::Directory { root: Arc::new(root), limits, read: ReadOnce::default() },
        }
    }

    /// Whether there is nothing to resolve references from.
    pub fn is_none(&self) -> bool {
        self.source == Source::None
    }

    /// The entry names, when the attachments are a bundle's entries (a
    /// directory is not listed).
    pub fn entry_names(&self) -> Option<impl Iterator<Item = &str>> {
        match &self.source {
            Source::Entries(map) => Some(map.keys().map(String::as_str)),
            _ => None,
        }
    }

    /// Whether the attachment `name` exists (and is safe to read).
    pub fn contains(&self, name: &str) -> bool {
        if is_unsafe_name(name) {
            return false;
        }
        match &self.source {
            Source::None => false,
            Source::Entries(map) => map.contains_key(name),
            #[cfg(feature = "directory")]
            Source::Directory { root, .. } => root.is_file(name),
        }
    }

    /// Whether `name` names nothing at all: no entry, nothing in the
    /// directory (not even a directory or a link), no attachments.
    pub(crate) fn names_nothing(&self, name: &str) -> bool {
        match &self.source {
            Source::None => true,
            Source::Entries(map) => !map.contains_key(name),
            #[cfg(feature = "directory")]
            Source::Directory { root, .. } => !root.has_entry(name),
        }
    }

    /// The limit on all attachments read from a directory together (a
    /// bundle's entries were checked when it was read).
    pub(crate) fn max_total_bytes(&self) -> Option<u64> {
        match &self.source {
            #[cfg(feature = "directory")]
            Source::Directory { limits, .. } => Some(limits.max_total_bytes),
            _ => None,
        }
    }

    /// The entries held in memory, in name order (none for a directory);
    /// what a bundle writes.
    #[cfg(feature = "bundle")]
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&str, &[u8])> {
        let map = match &self.source {
            Source::Entries(map) => Some(map),
            _ => None,
        };
        map.into_iter().flatten().map(|(name, bytes)| (name.as_str(), bytes.as_bytes()))
    }

    /// The bytes of the attachment `name`, shared with these attachments
    /// (and with every earlier fetch of it): fetching never copies them.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnsafeEntry`], [`ErrorKind::UnresolvableReference`] (no
    /// attachments), [`ErrorKind::MissingEntry`],
    /// [`ErrorKind::OutsideDirectory`], [`ErrorKind::NotAFile`],
    /// [`ErrorKind::EntryTooLarge`] or [`ErrorKind::Io`]; each names `name`.
    pub fn fetch(&self, name: &str) -> Result<Data, Error> {
        self.fetch_identified(name).map(|(data, _)| data)
    }

    /// As [`Attachments::fetch`], with the identity of the file the bytes
    /// were read from: its device and inode (`None` for a bundle's entries,
    /// which are in memory, and off Unix). The file opened is the one
    /// identified, so a name or link swapped meanwhile cannot make the two
    /// differ; a host compares it with files it must not serve.
    ///
    /// # Errors
    ///
    /// As [`Attachments::fetch`].
    pub fn fetch_identified(&self, name: &str) -> Result<(Data, Option<(u64, u64)>), Error> {
        let error = |kind| Error::new(kind).with_name(name);
        if is_unsafe_name(name) {
            return Err(error(ErrorKind::UnsafeEntry));
        }
        match &self.source {
            Source::None => Err(error(ErrorKind::UnresolvableReference)),
            Source::Entries(map) => map
                .get(name)
                .cloned()
                .map(|data| (data, None))
                .ok_or_else(|| error(ErrorKind::MissingEntry)),
            #[cfg(feature = "directory")]
            Source::Directory { root, limits, read } => {
                let file = root.open_file(name)?;
                let id = file.id().clone();
                let data = read.get_or_read(&id, limits.max_total_bytes, || {
                    file.read(limits.max_entry_bytes)
                })?;
                Ok((data, id.device_and_inode()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_refuse_unsafe_names_and_report_missing_ones() {
        let err = Attachments::from_entries([("../x", b"".to_vec())]).unwrap_err();
        assert_eq!((err.kind(), err.name()), (ErrorKind::UnsafeEntry, Some("../x")));
        let entries = Attachments::from_entries([("a.txt", b"A".to_vec())]).unwrap();
        assert_eq!(entries.fetch("a.txt").unwrap().as_bytes(), b"A");
        assert_eq!(entries.fetch("b.txt").unwrap_err().kind(), ErrorKind::MissingEntry);
        assert_eq!(
            Attachments::none().fetch("a").unwrap_err().kind(),
            ErrorKind::UnresolvableReference
        );
    }

    #[cfg(feature = "directory")]
    #[test]
    fn a_directory_reads_each_file_once_within_its_budget() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "first").unwrap();
        std::fs::write(dir.path().join("big.txt"), "0123456789").unwrap();
        let limits = AttachmentLimits { max_total_bytes: 8, ..AttachmentLimits::default() };
        let attachments = Attachments::directory(dir.path(), limits).unwrap();
        let clone = attachments.clone();
        assert_eq!(attachments.fetch("a.txt").unwrap().as_bytes(), b"first");
        assert_eq!(attachments.fetch("big.txt").unwrap().as_bytes(), b"0123456789");
        std::fs::write(dir.path().join("a.txt"), "second").unwrap();
        std::fs::write(dir.path().join("big.txt"), "changed").unwrap();
        // The first read is kept, for the clone too; the file over the
        // budget was not kept and is read again.
        assert_eq!(attachments.fetch("a.txt").unwrap().as_bytes(), b"first");
        assert_eq!(clone.fetch("./a.txt").unwrap().as_bytes(), b"first");
        assert_eq!(attachments.fetch("big.txt").unwrap().as_bytes(), b"changed");
        // A file that disappears is still checked for: safety and existence
        // are decided on every fetch, before the cache.
        std::fs::remove_file(dir.path().join("a.txt")).unwrap();
        assert_eq!(attachments.fetch("a.txt").unwrap_err().kind(), ErrorKind::MissingEntry);
        assert_eq!(attachments, Attachments::directory(dir.path(), limits).unwrap());
    }
}
