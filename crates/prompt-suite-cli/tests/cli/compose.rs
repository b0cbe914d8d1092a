//! Composition from the command line (`render --templates`, includes in
//! `build` and `batch`) and rendering without files (`render -t`, `-D`,
//! TOML contexts).

use std::path::Path;
use std::process::Command;

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

const INPUTS: &str = "tests/cli/inputs/compose";

/// `prompt-suite ARGS...` run in the compose inputs' directory, so that
/// paths in diagnostics are relative and stable.
fn in_inputs(args: &[&str]) -> Command {
    let mut command = cli();
    command.current_dir(INPUTS).args(args);
    command
}

#[test]
fn render_resolves_includes_beside_the_file() {
    assert_cmd_snapshot!(in_inputs(&["render", "letter.txt", "-D", "name=Ann"]));
}

#[test]
fn render_resolves_includes_under_templates() {
    // From another directory, `--templates` says where the names live.
    let mut command = cli();
    command.args(["render", &format!("{INPUTS}/letter.txt"), "--templates", INPUTS]);
    assert_cmd_snapshot!(command.args(["-D", "name=Ann", "-D", "G.team=Sales"]));
}

#[test]
fn an_error_in_an_included_template_is_drawn_in_its_file() {
    assert_cmd_snapshot!(in_inputs(&["render", "err_included.txt"]));
}

#[test]
fn an_error_in_an_included_template_json() {
    assert_cmd_snapshot!(in_inputs(&["render", "err_included.txt", "--error-format", "json"]));
}

#[test]
fn template_text_without_templates_cannot_include() {
    assert_cmd_snapshot!(in_inputs(&["render", "-t", "[% include 'letter.txt' %]"]));
}

#[test]
fn standard_input_without_templates_cannot_include() {
    assert_cmd_snapshot!(in_inputs(&["render"]).pass_stdin("[% include 'letter.txt' %]"));
}

#[test]
fn template_text_with_templates() {
    assert_cmd_snapshot!(in_inputs(&[
        "render",
        "-t",
        "[% include 'parts/sig.txt' %]",
        "--templates",
        "."
    ]));
}

#[test]
fn template_text_and_a_file_is_a_usage_error() {
    assert_cmd_snapshot!(in_inputs(&["render", "-t", "x", "letter.txt"]));
}

#[test]
fn defines_are_json_when_json_else_strings() {
    assert_cmd_snapshot!(in_inputs(&[
        "render",
        "--json",
        "--seed",
        "1",
        "-t",
        "[[ a ]]|[[ z ]]|[[ b ]]|[[ L.c ]]|[[ G.d ]]|[[ e is none ]]|[[ f ]]",
        "-D",
        "a=1.25",
        "-D",
        "z=007",
        "-D",
        "b=hello world",
        "-D",
        "L.c=[1, {\"k\": true}]",
        "-D",
        "G.d=",
        "-D",
        "e=null",
        "-D",
        "f=\"null\"",
    ]));
}

#[test]
fn defines_win_over_the_context() {
    assert_cmd_snapshot!(in_inputs(&[
        "render",
        "letter.txt",
        "--context",
        "context.toml",
        "-D",
        "name=Bo",
        "-D",
        "name=Cy"
    ]));
}

#[test]
fn malformed_defines_are_usage_errors() {
    for define in ["novalue", "=1", "L.=1", "a.b=1", "S.x=1", "1x=1", "x={\"a\":1,\"a\":2}"] {
        let output = in_inputs(&["render", "-t", "x", "-D", define]).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{define}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains("--define"), "{define}: {stderr}");
    }
}

#[test]
fn toml_contexts_by_extension() {
    assert_cmd_snapshot!(in_inputs(&[
        "render",
        "--json",
        "--seed",
        "1",
        "-t",
        "[[ name ]] [[ list ]] [[ G.team ]]",
        "--context",
        "context.toml"
    ]));
}

#[test]
fn bad_toml_is_a_clear_error() {
    assert_cmd_snapshot!(in_inputs(&["render", "-t", "x", "--context", "err_context.toml"]));
}

