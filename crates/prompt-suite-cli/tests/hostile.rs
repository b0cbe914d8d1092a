//! The hostile-input corpus for the command line
//! (`tests/hostile/prompt-suite-cli.json` at the workspace root): invalid
//! UTF-8, deep JSON, broken archives, endless templates, big inputs and the
//! memory attacks, through the real binary with `--error-format json`. Each
//! case exits with its typed error kind or a bounded output, never by a
//! signal.
//!
//! A case with `max_rss_mib` also bounds the child's peak resident memory.
//! It runs through a probe: this test binary started again as the
//! [`rss_probe`] test with [`PROBE`] set, which runs the command line as its
//! only child and, once it is reaped, reads `getrusage(RUSAGE_CHILDREN)`:
//! the kernel's own peak RSS of exactly that child, however briefly it
//! peaked (`nix`'s safe wrapper; the workspace forbids `unsafe`). Meanwhile
//! it polls `/proc/<pid>/status` and kills the child as soon as its
//! high-water mark passes the bound, so a case that would take 10 GB costs
//! the machine only the bound.
//!
//! Case options (beside `args`, with `{file}` the input's temporary file and
//! `{dir}` its directory): `file_name`; `stdin` (text, when the input goes to
//! `{file}`); `stdin_times` (the input streamed that many times to standard
//! input, never built whole: 5 000 rows of 1 MB); `files` (`{"name": text}`
//! written into `{dir}`); `max_rss_mib`; `pending` (the branch whose fix the
//! case waits for: it runs in [`memory_cases_waiting_for_other_branches`]).
//! `human` (errors for people instead of JSON: then no control character
//! but a line break may reach standard error or output); `symlinks`
//! (`{"name": "target"}` made in `{dir}`, `{dir}` replaced in the target),
//! `fifos` (names of FIFOs made in `{dir}`), `in_dir` (the command runs in
//! `{dir}`), `signal` (a signal name, `USR1`: sent once a `.tmp` file shows
//! in `{dir}`, standard input held open until the command is gone).
//! Expectations: `error` (a kind, or a list of acceptable kinds; exit 1),
//! `stdout_len` (exit 0), `stdout_lines` (either), `usage` (exit 2),
//! `signal` (ended by that signal), `dir_files` (the names in `{dir}`
//! afterwards, sorted, besides the input and the runner's own files), and
//! with `human`, `stderr_contains` and `stdout_contains` (texts that must be
//! there).

// Peak RSS is read from Linux's /proc and getrusage.
#![cfg(target_os = "linux")]

// `tests/hostile/` holds symlinks to the workspace corpus (one copy, edited
// there); `cargo package` stores their contents, so the package is whole.
#[path = "hostile/corpus.rs"]
mod corpus;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use corpus::Case;

const CORPUS: &str = include_str!("hostile/prompt-suite-cli.json");

/// Set in the probe's environment: the [`Spec`] of the child to run.
const PROBE: &str = "PROMPT_SUITE_RSS_PROBE";

/// How long any child may run before it is killed: far beyond the corpus's
/// own time bound, only so that a hang cannot hang the test.
const DEADLINE: Duration = Duration::from_secs(60);

/// The deadline of a case that waits for another branch: it fails today
/// (too much memory, too slowly), and must fail within the corpus's bound.
const PENDING_DEADLINE: Duration = Duration::from_secs(5);

/// How often the child's memory is looked at.
const POLL: Duration = Duration::from_millis(5);

/// One run of the command line, as the probe receives it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Spec {
    /// The arguments after `--error-format json`.
    args: Vec<String>,
    /// A file streamed to standard input `stdin_times` times.
    stdin: Option<String>,
    stdin_times: u64,
    /// Kill the child once its peak RSS passes this many bytes.
    kill_above: Option<u64>,
    deadline_ms: u64,
    /// Where the probe writes its [`Report`].
    report: Option<String>,
    /// Errors for people (`--error-format human`) instead of JSON.
    #[serde(default)]
    human: bool,
    /// The directory to run in.
    #[serde(default)]
    cwd: Option<String>,
    /// A signal to send once a `.tmp` file shows in `watch`.
    #[serde(default)]
    signal: Option<String>,
    #[serde(default)]
    watch: Option<String>,
}

