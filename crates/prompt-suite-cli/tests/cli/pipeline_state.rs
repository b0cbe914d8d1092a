//! State across the pipeline: `build --history [--at N] [--commit]` as
//! `render` has them, `render --prompt`, and `build --system/--instruction`
//! as `flip` has them.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

const INPUTS: &str = "tests/cli/inputs/state_pipeline";

fn run(args: &[&str]) -> String {
    let output = cli().args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn build_keeps_state_in_a_history_as_render_does() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("chat.state.json");
    let history = history.to_str().unwrap();
    let prompt = format!("{INPUTS}/chat.prompt.txt");
    let build = |extra: &[&str]| {
        let mut args = vec!["build", &prompt, "--messages", "--history", history];
        args.extend(extra);
        run(&args)
    };
    let turn = |n: u32| {
        format!(
            "[{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"Turn {n}.\"}}]}}]\n"
        )
    };
    // Two new messages, each recorded.
    assert_eq!(build(&["--commit"]), turn(1));
    assert_eq!(build(&["--commit"]), turn(2));
    assert_eq!(
        std::fs::read_to_string(history).unwrap(),
        "{\"messages\":[{\"swipes\":[{\"turns\":1}]},{\"swipes\":[{\"turns\":2}]}]}\n"
    );
    // Regenerating message 1 reads the state before it; without --commit
    // nothing is recorded.
    assert_eq!(build(&["--at", "1"]), turn(2));
    assert_eq!(build(&["--at", "1", "--commit"]), turn(2));
    let saved = std::fs::read_to_string(history).unwrap();
    assert!(saved.contains("{\"swipes\":[{\"turns\":2},{\"turns\":2}],\"active\":1}"), "{saved}");
    // `render --prompt` reads the same history the same way, comments removed.
    let rendered = run(&["render", &prompt, "--prompt", "--history", history]);
    assert_eq!(rendered, "## user\nTurn 3.\n");
    // -D wins over the history's state, as in render.
    assert_eq!(build(&["-D", "turns=10"]), turn(11));
}

#[test]
fn render_prompt_removes_comments_and_keeps_positions() {
    let prompt = format!("{INPUTS}/chat.prompt.txt");
    // Without --prompt the comments are text.
    assert!(run(&["render", &prompt]).starts_with("/// param: model=gpt-4o-mini"));
    // An error is placed in the file as written.
    assert_cmd_snapshot!(
        "render_prompt_error_in_the_file",
        cli().args([
            "render",
            "--prompt",
            "-t",
            "/// a comment\n/// another\nHi [[ name | upper ]]"
        ])
    );
}

#[test]
fn build_system_and_instruction_frame_the_conversation() {
    let prompt = format!("{INPUTS}/chat.prompt.txt");
    assert_cmd_snapshot!(
        "build_system_and_instruction",
        cli().args([
            "build",
            &prompt,
            "--messages",
            "--transcript",
            "tests/cli/inputs/flip/debate.json",
            "--speaker",
            "Ben",
            "--system",
            "You are Ben, a renter.",
            "--instruction",
            "Your turn, Ben.",
        ])
    );
}

#[test]
fn a_tools_directive_on_standard_input_asks_for_the_flag() {
    let output = crate::output_with_stdin(
        cli().args(["build", "--param", "model=gpt-4o"]),
        "/// tools: tools.json\n## user\nhi\n",
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.starts_with("error[no_directory]"), "{stderr}");
    assert!(stderr.contains("pass `--tools tools.json` instead"), "{stderr}");
}
