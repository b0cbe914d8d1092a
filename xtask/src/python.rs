//! The Python package's tests (`cargo xtask test`, after cargo's): a
//! virtual environment under the target directory, with maturin, pytest,
//! jinja2 and Ray Data from the package index (made on first use, and again
//! only when the requirements below change; each install bounded in time),
//! the wheel built by maturin and installed in it, and pytest over
//! `bindings/python/tests`, comparing with the binary `cargo test` built
//! (`PROMPT_SUITE_CLI`).
//!
//! The tests of `prompt_suite.ray` run a local Ray of two workers that
//! binds 127.0.0.1 only: Ray reads `RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER` when
//! it is imported (`ray/_private/ray_constants.py`, `ENABLE_RAY_CLUSTER`),
//! and with it off its `get_node_ip_address` is the loopback address
//! (`ray/_private/services.py`), so `_node_ip_address="127.0.0.1"` is kept
//! instead of being replaced by the machine's address; it is set here, in
//! pytest's environment, before anything imports Ray. pytest runs in a
//! session of its own (`setsid`), with a deadline; whatever of that
//! session is still running when pytest ends (a Ray worker a killed test
//! left) is ended. `PROMPT_SUITE_RAY=0` leaves Ray out (its tests are then
//! skipped, visibly).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use crate::run;

/// What the tests need from the package index (jinja2: the chat-template
/// tests render the peer templates with it too, as transformers does).
const REQUIREMENTS: &[&str] = &["maturin>=1.9,<2", "pytest>=8", "jinja2>=3.1"];

/// The oracle of the chat-template harnesses (`JINJA2_PYTHON`): Python's
/// jinja2 at the version their figures were measured against.
const ORACLE_REQUIREMENTS: &[&str] = &["jinja2==3.1.6"];

/// What the Ray tests need besides.
const RAY_REQUIREMENTS: &[&str] = &["ray[data]==2.60.0", "pyarrow", "pandas", "numpy"];

/// The longest one `pip install` may take.
const INSTALL_TIME: Duration = Duration::from_secs(15 * 60);

/// The longest the Python tests may take (Ray's included).
const TEST_TIME: Duration = Duration::from_secs(30 * 60);

/// Builds the wheel, installs it in the environment and runs pytest.
pub(crate) fn test(root: &Path, target: &Path) -> Result<(), String> {
    let ray = env::var("PROMPT_SUITE_RAY").map_or(true, |value| value != "0");
    let venv = target.join("python");
    let mut wanted: Vec<&str> = REQUIREMENTS.to_vec();
    if ray {
        wanted.extend(RAY_REQUIREMENTS);
    }
    let python = environment(&venv, &wanted)?;
    let wheels = target.join("python-wheels");
    crate::remove_dir(&wheels)?;
    run(Command::new(venv.join("bin").join("maturin"))
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(root.join("bindings/python/Cargo.toml"))
        .arg("--out")
        .arg(&wheels)
        .arg("--interpreter")
        .arg(&python)
        .env("CARGO_TARGET_DIR", target))?;
    let wheel = fs::read_dir(&wheels)
        .map_err(|err| format!("cannot read {}: {err}", wheels.display()))?
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|ext| ext == "whl"))
        .ok_or_else(|| format!("maturin left no wheel in {}", wheels.display()))?;
    run(Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps"])
        .arg(&wheel))?;
    let cli = target.join("debug").join("prompt-suite");
    // A session of its own, so that everything it starts can be found.
    let mut pytest = Command::new("setsid");
    pytest
        .arg(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "bindings/python/tests"])
        .current_dir(root)
        .env("PROMPT_SUITE_CLI", &cli)
        // Ray on loopback only: read when Ray is imported.
        .env("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        .env("RAY_USAGE_STATS_ENABLED", "0")
        .env_remove("RAY_ADDRESS");
    if ray {
        pytest.env("PROMPT_SUITE_RAY_TESTS", "1");
    }
    eprintln!("$ {pytest:?}");
    let child = pytest.spawn().map_err(|err| format!("cannot run pytest: {err}"))?;
    let session = child.id();
    let status = wait(child, TEST_TIME, "the Python tests");
    end_session(session);
    match status?.code() {
        Some(0) => Ok(()),
        // pytest's "no tests were collected": the tests are missing, which
        // is a failure, not a pass.
        Some(5) => Err("pytest collected no tests in bindings/python/tests".to_owned()),
        code => Err(format!("the Python tests failed (exit code {code:?})")),
    }
}

/// Waits for `child` at most `limit`; past it, kills it and fails.
fn wait(mut child: Child, limit: Duration, what: &str) -> Result<std::process::ExitStatus, String> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(200)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{what} took more than {} s", limit.as_secs()));
            }
            Err(err) => return Err(format!("cannot wait for {what}: {err}")),
        }
    }
}

/// Ends every process still running in session `session` (the session
/// `setsid` made for pytest: its leader's id), found in `/proc`.
fn end_session(session: u32) {
    let Ok(entries) = fs::read_dir("/proc") else { return };
    let left: Vec<String> = entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let stat = fs::read_to_string(entry.path().join("stat")).ok()?;
            // Fields after the command's closing parenthesis: state, ppid,
            // pgrp, session.
            let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
            (fields.get(3)?.parse::<u32>().ok()? == session && pid != session)
                .then(|| pid.to_string())
        })
        .collect();
    if !left.is_empty() {
        eprintln!("ending {} processes the Python tests left: {}", left.len(), left.join(" "));
        let _ = Command::new("kill").arg("-KILL").args(&left).status();
    }
}

/// The interpreter of the environment under `target` with jinja2 in it,
/// for the chat-template harnesses (`JINJA2_PYTHON`): the same environment
/// as the package's tests, so a cold run makes it once and a warm one
/// installs nothing.
pub(crate) fn oracle(target: &Path) -> Result<PathBuf, String> {
    environment(&target.join("python"), ORACLE_REQUIREMENTS)
}

/// The environment's interpreter, made when missing and given whichever
/// of `wanted` it lacks (its marker file lists what it was given).
fn environment(venv: &Path, wanted: &[&str]) -> Result<PathBuf, String> {
    let python = venv.join("bin").join("python");
    if !python.exists() {
        let base = env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
        run(Command::new(base).args(["-m", "venv"]).arg(venv))?;
    }
    let marker = venv.join("prompt-suite-requirements.txt");
    let have = fs::read_to_string(&marker).unwrap_or_default();
    let missing: Vec<&str> =
        wanted.iter().copied().filter(|req| !have.lines().any(|line| line == *req)).collect();
    if !missing.is_empty() {
        let mut pip = Command::new(&python);
        pip.args(["-m", "pip", "install", "--quiet", "--timeout", "60"]).args(&missing);
        eprintln!("$ {pip:?}");
        let child = pip.spawn().map_err(|err| format!("cannot run pip: {err}"))?;
        let status = wait(child, INSTALL_TIME, "pip install")?;
        if !status.success() {
            return Err(format!("pip install {} failed ({status})", missing.join(" ")));
        }
        let mut all: Vec<&str> = have.lines().collect();
        all.extend(&missing);
        fs::write(&marker, all.join("\n") + "\n")
            .map_err(|err| format!("cannot write {}: {err}", marker.display()))?;
    }
    Ok(python)
}
