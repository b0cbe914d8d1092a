//! The playground's tests (`cargo xtask test`, after the package's): its
//! pure parts (`bindings/js/playground/lib.test.mjs`) and the page in a real
//! headless browser (`browser.test.mjs`), both under node's test runner.
//! The browser is Debian's `chromium` (with `fonts-liberation`, which it
//! only recommends), installed with apt on first use; it is driven by
//! `playwright-core` (the `-core` package: it never downloads a browser of
//! its own), one of the npm tools of `bindings/js/package.json`. The test
//! serves the page and the package itself on 127.0.0.1 and writes a
//! screenshot to `<target>/playground/playground.png`.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{run, wasm};

/// Where Debian's package puts the browser.
const CHROMIUM: &str = "/usr/bin/chromium";

/// Runs the playground's tests against the package in `bindings/js/pkg`
/// (built before).
pub(crate) fn test(root: &Path, target: &Path) -> Result<(), String> {
    let chromium = chromium()?;
    wasm::npm_tools(root)?;
    let playground = root.join("bindings/js/playground");
    run(Command::new("node")
        .args(["--test", "--test-reporter=spec", "--test-timeout=120000"])
        .arg(playground.join("lib.test.mjs"))
        .arg(playground.join("browser.test.mjs"))
        .current_dir(root)
        .env("CHROMIUM", &chromium)
        .env("PLAYGROUND_SCREENSHOT", target.join("playground").join("playground.png")))
}

/// The browser: `CHROMIUM` when set, else Debian's, installed when missing.
fn chromium() -> Result<PathBuf, String> {
    if let Some(path) = env::var_os("CHROMIUM") {
        return Ok(PathBuf::from(path));
    }
    let path = PathBuf::from(CHROMIUM);
    if !path.exists() {
        wasm::apt_install(&["chromium", "fonts-liberation"])?;
    }
    if path.exists() {
        Ok(path)
    } else {
        Err(format!("apt installed chromium, but there is no {CHROMIUM}"))
    }
}
