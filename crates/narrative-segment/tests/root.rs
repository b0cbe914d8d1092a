//! `Root`, the one safe opener, and the directory attachments built on it:
//! every kind of file a directory can hold, and a swapper racing the
//! reads (the attack that leaked `/etc/passwd` and hung on a FIFO when
//! files were checked by path, then opened by path again).

#![cfg(unix)]

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use narrative_segment::{AttachmentLimits, Attachments, ErrorKind, Root};
use rustix::fs::{CWD, FileType, Mode};

const SECRET: &[u8] = b"root:x:0:0:the secret outside";

/// A FIFO at `path`.
fn mkfifo(path: &Path) {
    rustix::fs::mknodat(CWD, path, FileType::Fifo, Mode::RUSR | Mode::WUSR, 0).expect("mkfifo");
}

/// `outer/secret.txt` and the root `outer/root` holding one of each kind.
fn zoo() -> tempfile::TempDir {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(outer.path().join("secret.txt"), SECRET).unwrap();
    std::fs::write(root.join("a.txt"), "A").unwrap();
    std::fs::write(root.join("sub/b.txt"), "B").unwrap();
    mkfifo(&root.join("fifo"));
    let link = |target: &str, name: &str| std::os::unix::fs::symlink(target, root.join(name));
    link("../secret.txt", "out.txt").unwrap();
    link("/dev/zero", "zero").unwrap();
    link("missing.txt", "dangling.txt").unwrap();
    link("sub/b.txt", "in.txt").unwrap();
    link("../a.txt", "sub/up.txt").unwrap();
    link("sub", "subdir").unwrap();
    link("fifo", "to-fifo").unwrap();
    link(&outer.path().join("secret.txt").display().to_string(), "absolute.txt").unwrap();
    std::os::unix::net::UnixListener::bind(root.join("socket")).unwrap();
    outer
}

#[test]
fn every_kind_of_file_is_read_or_refused_without_blocking() {
    let outer = zoo();
    let root = Root::open(outer.path().join("root")).unwrap();
    let read = |name: &str| root.read(name, 1 << 20);
    assert_eq!(read("a.txt").unwrap(), b"A");
    // Links that stay inside are followed, also up and back down.
    assert_eq!(read("in.txt").unwrap(), b"B");
    assert_eq!(read("sub/up.txt").unwrap(), b"A");
    assert_eq!(read("subdir/b.txt").unwrap(), b"B");
    let kind = |name: &str| read(name).unwrap_err().kind();
    for (name, expected) in [
        ("fifo", ErrorKind::NotAFile),
        ("to-fifo", ErrorKind::NotAFile),
        ("sub", ErrorKind::NotAFile),
        ("subdir", ErrorKind::NotAFile),
        ("socket", ErrorKind::NotAFile),
        ("out.txt", ErrorKind::OutsideDirectory),
        ("zero", ErrorKind::OutsideDirectory),
        ("absolute.txt", ErrorKind::OutsideDirectory),
        ("dangling.txt", ErrorKind::MissingEntry),
        ("missing.txt", ErrorKind::MissingEntry),
        ("a.txt/x", ErrorKind::MissingEntry),
        ("../secret.txt", ErrorKind::UnsafeEntry),
        ("/etc/passwd", ErrorKind::UnsafeEntry),
    ] {
        assert_eq!(kind(name), expected, "{name}");
        assert!(!root.is_file(name), "{name}");
    }
    let err = read("fifo").unwrap_err();
    assert_eq!(
        (err.name(), err.to_string()),
        (Some("fifo"), "`fifo` is not a regular file: a FIFO".to_owned())
    );
    assert_eq!(read("socket").unwrap_err().message(), "`socket` is not a regular file: a socket");
    // The byte cap holds whatever size the file claims.
    assert_eq!(root.read("a.txt", 0).unwrap_err().kind(), ErrorKind::EntryTooLarge);
    let file = root.open_file("sub/b.txt").unwrap();
    assert_eq!((file.name(), file.size()), ("sub/b.txt", 1));
    // Opening a FIFO (or anything else) as the root fails without blocking.
    assert_eq!(Root::open(outer.path().join("root/fifo")).unwrap_err().kind(), ErrorKind::Io);
    assert_eq!(Root::open(outer.path().join("root/a.txt")).unwrap_err().kind(), ErrorKind::Io);
}

