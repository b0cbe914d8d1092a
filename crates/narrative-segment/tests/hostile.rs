//! The hostile-input corpus (`tests/hostile/narrative-segment.json` at the
//! workspace root): 100 MB lines, a million turns or references, invalid
//! UTF-8, values forging turns, references and code, directories holding
//! FIFOs and links out, and `.lmmlz` bundles that are zip bombs (honest or
//! lying about their sizes), zip-slip names, duplicate names, too many
//! entries or broken archives. Each case ends in its typed error or bounded
//! result.

// `tests/hostile/` holds symlinks to the workspace corpus (one copy, edited
// there); `cargo package` stores their contents, so the package is whole.
#[path = "hostile/corpus.rs"]
mod corpus;

use std::io::{Cursor, Write};

use std::ops::Range;

use narrative_segment::{
    AttachmentLimits, Attachments, Bundle, Dialect, Narrative, RenderOptions, render,
};
use serde_json::Value;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use corpus::Case;

/// The bytes of one entry spec: `repeat` `times` times (as Latin-1 bytes
/// when `latin1` is set, to make invalid UTF-8).
fn entry_bytes(entry: &Value) -> Vec<u8> {
    let text = entry["repeat"].as_str().expect("`repeat`");
    let times = entry["times"].as_u64().expect("`times`") as usize;
    let once: Vec<u8> = if entry.get("latin1").is_some() {
        text.chars().map(|c| c as u8).collect()
    } else {
        text.as_bytes().to_vec()
    };
    once.repeat(times)
}

/// The `.lmmlz` archive a case describes.
fn build_zip(options: &Value) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    let mut lies = Vec::new();
    for entry in options["entries"].as_array().expect("`entries`") {
        let method = if entry.get("stored").is_some() {
            CompressionMethod::Stored
        } else {
            CompressionMethod::Deflated
        };
        let bytes = entry_bytes(entry);
        if entry.get("lie_size").is_some() {
            lies.push(bytes.len() as u32);
        }
        let name = entry["name"].as_str().expect("a `name`");
        writer.start_file(name, SimpleFileOptions::default().compression_method(method)).unwrap();
        writer.write_all(&bytes).unwrap();
    }
    for index in 0..options.get("many_empty_entries").and_then(Value::as_u64).unwrap_or(0) {
        writer.start_file(format!("empty{index}.txt"), SimpleFileOptions::default()).unwrap();
    }
    let mut zip = writer.finish().unwrap().into_inner();
    // Two entries of one name, which zip writers refuse to make: the names
    // are rewritten in place (they are not checksummed).
    if let Some([from, to]) = options.get("rename").and_then(Value::as_array).map(Vec::as_slice) {
        let (from, to) = (from.as_str().unwrap().as_bytes(), to.as_str().unwrap().as_bytes());
        let mut at = 0;
        while let Some(i) = memchr::memmem::find(&zip[at..], from) {
            zip[at + i..at + i + from.len()].copy_from_slice(to);
            at += i + from.len();
        }
    }
    // A bomb that lies: every header's uncompressed size becomes 1 byte.
    for size in lies {
        patch_sizes(&mut zip, size, 1);
    }
    if let Some(keep) = options.get("truncate").and_then(Value::as_u64) {
        zip.truncate(keep as usize);
    }
    zip
}

/// Rewrites the uncompressed size `from` to `to` in local (offset 22) and
/// central (offset 24) headers.
fn patch_sizes(zip: &mut [u8], from: u32, to: u32) {
    let headers = [(b"PK\x03\x04", 22), (b"PK\x01\x02", 24)];
    for start in 0..zip.len().saturating_sub(30) {
        for (signature, offset) in headers {
            let field = start + offset;
            if zip[start..].starts_with(signature) && zip[field..field + 4] == from.to_le_bytes() {
                zip[field..field + 4].copy_from_slice(&to.to_le_bytes());
            }
        }
    }
}

fn limits(options: &Value) -> AttachmentLimits {
    let mut limits = AttachmentLimits::default();
    let get = |key: &str| options["limits"].get(key).and_then(Value::as_u64);
    if let Some(n) = get("max_entries") {
        limits.max_entries = n as usize;
    }
    if let Some(n) = get("max_entry_bytes") {
        limits.max_entry_bytes = n;
    }
    if let Some(n) = get("max_total_bytes") {
        limits.max_total_bytes = n;
    }
    limits
}

fn run_bundle(case: &Case) -> Result<(), String> {
    let zip = build_zip(&case.options);
    match Bundle::from_bytes("story.lmmlz", &zip, &limits(&case.options)) {
        Err(err) => corpus::expect_error(case, Some(err.kind().as_str())),
        Ok(bundle) => {
            let count = bundle.attachments().entry_names().map_or(0, Iterator::count) as u64;
            match case.expect.get("attachments").and_then(Value::as_u64) {
                Some(want) if want == count => Ok(()),
                Some(want) => Err(format!("{count} attachments, expected {want}")),
                None => corpus::expect_error(case, None),
            }
        }
    }
}

