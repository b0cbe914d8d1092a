//! `prompt-suite segment`: narratives, bundles and embeds directories.

use std::path::Path;
use std::process::Command;

use insta_cmd::assert_cmd_snapshot;
use prompt_suite::segment::Bundle;

use crate::cli;

const LAYOUT_REVIEW: &str = include_str!("inputs/segment/layout-review.lmml");
const CODE_SAMPLE: &str = include_str!("inputs/segment/code-sample.lmml");

/// A PNG signature and a PDF header that is not UTF-8: enough to see the
/// parts they become.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
const PDF: &[u8] = b"%PDF-1.7\n\xe2\xe3\xcf\xd3\n";

/// A directory holding `capture.png` and `spec.pdf`, and a secret beside it.
fn embeds_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("embeds")).unwrap();
    std::fs::write(dir.path().join("embeds/capture.png"), PNG).unwrap();
    std::fs::write(dir.path().join("embeds/spec.pdf"), PDF).unwrap();
    std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
    dir
}

/// `prompt-suite segment --embeds-dir embeds ARGS...`, run in `dir`.
fn segment_with_embeds(dir: &Path, args: &[&str]) -> Command {
    let mut command = cli();
    command.current_dir(dir).args(["segment", "--embeds-dir", "embeds"]).args(args);
    command
}

/// Renames every entry `from` of a zip archive to `to` (of the same
/// length) in place: names are not checksummed, so this makes archives a
/// zip writer refuses to make.
fn rename_in_place(zip: &mut [u8], from: &[u8], to: &[u8]) {
    let mut i = 0;
    while let Some(at) = zip[i..].windows(from.len()).position(|w| w == from) {
        zip[i + at..i + at + from.len()].copy_from_slice(to);
        i += at + from.len();
    }
}

/// Writes `layout-review` as the bundle `review.lmmlz` in `dir`.
fn write_bundle(dir: &Path) {
    let bundle = Bundle::from_parts(
        LAYOUT_REVIEW,
        [("capture.png", PNG.to_vec()), ("spec.pdf", PDF.to_vec())],
    )
    .unwrap();
    std::fs::write(dir.join("review.lmmlz"), bundle.to_zip("review.lmmlz").unwrap()).unwrap();
}

#[test]
fn turns_of_a_narrative_without_attachments() {
    assert_cmd_snapshot!(cli().args(["segment", "--turns"]).pass_stdin(CODE_SAMPLE));
}

#[test]
fn lmml_dialect_splits_inside_the_code_sample() {
    assert_cmd_snapshot!(
        cli().args(["segment", "--turns", "--dialect", "lmml"]).pass_stdin(CODE_SAMPLE)
    );
}

#[test]
fn messages_with_an_image_and_a_pdf_from_an_embeds_directory() {
    let dir = embeds_dir();
    let args = ["--context-as", "system"];
    assert_cmd_snapshot!(segment_with_embeds(dir.path(), &args).pass_stdin(LAYOUT_REVIEW));
}

#[test]
fn max_embed_bytes_leaves_out_larger_embeds_and_drop_removes_the_context() {
    let dir = embeds_dir();
    let args = ["--max-embed-bytes", "15", "--context-as", "drop"];
    assert_cmd_snapshot!(segment_with_embeds(dir.path(), &args).pass_stdin(LAYOUT_REVIEW));
}

#[test]
fn a_lmmlz_bundle_is_read_as_a_zip() {
    let dir = tempfile::tempdir().unwrap();
    write_bundle(dir.path());
    assert_cmd_snapshot!(cli().current_dir(dir.path()).args([
        "segment",
        "review.lmmlz",
        "--turns"
    ]));
}

#[test]
fn a_reference_without_attachments_is_an_error() {
    assert_cmd_snapshot!(cli().arg("segment").pass_stdin(LAYOUT_REVIEW));
}

#[test]
fn a_reference_without_attachments_as_json() {
    assert_cmd_snapshot!(
        cli().args(["segment", "--error-format", "json"]).pass_stdin(LAYOUT_REVIEW)
    );
}

#[test]
fn a_missing_file_in_the_embeds_directory() {
    let dir = embeds_dir();
    let stdin = "## user
see @capture.png and
  @missing.png
";
    assert_cmd_snapshot!(segment_with_embeds(dir.path(), &[]).pass_stdin(stdin));
}

