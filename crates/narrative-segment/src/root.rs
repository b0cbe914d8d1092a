//! [`Root`]: the one safe way the suite reads a file under a directory.
//!
//! A directory is opened once; every file is then opened relative to that
//! handle, by [`cap_std`] (on Linux one `openat2` call with
//! `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`, elsewhere cap-std's checked
//! component-by-component resolution), so no path, link or rename race can
//! lead outside. Opening never blocks (`O_NONBLOCK`, and `O_NOCTTY`), and
//! what was opened is checked on the handle itself (`fstat`): only regular
//! files are read, with a byte cap.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};

use crate::entry::{is_unsafe_name, read_limited};
use crate::error::{Error, ErrorKind};

/// A directory opened once, to read the files under it by relative name
/// without ever leaving it.
///
/// - **Names** are checked before the file system is touched:
///   [`is_unsafe_name`] names (absolute, `..`, backslash, NUL) are
///   [`ErrorKind::UnsafeEntry`].
/// - **Never outside**: a name is resolved beneath the directory handle, so
///   `..` and symbolic links cannot climb out. A link inside the root is
///   followed only when it is relative and its target, resolved step by
///   step, stays inside (`img/latest.png -> v2/chart.png`); a link leading
///   out, an absolute link (even to a file inside) and `/proc` magic links
///   are [`ErrorKind::OutsideDirectory`]. A dangling link is
///   [`ErrorKind::MissingEntry`].
/// - **Never blocking**: files are opened non-blocking, so a FIFO swapped
///   in does not hang `open`, then checked on the opened handle: a
///   directory, FIFO, device or socket is [`ErrorKind::NotAFile`] and is
///   never read.
/// - **Race-free**: the check and the read use the same handle; nothing is
///   opened twice by path.
/// - **Bounded**: [`Root::read`] reads at most its byte cap
///   ([`ErrorKind::EntryTooLarge`] past it, however the file grows).
///
/// Every error names the file (relative to the root).
///
/// ```
/// use narrative_segment::{ErrorKind, Root};
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("notes.txt"), "hello")?;
/// let root = Root::open(dir.path())?;
/// assert_eq!(root.read("notes.txt", 1024)?, b"hello");
/// assert!(root.is_file("notes.txt"));
/// assert_eq!(root.read("notes.txt", 4).unwrap_err().kind(), ErrorKind::EntryTooLarge);
/// assert_eq!(root.read("../secret", 1024).unwrap_err().kind(), ErrorKind::UnsafeEntry);
/// assert_eq!(root.read(".", 1024).unwrap_err().kind(), ErrorKind::NotAFile);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Root {
    dir: Dir,
    path: PathBuf,
    id: FileId,
}

/// A regular file opened under a [`Root`], not read yet.
#[derive(Debug)]
pub struct RootFile {
    file: File,
    name: String,
    size: u64,
    id: FileId,
}

/// What identifies a file whatever name reaches it: its device and inode
/// (on other systems, its name under the root).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg_attr(unix, allow(dead_code))]
    Name(PathBuf),
}

impl FileId {
    /// The device and inode, where the file has them.
    pub(crate) fn device_and_inode(&self) -> Option<(u64, u64)> {
        match self {
            #[cfg(unix)]
            FileId::Inode(device, inode) => Some((*device, *inode)),
            FileId::Name(_) => None,
        }
    }
}

/// What a file that is not a regular file is, in words, from whether it
/// is a directory and (on Unix) a FIFO, a device or a socket.
fn describe(is_dir: bool, (fifo, device, socket): (bool, bool, bool)) -> &'static str {
    match (fifo, device, socket, is_dir) {
        (true, ..) => "a FIFO",
        (_, true, ..) => "a device",
        (_, _, true, _) => "a socket",
        (.., true) => "a directory",
        _ => "not a regular file",
    }
}

/// The kind of `file_type` in words. cap-std's file type has a trait of its
/// own for the Unix kinds, hence the macro for both types.
macro_rules! kind_of {
    ($file_type:expr, $unix_ext:path) => {{
        let file_type = $file_type;
        #[cfg(unix)]
        let special = {
            use $unix_ext;
            (
                file_type.is_fifo(),
                file_type.is_char_device() || file_type.is_block_device(),
                file_type.is_socket(),
            )
        };
        #[cfg(not(unix))]
        let special = (false, false, false);
        describe(file_type.is_dir(), special)
    }};
}

impl Root {
    /// Opens the directory at `path` (the one path resolved as given, links
    /// included: the caller chose it).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`], naming `path`, when it is not a directory that can
    /// be opened.
    pub fn open(path: impl AsRef<Path>) -> Result<Root, Error> {
        let path = path.as_ref();
        let io = |err: io::Error| {
            Error::new(ErrorKind::Io)
                .with_name(path.display().to_string())
                .with_detail(err.to_string())
        };
        let dir = Dir::open_ambient_dir(path, ambient_authority()).map_err(io)?;
        let id = dir_id(&dir, path).map_err(io)?;
        Ok(Root { dir, path: path.to_owned(), id })
    }

