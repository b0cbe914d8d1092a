//! Every flag a page shows for a `prompt-suite` command is one that
//! command has: the README's and every guide's commands, synopses and
//! headings (in `sh`, `console` and `text` blocks, and in inline code that
//! starts with `prompt-suite SUBCOMMAND`) are checked against the
//! subcommand's own `--help`, so a renamed or removed flag cannot stay in
//! the docs unseen. (`docs_run.rs` runs the commands themselves.)

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// One command a page names: the page, its line, the subcommand path
/// (`build`, `state get`) and the flags written after it.
#[derive(Debug)]
struct Named {
    page: String,
    line: usize,
    subcommand: String,
    flags: Vec<String>,
}

/// The subcommands of the binary, as its help lists them.
fn subcommands(help: &str) -> Vec<String> {
    let commands = help.split("Commands:").nth(1).unwrap_or("");
    let commands = commands.split("\n\n").next().unwrap_or("");
    commands.lines().filter_map(|line| line.split_whitespace().next()).map(str::to_owned).collect()
}

/// The `--flag` tokens of `text`.
fn flags(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let before = start.checked_sub(1).map(|b| bytes[b]);
        let mut end = start + 2;
        while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'-') {
            end += 1;
        }
        let word_start = before.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'-'));
        if word_start && end > start + 2 && bytes[start + 2].is_ascii_lowercase() {
            found.push(text[start..end].trim_end_matches('-').to_owned());
        }
        i = end;
    }
    found
}

/// The command `text` names when it starts with `prompt-suite SUB` (after
/// `$ ` or `cargo run ... --`), with the flags after it.
fn named(text: &str, known: &[String]) -> Option<(String, Vec<String>)> {
    let at = text.find("prompt-suite ")?;
    let rest = &text[at + "prompt-suite ".len()..];
    let mut words = rest.split_whitespace();
    let first = words.next()?.trim_matches('`');
    if !known.iter().any(|k| k == first) {
        return None;
    }
    let mut subcommand = first.to_owned();
    let mut rest = &rest[rest.find(first)? + first.len()..];
    if first == "state" {
        let second = rest.split_whitespace().next()?.trim_matches('`');
        subcommand = format!("state {second}");
        rest = &rest[rest.find(second)? + second.len()..];
    }
    // A shell comment is prose.
    let rest = rest.split(" #").next().unwrap_or(rest);
    Some((subcommand, flags(rest)))
}

/// The commands of one page.
fn commands(page: &str, text: &str, known: &[String]) -> Vec<Named> {
    let mut out: Vec<Named> = Vec::new();
    let mut fence: Option<String> = None;
    let mut open: Option<usize> = None;
    for (index, line) in text.lines().enumerate() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(info.split(',').next().unwrap_or("").trim().to_owned()),
            };
            open = None;
            continue;
        }
        match fence.as_deref() {
            Some("sh" | "console" | "text") => {
                // A synopsis continues on indented lines.
                if let Some(at) = open
                    && line.starts_with(' ')
                    && !line.trim().is_empty()
                {
                    out[at].flags.extend(flags(line.split(" #").next().unwrap_or(line)));
                    continue;
                }
                open = None;
                if let Some((subcommand, flags)) = named(line, known) {
                    open = Some(out.len());
                    out.push(Named { page: page.to_owned(), line: index + 1, subcommand, flags });
                }
            }
            Some(_) => {}
            None => {
                // Inline code spans of prose and headings.
                for (i, span) in line.split('`').enumerate() {
                    if i % 2 == 1
                        && span.starts_with("prompt-suite ")
                        && let Some((subcommand, flags)) = named(span, known)
                    {
                        out.push(Named {
                            page: page.to_owned(),
                            line: index + 1,
                            subcommand,
                            flags,
                        });
                    }
                }
            }
        }
    }
    out
}

fn help(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_prompt-suite"))
        .args(args)
        .arg("--help")
        .env("COLUMNS", "1000")
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?} --help failed");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn every_flag_the_docs_show_is_the_commands_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let known = subcommands(&help(&[]));
    assert!(known.iter().any(|k| k == "build"), "{known:?}");
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    let mut helps: BTreeMap<String, String> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut checked = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        for command in commands(&name, &text, &known) {
            // `state get|set|list`: any of them.
            let help = helps.entry(command.subcommand.clone()).or_insert_with(|| {
                let mut words = command.subcommand.split(' ');
                let first = words.next().unwrap_or_default();
                match words.next() {
                    Some(second) => {
                        second.split('|').map(|second| help(&[first, second])).collect()
                    }
                    None => help(&[first]),
                }
            });
            for flag in &command.flags {
                checked += 1;
                let has = flags(help).iter().any(|f| f == flag);
                if !has {
                    problems.push(format!(
                        "{}:{}: `prompt-suite {}` has no `{flag}`",
                        command.page, command.line, command.subcommand
                    ));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} flags found: the scan is broken");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn flags_and_commands_are_found_as_written() {
    assert_eq!(
        flags("a --seed N [--at N] -o x --no-sanitize."),
        ["--seed", "--at", "--no-sanitize"]
    );
    assert_eq!(flags("x--y -- --1"), Vec::<String>::new());
    let known = ["build".to_owned(), "state".to_owned()];
    assert_eq!(
        named("$ prompt-suite build p.txt --seed 1 # --nope", &known),
        Some(("build".to_owned(), vec!["--seed".to_owned()]))
    );
    assert_eq!(
        named("prompt-suite state get x --history f", &known),
        Some(("state get".to_owned(), vec!["--history".to_owned()]))
    );
    assert_eq!(named("prompt-suite turns what people write", &known), None);
}