#[test]
fn an_embeds_directory_is_never_escaped() {
    let dir = embeds_dir();
    let args = ["--dialect", "lmml", "--error-format", "json"];
    let stdin = "## user
read @../secret.txt
";
    assert_cmd_snapshot!(segment_with_embeds(dir.path(), &args).pass_stdin(stdin));
}

#[test]
fn a_zip_slip_entry_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = Bundle::from_parts("@aa/evil.txt", [("aa/evil.txt", b"pwned".to_vec())]).unwrap();
    let mut bytes = bundle.to_zip("evil.lmmlz").unwrap();
    rename_in_place(&mut bytes, b"aa/evil.txt", b"../evil.txt");
    std::fs::write(dir.path().join("evil.lmmlz"), bytes).unwrap();
    assert_cmd_snapshot!(cli().current_dir(dir.path()).args(["segment", "evil.lmmlz"]));
}

#[test]
fn invalid_utf8_is_reported_with_its_offset() {
    assert_cmd_snapshot!(cli().arg("segment").pass_stdin(&b"## user\nhello \xff world\n"[..]));
}

/// A bundle on standard input is told by its zip signature and read as the
/// same file would be; its narrative is its one top-level `.lmml` entry.
#[test]
fn a_bundle_on_standard_input_is_read() {
    let dir = tempfile::tempdir().unwrap();
    write_bundle(dir.path());
    let bytes = std::fs::read(dir.path().join("review.lmmlz")).unwrap();
    for args in [&["segment"][..], &["segment", "--turns"]] {
        let from_file = cli().current_dir(dir.path()).args(args).arg("review.lmmlz").output();
        let from_file = from_file.unwrap();
        assert!(from_file.status.success());
        for stdin in [&[][..], &["-"]] {
            let from_stdin = crate::output_with_stdin(cli().args(args).args(stdin), bytes.clone());
            let stderr = String::from_utf8_lossy(&from_stdin.stderr);
            assert!(from_stdin.status.success(), "{stderr}");
            assert_eq!(from_stdin.stdout, from_file.stdout);
        }
    }
    // `build` too.
    let from_file = cli()
        .current_dir(dir.path())
        .args(["build", "review.lmmlz", "--messages", "--seed", "0"])
        .output()
        .unwrap();
    assert!(from_file.status.success(), "{}", String::from_utf8_lossy(&from_file.stderr));
    let from_stdin =
        crate::output_with_stdin(cli().args(["build", "--messages", "--seed", "0"]), bytes);
    assert_eq!(from_stdin.stdout, from_file.stdout);
}

/// Without a file name, a bundle with two top-level narratives (or none)
/// cannot be read: which one is meant is not guessed.
#[test]
fn a_bundle_on_standard_input_needs_one_narrative() {
    let bundle = Bundle::from_parts("hi", [("other.lmml", b"ho".to_vec())]).unwrap();
    assert_cmd_snapshot!(
        cli()
            .args(["segment", "--error-format", "json"])
            .pass_stdin(bundle.to_zip("x.lmmlz").unwrap())
    );
}

#[test]
fn help() {
    assert_cmd_snapshot!(cli().args(["segment", "--help"]));
}

#[test]
fn a_text_file_named_lmmlz_is_not_a_bundle() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.lmmlz"), LAYOUT_REVIEW).unwrap();
    assert_cmd_snapshot!(cli().current_dir(dir.path()).args(["segment", "notes.lmmlz"]));
}

#[test]
fn a_reference_missing_from_a_bundle_points_into_its_narrative_entry() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = Bundle::from_parts(LAYOUT_REVIEW, [("capture.png", PNG.to_vec())]).unwrap();
    std::fs::write(dir.path().join("review.lmmlz"), bundle.to_zip("review.lmmlz").unwrap())
        .unwrap();
    assert_cmd_snapshot!(cli().current_dir(dir.path()).args(["segment", "review.lmmlz"]));
}

