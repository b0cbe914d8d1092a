//! One set of flags: the input flags every template command takes alike,
//! one name per concept (`--provider`, `--dialect`, their old names as
//! aliases), and `-h` grouped under headings.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

const INPUTS: &str = "tests/cli/inputs/flags";

/// The prompt `-t` gives every command: a state variable, a local one and
/// one that only `-D` defines.
const TEMPLATE: &str = "## user\n[[ greeting ]], [[ name ]] ([[ L.mood ]], [[ extra ]])";

fn context() -> String {
    format!("{INPUTS}/context.toml")
}

#[test]
fn render_check_build_and_batch_take_the_same_input_flags() {
    let context = context();
    let flags = ["-t", TEMPLATE, "--context", &context, "-D", "extra=1", "-D", "L.mood=\"odd\""];
    let render = cli().arg("render").args(flags).args(["--seed", "1"]).output().unwrap();
    assert!(render.status.success(), "{}", String::from_utf8_lossy(&render.stderr));
    // `-D` wins over the TOML context.
    assert_eq!(String::from_utf8_lossy(&render.stdout), "## user\nHello, Ann (odd, 1)");
    // `check` knows what the context and `-D` define: nothing is undefined.
    assert_cmd_snapshot!("check_with_input_flags", cli().arg("check").args(flags));
    assert_cmd_snapshot!(
        "build_with_input_flags",
        cli().arg("build").args(flags).args(["--seed", "1", "--messages"])
    );
    // Each row over the context and under `-D`, variable by variable.
    let rows = format!("{INPUTS}/rows.jsonl");
    assert_cmd_snapshot!(
        "batch_with_input_flags",
        cli().arg("batch").args(flags).args(["--rows", &rows, "--seed", "1", "--messages"])
    );
}

#[test]
fn the_template_flag_and_a_file_are_one_input() {
    // `-t` and FILE together are a usage error, on every command taking both.
    for command in ["render", "check", "build", "batch"] {
        let mut args = vec![command, "-t", "x", "prompt.txt"];
        if command == "batch" {
            args.extend(["--rows", "-"]);
        }
        let output = cli().args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{command}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("cannot be used with"), "{command}: {stderr}");
    }
}

#[test]
fn old_flag_names_are_aliases() {
    let body = "tests/cli/inputs/convert/weather.json";
    let run = |args: &[&str]| {
        let output = cli().args(args).output().unwrap();
        assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        output.stdout
    };
    let provider = run(&["convert", "--from", "openai", "--provider", "gemini", body]);
    assert_eq!(run(&["convert", "--from", "openai", "--to", "gemini", body]), provider);
    // `--from` is `openai` when absent.
    assert_eq!(run(&["convert", "--provider", "gemini", body]), provider);
    let transcript = "tests/cli/inputs/flip/debate.json";
    let dialect = run(&["flip", transcript, "--speaker", "Ana", "--dialect", "llmr"]);
    assert_eq!(run(&["flip", transcript, "--speaker", "Ana", "--mode", "llmr"]), dialect);
    let messages = "tests/cli/inputs/flip/messages.json";
    let dialect = run(&["alternate", messages, "--dialect", "llmr"]);
    assert_eq!(run(&["alternate", messages, "--mode", "llmr"]), dialect);
}

#[test]
fn convert_needs_a_provider() {
    assert_cmd_snapshot!(cli().args(["convert", "tests/cli/inputs/convert/weather.json"]));
}

#[test]
fn short_help_groups_the_flags_under_headings() {
    let output = cli().args(["batch", "-h"]).output().unwrap();
    let help = String::from_utf8(output.stdout).unwrap();
    let headings = ["Input:", "Template:", "Pipeline:", "Transcript:", "Provider:", "Output:"];
    let mut from = 0;
    for heading in headings.into_iter().chain(["Global:"]) {
        let at = help[from..].find(&format!("\n{heading}\n"));
        assert!(at.is_some(), "{heading} after byte {from}:\n{help}");
        from += at.unwrap_or_default() + 1;
    }
    assert_cmd_snapshot!("build_short_help", cli().args(["build", "-h"]));
}
