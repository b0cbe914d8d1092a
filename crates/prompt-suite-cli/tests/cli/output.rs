//! `-o/--output FILE` on every command that prints: the file holds exactly
//! what standard output would, is replaced whole and only on success
//! (`batch`: also when rows failed, its error records being output), and no
//! temporary file is ever left beside it.

use std::path::Path;

use crate::{cli, output_with_stdin};

const INPUTS: &str = "tests/cli/inputs";

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every command that prints, with arguments that succeed (`@rows` is
/// `rows`).
fn printing_commands(rows: &Path) -> Vec<Vec<String>> {
    let commands: [&[&str]; 11] = [
        &["comments", "comments/prompt.txt", "--json"],
        &["flip", "flip/debate.json", "--speaker", "Ben"],
        &["alternate", "flip/messages.json"],
        &["segment", "segment/code-sample.lmml", "--turns"],
        &["render", "render/greeting.txt", "--context", "render/context.json", "--seed", "1"],
        &["build", "build/repeated_param.txt", "--messages", "--seed", "1"],
        &["batch", "batch/envelope.txt", "--rows", "@rows", "--messages", "--seed", "1"],
        &["check", "check/warnings.txt"],
        &["completions", "zsh"],
        &["man", "batch"],
        &["check", "check/tavern.txt", "--json"],
    ];
    commands
        .iter()
        .map(|args| {
            args.iter()
                .map(|arg| match *arg {
                    "@rows" => rows.display().to_string(),
                    _ if arg.contains('/') => format!("{INPUTS}/{arg}"),
                    _ => (*arg).to_owned(),
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_printing_command_writes_the_file_instead_of_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let rows = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(rows.path(), "{\"state\": {\"q\": \"a\"}}\n{\"state\": {\"q\": \"b\"}}\n")
        .unwrap();
    for args in printing_commands(rows.path()) {
        let printed = cli().args(&args).output().unwrap();
        assert!(printed.status.success(), "{args:?}: {}", String::from_utf8_lossy(&printed.stderr));
        assert!(!printed.stdout.is_empty(), "{args:?}");
        // `-o` is global: after the subcommand's flags, or before its name.
        let after = cli().args(&args).arg("-o").arg(&out).output().unwrap();
        assert!(after.status.success(), "{args:?}: {}", String::from_utf8_lossy(&after.stderr));
        assert_eq!(after.stdout, b"", "{args:?}");
        assert_eq!(after.stderr, printed.stderr, "{args:?}");
        assert_eq!(std::fs::read(&out).unwrap(), printed.stdout, "{args:?}");
        std::fs::remove_file(&out).unwrap();
        let before = cli().arg("--output").arg(&out).args(&args).output().unwrap();
        assert!(before.status.success(), "{args:?}");
        assert_eq!(std::fs::read(&out).unwrap(), printed.stdout, "{args:?}");
        assert_eq!(names(dir.path()), ["out"], "{args:?}");
    }
}

#[test]
fn a_rejected_input_leaves_the_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    std::fs::write(&out, "before\n").unwrap();
    let failing: [&[&str]; 4] = [
        &["comments", "--messages"],
        &["render"],
        &["build", "--seed", "1"],
        &["batch", "--rows", "tests/cli/inputs/batch/mixed.jsonl"],
    ];
    for args in failing {
        // The batch's prompt is broken: no row is built.
        let output = output_with_stdin(cli().args(args).arg("-o").arg(&out), "[% if %]{}");
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "before\n", "{args:?}");
        assert_eq!(names(dir.path()), ["out.json"], "{args:?}");
    }
}

/// A batch whose rows fail still writes its output: the error records are
/// its lines.
#[test]
fn a_batch_with_failed_rows_writes_its_records() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    std::fs::write(&out, "before\n").unwrap();
    let args = ["batch", "--rows", "tests/cli/inputs/batch/mixed.jsonl", "--seed", "1"];
    let args = [&args[..], &["--param", "model=gpt-5.4"]].concat();
    let printed = output_with_stdin(cli().args(&args), "## user\n[[ q ]]\n");
    assert_eq!(printed.status.code(), Some(1));
    let written = output_with_stdin(cli().args(&args).arg("-o").arg(&out), "## user\n[[ q ]]\n");
    assert_eq!(written.status.code(), Some(1));
    assert_eq!(written.stdout, b"");
    assert_eq!(written.stderr, printed.stderr);
    assert_eq!(std::fs::read(&out).unwrap(), printed.stdout);
    assert!(String::from_utf8(printed.stdout).unwrap().contains("\"error\""));
    assert_eq!(names(dir.path()), ["out.jsonl"]);
}

/// The output may be the input: it is read whole, or (rows) read on while
/// the new file is written beside it.
#[test]
fn the_output_may_replace_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = dir.path().join("p.txt");
    std::fs::write(&prompt, "/// a comment\nkept\n").unwrap();
    let output = cli().arg("comments").arg(&prompt).arg("-o").arg(&prompt).output().unwrap();
    assert!(output.status.success());
    assert_eq!(std::fs::read_to_string(&prompt).unwrap(), "kept\n");
    let rows = dir.path().join("rows.jsonl");
    std::fs::write(&rows, "{\"state\": {\"n\": 1}}\n{\"state\": {\"n\": 2}}\n").unwrap();
    let output = output_with_stdin(
        cli()
            .args(["batch", "--rows"])
            .arg(&rows)
            .args(["--messages", "--seed", "0", "-o"])
            .arg(&rows),
        "## user\n[[ n ]]\n",
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = std::fs::read_to_string(&rows).unwrap();
    assert_eq!(lines.lines().count(), 2, "{lines}");
    assert!(lines.contains("\"1\"") && lines.contains("\"2\""), "{lines}");
    assert_eq!(names(dir.path()), ["p.txt", "rows.jsonl"]);
}

#[test]
fn a_directory_that_cannot_take_the_file_is_said_first() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("no/such/dir/out");
    let output = output_with_stdin(cli().arg("comments").arg("-o").arg(&out), "text");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.starts_with("error[io_error]: cannot write "), "{stderr}");
    assert!(stderr.contains("no/such/dir/out"), "{stderr}");
    // A directory is not replaced by a file.
    let output = output_with_stdin(cli().arg("comments").arg("-o").arg(dir.path()), "text");
    assert_eq!(output.status.code(), Some(1));
    assert!(dir.path().is_dir());
    assert_eq!(names(dir.path()), Vec::<String>::new());
}

