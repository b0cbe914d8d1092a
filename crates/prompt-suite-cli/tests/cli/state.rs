//! `prompt-suite state`: the history file's state from the command line;
//! edits print nothing, are atomic, and lose nothing under concurrent runs.

use std::path::Path;

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

/// Runs `state ARGS --history PATH`; returns exit code, stdout, stderr.
fn state(path: &Path, args: &[&str]) -> (i32, String, String) {
    let output = cli().arg("state").args(args).arg("--history").arg(path).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (output.status.code().unwrap(), text(output.stdout), text(output.stderr))
}

fn ok(path: &Path, args: &[&str]) -> String {
    let (code, stdout, stderr) = state(path, args);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    assert_eq!(stderr, "", "{args:?}");
    stdout
}

#[test]
fn set_creates_the_history_and_get_and_list_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.json");
    // A missing history is created with one message; edits print nothing.
    assert_eq!(ok(&path, &["set", "turns", "3"]), "");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\"messages\":[{\"swipes\":[{\"turns\":3}]}]}\n"
    );
    // JSON when it is JSON, else a string; a quoted "null" is a string.
    for (value, json) in [
        ("hello world", "\"hello world\""),
        ("null", "null"),
        ("\"null\"", "\"null\""),
        ("-1.25", "-1.25"),
        ("12345678901234567", "12345678901234567"),
        ("{\"a\": [1, true]}", "{\"a\":[1,true]}"),
        ("[1,", "\"[1,\""),
    ] {
        assert_eq!(ok(&path, &["set", "v", value]), "");
        assert_eq!(ok(&path, &["get", "v"]), format!("{json}\n"), "{value}");
    }
    // A text that starts with `-` after `--`.
    let mut set = cli();
    let output = set.args(["state", "set", "--history"]).arg(&path).args(["v", "--", "-x"]);
    let output = output.output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(ok(&path, &["get", "v"]), "\"-x\"\n");
    assert_eq!(ok(&path, &["set", "v", "[1,"]), "");
    // Set in the last message, beside what it holds.
    assert_eq!(ok(&path, &["list"]), "{\"turns\":3,\"v\":\"[1,\"}\n");
    assert_eq!(ok(&path, &["list", "--at", "0"]), "{}\n");
    assert_eq!(ok(&path, &["list", "--at", "1"]), "{\"turns\":3,\"v\":\"[1,\"}\n");
}

#[test]
fn edits_follow_the_chat() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.json");
    std::fs::write(
        &path,
        r#"{"messages": [{"swipes": [{"mood": "calm"}]}, {"swipes": [{"turns": 1}, {"turns": 2}], "active": 1}, {"swipes": [{"mood": "angry"}]}]}"#,
    )
    .unwrap();
    assert_eq!(ok(&path, &["list"]), "{\"mood\":\"angry\",\"turns\":2}\n");
    assert_eq!(ok(&path, &["get", "mood", "--at", "2"]), "\"calm\"\n");
    // Select the other swipe of message 1.
    assert_eq!(ok(&path, &["select", "1", "0"]), "");
    assert_eq!(ok(&path, &["get", "turns"]), "1\n");
    // Swipe message 2: a new, empty, active swipe; its writes are gone.
    assert_eq!(ok(&path, &["swipe", "2"]), "");
    assert_eq!(ok(&path, &["get", "mood"]), "\"calm\"\n");
    assert_eq!(ok(&path, &["select", "2", "0"]), "");
    assert_eq!(ok(&path, &["get", "mood"]), "\"angry\"\n");
    // Delete message 0: its writes vanish, the others move down.
    assert_eq!(ok(&path, &["delete", "0"]), "");
    assert_eq!(ok(&path, &["list", "--at", "1"]), "{\"turns\":1}\n");
    // Truncate: roll back to the first message.
    assert_eq!(ok(&path, &["truncate", "1"]), "");
    assert_eq!(ok(&path, &["list"]), "{\"turns\":1}\n");
    assert_eq!(ok(&path, &["truncate", "5"]), "");
    assert_eq!(ok(&path, &["list"]), "{\"turns\":1}\n");
}

#[test]
fn errors_are_typed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.json");
    std::fs::write(&path, r#"{"messages": [{"swipes": [{"a": 1}]}]}"#).unwrap();
    let before = std::fs::read(&path).unwrap();
    let run = |args: &[&str]| {
        let mut command = cli();
        command.current_dir(dir.path()).arg("state").args(args).args(["--history", "h.json"]);
        command
    };
    assert_cmd_snapshot!("err_unset", run(&["get", "b"]));
    assert_cmd_snapshot!(
        "err_unset_json",
        run(&["get", "a", "--at", "0", "--error-format", "json"])
    );
    assert_cmd_snapshot!("err_message_out_of_range", run(&["swipe", "1"]));
    assert_cmd_snapshot!("err_swipe_out_of_range", run(&["select", "0", "1"]));
    assert_cmd_snapshot!("err_at_out_of_range", run(&["list", "--at", "2"]));
    assert_cmd_snapshot!("err_duplicate_key", run(&["set", "x", "{\"k\": 1, \"k\": 2}"]));
    assert_cmd_snapshot!("err_output_with_an_edit", run(&["delete", "0", "-o", "out"]));
    // Nothing was changed, and nothing left beside the file but its lock.
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".h.json.lock", "h.json"]);
    // Only `set` creates a history.
    let missing = dir.path().join("missing.json");
    let (code, _, stderr) = state(&missing, &["swipe", "0"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("error[io_error]: cannot read "), "{stderr}");
    assert!(!missing.exists());
    let (code, _, stderr) = state(&missing, &["get", "a"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("error[io_error]: cannot read "), "{stderr}");
}

/// Many `state set` at once on one file: each waits for the lock, reads
/// the last saved history and saves its own atomically, so no write is
/// lost and the file is always whole JSON.
#[test]
fn concurrent_sets_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.json");
    let children: Vec<_> = (0..12)
        .map(|i| {
            cli()
                .args(["state", "set", &format!("k{i}"), &i.to_string(), "--history"])
                .arg(&path)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // Readers meanwhile see a whole history or none yet.
    for _ in 0..20 {
        if let Ok(text) = std::fs::read_to_string(&path) {
            assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok(), "{text}");
        }
    }
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let state: serde_json::Value = serde_json::from_str(&ok(&path, &["list"])).unwrap();
    let state = state.as_object().unwrap();
    assert_eq!(state.len(), 12, "{state:?}");
    for i in 0..12 {
        assert_eq!(state[&format!("k{i}")], i, "{state:?}");
    }
    // One message: every set went to the last (the first set's) message.
    let history: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(history["messages"].as_array().unwrap().len(), 1);
}