#[test]
fn a_device_inside_the_root_is_never_opened() {
    let outer = tempfile::tempdir().unwrap();
    let zero = outer.path().join("zero");
    // Only a privileged process can make a device node; others skip this.
    let made = rustix::fs::mknodat(
        CWD,
        &zero,
        FileType::CharacterDevice,
        Mode::RUSR | Mode::WUSR,
        rustix::fs::makedev(1, 5),
    );
    if made.is_err() {
        return;
    }
    let root = Root::open(outer.path()).unwrap();
    let err = root.read("zero", 1 << 20).unwrap_err();
    assert_eq!(
        (err.kind(), err.message()),
        (ErrorKind::NotAFile, "`zero` is not a regular file: a device".to_owned())
    );
}

/// Reads `target` through `read` until `done`, checking each outcome:
/// never the secret, only the refusals the swapped-in kinds deserve.
/// Returns how many reads succeeded and how many were refused.
fn reader(
    done: Arc<AtomicBool>,
    read: impl Fn() -> Result<Vec<u8>, narrative_segment::Error>,
) -> (usize, usize) {
    let (mut read_ok, mut refused) = (0, 0);
    while !done.load(Ordering::Relaxed) {
        match read() {
            Ok(bytes) => {
                assert_ne!(bytes, SECRET, "the secret outside the root leaked");
                assert_eq!(bytes, b"inside");
                read_ok += 1;
            }
            Err(err) => {
                let kind = err.kind();
                assert!(
                    matches!(kind, ErrorKind::OutsideDirectory | ErrorKind::NotAFile),
                    "unexpected {kind:?}: {err}"
                );
                refused += 1;
            }
        }
    }
    (read_ok, refused)
}

#[test]
fn a_swapper_racing_the_reads_never_leaks_and_never_hangs() {
    const CYCLES: usize = 1200; // three swaps each: a file, a link out, a FIFO
    let outer = tempfile::tempdir().unwrap();
    let root_path = outer.path().join("root");
    std::fs::create_dir(&root_path).unwrap();
    std::fs::write(outer.path().join("secret.txt"), SECRET).unwrap();
    let target = root_path.join("target.txt");
    std::fs::write(&target, "inside").unwrap();

    let done = Arc::new(AtomicBool::new(false));
    let root = Arc::new(Root::open(&root_path).unwrap());
    let attachments = Attachments::directory(&root_path, AttachmentLimits::default()).unwrap();
    let (report, results) = mpsc::channel();
    for through_attachments in [false, true] {
        let (done, report) = (done.clone(), report.clone());
        let (root, attachments) = (root.clone(), attachments.clone());
        std::thread::spawn(move || {
            let outcome = if through_attachments {
                reader(done, || attachments.fetch("target.txt").map(|data| data.to_vec()))
            } else {
                reader(done, || root.read("target.txt", 1024))
            };
            report.send(outcome).unwrap();
        });
    }
    drop(report);

    let staged = root_path.join("staged");
    for _ in 0..CYCLES {
        // Each swap is an atomic rename over the target.
        std::fs::write(&staged, "inside").unwrap();
        std::fs::rename(&staged, &target).unwrap();
        std::os::unix::fs::symlink("../secret.txt", &staged).unwrap();
        std::fs::rename(&staged, &target).unwrap();
        mkfifo(&staged);
        std::fs::rename(&staged, &target).unwrap();
    }
    done.store(true, Ordering::Relaxed);

    // The hang bound: a read blocked on a FIFO would never report.
    let mut totals = (0, 0);
    for _ in 0..2 {
        match results.recv_timeout(Duration::from_secs(10)) {
            Ok((read_ok, refused)) => {
                totals.0 += read_ok;
                totals.1 += refused;
            }
            Err(err) => panic!("a reader hung or failed: {err}"),
        }
    }
    assert!(totals.0 + totals.1 > 0, "the readers ran");
}