#[cfg(unix)]
#[test]
fn a_replaced_file_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::write(&out, "old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    let output = output_with_stdin(cli().arg("comments").arg("-o").arg(&out), "new");
    assert!(output.status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "new");
    assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o7777, 0o640);
    // A new file is not the temporary file's private 0600.
    let new = dir.path().join("new");
    let output = output_with_stdin(cli().arg("comments").arg("-o").arg(&new), "new");
    assert!(output.status.success());
    let mode = std::fs::metadata(&new).unwrap().permissions().mode();
    assert_ne!(mode & 0o044, 0, "{mode:o}");
}

/// `--errors` cannot be the `-o` file: the output would replace the records.
#[test]
fn errors_and_output_cannot_be_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let args = ["batch", "tests/cli/inputs/batch/envelope.txt", "--rows"];
    for exists in [false, true] {
        if exists {
            std::fs::write(&out, "before\n").unwrap();
        }
        let output = cli()
            .args(args)
            .arg(format!("{INPUTS}/batch/ids.jsonl"))
            .args(["--format", "openai-batch", "--errors"])
            .arg(&out)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{exists}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.starts_with("error[same_file]: "), "{stderr}");
        assert!(stderr.contains("is the -o output"), "{stderr}");
        let expected: &[&str] = if exists { &["out.jsonl"] } else { &[] };
        assert_eq!(names(dir.path()), expected, "{exists}");
        if exists {
            assert_eq!(std::fs::read_to_string(&out).unwrap(), "before\n");
        }
    }
}

/// Killed by SIGTERM, SIGINT or SIGHUP while it waits for its input, a
/// command with `-o` removes its temporary file and dies of that signal
/// (a regression: the `.FILE.XXXXXX.tmp` stayed behind).
#[cfg(target_os = "linux")]
#[test]
fn a_terminating_signal_leaves_no_temporary_file() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    use std::os::unix::process::ExitStatusExt;

    for signal in [
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
        Signal::SIGQUIT,
        Signal::SIGUSR1,
        Signal::SIGUSR2,
        Signal::SIGALRM,
        Signal::SIGXCPU,
        Signal::SIGXFSZ,
        Signal::SIGVTALRM,
        Signal::SIGPROF,
    ] {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        std::fs::write(&target, "old").unwrap();
        let mut child = cli()
            .args(["render", "-o"])
            .arg(&target)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The temporary file is made before the input is read; the open
        // stdin pipe keeps the command waiting.
        let deadline = Instant::now() + Duration::from_secs(30);
        while names(dir.path()).len() < 2 {
            assert!(Instant::now() < deadline, "no temporary file appeared");
            std::thread::sleep(Duration::from_millis(10));
        }
        // Held open until the child is gone: `Child::wait` closes a stdin it
        // still holds, and an end of input would let the command finish
        // before the signal is handled (a flaky failure under load).
        let stdin = child.stdin.take();
        let pid = Pid::from_raw(i32::try_from(child.id()).unwrap());
        kill(pid, signal).unwrap();
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.signal(), Some(signal as i32), "{signal}: {status:?}");
        assert_eq!(names(dir.path()), ["out.txt"], "{signal}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    }
}

