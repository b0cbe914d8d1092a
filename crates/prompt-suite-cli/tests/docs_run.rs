//! The shell blocks of the README and of every guide in `docs/` run against
//! the built binary, so a command a page shows cannot stop working unseen.
//!
//! A block is a fenced `sh` or `console` block. In a `console` block (or any
//! block whose commands start with `$ `), each `$ ` line is a command and the
//! lines up to the next one are what it prints: standard output, then
//! standard error, compared exactly, except that `...` stands for any text.
//! A command whose shown output starts with `error` must exit 1; every other
//! one must exit 0. In an `sh` block without `$ `, every line is a command
//! (a trailing `\` continues it; `#` starts a comment) and must exit 0.
//!
//! Commands run with `sh -c`, with the binary first on `PATH`, in a fresh
//! directory holding a copy of `tests/docs-fixtures/<page>/` (the files the
//! page names). `cargo run -q -p prompt-suite-cli --` is the binary itself;
//! `cat FILE` runs too (a page showing a fixture shows it as it is).
//! Commands that are not the binary's (`cargo test`, `cargo install`,
//! `cargo xtask`, `cd fuzz`, `python3`, `npm`, `node`, ...) are not run here: each block
//! line must be one or the other, or the test fails.
//!
//! `docs` and `README.md` beside this file are symlinks to the workspace's,
//! stored whole by `cargo package`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One command of a page and what the page says it prints (`None`: not shown).
#[derive(Debug)]
struct Shown {
    page: String,
    line: usize,
    command: String,
    output: Option<String>,
}

/// The shell blocks' commands of `text`, the page `page`.
fn commands(page: &str, text: &str) -> Vec<Shown> {
    let mut shown = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```") else { continue };
        let lang = info.split(',').next().unwrap_or("").trim();
        let mut body = Vec::new();
        for (index, line) in lines.by_ref() {
            if line.starts_with("```") {
                break;
            }
            body.push((index + 1, line));
        }
        if lang != "sh" && lang != "console" {
            continue;
        }
        let transcript = body.iter().any(|(_, line)| line.starts_with("$ "));
        let _ = index;
        if transcript {
            for (line, text) in &body {
                if let Some(command) = text.strip_prefix("$ ") {
                    shown.push(Shown {
                        page: page.to_owned(),
                        line: *line,
                        command: command.to_owned(),
                        output: Some(String::new()),
                    });
                } else if let Some(last) = shown.last_mut() {
                    let output = last.output.get_or_insert_with(String::new);
                    output.push_str(text);
                    output.push('\n');
                }
            }
        } else {
            let mut pending: Option<(usize, String)> = None;
            for (line, text) in &body {
                let text = text.trim_end();
                let (start, mut command) = pending.take().unwrap_or((*line, String::new()));
                if command.is_empty() && (text.is_empty() || text.starts_with('#')) {
                    continue;
                }
                match text.strip_suffix('\\') {
                    Some(head) => {
                        command.push_str(head);
                        pending = Some((start, command));
                    }
                    None => {
                        command.push_str(text);
                        shown.push(Shown {
                            page: page.to_owned(),
                            line: start,
                            command,
                            output: None,
                        });
                    }
                }
            }
        }
    }
    shown
}

/// The command as this test runs it, or `None` for one that is not the
/// binary's (the tools around it: cargo, the fuzzer, the seed script).
fn runnable(command: &str) -> Option<String> {
    let command = command.trim();
    if let Some(rest) = command.strip_prefix("cargo run -q -p prompt-suite-cli --") {
        return Some(format!("prompt-suite{rest}"));
    }
    let program = command.split_whitespace().next().unwrap_or("");
    // `cat FILE` shows a fixture the page then uses: run, so the page shows
    // the file as it is.
    if command.contains("prompt-suite ") || program == "prompt-suite" || program == "cat" {
        return Some(command.to_owned());
    }
    let tool = ["cargo", "cd", "python3", "npm", "node"].contains(&program)
        || program.starts_with("RUSTC_BOOTSTRAP=");
    assert!(tool, "a shell block runs neither the binary nor a known tool: {command}");
    None
}

/// Whether `actual` is `expected` with each `...` standing for any text.
fn matches(expected: &str, actual: &str) -> bool {
    let mut pieces = expected.split("...");
    let first = pieces.next().unwrap_or("");
    let Some(mut rest) = actual.strip_prefix(first) else { return false };
    let pieces: Vec<&str> = pieces.collect();
    for (index, piece) in pieces.iter().enumerate() {
        if index + 1 == pieces.len() {
            return rest.ends_with(piece);
        }
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Copies the directory `from` into `to`, following symlinks.
fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if std::fs::metadata(&source).unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&source, &target);
        } else {
            std::fs::copy(&source, &target).unwrap();
        }
    }
}

fn pages() -> Vec<(String, PathBuf)> {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut pages = vec![("README".to_owned(), tests.join("README.md"))];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(tests.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    for path in docs {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        pages.push((stem, path));
    }
    pages
}

#[test]
fn every_shell_block_runs_as_shown() {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_prompt-suite"));
    let path = std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_owned())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/docs-fixtures");
    let mut failures = Vec::new();
    let mut ran = 0;
    for (page, file) in pages() {
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = commands(&page, &text);
        if shown.is_empty() {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        if fixtures.join(&page).is_dir() {
            copy_tree(&fixtures.join(&page), dir.path());
        }
        for shown in shown {
            let Some(command) = runnable(&shown.command) else { continue };
            ran += 1;
            let output = Command::new("sh")
                .arg("-c")
                .arg(&command)
                .current_dir(dir.path())
                .env("PATH", &path)
                .env("COLUMNS", "100")
                .env_remove("RUST_BACKTRACE")
                .output()
                .unwrap();
            let printed = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            let expected_code = match &shown.output {
                Some(text) if text.starts_with("error") => 1,
                _ => 0,
            };
            let code_ok = output.status.code() == Some(expected_code);
            let output_ok = shown.output.as_ref().is_none_or(|text| matches(text, &printed));
            if !code_ok || !output_ok {
                failures.push(format!(
                    "{}.md:{}: `{}` exited {:?} (the page expects {expected_code}) and printed:\n{printed}{}",
                    shown.page,
                    shown.line,
                    shown.command,
                    output.status.code(),
                    match &shown.output {
                        Some(text) if !output_ok => format!("the page shows:\n{text}"),
                        _ => String::new(),
                    }
                ));
            }
        }
    }
    assert!(ran > 0, "no shell block ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ellipses_stand_for_any_text() {
    assert!(matches("a...c\n", "abbbc\n"));
    assert!(matches("exact\n", "exact\n"));
    assert!(!matches("exact\n", "exact\nmore\n"));
    assert!(!matches("a...c", "ab"));
    assert!(matches("...", "anything"));
}