/// How the run went.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Report {
    code: Option<i32>,
    signal: Option<i32>,
    stdout_len: u64,
    stdout_lines: u64,
    /// The first 64 KiB of standard error.
    stderr: String,
    /// The first 64 KiB of standard output.
    #[serde(default)]
    stdout: String,
    /// The child's peak RSS in bytes, when measured.
    peak_rss: Option<u64>,
    /// Why the harness killed the child, if it did.
    killed: Option<String>,
}

/// Runs the command line as `spec` says, in this process.
fn run_child(spec: &Spec) -> Report {
    let mut command = Command::new(env!("CARGO_BIN_EXE_prompt-suite"));
    if let Some(dir) = &spec.cwd {
        command.current_dir(dir);
    }
    let mut child = command
        .args(["--error-format", if spec.human { "human" } else { "json" }])
        .args(&spec.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = spec.stdin.as_ref().map(|path| std::fs::read(path).unwrap()).unwrap_or_default();
    let times = spec.stdin_times;
    let mut stdin = child.stdin.take().unwrap();
    // With a signal to send, standard input stays open until the child is
    // gone: an end of input would let it finish first.
    let hold = spec.signal.is_some();
    let writer = std::thread::spawn(move || {
        for _ in 0..times {
            // A child that stops reading (it failed, or was killed) is an
            // answer, not a harness error.
            if stdin.write_all(&input).is_err() {
                break;
            }
        }
        hold.then_some(stdin)
    });
    if let (Some(name), Some(dir)) = (&spec.signal, &spec.watch) {
        send_when_a_temporary_file_shows(&child, name, Path::new(dir), spec.deadline_ms);
    }
    let mut stdout = child.stdout.take().unwrap();
    let counter = std::thread::spawn(move || {
        let (mut len, mut lines, mut kept) = (0u64, 0u64, Vec::new());
        let mut buf = vec![0; 64 << 10];
        while let Ok(n @ 1..) = stdout.read(&mut buf) {
            len += n as u64;
            lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
            kept.extend_from_slice(&buf[..n.min((64 << 10) - kept.len().min(64 << 10))]);
        }
        (len, lines, String::from_utf8_lossy(&kept).into_owned())
    });
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let _ = stderr.by_ref().take(64 << 10).read_to_end(&mut kept);
        // Drain the rest so the child never blocks on a full pipe.
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        String::from_utf8_lossy(&kept).into_owned()
    });

    let started = Instant::now();
    let deadline = Duration::from_millis(spec.deadline_ms);
    let mut killed = None;
    let status: ExitStatus = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if killed.is_none() {
            let peak = peak_rss_so_far(child.id());
            if let Some(limit) = spec.kill_above.filter(|&limit| peak > limit) {
                killed = Some(format!(
                    "killed at a peak RSS of {} MiB (over {} MiB)",
                    peak >> 20,
                    limit >> 20
                ));
            } else if started.elapsed() > deadline {
                killed = Some(format!("killed after {deadline:?}"));
            }
            if killed.is_some() {
                // Our own child, by its handle.
                let _ = child.kill();
            }
        }
        std::thread::sleep(POLL);
    };
    drop(writer.join().unwrap());
    let (stdout_len, stdout_lines, stdout) = counter.join().unwrap();
    let stderr = errors.join().unwrap();
    use std::os::unix::process::ExitStatusExt;
    Report {
        code: status.code(),
        signal: status.signal(),
        stdout_len,
        stdout_lines,
        stderr,
        stdout,
        peak_rss: None,
        killed,
    }
}

