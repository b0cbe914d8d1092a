//! The playground's tests (`cargo xtask test`, after the package is built):
//! its pure parts (`bindings/js/playground/lib.test.mjs`) and the page in a
//! real headless browser (`browser.test.mjs`), both under node's test
//! runner. The browser is Debian's `chromium` (installed with apt on first
//! use) driven by `playwright-core` from the npm registry (the `-core`
//! package: it never downloads a browser of its own), installed under the
//! target directory on first use. The test serves the page itself on
//! 127.0.0.1 and writes a screenshot to `<target>/playground/playground.png`.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::run;

/// The driver, pinned: the browser test is written against its API.
const PLAYWRIGHT_CORE: &str = "playwright-core@1.65.1";

/// Where Debian's package puts the browser.
const CHROMIUM: &str = "/usr/bin/chromium";

/// Runs the playground's tests against the package in `bindings/js/pkg`.
pub(crate) fn test(root: &Path, target: &Path) -> Result<(), String> {
    let chromium = chromium()?;
    let modules = npm_install(target, &[PLAYWRIGHT_CORE])?;
    let playground = root.join("bindings/js/playground");
    let mut node = Command::new("node");
    node.args(["--test", "--test-reporter=spec", "--test-timeout=120000"])
        .arg(playground.join("lib.test.mjs"))
        .arg(playground.join("browser.test.mjs"))
        .current_dir(root)
        .env("CHROMIUM", &chromium)
        .env("PLAYWRIGHT_CORE", modules.join("playwright-core"))
        .env("PLAYGROUND_SCREENSHOT", target.join("playground").join("playground.png"));
    run(&mut node)
}

/// The browser: `CHROMIUM` when set, else Debian's, installed with apt
/// when missing.
fn chromium() -> Result<PathBuf, String> {
    if let Some(path) = env::var_os("CHROMIUM") {
        return Ok(PathBuf::from(path));
    }
    let path = PathBuf::from(CHROMIUM);
    if !path.exists() {
        apt_install(&["chromium"])?;
    }
    if path.exists() {
        Ok(path)
    } else {
        Err(format!("apt installed chromium, but there is no {CHROMIUM}"))
    }
}

/// Installs Debian packages (without their recommendations), refreshing
/// the package lists once when the first try fails (a fresh machine has
/// none).
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

/// Installs npm packages (`name@version`) into `<target>/js-tools` when
/// its `node_modules` does not hold them at those versions already;
/// returns that `node_modules`.
pub(crate) fn npm_install(target: &Path, packages: &[&str]) -> Result<PathBuf, String> {
    let dir = target.join("js-tools");
    let modules = dir.join("node_modules");
    let missing: Vec<&str> =
        packages.iter().copied().filter(|spec| !installed(&modules, spec)).collect();
    if missing.is_empty() {
        return Ok(modules);
    }
    std::fs::create_dir_all(&dir)
        .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    let manifest = dir.join("package.json");
    if !manifest.exists() {
        std::fs::write(&manifest, "{\"private\": true}\n")
            .map_err(|err| format!("cannot write {}: {err}", manifest.display()))?;
    }
    run(Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--ignore-scripts",
            "--save-exact",
            "--prefix",
        ])
        .arg(&dir)
        .args(&missing))?;
    Ok(modules)
}

/// Whether `modules` holds the package of `spec` (`name@version`) at that version.
fn installed(modules: &Path, spec: &str) -> bool {
    let (name, version) = match spec.rsplit_once('@') {
        Some((name, version)) if !name.is_empty() => (name, version),
        _ => (spec, ""),
    };
    let Ok(text) = std::fs::read_to_string(modules.join(name).join("package.json")) else {
        return false;
    };
    version.is_empty() || text.contains(&format!("\"version\": \"{version}\""))
}
