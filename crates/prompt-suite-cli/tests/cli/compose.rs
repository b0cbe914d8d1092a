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
        // `render --templates` lets data build names (under the root);
        // `build`, in the prompt's own directory, refuses it first.
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
        let kind = if name == "name" { "data_template_name" } else { kind };
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

/// In the prompt's own directory (the root of `build`, `batch`, and of
/// `render` without `--templates`), a template name from data made a data
/// file template code: a row naming the rows file, a context naming itself.
/// It is `data_template_name`; a name the author wrote, also one data
/// chooses among, is served; `render --templates DIR` (a root the user
/// chose) lets data build names.
#[test]
fn a_name_from_data_is_refused_in_the_prompts_own_directory() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("main.txt", "## user\n[% include name %]\n");
    write("chosen.txt", "## user\n[% include {'a': 'part.txt', 'b': 'other.txt'}[name] %]\n");
    write("part.txt", "PART");
    write("rows.jsonl", "{\"state\": {\"name\": \"rows.jsonl\"}}\n");
    write("context.json", r#"{"state": {"name": "context.json"}}"#);
    write("choice.json", r#"{"state": {"name": "a"}}"#);
    write("part.json", r#"{"state": {"name": "part.txt"}}"#);
    let json = ["--error-format", "json"];
    let build = [&json[..], &["build", "main.txt", "--param", "model=m"]].concat();
    for context in ["context.json", "part.json"] {
        let args = [&build[..], &["--context", context]].concat();
        assert_eq!(refused(dir.path(), &args, ""), (1, "data_template_name".into()), "{context}");
        let args = [&json[..], &["render", "main.txt", "--context", context]].concat();
        assert_eq!(refused(dir.path(), &args, ""), (1, "data_template_name".into()), "{context}");
    }
    // A row naming the rows file: the row fails with the kind.
    let mut batch = cli();
    batch.current_dir(dir.path()).args(["batch", "main.txt", "--rows", "rows.jsonl"]);
    batch.args(["--param", "model=m"]);
    let output = crate::output_with_stdin(&mut batch, "");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout.contains("data_template_name") && !stdout.contains("\\\"state"), "{stdout}");
    // Data choosing among written names, and a root the user chose.
    let mut chosen = cli();
    chosen.current_dir(dir.path()).args(["render", "chosen.txt", "--context", "choice.json"]);
    let output = chosen.output().unwrap();
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "## user\nPART\n");
    let mut templates = cli();
    templates.current_dir(dir.path());
    templates.args(["render", "main.txt", "--templates", ".", "--context", "part.json"]);
    let output = templates.output().unwrap();
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "## user\nPART\n");
}

/// A run's own files (its context, rows, tools, transcript, history and
/// its lock, `--errors`, `-o`) were served as templates when a name (even
/// an authored one, or a link) reached them, turning the run's data into
/// template code. Whatever the root, each is `not_a_template`, known by
/// device and inode.
#[cfg(unix)]
#[test]
fn the_runs_own_files_are_never_templates() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("ctx.json", r#"{"state": {}}"#);
    write("tools.json", "[]");
    write("rows.jsonl", "{}\n");
    write("errors.jsonl", "");
    write("out.txt", "");
    write("h.json", r#"{"messages": []}"#);
    write(".h.json.lock", "");
    std::os::unix::fs::symlink("ctx.json", dir.path().join("link.txt")).unwrap();
    let json = ["--error-format", "json"];
    let cases: [(&str, &[&str]); 8] = [
        ("ctx.json", &["render", "main.txt", "--context", "ctx.json"]),
        ("link.txt", &["render", "main.txt", "--templates", ".", "--context", "ctx.json"]),
        ("out.txt", &["render", "main.txt", "-o", "out.txt"]),
        ("h.json", &["render", "main.txt", "--history", "h.json"]),
        (".h.json.lock", &["render", "main.txt", "--history", "h.json"]),
        ("ctx.json", &["build", "main.txt", "--param", "model=m", "--context", "ctx.json"]),
        ("tools.json", &["build", "main.txt", "--param", "model=m", "--tools", "tools.json"]),
        ("out.txt", &["build", "main.txt", "--param", "model=m", "-o", "out.txt"]),
    ];
    for (name, args) in cases {
        write("main.txt", &format!("## user\n[% include '{name}' %]\n"));
        let args = [&json[..], args].concat();
        let (code, kind) = refused(dir.path(), &args, "");
        assert_eq!((code, kind.as_str()), (1, "not_a_template"), "{name} {args:?}");
    }
    for (name, more) in [("rows.jsonl", None), ("errors.jsonl", Some("errors.jsonl"))] {
        write("main.txt", &format!("## user\n[% include '{name}' %]\n"));
        let mut batch = cli();
        batch.current_dir(dir.path()).args(["batch", "main.txt", "--rows", "rows.jsonl"]);
        batch.args(["--param", "model=m"]);
        if let Some(errors) = more {
            batch.args(["--format", "anthropic-batch", "--provider", "anthropic"]);
            batch.args(["--param", "max_tokens=10", "--errors", errors]);
        }
        let output = crate::output_with_stdin(&mut batch, "");
        assert_eq!(output.status.code(), Some(1), "{name}");
        let mut records = String::from_utf8(output.stdout).unwrap();
        if let Some(errors) = more {
            records += &std::fs::read_to_string(dir.path().join(errors)).unwrap();
        }
        assert!(records.contains("not_a_template"), "{name}: {records}");
    }
}
