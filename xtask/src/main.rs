//! Project automation in Rust instead of shell scripts, after
//! <https://github.com/matklad/cargo-xtask>. Run it as `cargo xtask <task>`
//! (the alias is in `.cargo/config.toml`).
//!
//! Tasks:
//! * `ci`: what CI runs (`.ci/run` is `cargo xtask ci`, so the steps are
//!   listed once, here): the layering check, format check, clippy with
//!   warnings denied, `test`, narrative-segment without its `bundle`
//!   feature, the docs with warnings denied, and `cargo package`.
//! * `test`: every test of the repository, the README's test command:
//!   `cargo test --workspace` (with `JINJA2_PYTHON` naming that
//!   environment's Python, given `jinja2==3.1.6`, when `../shared/peer` is
//!   there: the chat-template harnesses then compare every real template
//!   with jinja2), then the Python package's (`python.rs`: a
//!   virtual environment under the target directory with maturin and
//!   pytest from the package index, made on first use; the wheel built
//!   and installed; pytest over `bindings/python/tests`). `test python`
//!   runs the Python part alone. Then the JavaScript package's (`wasm.rs`):
//!   built as `wasm` builds it, then node's test runner over
//!   `bindings/js/tests`; `test js` runs that part alone. Then the
//!   playground's (`browser.rs`: its node tests and the page in headless
//!   Chromium, against the package just built); `test browser` runs that
//!   part alone, against the package as `wasm` last built it.
//! * `wasm [--deps]`: the npm package in `bindings/js/pkg/` (`wasm.rs`):
//!   the toolchain installed where missing (apt, cargo, npm), `bindings/js`
//!   built for wasm32-unknown-unknown, wasm-bindgen, wasm-opt, the
//!   hand-written files copied in; prints the `.wasm`'s size. `--deps`
//!   only checks the build's dependency list (filesystem, entropy, threads
//!   and time zone data stay out); `ci` runs that check.
//! * `layers`: checks every crate's `crate::` paths against its layer list in
//!   ARCHITECTURE.md (`layers.rs`); fails on an upward import or a circle.
//!   `layers --graph crates/NAME` prints what each module uses, for writing
//!   a list.
//! * `bench [ARGS...]`: the criterion benchmarks; extra arguments go to
//!   `cargo bench` (for example `-- --quick`, or a benchmark name filter).
//! * `scaling [--large]`: every crate's scaling benchmark and the machine
//!   baseline (1x, 10x, 100x in each series of `benches::Series`; `--large`
//!   adds the 32 MiB to 3.2 GiB one), then the table of their growth
//!   (`benches/src/bin/scaling-table.rs`); fails when a crate's cache
//!   series grows more than 120x for 100x the input.
//! * `fuzz [SECONDS]`: seeds the corpora (`fuzz/seed.py`) and runs every
//!   cargo-fuzz target in `fuzz/` for SECONDS each (default 60), one after
//!   the other, stopping at the first crash. Needs `cargo install
//!   cargo-fuzz`; sets `RUSTC_BOOTSTRAP=1` itself so a stable toolchain
//!   builds the fuzzers (see docs/reliability.md).

use std::env;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

mod browser;
mod layers;
mod python;
mod wasm;

