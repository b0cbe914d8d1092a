//! The hostile-input corpus: loading its cases and running them.
//!
//! Shared by every crate's `tests/hostile.rs` (`#[path]`-included), so the
//! input builder exists once. A case file is JSON:
//!
//! ```json
//! {"cases": [{"name": "...", "input": [PIECE, ...], "options": {...}, "expect": {...}}]}
//! ```
//!
//! The input is the concatenation of its pieces, each one of
//! `{"text": "..."}`, `{"repeat": "...", "times": N}` (the text N times),
//! `{"numbered": "...{i}...", "times": N}` (the text N times, `{i}` replaced
//! by 0, 1, ... N-1: N distinct names) or `{"bytes": [0, 255, ...]}` (raw
//! bytes, for invalid UTF-8). Big inputs are thus described, never stored. `options` and `expect` mean what the
//! crate's runner says; `expect` is either `{"error": "<kind>"}` or the
//! bounded result the runner checks.

// Each crate runs only the helpers its cases need.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use serde_json::Value;

/// A generous bound on the CPU time a case may use, which only catches
/// quadratic blow-ups and spinning: the biggest cases (a million turns,
/// 100 MB of text) take a few seconds in an unoptimised build, and well
/// under a second in release (see docs/performance.md); a quadratic one
/// would take hours. CPU time, not wall time, so that a busy machine (other
/// builds sharing the cores) cannot fail a case that does its work in time.
const TIME_BOUND: Duration = Duration::from_secs(10);

/// The wall-clock bound, which catches a case that blocks (a hang uses no
/// CPU): six times the CPU bound, room for a machine shared six ways.
const WALL_BOUND: Duration = Duration::from_secs(60);

/// CPU time used so far by this thread and by the child processes waited
/// for (the CLI's corpus runs the binary), from Linux's `/proc`; `None`
/// elsewhere, where only the wall-clock bounds apply (with the CPU bound
/// checked against wall time).
fn cpu_time() -> Option<Duration> {
    // Fields after the command name (which is in parentheses and may hold
    // spaces): utime and stime are the 12th and 13th, cutime and cstime the
    // 14th and 15th, in clock ticks (USER_HZ, 100 on every Linux ABI).
    fn ticks(path: &str, fields: std::ops::Range<usize>) -> Option<u64> {
        let stat = std::fs::read_to_string(path).ok()?;
        let rest = &stat[stat.rfind(')')? + 2..];
        let values: Vec<u64> = rest.split(' ').map(|f| f.parse().unwrap_or(0)).collect();
        values.get(fields).map(|v| v.iter().sum())
    }
    const USER_HZ: u64 = 100;
    let thread = ticks("/proc/thread-self/stat", 11..13)?;
    let children = ticks("/proc/self/stat", 13..15)?;
    Some(Duration::from_millis((thread + children) * 1000 / USER_HZ))
}

/// One case of the corpus.
pub(crate) struct Case {
    pub(crate) name: String,
    pub(crate) input: Vec<u8>,
    pub(crate) options: Value,
    pub(crate) expect: Value,
}

impl Case {
    /// The input as text (the runner's cases that need text are UTF-8).
    pub(crate) fn text(&self) -> &str {
        std::str::from_utf8(&self.input).expect("this case's input is text")
    }

    /// The error kind the case expects, if it expects one.
    pub(crate) fn expected_error(&self) -> Option<&str> {
        self.expect.get("error").and_then(Value::as_str)
    }

    /// An unsigned option or expectation, by key, from `options` then `expect`.
    pub(crate) fn number(&self, key: &str) -> Option<u64> {
        self.options.get(key).or_else(|| self.expect.get(key)).and_then(Value::as_u64)
    }
}

/// Builds the input of one case from its pieces.
fn build(pieces: &[Value]) -> Vec<u8> {
    let mut input = Vec::new();
    for piece in pieces {
        if let Some(text) = piece.get("text").and_then(Value::as_str) {
            input.extend_from_slice(text.as_bytes());
        } else if let Some(text) = piece.get("repeat").and_then(Value::as_str) {
            let times = piece["times"].as_u64().expect("`repeat` needs `times`");
            input.extend_from_slice(text.repeat(times as usize).as_bytes());
        } else if let Some(text) = piece.get("numbered").and_then(Value::as_str) {
            let times = piece["times"].as_u64().expect("`numbered` needs `times`");
            for i in 0..times {
                input.extend_from_slice(text.replace("{i}", &i.to_string()).as_bytes());
            }
        } else if let Some(bytes) = piece.get("bytes").and_then(Value::as_array) {
            input.extend(bytes.iter().map(|byte| byte.as_u64().expect("a byte") as u8));
        } else {
            panic!("unknown input piece {piece}");
        }
    }
    input
}

/// The cases of a corpus file's text.
pub(crate) fn load(json: &str) -> Vec<Case> {
    let file: Value = serde_json::from_str(json).expect("the corpus file is JSON");
    let cases = file["cases"].as_array().expect("a `cases` array");
    cases
        .iter()
        .map(|case| Case {
            name: case["name"].as_str().expect("a case name").to_owned(),
            input: build(case["input"].as_array().expect("an `input` array")),
            options: case.get("options").cloned().unwrap_or(Value::Null),
            expect: case["expect"].clone(),
        })
        .collect()
}

/// Runs every case, each under the time bound, and fails once with every
/// failure listed by case name. `run` returns what went wrong, if anything.
pub(crate) fn run_all(json: &str, run: impl Fn(&Case) -> Result<(), String>) {
    let cases = load(json);
    assert!(!cases.is_empty(), "the corpus has cases");
    let mut failures = Vec::new();
    for case in &cases {
        let (start, cpu_start) = (Instant::now(), cpu_time());
        let outcome = run(case);
        let elapsed = start.elapsed();
        let cpu = match (cpu_start, cpu_time()) {
            (Some(before), Some(after)) => after.saturating_sub(before),
            _ => elapsed,
        };
        if let Err(problem) = outcome {
            failures.push(format!("{}: {problem}", case.name));
        } else if cpu > TIME_BOUND || elapsed > WALL_BOUND {
            failures.push(format!("{}: took {cpu:?} of CPU, {elapsed:?} in all", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} hostile cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// `Ok` when the error kind is the expected one, else a description.
pub(crate) fn expect_error(case: &Case, kind: Option<&str>) -> Result<(), String> {
    match (case.expected_error(), kind) {
        (Some(expected), Some(got)) if expected == got => Ok(()),
        (expected, got) => Err(format!("expected error {expected:?}, got {got:?}")),
    }
}