#[test]
fn a_bundle_with_two_entries_of_one_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = Bundle::from_parts(
        LAYOUT_REVIEW,
        [("capture.png", PNG.to_vec()), ("captur2.png", b"another".to_vec())],
    )
    .unwrap();
    let mut bytes = bundle.to_zip("review.lmmlz").unwrap();
    rename_in_place(&mut bytes, b"captur2.png", b"capture.png");
    std::fs::write(dir.path().join("review.lmmlz"), bytes).unwrap();
    assert_cmd_snapshot!(cli().current_dir(dir.path()).args(["segment", "review.lmmlz"]));
}

#[cfg(unix)]
#[test]
fn links_out_of_the_embeds_directory_and_fifos_are_refused() {
    let dir = embeds_dir();
    std::os::unix::fs::symlink("../secret.txt", dir.path().join("embeds/notes.txt")).unwrap();
    let fifo = dir.path().join("embeds/pipe.txt");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    for name in ["notes.txt", "pipe.txt"] {
        std::fs::write(dir.path().join("story.lmml"), format!("## user\nread @{name}\n")).unwrap();
        let output = segment_with_embeds(dir.path(), &["--error-format", "json", "story.lmml"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{name}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        let kind = if name == "pipe.txt" { "not_a_file" } else { "outside_directory" };
        assert!(stderr.contains(&format!("\"kind\":\"{kind}\"")), "{name}: {stderr}");
    }
}

#[test]
fn a_byte_order_mark_is_ignored_in_the_standard_dialect() {
    assert_cmd_snapshot!(
        cli().args(["segment", "--turns"]).pass_stdin(&b"\xef\xbb\xbf## user\nhi\n"[..])
    );
}

const CHATGPT_EXPORT: &str = include_str!("inputs/segment/chatgpt-export.md");

#[test]
fn a_chatgpt_export_with_role_aliases() {
    assert_cmd_snapshot!(
        cli()
            .args(["segment", "--context-as", "drop"])
            .args(["--role-alias", "You=user", "--role-alias", "ChatGPT=assistant"])
            .pass_stdin(CHATGPT_EXPORT)
    );
}

#[test]
fn without_aliases_a_chatgpt_export_is_one_context_turn() {
    assert_cmd_snapshot!(cli().args(["segment", "--turns"]).pass_stdin(CHATGPT_EXPORT));
}

#[test]
fn a_malformed_or_conflicting_role_alias_is_a_usage_error() {
    assert_cmd_snapshot!(cli().args(["segment", "--role-alias", "You"]).pass_stdin(""));
    assert_cmd_snapshot!(cli().args(["segment", "--role-alias", "user=assistant"]).pass_stdin(""));
    assert_cmd_snapshot!(
        cli()
            .args(["segment", "--role-alias", "You=user", "--role-alias", "you=tool"])
            .pass_stdin("")
    );
    assert_cmd_snapshot!(
        cli().args(["segment", "--dialect", "lmml", "--role-alias", "You=user"]).pass_stdin("")
    );
}

/// An alias nothing would read is refused, never ignored: `build` and
/// `batch` with `--no-segment` open no turns (regression: the alias was
/// accepted and the delimiter stayed text, exit 0).
#[test]
fn a_role_alias_without_segmentation_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.txt");
    std::fs::write(&file, "/// param: model=m\n## You\nHi\n").unwrap();
    let file = file.to_str().unwrap();
    let alias = ["--provider", "openai", "--role-alias", "You=user"];
    let runs: [&[&str]; 2] = [&["build", file], &["batch", file, "--rows", "-"]];
    for run in runs {
        let command = run[0];
        let output =
            crate::output_with_stdin(cli().args(run).arg("--no-segment").args(alias), "{}\n");
        assert_eq!(output.status.code(), Some(2), "{command}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains("`--no-segment` opens none"), "{command}: {stderr}");
        assert!(output.stdout.is_empty(), "{command}");
    }
    // With segmentation the same alias opens the user's turn.
    let output =
        crate::output_with_stdin(cli().args(["batch", file, "--rows", "-"]).args(alias), "{}\n");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains(r#""role":"user","content":"Hi""#));
}

#[test]
fn a_claude_export_with_one_role_alias() {
    assert_cmd_snapshot!(
        cli()
            .args(["segment", "--context-as", "drop", "--role-alias", "Claude=assistant"])
            .pass_stdin(include_str!("inputs/segment/claude-session.md"))
    );
}
