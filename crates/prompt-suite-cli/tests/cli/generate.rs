//! `prompt-suite completions SHELL` and `prompt-suite man`: generated from
//! the clap definition, so these snapshots change with every flag. After
//! adding one, regenerate them with
//! `INSTA_UPDATE=always cargo test -p prompt-suite-cli --test cli generate`
//! and read the diff.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

#[test]
fn completions_of_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        assert_cmd_snapshot!(format!("completions_{shell}"), cli().args(["completions", shell]));
    }
}

/// The bash script completes subcommands and their flags (when bash is
/// here to ask): a hyphenated binary name once broke the flags
/// (clap-rs/clap#6421).
#[test]
fn the_bash_script_completes() {
    let output = cli().args(["completions", "bash"]).output().unwrap();
    assert!(output.status.success());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("prompt-suite.bash");
    std::fs::write(&script, &output.stdout).unwrap();
    let complete = |words: &str| {
        // What bash does on TAB: the words so far, the function called
        // with the command, the current word and the one before it.
        let program = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _prompt__suite prompt-suite \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; \
             echo \"${{COMPREPLY[*]}}\"",
            script.display()
        );
        let run = std::process::Command::new("bash").arg("-c").arg(program).output().ok()?;
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        Some(String::from_utf8(run.stdout).unwrap().trim_end().to_owned())
    };
    let Some(subcommand) = complete("prompt-suite ren") else { return };
    assert_eq!(subcommand, "render");
    assert_eq!(complete("prompt-suite render --st").unwrap(), "--strict");
    assert_eq!(complete("prompt-suite batch --form").unwrap(), "--format");
    assert_eq!(
        complete("prompt-suite batch --format ''").unwrap(),
        "bodies openai-batch anthropic-batch gemini-batch"
    );
    let shells = complete("prompt-suite completions ''").unwrap();
    assert!(shells.ends_with(" bash elvish fish powershell zsh"), "{shells}");
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    assert_cmd_snapshot!(cli().args(["completions", "tcsh"]));
}

#[test]
fn man_pages() {
    assert_cmd_snapshot!("man", cli().arg("man"));
    assert_cmd_snapshot!("man_render", cli().args(["man", "render"]));
}

#[test]
fn man_of_an_unknown_subcommand_is_a_usage_error() {
    assert_cmd_snapshot!(cli().args(["man", "nope"]));
}

/// `man --dir DIR` writes every page, each with EXIT STATUS, ENVIRONMENT
/// and EXAMPLES.
#[test]
fn man_dir_writes_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let output = cli().args(["man", "--dir"]).arg(dir.path()).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stdout.is_empty());
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in
        ["prompt-suite.1", "prompt-suite-render.1", "prompt-suite-build.1", "prompt-suite-man.1"]
    {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    for name in &names {
        let page = std::fs::read_to_string(dir.path().join(name)).unwrap();
        for section in [".SH \"EXIT STATUS\"", ".SH ENVIRONMENT", ".SH EXAMPLES"] {
            assert!(page.contains(section), "{name} lacks {section}");
        }
    }
    // With a subcommand, or with -o, it is a usage error.
    let both = cli().args(["man", "render", "--dir"]).arg(dir.path()).output().unwrap();
    assert_eq!(both.status.code(), Some(2));
    let output_too = cli().args(["man", "-o", "x.1", "--dir"]).arg(dir.path()).output().unwrap();
    assert_eq!(output_too.status.code(), Some(2));
}