/// Sends the signal `name` (`USR1`, `SIGUSR1`) to `child` once a file whose
/// name ends in `.tmp` shows in `dir` (the temporary file of `-o`), or at
/// the deadline.
fn send_when_a_temporary_file_shows(
    child: &std::process::Child,
    name: &str,
    dir: &Path,
    deadline_ms: u64,
) {
    use nix::sys::signal::{Signal, kill};
    let signal: Signal = format!("SIG{}", name.trim_start_matches("SIG")).parse().unwrap();
    let started = Instant::now();
    let shows = || {
        std::fs::read_dir(dir)
            .unwrap()
            .any(|entry| entry.unwrap().file_name().to_string_lossy().ends_with(".tmp"))
    };
    while !shows() && started.elapsed() < Duration::from_millis(deadline_ms) {
        std::thread::sleep(POLL);
    }
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    // Our own child, by its id.
    let _ = kill(pid, signal);
}

/// The names in `dir`, sorted, but `skip`.
fn names_in(dir: &Path, skip: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !skip.contains(&name.as_str()))
        .collect();
    names.sort();
    names
}

/// The high-water mark of `pid`'s resident memory so far, in bytes (0 once
/// it has exited).
fn peak_rss_so_far(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb << 10)
}

/// Runs `spec` in a probe process and returns its report with the child's
/// exact peak RSS.
fn measure(spec: &Spec, dir: &Path) -> Report {
    let report = dir.join("probe-report.json");
    let spec = Spec { report: Some(report.to_str().unwrap().to_owned()), ..spec.clone() };
    let probe = Command::new(std::env::current_exe().unwrap())
        .args(["rss_probe", "--exact", "--nocapture", "--test-threads", "1"])
        .env(PROBE, serde_json::to_string(&spec).unwrap())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(probe.status.success(), "the probe failed: {}", String::from_utf8_lossy(&probe.stderr));
    serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap()
}

/// The probe's side: the child is this process's only one, so
/// `RUSAGE_CHILDREN` is exactly its peak RSS.
fn serve(spec: &str) {
    let spec: Spec = serde_json::from_str(spec).unwrap();
    let mut report = run_child(&spec);
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    // Linux counts it in KiB.
    report.peak_rss = Some(u64::try_from(usage.max_rss()).unwrap_or(0) << 10);
    std::fs::write(spec.report.unwrap(), serde_json::to_vec(&report).unwrap()).unwrap();
}

/// The probe's entry point; run as a test without [`PROBE`], it checks the
/// probe itself: it sees what a child allocates, and little else.
#[test]
fn rss_probe() {
    if let Ok(spec) = std::env::var(PROBE) {
        return serve(&spec);
    }
    let dir = tempfile::tempdir().unwrap();
    let spec = |args: &[&str], stdin: Option<&str>| Spec {
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        stdin: stdin.map(|text| {
            let path = dir.path().join("stdin");
            std::fs::write(&path, text).unwrap();
            path.to_str().unwrap().to_owned()
        }),
        stdin_times: 1,
        kill_above: Some(1 << 30),
        deadline_ms: DEADLINE.as_millis() as u64,
        report: None,
        human: false,
        cwd: None,
        signal: None,
        watch: None,
    };
    let small = measure(&spec(&["--version"], None), dir.path());
    assert_eq!(small.code, Some(0), "{small:?}");
    let small_peak = small.peak_rss.unwrap();
    assert!(small_peak > 0 && small_peak < 64 << 20, "{small:?}");
    // A 16 MB output is held at least once.
    let big = measure(&spec(&["render"], Some("[[ \"x\" * 16000000 ]]")), dir.path());
    assert_eq!((big.code, big.stdout_len), (Some(0), 16_000_000), "{big:?}");
    assert!(big.peak_rss.unwrap() > 16_000_000, "{big:?}");
    // Past the bound, the child is killed.
    let over =
        Spec { kill_above: Some(8 << 20), ..spec(&["render"], Some("[[ \"x\" * 16000000 ]]")) };
    let over = measure(&over, dir.path());
    assert!(over.killed.is_some() || over.peak_rss.unwrap() > 8 << 20, "{over:?}");
}