/// The data ranges `options.data` names: every occurrence of each of its
/// strings in the input, left to right, is one value.
fn data_ranges(case: &Case) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    for value in case.options.get("data").and_then(Value::as_array).into_iter().flatten() {
        let value = value.as_str().expect("a data string").as_bytes();
        ranges.extend(
            memchr::memmem::find_iter(&case.input, value).map(|start| start..start + value.len()),
        );
    }
    ranges
}

/// The directory `options.dir` describes, as `root/` in a temporary
/// directory beside `secret.txt`: `{name, kind}` with kind `file` (with
/// `text`), `dir`, `fifo` or `link` (with `target`).
fn build_dir(spec: &[Value]) -> tempfile::TempDir {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(outer.path().join("secret.txt"), "the secret").unwrap();
    for entry in spec {
        let path = root.join(entry["name"].as_str().expect("a `name`"));
        match entry["kind"].as_str().expect("a `kind`") {
            "file" => std::fs::write(&path, entry["text"].as_str().unwrap_or("")).unwrap(),
            "dir" => std::fs::create_dir(&path).unwrap(),
            #[cfg(unix)]
            "fifo" => rustix::fs::mknodat(
                rustix::fs::CWD,
                &path,
                rustix::fs::FileType::Fifo,
                rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
                0,
            )
            .unwrap(),
            #[cfg(unix)]
            "link" => {
                std::os::unix::fs::symlink(entry["target"].as_str().expect("a `target`"), &path)
                    .unwrap();
            }
            other => panic!("unknown entry kind {other}"),
        }
    }
    outer
}

fn run_narrative(case: &Case, dialect: Dialect) -> Result<(), String> {
    let dir = case.options.get("dir").and_then(Value::as_array).map(|spec| build_dir(spec));
    let attachments = match &dir {
        Some(dir) => {
            Attachments::directory(dir.path().join("root"), AttachmentLimits::default()).unwrap()
        }
        None => Attachments::from_entries([("a.png", b"\x89PNG".to_vec())]).unwrap(),
    };
    let data = data_ranges(case);
    let narrative = String::from_utf8(case.input.clone())
        .map(|text| Narrative::parse_with_data(text, dialect, &data))
        .map_err(|err| Narrative::from_utf8(err.into_bytes(), dialect).unwrap_err());
    if let Ok(narrative) = &narrative {
        // The one attachment is unused by most cases: not a problem here.
        let problems = narrative.validate(&attachments);
        let first = problems
            .iter()
            .map(|problem| problem.kind().as_str())
            .find(|kind| *kind != "orphaned_entry");
        let want = case.expect.get("problem").and_then(Value::as_str);
        if want != first {
            return Err(format!(
                "{dialect:?}: validate reports {first:?} first, expected {want:?}"
            ));
        }
    }
    let resolved = narrative.and_then(|narrative| narrative.resolve(&attachments));
    let resolved = match resolved {
        Ok(resolved) => resolved,
        Err(err) => return corpus::expect_error(case, Some(err.kind().as_str())),
    };
    let turns = resolved.segment();
    let max_embed_bytes = case.options.get("max_embed_bytes").and_then(Value::as_u64);
    let options = RenderOptions::new().with_max_embed_bytes(max_embed_bytes);
    let rendered = render(&resolved, &turns, &options);
    if rendered.messages.len() > turns.len() {
        return Err(format!("{} messages from {} turns", rendered.messages.len(), turns.len()));
    }
    let counts = [("embeds", resolved.embeds().len()), ("warnings", rendered.warnings.len())];
    for (key, count) in counts {
        match case.expect.get(key).and_then(Value::as_u64) {
            Some(want) if want != count as u64 => {
                return Err(format!("{dialect:?}: {count} {key}, expected {want}"));
            }
            _ => {}
        }
    }
    if let Some(want) = case.expect.get("roles").and_then(Value::as_array) {
        let roles: Vec<&str> = turns.iter().map(|turn| turn.role.as_str()).collect();
        let want: Vec<&str> = want.iter().filter_map(Value::as_str).collect();
        if roles != want {
            return Err(format!("{dialect:?}: roles {roles:?}, expected {want:?}"));
        }
    }
    match case.expect.get("turns").and_then(Value::as_u64) {
        Some(want) if want == turns.len() as u64 => Ok(()),
        Some(want) => Err(format!("{dialect:?}: {} turns, expected {want}", turns.len())),
        None => corpus::expect_error(case, None),
    }
}

fn run(case: &Case) -> Result<(), String> {
    if case.options.get("entries").is_some() {
        return run_bundle(case);
    }
    let dialects = match case.options.get("dialect").and_then(Value::as_str) {
        Some("standard") => vec![Dialect::Standard],
        Some("lmml") => vec![Dialect::Lmml],
        _ => vec![Dialect::Standard, Dialect::Lmml],
    };
    dialects.into_iter().try_for_each(|dialect| run_narrative(case, dialect))
}

#[test]
fn every_hostile_narrative_and_bundle_is_stopped_or_bounded() {
    corpus::run_all(include_str!("hostile/narrative-segment.json"), run);
}