    /// The directory's path, as given to [`Root::open`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens the regular file `name` (relative to the root, `/`-separated)
    /// for reading, without reading it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnsafeEntry`], [`ErrorKind::MissingEntry`] (also a
    /// dangling link or a path through a file), [`ErrorKind::OutsideDirectory`],
    /// [`ErrorKind::NotAFile`] or [`ErrorKind::Io`]; each names `name`.
    pub fn open_file(&self, name: &str) -> Result<RootFile, Error> {
        let error = |kind| Error::new(kind).with_name(name);
        if is_unsafe_name(name) {
            return Err(error(ErrorKind::UnsafeEntry));
        }
        // A cheap look first, so that a device is not even opened; the
        // handle's own `fstat` below is what decides.
        if let Ok(metadata) = self.dir.metadata(name)
            && !metadata.is_file()
        {
            return Err(not_a_file(name, kind_of!(metadata.file_type(), cap_std::fs::FileTypeExt)));
        }
        let file = self.dir.open_with(name, &read_options()).map_err(|err| match err.kind() {
            io::ErrorKind::NotFound => error(ErrorKind::MissingEntry),
            io::ErrorKind::NotADirectory => {
                error(ErrorKind::MissingEntry).with_detail("a part of the path is a file")
            }
            // cap-std reports an escape as an error of its own, without an
            // OS error code (openat2's EXDEV, or its own resolution).
            io::ErrorKind::PermissionDenied if err.raw_os_error().is_none() => {
                error(ErrorKind::OutsideDirectory)
            }
            _ => error(ErrorKind::Io).with_detail(err.to_string()),
        })?;
        let file = file.into_std();
        let metadata =
            file.metadata().map_err(|err| error(ErrorKind::Io).with_detail(err.to_string()))?;
        if !metadata.is_file() {
            return Err(not_a_file(
                name,
                kind_of!(metadata.file_type(), std::os::unix::fs::FileTypeExt),
            ));
        }
        let id = file_id(&metadata, name);
        Ok(RootFile { file, name: name.to_owned(), size: metadata.len(), id })
    }

    /// The bytes of the regular file `name`, at most `max_bytes` of them.
    ///
    /// # Errors
    ///
    /// As [`Root::open_file`]; [`ErrorKind::EntryTooLarge`] past
    /// `max_bytes`.
    pub fn read(&self, name: &str, max_bytes: u64) -> Result<Vec<u8>, Error> {
        self.open_file(name)?.read(max_bytes)
    }

    /// Whether `name` is a regular file under the root (a safe name, inside,
    /// not a directory, FIFO, device or socket). A check, not a promise: read
    /// with [`Root::read`], which checks again on what it opens.
    pub fn is_file(&self, name: &str) -> bool {
        !is_unsafe_name(name) && self.dir.metadata(name).is_ok_and(|metadata| metadata.is_file())
    }

    /// Whether anything at all is at `name` (a file, a directory, a link,
    /// even a dangling one or one leading out), without following it.
    pub(crate) fn has_entry(&self, name: &str) -> bool {
        !is_unsafe_name(name) && self.dir.symlink_metadata(name).is_ok()
    }
}

impl PartialEq for Root {
    /// The same directory, however it was reached.
    fn eq(&self, other: &Root) -> bool {
        self.id == other.id
    }
}

impl Eq for Root {}

impl RootFile {
    /// The name it was opened by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its size when it was opened, in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Identifies the file, for a cache of files read.
    pub(crate) fn id(&self) -> &FileId {
        &self.id
    }

    /// Its bytes, at most `max_bytes` of them (counted while reading, so a
    /// file that grows after it was opened is still stopped).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::EntryTooLarge`] past `max_bytes`; [`ErrorKind::Io`] when
    /// reading fails. Each names the file.
    pub fn read(self, max_bytes: u64) -> Result<Vec<u8>, Error> {
        let name = self.name;
        if self.size > max_bytes {
            return Err(Error::new(ErrorKind::EntryTooLarge)
                .with_name(name)
                .with_detail(format!("more than the limit of {max_bytes} bytes")));
        }
        read_limited(self.file, max_bytes, ErrorKind::Io).map_err(|err| err.with_name(name))
    }

    /// The open file, to read it otherwise (streaming); it was checked to
    /// be a regular file under the root.
    pub fn into_file(self) -> File {
        self.file
    }
}

/// Read-only, non-blocking (a FIFO must not hang `open`), and never taking
/// a terminal as the controlling one.
fn read_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        use rustix::fs::OFlags;
        // Both flags fit an i32 (they are small open(2) bits).
        let flags = (OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32;
        options.custom_flags(flags);
    }
    options
}

/// [`ErrorKind::NotAFile`] for `name`, saying what it is instead.
fn not_a_file(name: &str, kind: &'static str) -> Error {
    Error::new(ErrorKind::NotAFile).with_name(name).with_detail(kind)
}

#[cfg(unix)]
fn file_id(metadata: &std::fs::Metadata, _name: &str) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId::Inode(metadata.dev(), metadata.ino())
}

#[cfg(not(unix))]
fn file_id(_metadata: &std::fs::Metadata, name: &str) -> FileId {
    FileId::Name(PathBuf::from(name))
}

#[cfg(unix)]
fn dir_id(dir: &Dir, _path: &Path) -> io::Result<FileId> {
    use cap_std::fs::MetadataExt;
    let metadata = dir.dir_metadata()?;
    Ok(FileId::Inode(metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn dir_id(_dir: &Dir, path: &Path) -> io::Result<FileId> {
    Ok(FileId::Name(path.canonicalize()?))
}
