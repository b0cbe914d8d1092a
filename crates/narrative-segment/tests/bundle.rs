//! `.lmmlz` bundles built in the test: reading, entry-name safety (zip-slip
//! attempts), limits (zip bombs), and directories that must not be escaped.

use std::io::{Cursor, Write};

use narrative_segment::{AttachmentLimits, Attachments, Bundle, Dialect, ErrorKind, Narrative};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// A zip archive of `entries`, deflated.
fn archive(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for (name, bytes) in entries {
        writer.start_file(*name, options).unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

fn error_kind(
    file_name: &str,
    bytes: &[u8],
    limits: &AttachmentLimits,
) -> (ErrorKind, Option<String>) {
    let err = Bundle::from_bytes(file_name, bytes, limits).unwrap_err();
    (err.kind(), err.name().map(str::to_owned))
}

#[test]
fn a_bundle_resolves_references_from_its_entries() {
    let bytes = archive(&[
        ("convo.lmml", b"## user\nLook: @pic.png and @docs/spec.txt\n## assistant\nOK\n"),
        ("pic.png", b"\x89PNG"),
        ("docs/spec.txt", b"spec"),
    ]);
    let bundle =
        Bundle::from_bytes("some/dir/convo.lmmlz", &bytes, &AttachmentLimits::default()).unwrap();
    let (text, attachments) = bundle.into_parts();
    let mut entries: Vec<&str> = attachments.entry_names().unwrap().collect();
    entries.sort_unstable();
    assert_eq!(entries, ["docs/spec.txt", "pic.png"]);
    let resolved = Narrative::parse(text, Dialect::Lmml).resolve(&attachments).unwrap();
    let turns = resolved.segment();
    assert_eq!(turns[0].embeds, ["pic.png", "docs/spec.txt"]);
    assert_eq!(resolved.embed("docs/spec.txt").unwrap().content.as_bytes(), b"spec");
}

#[test]
fn bare_text_is_a_bundle_without_attachments() {
    let bundle =
        Bundle::from_bytes("a.lmml", b"## user\nhi", &AttachmentLimits::default()).unwrap();
    assert_eq!(bundle.text(), "## user\nhi");
    assert!(bundle.attachments().is_none());
    let err = Bundle::from_bytes("a.lmml", b"ok\n\xc3", &AttachmentLimits::default()).unwrap_err();
    assert_eq!((err.kind(), err.offset(), err.line()), (ErrorKind::InvalidUtf8, Some(3), Some(2)));
}

#[test]
fn zip_slip_attempts_are_refused_before_anything_is_read() {
    for evil in ["../escape.txt", "a/../../escape.txt", "/etc/passwd", "dir\\file.txt", ".."] {
        let bytes = archive(&[("x.lmml", b"@a.txt"), (evil, b"pwned")]);
        assert_eq!(
            error_kind("x.lmmlz", &bytes, &AttachmentLimits::default()),
            (ErrorKind::UnsafeEntry, Some(evil.to_owned())),
            "{evil:?}"
        );
    }
}

#[test]
fn a_narrative_entry_that_is_not_utf8_is_placed_in_it() {
    let bytes = archive(&[("x.lmml", b"## user\nhi \xe9t\xe9\n")]);
    let err = Bundle::from_bytes("x.lmmlz", &bytes, &AttachmentLimits::default()).unwrap_err();
    assert_eq!(
        (err.kind(), err.name(), err.offset(), err.line(), err.column()),
        (ErrorKind::InvalidUtf8, Some("x.lmml"), Some(11), Some(2), Some(4))
    );
}

#[test]
fn a_missing_narrative_entry_is_named() {
    let bytes = archive(&[("other.lmml", b"hi")]);
    assert_eq!(
        error_kind("convo.lmmlz", &bytes, &AttachmentLimits::default()),
        (ErrorKind::MissingNarrativeEntry, Some("convo.lmml".to_owned()))
    );
}

#[test]
fn limits_hold_against_zip_bombs() {
    // Two MiB of zeros deflate to a few KiB.
    let zeros = vec![0u8; 2 << 20];
    let bomb = archive(&[("x.lmml", b"@z.bin"), ("z.bin", &zeros)]);
    assert!(bomb.len() < 64 << 10);
    let per_entry = AttachmentLimits::new().with_max_entry_bytes(1 << 20);
    assert_eq!(
        error_kind("x.lmmlz", &bomb, &per_entry),
        (ErrorKind::EntryTooLarge, Some("z.bin".to_owned()))
    );

    let many = archive(&[("x.lmml", b""), ("a", b"1"), ("b", b"2")]);
    let few = AttachmentLimits::new().with_max_entries(2);
    assert_eq!(error_kind("x.lmmlz", &many, &few).0, ErrorKind::TooManyEntries);

    let total = AttachmentLimits::new().with_max_total_bytes((3 << 20) - 1);
    let two = archive(&[("x.lmml", b""), ("a", &zeros[..3 << 19]), ("b", &zeros[..3 << 19])]);
    assert_eq!(error_kind("x.lmmlz", &two, &total).0, ErrorKind::BundleTooLarge);
}

#[test]
fn a_header_that_lies_about_the_size_does_not_get_past_the_limit() {
    let zeros = vec![0u8; 2 << 20];
    let mut bomb = archive(&[("x.lmml", b""), ("z.bin", &zeros)]);
    // Rewrite the uncompressed size of every local and central header to 1.
    let local = b"PK\x03\x04";
    let central = b"PK\x01\x02";
    let positions: Vec<(usize, usize)> = (0..bomb.len() - 4)
        .filter_map(|i| {
            if &bomb[i..i + 4] == local {
                Some((i, 22))
            } else if &bomb[i..i + 4] == central {
                Some((i, 24))
            } else {
                None
            }
        })
        .collect();
    for (start, field) in positions {
        bomb[start + field..start + field + 4].copy_from_slice(&1u32.to_le_bytes());
    }
    let limits = AttachmentLimits::new().with_max_entry_bytes(1 << 20);
    let err = Bundle::from_bytes("x.lmmlz", &bomb, &limits).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::EntryTooLarge | ErrorKind::InvalidArchive), "{err}");
}

