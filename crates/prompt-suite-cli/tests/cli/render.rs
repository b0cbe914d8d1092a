//! `prompt-suite render`: text, `--json`, `--samples`, `--strict`, and
//! errors in both `--error-format` renderings.

use insta_cmd::assert_cmd_snapshot;

use crate::{cli, output_with_stdin};

const INPUTS: &str = "tests/cli/inputs/render";

fn render() -> std::process::Command {
    let mut command = cli();
    command.arg("render");
    command
}

fn input(name: &str) -> String {
    format!("{INPUTS}/{name}")
}

#[test]
fn prints_the_output_exactly() {
    // No trailing newline is added: the template has none after `]]`.
    assert_cmd_snapshot!(render().arg("--seed").arg("1").pass_stdin("Hi [[ 1 + 2 ]]"));
}

/// The greeting preset with its context and seed 7.
fn greeting() -> std::process::Command {
    let mut command = render();
    command
        .arg(input("greeting.txt"))
        .arg("--context")
        .arg(input("context.json"))
        .args(["--seed", "7"]);
    command
}

#[test]
fn preset_with_context_and_seed() {
    assert_cmd_snapshot!(greeting());
}

#[test]
fn json_has_stores_writes_and_effects() {
    assert_cmd_snapshot!(greeting().arg("--json"));
}

#[test]
fn samples_count_outputs_most_frequent_first() {
    assert_cmd_snapshot!(render().arg(input("chance.txt")).arg("--samples").arg("1000"));
}

#[test]
fn samples_start_at_the_seed() {
    assert_cmd_snapshot!(render().arg(input("chance.txt")).args([
        "--samples",
        "10",
        "--seed",
        "5"
    ]));
}

#[test]
fn the_same_seed_gives_the_same_output() {
    let run = || {
        render().arg(input("chance.txt")).args(["--seed", "123", "--json"]).output().unwrap().stdout
    };
    assert_eq!(run(), run());
}

#[test]
fn strict_mode_rejects_undefined() {
    assert_cmd_snapshot!(render().arg("--strict").pass_stdin("a [[ missing ]] b"));
}

#[test]
fn lenient_mode_prints_undefined_as_nothing() {
    assert_cmd_snapshot!(render().pass_stdin("a [[ missing.deeper ]] b"));
}

#[test]
fn unknown_filter_human() {
    assert_cmd_snapshot!(render().arg(input("err_unknown_filter.txt")));
}

#[test]
fn unknown_filter_json() {
    assert_cmd_snapshot!(
        render().arg(input("err_unknown_filter.txt")).args(["--error-format", "json"])
    );
}

#[test]
fn runtime_error_human() {
    assert_cmd_snapshot!(render().pass_stdin("total: [[ count + 1 ]]"));
}

#[test]
fn runtime_error_json() {
    assert_cmd_snapshot!(render().args(["--error-format", "json"]).pass_stdin("[[ 1 // 0 ]]"));
}

#[test]
fn unclosed_block_points_at_the_opener() {
    assert_cmd_snapshot!(
        render().args(["--error-format", "json"]).pass_stdin("x\n[% chance 0.5 %]A")
    );
}

#[test]
fn bad_context_json_is_reported_with_its_position() {
    assert_cmd_snapshot!(render().arg("--context").arg(input("bad_context.json")).pass_stdin("x"));
}

/// A context with `state`, `local` or `global` beside other keys is an
/// error on the first other key, with a help showing both shapes, in both
/// error formats.
#[test]
fn mixed_context_is_rejected() {
    for format in ["human", "json"] {
        assert_cmd_snapshot!(
            format!("mixed_context_is_rejected_{format}"),
            render()
                .arg("--context")
                .arg(input("mixed_context.json"))
                .args(["--error-format", format])
                .pass_stdin("x")
        );
    }
}

/// A context with none of `state`, `local` and `global` at its top level
/// is the state store itself.
#[test]
fn flat_context_is_the_state_store() {
    assert_cmd_snapshot!(
        render()
            .arg("--context")
            .arg(input("flat_context.json"))
            .pass_stdin("[[ name ]] is [[ mood ]].")
    );
}

#[test]
fn json_and_samples_conflict() {
    assert_cmd_snapshot!(render().args(["--json", "--samples", "3"]).pass_stdin("x"));
}

