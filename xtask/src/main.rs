//! Project automation in Rust instead of shell scripts, after
//! <https://github.com/matklad/cargo-xtask>. Run it as `cargo xtask <task>`
//! (the alias is in `.cargo/config.toml`).
//!
//! Tasks:
//! * `ci`: exactly what `.ci/run` runs: format check, clippy with warnings
//!   denied, the workspace tests, and the docs with warnings denied.
//! * `bench [ARGS...]`: the criterion benchmarks; extra arguments go to
//!   `cargo bench` (for example `-- --quick`, or a benchmark name filter).

use std::env;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let mut args = env::args().skip(1);
    let task = args.next();
    let rest: Vec<String> = args.collect();
    let result = match task.as_deref() {
        Some("ci") => ci(),
        Some("bench") => bench(&rest),
        _ => {
            eprintln!("usage: cargo xtask <ci | bench [CARGO BENCH ARGS...]>");
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

/// The steps `.ci/run` runs, in the same order, plus the doc build.
fn ci() -> Result<(), String> {
    cargo(&["fmt", "--all", "--", "--check"], &[])?;
    cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"], &[])?;
    cargo(&["test", "--workspace"], &[])?;
    cargo(&["doc", "--workspace", "--no-deps"], &[("RUSTDOCFLAGS", "-D warnings")])
}

fn bench(extra: &[String]) -> Result<(), String> {
    let mut args = vec!["bench", "--package", "benches"];
    args.extend(extra.iter().map(String::as_str));
    cargo(&args, &[])
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

fn project_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().map(PathBuf::from).unwrap_or(manifest_dir)
}