#[test]
fn garbage_after_the_magic_is_an_invalid_archive() {
    let (kind, _) =
        error_kind("x.lmmlz", b"PK\x03\x04 not really a zip", &AttachmentLimits::default());
    assert_eq!(kind, ErrorKind::InvalidArchive);
}

#[test]
fn directories_are_never_escaped() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("embeds");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("a.txt"), "A").unwrap();
    std::fs::write(root.join("sub/b.txt"), "B").unwrap();
    std::fs::write(outer.path().join("secret.txt"), "secret").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outer.path().join("secret.txt"), root.join("link.txt")).unwrap();
        std::os::unix::fs::symlink("a.txt", root.join("inside.txt")).unwrap();
        std::os::unix::fs::symlink("../a.txt", root.join("sub/up.txt")).unwrap();
        // Absolute links are refused even when they point inside.
        std::os::unix::fs::symlink(root.join("a.txt"), root.join("absolute.txt")).unwrap();
    }
    let attachments = Attachments::directory(&root, AttachmentLimits::default()).unwrap();
    assert_eq!(attachments.fetch("a.txt").unwrap().as_bytes(), b"A");
    assert_eq!(attachments.fetch("sub/b.txt").unwrap().as_bytes(), b"B");
    let kind = |name: &str| attachments.fetch(name).unwrap_err().kind();
    assert_eq!(kind("../secret.txt"), ErrorKind::UnsafeEntry);
    assert_eq!(kind("sub/../../secret.txt"), ErrorKind::UnsafeEntry);
    assert_eq!(
        kind(&outer.path().join("secret.txt").display().to_string()),
        ErrorKind::UnsafeEntry
    );
    assert_eq!(kind("nope.txt"), ErrorKind::MissingEntry);
    assert_eq!(kind("sub"), ErrorKind::NotAFile);
    assert_eq!(kind("a.txt/x"), ErrorKind::MissingEntry);
    #[cfg(unix)]
    {
        assert_eq!(kind("link.txt"), ErrorKind::OutsideDirectory);
        assert_eq!(kind("absolute.txt"), ErrorKind::OutsideDirectory);
        assert_eq!(attachments.fetch("inside.txt").unwrap().as_bytes(), b"A");
        assert_eq!(attachments.fetch("sub/up.txt").unwrap().as_bytes(), b"A");
    }
    let small =
        Attachments::directory(&root, AttachmentLimits::new().with_max_total_bytes(1)).unwrap();
    let err = Narrative::parse("@a.txt @sub/b.txt", Dialect::Lmml).resolve(&small).unwrap_err();
    assert_eq!((err.kind(), err.column()), (ErrorKind::BundleTooLarge, Some(8)));
    let err = Attachments::directory(outer.path().join("missing"), AttachmentLimits::default())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
}