/// Runs one case and says what went wrong, if anything.
fn check(case: &Case, deadline: Duration) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let file_name = case.options.get("file_name").and_then(Value::as_str).unwrap_or("input");
    let file = dir.path().join(file_name);
    std::fs::write(&file, &case.input).unwrap();
    let (file, dir_name) = (file.to_str().unwrap(), dir.path().to_str().unwrap());
    if let Some(files) = case.options.get("files").and_then(Value::as_object) {
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text.as_str().expect("file text")).unwrap();
        }
    }
    if let Some(links) = case.options.get("symlinks").and_then(Value::as_object) {
        for (name, target) in links {
            let target = target.as_str().expect("link target").replace("{dir}", dir_name);
            std::os::unix::fs::symlink(target, dir.path().join(name)).unwrap();
        }
    }
    for name in case.options.get("fifos").and_then(Value::as_array).into_iter().flatten() {
        let fifo = dir.path().join(name.as_str().expect("fifo name"));
        assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo");
    }
    let args: Vec<String> = case.options["args"]
        .as_array()
        .expect("`args`")
        .iter()
        .map(|arg| arg.as_str().unwrap().replace("{file}", file).replace("{dir}", dir_name))
        .collect();
    let uses_file = args.iter().any(|arg| arg.contains(file));
    let stdin_path = dir.path().join("stdin");
    match case.options.get("stdin").and_then(Value::as_str) {
        Some(text) => std::fs::write(&stdin_path, text).unwrap(),
        None if uses_file => std::fs::write(&stdin_path, "").unwrap(),
        None => std::fs::write(&stdin_path, &case.input).unwrap(),
    }
    let max_rss = case.number("max_rss_mib").map(|mib| mib << 20);
    let spec = Spec {
        args,
        stdin: Some(stdin_path.to_str().unwrap().to_owned()),
        stdin_times: case.number("stdin_times").unwrap_or(1),
        kill_above: max_rss,
        deadline_ms: deadline.as_millis() as u64,
        report: None,
        human: case.options.get("human").and_then(Value::as_bool).unwrap_or(false),
        cwd: case
            .options
            .get("in_dir")
            .and_then(Value::as_bool)
            .unwrap_or(false)
            .then(|| dir_name.to_owned()),
        signal: case.options.get("signal").and_then(Value::as_str).map(str::to_owned),
        watch: Some(dir_name.to_owned()),
    };
    let report = match max_rss {
        Some(_) => measure(&spec, dir.path()),
        None => run_child(&spec),
    };
    if let Some(peak) = report.peak_rss {
        // The figures, for `--nocapture`.
        eprintln!("{}: peak RSS {} MiB", case.name, peak >> 20);
    }
    judge(case, &report, max_rss)?;
    if let Some(expected) = case.expect.get("dir_files").and_then(Value::as_array) {
        let expected: Vec<&str> = expected.iter().filter_map(Value::as_str).collect();
        let found = names_in(dir.path(), &[file_name, "stdin", "probe-report.json"]);
        if found != expected {
            return Err(format!("{{dir}} holds {found:?}, expected {expected:?}"));
        }
    }
    Ok(())
}