fn main() -> ExitCode {
    let mut args = env::args().skip(1);
    let task = args.next();
    let rest: Vec<String> = args.collect();
    let result = match task.as_deref() {
        Some("ci") => ci(),
        Some("test") => match rest.as_slice() {
            [] => test(),
            [only] if only == "python" => python::test(&project_root(), &target_dir()),
            [only] if only == "js" => wasm::test(&project_root(), &target_dir()),
            [only] if only == "browser" => browser::test(&project_root(), &target_dir()),
            _ => Err("usage: cargo xtask test [python | js | browser]".to_owned()),
        },
        Some("layers") => match rest.as_slice() {
            [] => layers::run(&project_root()),
            [flag, dir] if flag == "--graph" => layers::graph(&project_root(), dir),
            _ => Err("usage: cargo xtask layers [--graph crates/NAME]".to_owned()),
        },
        Some("wasm") => match rest.as_slice() {
            [] => wasm::build(&project_root(), &target_dir()),
            [flag] if flag == "--deps" => wasm::deps(&project_root()),
            _ => Err("usage: cargo xtask wasm [--deps]".to_owned()),
        },
        Some("bench") => bench(&rest),
        Some("scaling") => scaling(&rest),
        Some("fuzz") => fuzz(&rest),
        _ => {
            eprintln!(
                "usage: cargo xtask <ci | test [python | js] | wasm [--deps] | layers | bench [CARGO BENCH ARGS...] | scaling [--large] | fuzz [SECONDS]>"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// What CI runs (`.ci/run` runs this task and nothing else).
fn ci() -> Result<(), String> {
    layers::run(&project_root())?;
    cargo(&["fmt", "--all", "--", "--check"], &[])?;
    cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"], &[])?;
    test()?;
    // The WebAssembly build takes no filesystem, entropy, threads or tz data.
    wasm::deps(&project_root())?;
    // narrative-segment without its default `bundle` feature (no zip):
    // bundles are a typed error, everything else works.
    let no_bundle = ["-p", "narrative-segment", "--no-default-features"];
    cargo(
        &[&["clippy"][..], &no_bundle, &["--all-targets", "--", "-D", "warnings"]].concat(),
        &[],
    )?;
    cargo(&[&["test"][..], &no_bundle].concat(), &[])?;
    // The API docs build without a warning (broken links, missing docs).
    cargo(&["doc", "--workspace", "--no-deps"], &[("RUSTDOCFLAGS", "-D warnings")])?;
    package()
}

/// Every test of the repository: cargo's, the Python package's, then the
/// JavaScript package's (built, node's tests, the playground's). When
/// the peer material is beside the checkout (`../shared/peer`), the
/// chat-template harnesses compare with Python's jinja2, installed in the
/// package's environment (`python::oracle`) and named by `JINJA2_PYTHON`.
fn test() -> Result<(), String> {
    let peer = project_root().join("../shared/peer");
    let oracle = if peer.is_dir() { Some(python::oracle(&target_dir())?) } else { None };
    let oracle = oracle.as_ref().map(|python| python.to_string_lossy().into_owned());
    let envs: Vec<(&str, &str)> =
        oracle.iter().map(|python| ("JINJA2_PYTHON", python.as_str())).collect();
    cargo(&["test", "--workspace"], &envs)?;
    python::test(&project_root(), &target_dir())?;
    wasm::test(&project_root(), &target_dir())?;
    browser::test(&project_root(), &target_dir())
}

/// `cargo package --workspace`, which must pass and say nothing: a warning
/// (a file left out, metadata missing) fails it. Every crate's package is
/// verified against the others' (cargo takes the workspace crates from a
/// temporary registry), in a target directory of its own made anew: a
/// registry crate of the same version already built is never rebuilt, so a
/// kept one would be a stale one.
fn package() -> Result<(), String> {
    let root = project_root();
    let package_target = root.join("target").join("package-check");
    remove_dir(&package_target)?;
    // Cargo unpacks that registry's packages under
    // $CARGO_HOME/registry/{src,cache}/-HASH/ (HASH from the registry's
    // path: the same for every run in this folder) and never unpacks a name
    // and version again, so an earlier run's package would be verified
    // instead of this one's. Only such temporary registries have a name
    // starting with `-`.
    let cargo_home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")));
    if let Some(cargo_home) = cargo_home {
        for kind in ["src", "cache"] {
            let dir = cargo_home.join("registry").join(kind);
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                if entry.file_name().to_string_lossy().starts_with('-') {
                    remove_dir(&entry.path())?;
                }
            }
        }
    }
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("$ cargo package --workspace --offline");
    let output = Command::new(cargo)
        .args(["package", "--workspace", "--offline"])
        .env("CARGO_TARGET_DIR", &package_target)
        .current_dir(&root)
        .output()
        .map_err(|err| format!("cannot run cargo: {err}"))?;
    remove_dir(&package_target)?;
    let log = String::from_utf8_lossy(&output.stderr);
    let warned = log.lines().any(|line| line.starts_with("warning") || line.starts_with("error"));
    if output.status.success() && !warned {
        Ok(())
    } else {
        Err(format!("`cargo package --workspace` must pass without a warning:\n{log}"))
    }
}

/// Removes a directory tree; a missing one is fine.
fn remove_dir(dir: &std::path::Path) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("cannot remove {}: {err}", dir.display()))
        }
        _ => Ok(()),
    }
}

