//! `prompt-suite batch`: rows in order, error records, the exit code, and
//! the same output whatever the number of jobs.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

const INPUTS: &str = "tests/cli/inputs/batch";
const EXAMPLES: &str = "../../examples";

#[test]
fn roleplay_rows_with_one_failing() {
    assert_cmd_snapshot!(cli().args([
        "batch",
        &format!("{EXAMPLES}/roleplay/preset.txt"),
        "--rows",
        &format!("{EXAMPLES}/roleplay/rows.jsonl"),
        "--seed",
        "7",
        "--provider",
        "anthropic",
    ]));
}

#[test]
fn bad_rows_are_error_records_in_both_formats() {
    let rows = format!("{INPUTS}/mixed.jsonl");
    let args = ["batch", "--rows", &rows, "--seed", "1", "--param", "model=gpt-5.4"];
    assert_cmd_snapshot!("mixed_rows_human", cli().args(args).pass_stdin("## user\n[[ q ]]\n"));
    assert_cmd_snapshot!(
        "mixed_rows_json",
        cli().args(args).args(["--error-format", "json"]).pass_stdin("## user\n[[ q ]]\n")
    );
}

#[test]
fn rows_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = dir.path().join("p.txt");
    std::fs::write(&prompt, "/// param: temperature=0.5\n## user\n[[ n ]]\n").unwrap();
    assert_cmd_snapshot!(
        cli()
            .args(["batch", prompt.to_str().unwrap(), "--rows", "-", "--seed", "0"])
            .args(["--param", "model=gpt-5.4"])
            .pass_stdin("{\"state\": {\"n\": 1}}\n{\"state\": {\"n\": 2}}\n")
    );
}

#[test]
fn a_broken_prompt_stops_before_any_row() {
    assert_cmd_snapshot!(
        cli()
            .args(["batch", "--rows", &format!("{INPUTS}/mixed.jsonl"), "--error-format", "json"])
            .pass_stdin("[% if %]")
    );
}

/// Many rows across chunk boundaries: the output is in input order, each row
/// with its own seed, and identical for one job and for four.
#[test]
fn order_and_seeds_do_not_depend_on_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = dir.path().join("p.txt");
    std::fs::write(
        &prompt,
        "## user\n[[ i ]] [% weighted %][% choice 1 %]a[% endchoice %][% choice 1 %]b[% endchoice %][% endweighted %]\n",
    )
    .unwrap();
    let rows = dir.path().join("rows.jsonl");
    let text: String = (0..5000).map(|i| format!("{{\"state\": {{\"i\": {i}}}}}\n")).collect();
    std::fs::write(&rows, text).unwrap();
    let run = |jobs: &str| {
        let output = cli()
            .args(["batch", prompt.to_str().unwrap(), "--rows", rows.to_str().unwrap()])
            .args(["--seed", "3", "--jobs", jobs, "--param", "model=gpt-5.4"])
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    let one = run("1");
    assert_eq!(one, run("4"));
    let lines: Vec<&str> = one.lines().collect();
    assert_eq!(lines.len(), 5000);
    for (i, line) in lines.iter().enumerate() {
        let body: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = body["messages"][0]["content"].as_str().unwrap();
        assert!(text == format!("{i} a") || text == format!("{i} b"), "{text}");
    }
    assert!(lines.iter().any(|l| l.contains(" a\"")) && lines.iter().any(|l| l.contains(" b\"")));
}

/// Rows are strict JSON: a byte order mark only before the first row, a
/// repeated key or an integer beyond 64 bits is an error record pointing
/// into the rows file, with the reader's message.
#[test]
fn rows_are_strict_json() {
    assert_cmd_snapshot!(
        cli()
            .args(["batch", "--rows", &format!("{INPUTS}/strict.jsonl"), "--seed", "1"])
            .args(["--param", "model=gpt-5.4"])
            .pass_stdin("## user\n[[ q ]]\n")
    );
}