#[test]
fn jinja_whitespace_modes() {
    let template = "<ul>\n  [% for x in [1, 2] %]\n  <li>[[ x ]]</li>\n  [% endfor %]\n</ul>\n";
    assert_cmd_snapshot!(render().args(["--trim-blocks", "--lstrip-blocks"]).pass_stdin(template));
}

#[test]
fn help() {
    assert_cmd_snapshot!(render().arg("--help"));
}

#[test]
fn exact_sequential_chance() {
    assert_cmd_snapshot!(render().arg(input("chance.txt")).arg("--exact"));
}

#[test]
fn exact_normalised_weights() {
    assert_cmd_snapshot!(render().arg(input("weighted.txt")).arg("--exact"));
}

#[test]
fn exact_beyond_the_cap_suggests_samples() {
    let many = "[% for i in range(20) %][% chance 0.5 %]x[% endchance %][% endfor %]";
    assert_cmd_snapshot!(render().arg("--exact").pass_stdin(many));
}

#[test]
fn exact_cap_is_adjustable_json_error() {
    assert_cmd_snapshot!(render().arg(input("chance.txt")).args([
        "--exact",
        "--max-paths",
        "2",
        "--error-format",
        "json"
    ]));
}

#[test]
fn exact_and_seed_conflict() {
    assert_cmd_snapshot!(render().args(["--exact", "--seed", "1"]).pass_stdin("x"));
}

/// A scratch directory holding `turns.txt`; commands run inside it so the
/// snapshots name relative paths.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(input("turns.txt"), dir.path().join("turns.txt")).unwrap();
    dir
}

fn in_dir(dir: &tempfile::TempDir, args: &[&str]) -> std::process::Command {
    let mut command = render();
    command.current_dir(dir.path()).arg("turns.txt").args(args);
    command
}

fn run(dir: &tempfile::TempDir, args: &[&str]) -> String {
    let out = in_dir(dir, args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn history_file(dir: &tempfile::TempDir) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.path().join("h.json")).unwrap()).unwrap()
}

#[test]
fn history_regenerate_rule_end_to_end() {
    let dir = scratch();
    let commit = ["--history", "h.json", "--commit", "--seed", "1"];
    // Three messages: the file is created by the first commit.
    for expected in ["turn 1", "turn 2", "turn 3"] {
        assert_eq!(run(&dir, &commit), expected);
    }
    // Regenerate message 1 ten times with different seeds: always turn 2.
    for seed in 0..10 {
        let seed = seed.to_string();
        let out = run(&dir, &["--history", "h.json", "--at", "1", "--commit", "--seed", &seed]);
        assert_eq!(out, "turn 2");
    }
    let history = history_file(&dir);
    let middle = &history["messages"][1];
    assert_eq!(middle["swipes"].as_array().unwrap().len(), 11);
    assert_eq!(middle["active"], 10);
    assert!(middle["swipes"].as_array().unwrap().iter().all(|s| s["turns"] == 2));
    // The next message still sees message 2's count, never a drifted one.
    assert_eq!(run(&dir, &["--history", "h.json", "--seed", "1"]), "turn 4");
    // Without --commit the file is untouched.
    assert_eq!(history_file(&dir), history);
    // No temporary file is left behind; the lock file stays for the next
    // commit.
    let mut names: Vec<_> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names, [".h.json.lock", "h.json", "turns.txt"]);
}

#[test]
fn history_json_output_shows_the_state_it_read() {
    let dir = scratch();
    run(&dir, &["--history", "h.json", "--commit", "--seed", "3"]);
    assert_cmd_snapshot!(in_dir(&dir, &["--history", "h.json", "--json", "--seed", "3"]));
}

#[test]
fn history_at_past_the_end_is_an_error() {
    let dir = scratch();
    run(&dir, &["--history", "h.json", "--commit", "--seed", "3"]);
    assert_cmd_snapshot!(in_dir(&dir, &["--history", "h.json", "--at", "5", "--commit"]));
}

