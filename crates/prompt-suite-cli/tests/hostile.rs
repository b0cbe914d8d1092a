//! The hostile-input corpus for the command line
//! (`tests/hostile/prompt-suite-cli.json` at the workspace root): invalid
//! UTF-8, deep JSON, broken archives, endless templates, big inputs, through
//! the real binary with `--error-format json`. Each case exits with its
//! typed error kind or a bounded output.

#[path = "../../../tests/hostile/corpus.rs"]
mod corpus;

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

use corpus::Case;

fn run(case: &Case) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let file_name = case.options.get("file_name").and_then(Value::as_str).unwrap_or("input");
    let file = dir.path().join(file_name);
    std::fs::write(&file, &case.input).unwrap();
    let args: Vec<String> = case.options["args"]
        .as_array()
        .expect("`args`")
        .iter()
        .map(|arg| arg.as_str().unwrap().replace("{file}", file.to_str().unwrap()))
        .collect();
    let uses_file = args.iter().any(|arg| arg.contains(file.to_str().unwrap()));
    let stdin = match case.options.get("stdin").and_then(Value::as_str) {
        Some(text) => text.as_bytes().to_vec(),
        None if uses_file => Vec::new(),
        None => case.input.clone(),
    };

    let mut child = Command::new(env!("CARGO_BIN_EXE_prompt-suite"))
        .args(["--error-format", "json"])
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&stdin).unwrap();
    let output = child.wait_with_output().unwrap();

    match output.status.code() {
        Some(0) => match case.expect.get("stdout_len").and_then(Value::as_u64) {
            Some(len) if len == output.stdout.len() as u64 => Ok(()),
            Some(len) => Err(format!("{} bytes out, expected {len}", output.stdout.len())),
            None => corpus::expect_error(case, None),
        },
        Some(1) => {
            let report: Value = serde_json::from_slice(&output.stderr)
                .map_err(|err| format!("stderr is not one JSON document: {err}"))?;
            corpus::expect_error(case, report["error"]["kind"].as_str())
        }
        code => Err(format!("exit code {code:?}: {}", String::from_utf8_lossy(&output.stderr))),
    }
}

#[test]
fn every_hostile_input_is_rejected_or_bounded() {
    corpus::run_all(include_str!("../../../tests/hostile/prompt-suite-cli.json"), run);
}
