//! The Python package's tests (`cargo xtask test`, after cargo's): a
//! virtual environment under the target directory, with maturin and pytest
//! from the package index (made on first use, and again only when the
//! requirements below change), the wheel built by maturin and installed in
//! it, and pytest over `bindings/python/tests`, comparing with the binary
//! `cargo test` built (`PROMPT_SUITE_CLI`).
//!
//! With `PROMPT_SUITE_RAY=1` the environment gets Ray Data too and the
//! tests of `prompt_suite.ray` run (a local Ray of two workers on
//! loopback); without it they are skipped, visibly.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::run;

/// What the tests need from the package index.
const REQUIREMENTS: &[&str] = &["maturin>=1.9,<2", "pytest>=8"];

/// The oracle of the chat-template harnesses (`JINJA2_PYTHON`): Python's
/// jinja2 at the version their figures were measured against.
const ORACLE_REQUIREMENTS: &[&str] = &["jinja2==3.1.6"];

/// What the Ray tests need besides.
const RAY_REQUIREMENTS: &[&str] = &["ray[data]==2.60.0", "pyarrow", "pandas", "numpy"];

/// Builds the wheel, installs it in the environment and runs pytest.
pub(crate) fn test(root: &Path, target: &Path) -> Result<(), String> {
    let ray = env::var("PROMPT_SUITE_RAY").is_ok_and(|value| value == "1");
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
    let mut pytest = Command::new(&python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "bindings/python/tests"])
        .current_dir(root)
        .env("PROMPT_SUITE_CLI", &cli);
    if ray {
        pytest.env("PROMPT_SUITE_RAY_TESTS", "1");
    }
    eprintln!("$ {pytest:?}");
    let status = pytest.status().map_err(|err| format!("cannot run pytest: {err}"))?;
    match status.code() {
        Some(0) => Ok(()),
        // pytest's "no tests were collected": the tests are missing, which
        // is a failure, not a pass.
        Some(5) => Err("pytest collected no tests in bindings/python/tests".to_owned()),
        _ => Err(format!("the Python tests failed ({status})")),
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
        run(Command::new(&python).args(["-m", "pip", "install", "--quiet"]).args(&missing))?;
        let mut all: Vec<&str> = have.lines().collect();
        all.extend(&missing);
        fs::write(&marker, all.join("\n") + "\n")
            .map_err(|err| format!("cannot write {}: {err}", marker.display()))?;
    }
    Ok(python)
}