/// Cargo's target directory: `CARGO_TARGET_DIR`, else `target/`.
fn target_dir() -> PathBuf {
    match env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() { dir } else { project_root().join(dir) }
        }
        None => project_root().join("target"),
    }
}

fn bench(extra: &[String]) -> Result<(), String> {
    let mut args = vec!["bench", "--package", "benches"];
    args.extend(extra.iter().map(String::as_str));
    cargo(&args, &[])
}

/// The benchmarks with a `<crate>/scaling` group, and the machine's own.
const SCALING_BENCHES: [&str; 5] =
    ["prompt-comments", "transcript-flip", "narrative-segment", "minijinja-brackets", "machine"];

/// Every scaling series (with `--large`, the 32 MiB to 3.2 GiB one too),
/// then their table.
fn scaling(extra: &[String]) -> Result<(), String> {
    let large = match extra {
        [] => false,
        [flag] if flag == "--large" => true,
        _ => return Err("usage: cargo xtask scaling [--large]".to_owned()),
    };
    let mut args = vec!["bench", "--package", "benches"];
    for name in SCALING_BENCHES {
        args.extend(["--bench", name]);
    }
    args.extend(["--", "/scaling/"]);
    cargo(&args, if large { &[("BENCH_LARGE", "1")] } else { &[] })?;
    cargo(&["run", "--quiet", "--release", "--package", "benches", "--bin", "scaling-table"], &[])
}

/// Every fuzz target for `SECONDS` (the only argument, default 60) each.
fn fuzz(extra: &[String]) -> Result<(), String> {
    let seconds: u64 = match extra {
        [] => 60,
        [seconds] => {
            seconds.parse().map_err(|_| format!("`{seconds}` is not a number of seconds"))?
        }
        _ => return Err("usage: cargo xtask fuzz [SECONDS]".to_owned()),
    };
    let fuzz_dir = project_root().join("fuzz");
    // Seeds come from the conformance fixtures and test inputs.
    run(Command::new("python3").arg(fuzz_dir.join("seed.py")))?;

    // cargo-fuzz passes nightly-only `-Z` flags; RUSTC_BOOTSTRAP lets a stable
    // toolchain accept them.
    let fuzz_cargo = |args: &[&str]| {
        let mut command = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        command.arg("fuzz").args(args).env("RUSTC_BOOTSTRAP", "1").current_dir(&fuzz_dir);
        command
    };
    let listing =
        fuzz_cargo(&["list"]).output().map_err(|err| format!("cannot run cargo fuzz: {err}"))?;
    if !listing.status.success() {
        return Err(
            "`cargo fuzz list` failed: install it with `cargo install cargo-fuzz`".to_owned()
        );
    }
    let listing = String::from_utf8_lossy(&listing.stdout).into_owned();
    let max_time = format!("-max_total_time={seconds}");
    for target in listing.split_whitespace() {
        run(&mut fuzz_cargo(&[
            "run",
            "--release",
            // Overflow checks and debug asserts on: a wrapped number is a bug.
            "--debug-assertions",
            target,
            "--",
            &max_time,
            "-timeout=10",
            "-rss_limit_mb=2048",
            "-max_len=65536",
            "-print_final_stats=1",
        ]))?;
    }
    Ok(())
}

/// Runs cargo (the one that runs us, per the `CARGO` variable) in the
/// workspace root and fails when it does.
fn cargo(args: &[&str], envs: &[(&str, &str)]) -> Result<(), String> {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("$ cargo {}", args.join(" "));
    let status = Command::new(cargo)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(project_root())
        .status()
        .map_err(|err| format!("cannot run cargo: {err}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}

/// Runs a prepared command and fails when it does.
pub(crate) fn run(command: &mut Command) -> Result<(), String> {
    let line = format!("{command:?}");
    eprintln!("$ {line}");
    let status = command.status().map_err(|err| format!("cannot run {line}: {err}"))?;
    if status.success() { Ok(()) } else { Err(format!("{line} failed ({status})")) }
}

fn project_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().map(PathBuf::from).unwrap_or(manifest_dir)
}