/// Whether `report` is what `case` expects.
fn judge(case: &Case, report: &Report, max_rss: Option<u64>) -> Result<(), String> {
    let peak = report.peak_rss.map_or(String::new(), |p| format!(" (peak RSS {} MiB)", p >> 20));
    if let Some(killed) = &report.killed {
        return Err(format!("{killed}{peak}"));
    }
    if let Some(name) = case.expect.get("signal").and_then(Value::as_str) {
        let expected: nix::sys::signal::Signal =
            format!("SIG{}", name.trim_start_matches("SIG")).parse().unwrap();
        return match report.signal {
            Some(signal) if signal == expected as i32 => Ok(()),
            other => Err(format!("ended by {other:?}, expected {expected}: {}", report.stderr)),
        };
    }
    if let Some(signal) = report.signal {
        return Err(format!("ended by signal {signal}{peak}: {}", report.stderr));
    }
    if let (Some(limit), Some(used)) = (max_rss, report.peak_rss)
        && used > limit
    {
        return Err(format!("peak RSS {} MiB, over {} MiB", used >> 20, limit >> 20));
    }
    if report.signal.is_none() && case.options.get("human").and_then(Value::as_bool) == Some(true) {
        judge_for_people(case, report)?;
    }
    if let Some(lines) = case.expect.get("stdout_lines").and_then(Value::as_u64)
        && lines != report.stdout_lines
    {
        return Err(format!("{} lines out, expected {lines}{peak}", report.stdout_lines));
    }
    let expected = case.expect.get("error");
    match report.code {
        Some(0) => match case.expect.get("stdout_len").and_then(Value::as_u64) {
            Some(len) if len == report.stdout_len => Ok(()),
            Some(len) => Err(format!("{} bytes out, expected {len}", report.stdout_len)),
            None if case.expect.get("stdout_lines").is_some() && expected.is_none() => Ok(()),
            None => Err(format!("exit code 0, expected error {expected:?}{peak}")),
        },
        Some(2) if case.expect.get("usage").is_some() => Ok(()),
        Some(1) if case.options.get("human").is_some() => {
            let kind = expected.and_then(Value::as_str).unwrap_or("");
            match report.stderr.contains(&format!("error[{kind}]: ")) {
                true => Ok(()),
                false => Err(format!("expected error[{kind}]: {}", report.stderr)),
            }
        }
        Some(1) => {
            let error: Value = serde_json::from_str(&report.stderr).map_err(|err| {
                format!("stderr is not one JSON document ({err}): {}", report.stderr)
            })?;
            let kind = error["error"]["kind"].as_str();
            let accepted = match expected {
                Some(Value::String(one)) => kind == Some(one.as_str()),
                Some(Value::Array(any)) => any.iter().any(|k| k.as_str() == kind),
                _ => false,
            };
            match accepted {
                true => Ok(()),
                false => Err(format!(
                    "expected error {expected:?}, got {kind:?}{peak}: {}",
                    report.stderr
                )),
            }
        }
        code => Err(format!("exit code {code:?}: {}", report.stderr)),
    }
}

/// For a case run with errors for people (`"human": true`): no control
/// character but a line break reaches standard error, nor standard output
/// when it is a report for people (`stdout_contains`), and each of
/// `stderr_contains` and `stdout_contains` is there.
fn judge_for_people(case: &Case, report: &Report) -> Result<(), String> {
    for (stream, text) in [("stderr", &report.stderr), ("stdout", &report.stdout)] {
        let wanted = case.expect.get(format!("{stream}_contains")).and_then(Value::as_array);
        // Standard output is text for people only when the case says what
        // it holds (`check`'s report); rendered output is never escaped.
        if stream == "stdout" && wanted.is_none() {
            continue;
        }
        let raw = |c: char| c != '\n' && prompt_core::text::is_escaped_control(c);
        if let Some(c) = text.chars().find(|&c| raw(c)) {
            return Err(format!("{stream} holds the control {c:?} raw: {text:?}"));
        }
        for needle in wanted.into_iter().flatten().filter_map(Value::as_str) {
            if !text.contains(needle) {
                return Err(format!("{stream} lacks {needle:?}: {text}"));
            }
        }
    }
    Ok(())
}

fn pending(case: &Case) -> Option<&str> {
    case.options.get("pending").and_then(Value::as_str)
}

#[test]
fn every_hostile_input_is_rejected_or_bounded() {
    corpus::run_all(CORPUS, |case| match pending(case) {
        Some(_) => Ok(()),
        None => check(case, DEADLINE),
    });
}

/// The cases marked `pending` wait for another branch's fix (named in the
/// mark). Until it lands they must still fail, as they do on this branch;
/// once one passes, this test says so: then remove its mark, and it joins
/// [`every_hostile_input_is_rejected_or_bounded`].
#[test]
fn memory_cases_waiting_for_other_branches() {
    corpus::run_all(CORPUS, |case| {
        let Some(waiting_for) = pending(case) else {
            return Ok(());
        };
        match check(case, PENDING_DEADLINE) {
            Ok(()) => Err(format!("passes now: remove its `pending` mark ({waiting_for})")),
            Err(today) => {
                eprintln!("{}: waiting for {waiting_for}: {today}", case.name);
                Ok(())
            }
        }
    });
}