#[test]
fn build_resolves_includes_and_ignores_their_directives() {
    assert_cmd_snapshot!(in_inputs(&[
        "build",
        "prompt.txt",
        "--full",
        "--param",
        "model=gpt-4o-mini",
        "--seed",
        "0"
    ]));
}

#[test]
fn build_reports_errors_in_the_included_file() {
    assert_cmd_snapshot!(in_inputs(&[
        "build",
        "err_included.txt",
        "--param",
        "model=gpt-4o-mini",
        "--seed",
        "0"
    ]));
}

#[test]
fn batch_resolves_includes_and_warns_once() {
    let mut command = in_inputs(&[
        "batch",
        "prompt.txt",
        "--rows",
        "-",
        "--param",
        "model=gpt-4o-mini",
        "--seed",
        "0",
        "--jobs",
        "2",
    ]);
    let rows = "{\"state\": {\"name\": \"Ann\"}}\n{\"state\": {\"name\": \"Bo\"}}\n";
    assert_cmd_snapshot!(command.pass_stdin(rows));
}

/// A scratch directory with `prompts/` (the templates' root) beside a
/// secret, a link out of the root, and a FIFO in it.
fn hostile_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("prompts");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(dir.path().join("secret.txt"), "SECRET").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("link.txt")).unwrap();
        std::os::unix::fs::symlink("../secret.txt", root.join("relative.txt")).unwrap();
        let status = Command::new("mkfifo").arg(root.join("fifo.txt")).status().unwrap();
        assert!(status.success());
    }
    dir
}

fn refused(dir: &Path, args: &[&str], stdin: &str) -> (i32, String) {
    let mut command = cli();
    command.current_dir(dir).args(args);
    let output = crate::output_with_stdin(&mut command, stdin);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!stdout.contains("SECRET") && !stderr.contains("SECRET"), "{stdout}{stderr}");
    let json: serde_json::Value = serde_json::from_str(stderr.trim()).unwrap();
    (output.status.code().unwrap(), json["error"]["kind"].as_str().unwrap().to_owned())
}

#[test]
fn no_name_leaves_the_root_in_render_build_or_batch() {
    let dir = hostile_tree();
    let mut names = vec![
        ("'../secret.txt'", "invalid_template_name"),
        ("'/etc/passwd'", "invalid_template_name"),
        ("name", "invalid_template_name"),
    ];
    if cfg!(unix) {
        names.extend([
            ("'link.txt'", "load_error"),
            ("'relative.txt'", "load_error"),
            ("'fifo.txt'", "load_error"),
        ]);
    }
    let json = ["--error-format", "json"];
    for (name, kind) in names {
        let text = format!("[% include {name} %]");
        std::fs::write(dir.path().join("prompts/main.txt"), &text).unwrap();
        let render = [&json[..], &["render", "-t", &text, "--templates", "prompts"]].concat();
        let render = [&render[..], &["-D", "name=../secret.txt"]].concat();
        assert_eq!(refused(dir.path(), &render, ""), (1, kind.to_owned()), "render {name}");
        let build = [&json[..], &["build", "prompts/main.txt", "--param", "model=m"]].concat();
        let context = dir.path().join("context.json");
        std::fs::write(&context, r#"{"state": {"name": "../secret.txt"}}"#).unwrap();
        let build = [&build[..], &["--context", "context.json"]].concat();
        assert_eq!(refused(dir.path(), &build, ""), (1, kind.to_owned()), "build {name}");
    }
}

#[test]
fn check_follows_literal_includes_and_names_the_others() {
    assert_cmd_snapshot!(in_inputs(&["check", "checked.txt"]));
}

#[test]
fn check_json_carries_the_followed_analyses() {
    assert_cmd_snapshot!(in_inputs(&["check", "checked.txt", "--json"]));
}

#[test]
fn exact_distributions_follow_includes() {
    assert_cmd_snapshot!(in_inputs(&["render", "exact.txt", "--exact"]));
}