/// An existing `-o` target that is not a regular file is written in place,
/// as a shell redirection writes it: a FIFO (also through a link) stays a
/// FIFO and its reader gets the output; a link to standard output writes
/// there; `-o -` is standard output (regression: the FIFO was replaced by
/// a regular file, and `-o -` made a file named `-`).
#[cfg(unix)]
#[test]
fn an_output_that_is_not_a_regular_file_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    for target in [&fifo, &link] {
        let reading = fifo.clone();
        let reader = std::thread::spawn(move || std::fs::read_to_string(reading).unwrap());
        let output = output_with_stdin(cli().arg("comments").arg("-o").arg(target), "abc /// x\n");
        assert!(output.status.success(), "{output:?}");
        assert_eq!(reader.join().unwrap(), "abc\n");
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(names(dir.path()), ["link", "pipe"]);
    }
    // Standard output, by `-` and through a link to it.
    let stdout = dir.path().join("stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &stdout).unwrap();
    for target in [std::path::Path::new("-"), stdout.as_path()] {
        let output = output_with_stdin(cli().arg("comments").arg("-o").arg(target), "hi /// x\n");
        assert!(output.status.success(), "{output:?}");
        assert_eq!(String::from_utf8(output.stdout).unwrap(), "hi\n");
    }
    assert!(std::fs::symlink_metadata(&stdout).unwrap().file_type().is_symlink());
    assert_eq!(names(dir.path()), ["link", "pipe", "stdout"]);
    // A link to a regular file is itself replaced; the file stays as it was.
    let file = dir.path().join("file");
    std::fs::write(&file, "old").unwrap();
    let to_file = dir.path().join("to_file");
    std::os::unix::fs::symlink(&file, &to_file).unwrap();
    let output = output_with_stdin(cli().arg("comments").arg("-o").arg(&to_file), "new");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "old");
    assert_eq!(std::fs::read_to_string(&to_file).unwrap(), "new");
    assert!(std::fs::symlink_metadata(&to_file).unwrap().is_file());
}

/// `--errors` that is one of the batch's inputs (`--tools`, also by another
/// name of the same file) is `same_file`, and the input is left as it was
/// (regression: it was emptied).
#[cfg(unix)]
#[test]
fn errors_cannot_be_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    std::fs::write(&tools, "[]").unwrap();
    let other_name = dir.path().join("also-tools.json");
    std::fs::hard_link(&tools, &other_name).unwrap();
    for errors in [&tools, &other_name] {
        let output = cli()
            .args(["batch", "tests/cli/inputs/batch/envelope.txt", "--rows"])
            .arg(format!("{INPUTS}/batch/ids.jsonl"))
            .args(["--format", "openai-batch", "--tools"])
            .arg(&tools)
            .arg("--errors")
            .arg(errors)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.starts_with("error[same_file]: "), "{stderr}");
        assert!(stderr.contains("the --tools file"), "{stderr}");
        assert_eq!(std::fs::read_to_string(&tools).unwrap(), "[]");
    }
}

#[test]
fn a_data_file_is_never_the_runs_chat_template_or_tools() {
    // A rows or context file named again as the chat template (or the tools)
    // would turn the run's data into its structure: `same_file`, and the file
    // is never read as a template.
    let dir = tempfile::tempdir().unwrap();
    let prompt = dir.path().join("p.txt");
    std::fs::write(&prompt, "/// param: model=m\n## user\n[[ q ]]\n").unwrap();
    let rows = dir.path().join("rows.jsonl");
    std::fs::write(&rows, "{\"q\": \"x\"}\n").unwrap();
    let context = dir.path().join("c.json");
    std::fs::write(&context, "{\"q\": \"x\"}").unwrap();
    let batch = cli()
        .arg("batch")
        .arg(&prompt)
        .arg("--rows")
        .arg(&rows)
        .args(["--provider", "completions", "--chat-template"])
        .arg(&rows)
        .output()
        .unwrap();
    let build = cli()
        .arg("build")
        .arg(&prompt)
        .arg("--context")
        .arg(&context)
        .arg("--tools")
        .arg(&context)
        .output()
        .unwrap();
    for (output, what) in
        [(batch, "the chat template and the rows file"), (build, "the tools and the context")]
    {
        assert_eq!(output.status.code(), Some(1));
        assert!(output.stdout.is_empty());
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.starts_with("error[same_file]: "), "{stderr}");
        assert!(stderr.contains(what), "{stderr}");
    }
}