#[test]
fn history_missing_without_commit_is_an_io_error() {
    let dir = scratch();
    let out = in_dir(&dir, &["--history", "h.json", "--error-format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let error: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(error["error"]["kind"], "io_error");
}

#[test]
fn malformed_history_human() {
    let dir = scratch();
    std::fs::write(
        dir.path().join("h.json"),
        "{\"messages\": [\n  {\"swipes\": [{}], \"active\": 3}\n]}\n",
    )
    .unwrap();
    assert_cmd_snapshot!(in_dir(&dir, &["--history", "h.json", "--commit"]));
    // A failed commit leaves the file as it was.
    let text = std::fs::read_to_string(dir.path().join("h.json")).unwrap();
    assert!(text.contains("\"active\": 3"));
}

#[test]
fn malformed_history_json() {
    let dir = scratch();
    std::fs::write(dir.path().join("h.json"), "{\"messages\": [{\"swipes\": [{}]},]}").unwrap();
    assert_cmd_snapshot!(in_dir(&dir, &["--history", "h.json", "--error-format", "json"]));
}

#[test]
fn commit_needs_history() {
    assert_cmd_snapshot!(render().arg("--commit").pass_stdin("x"));
}

/// Every `--context` (render, check, build) is read strictly: a byte
/// order mark is ignored; a repeated key and an integer beyond 64 bits are
/// `invalid_json` at their position, with a message that names no other.
#[test]
fn contexts_are_strict_json_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let template = write("t.txt", "## user\n[[ role ]]\n");
    let bom = write("bom.json", "\u{feff}{\"state\": {\"role\": \"user\"}}");
    let duplicate = write("dup.json", "{\"state\": {\"role\": \"user\",\n  \"role\": \"system\"}}");
    let big = write("big.json", "{\"state\": {\"n\": 9223372036854775808}}");
    let commands: [&[&str]; 3] = [
        &["render", &template],
        &["check", &template],
        &["build", &template, "--param", "model=gpt-5.4"],
    ];
    for command in commands {
        let run = |context: &str| {
            cli().args(command).args(["--context", context, "--error-format", "json"]).output()
        };
        let out = run(&bom).unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{command:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for (context, line, column, message) in [
            (&duplicate, 2, 3, "duplicate key `role` in an object".to_owned()),
            (&big, 1, 17, "the integer 9223372036854775808 is outside the 64-bit signed range (-9223372036854775808 to 9223372036854775807)".to_owned()),
        ] {
            let out = run(context).unwrap();
            assert_eq!(out.status.code(), Some(1), "{command:?}");
            let error: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
            let error = &error["error"];
            assert_eq!(error["kind"], "invalid_json", "{command:?}: {error}");
            assert_eq!((error["line"].as_u64(), error["column"].as_u64()), (Some(line), Some(column)));
            assert_eq!(error["message"], message.as_str());
        }
    }
}

#[test]
fn duplicate_context_key_human() {
    assert_cmd_snapshot!(
        render().arg("--context").arg(input("duplicate_key_context.json")).pass_stdin("x")
    );
}

/// Forty `render --history F --commit` at once: each records its message
/// (the lock serialises them, so message i counts turn i + 1), or fails
/// with `history_locked`; none is lost silently.
#[test]
fn concurrent_commits_each_record_their_message() {
    use std::process::Stdio;

    let dir = scratch();
    let children: Vec<_> = (0..40)
        .map(|seed| {
            let seed = seed.to_string();
            in_dir(&dir, &["--history", "h.json", "--commit", "--seed", &seed])
                .arg("--error-format")
                .arg("json")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut locked = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        if out.status.code() == Some(0) {
            continue;
        }
        let error: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(error["error"]["kind"], "history_locked", "{error}");
        locked += 1;
    }
    let history = history_file(&dir);
    let messages = history["messages"].as_array().unwrap();
    assert_eq!(messages.len() + locked, 40);
    for (i, message) in messages.iter().enumerate() {
        assert_eq!(message["swipes"][0]["turns"], i + 1, "{history}");
    }
}

/// The error object of a run that must fail with `--error-format json`.
fn error_of(command: &mut std::process::Command, stdin: &str) -> serde_json::Value {
    let out = output_with_stdin(command.args(["--error-format", "json"]), stdin);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    serde_json::from_slice::<serde_json::Value>(&out.stderr).unwrap()["error"].clone()
}

/// What `--json` prints counts against the output limit (16 MiB): a 6 MB
/// output is printed three times there (the text, the write, the state).
#[test]
fn json_output_counts_against_the_output_limit() {
    let template = "[% set s = \"x\" * 6000000 %][[ s ]]";
    let error = error_of(render().arg("--json"), template);
    assert_eq!(error["kind"], "output_limit", "{error}");
    assert_eq!(
        error["message"],
        "`render --json` would print more than 16777216 bytes, the template's output limit"
    );
    // Within the limit it is printed whole.
    let out = output_with_stdin(
        render().args(["--json", "--seed", "1"]),
        "[% set s = \"x\" * 5000000 %][[ s ]]",
    );
    assert!(out.status.success());
    // Three copies of the string and 127 bytes of keys, brackets and seed.
    assert_eq!(
        out.stdout.len(),
        15_000_000 + 127,
        "{}",
        String::from_utf8_lossy(&out.stdout[..80])
    );
}

/// What `--samples` prints counts too: two distinct 9 MB outputs are more
/// than the limit, and sampling stops as soon as that is certain.
#[test]
fn samples_count_against_the_output_limit() {
    let template = "[% chance 0.5 %]a[% else %]b[% endchance %][[ \"x\" * 9000000 ]]";
    let error = error_of(render().args(["--samples", "200"]), template);
    assert_eq!(error["kind"], "output_limit", "{error}");
    assert_eq!(
        error["message"],
        "`render --samples` would print more than 16777216 bytes, the template's output limit"
    );
    let error = error_of(render().args(["--exact"]), template);
    assert_eq!(error["kind"], "output_limit", "{error}");
}

/// Outputs seen equally often are printed in the order they first
/// appeared, that is by the first seed that rendered them.
#[test]
fn samples_ties_keep_first_seen_order() {
    let template = "[% weighted %][% choice 1 %]a[% endchoice %][% choice 1 %]b[% endchoice %]\
                    [% choice 1 %]c[% endchoice %][% choice 1 %]d[% endchoice %][% endweighted %]\
                    [% weighted %][% choice 1 %]1[% endchoice %][% choice 1 %]2[% endchoice %]\
                    [% choice 1 %]3[% endchoice %][% endweighted %]";
    let seeds = 6;
    let mut first_seen: Vec<String> = Vec::new();
    let mut counts = std::collections::HashMap::new();
    for seed in 40..40 + seeds {
        let out = output_with_stdin(render().args(["--seed", &seed.to_string()]), template);
        let text = String::from_utf8(out.stdout).unwrap();
        *counts.entry(text.clone()).or_insert(0) += 1;
        if !first_seen.contains(&text) {
            first_seen.push(text);
        }
    }
    let mut expected = first_seen.clone();
    expected.sort_by_key(|text| std::cmp::Reverse(counts[text]));
    let out = output_with_stdin(
        render().args(["--samples", &seeds.to_string(), "--seed", "40"]),
        template,
    );
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let order: Vec<&String> = printed["outputs"].as_object().unwrap().keys().collect();
    assert_eq!(order, expected.iter().collect::<Vec<_>>());
    assert!(counts.values().any(|&n| n == 1) && first_seen.len() > 2, "{counts:?}");
}

/// A bare `[[name]]` that reads an undefined name is a warning, once per
/// name; `[[ user ]]` (spaces) is taken as meant; `--strict` errors.
#[test]
fn an_undefined_bare_tag_is_a_warning() {
    let template = input("wiki_links.txt");
    let context = input("wiki_context.json");
    let args = [template.as_str(), "--seed", "1", "--context", &context];
    assert_cmd_snapshot!("undefined_bare_tag_render", render().args(args));
    assert_cmd_snapshot!("undefined_bare_tag_render_json", render().args(args).arg("--json"));
    assert_cmd_snapshot!("undefined_bare_tag_render_strict", render().args(args).arg("--strict"));
}

/// `render --json` reports the seed it rendered with: the one given, or
/// the one drawn (below 2^53), which replays the render.
#[test]
fn json_reports_the_seed() {
    let template = "[% chance 0.5 %]a[% endchance %][% chance 0.5 %]b[% endchance %]\
                    [% chance 0.5 %]c[% endchance %][% chance 0.5 %]d[% endchance %]";
    let json = |args: &[&str]| -> serde_json::Value {
        let out = output_with_stdin(render().arg("--json").args(args), template);
        assert!(out.status.success());
        serde_json::from_slice(&out.stdout).unwrap()
    };
    assert_eq!(json(&["--seed", "18446744073709551615"])["seed"], u64::MAX);
    for _ in 0..3 {
        let drawn = json(&[]);
        let seed = drawn["seed"].as_u64().unwrap();
        assert!(seed < 1 << 53, "{seed}");
        assert_eq!(json(&["--seed", &seed.to_string()])["output"], drawn["output"]);
    }
}
