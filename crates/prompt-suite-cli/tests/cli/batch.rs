//! `prompt-suite batch`: rows in order, error records, the exit code, and
//! the same output whatever the number of jobs.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

const INPUTS: &str = "tests/cli/inputs/batch";
const EXAMPLES: &str = "tests/examples";

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

/// The batch-file formats: which provider each takes, and the model each
/// test builds with.
const ENVELOPES: [(&str, &str, &str); 4] = [
    ("openai-batch", "openai", "gpt-4o-mini"),
    ("openai-batch", "openai-responses", "gpt-4o-mini"),
    ("anthropic-batch", "anthropic", "claude-sonnet-4-5"),
    ("gemini-batch", "gemini", "gemini-2.5-flash"),
];

fn envelope_args(format: &str, provider: &str, model: &str) -> Vec<String> {
    [
        "batch",
        &format!("{INPUTS}/envelope.txt"),
        "--rows",
        &format!("{INPUTS}/ids.jsonl"),
        "--seed",
        "1",
        "--format",
        format,
        "--provider",
        provider,
        "--param",
        &format!("model={model}"),
        "--id-field",
        "id",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// One snapshot per format, with ids from the rows: a missing id, an id
/// that is not a string, one only Anthropic refuses, a repeated id and an
/// unknown key are error records on standard error, never on standard
/// output, which holds exactly the file the provider takes.
#[test]
fn each_format_with_ids_from_the_rows() {
    for (format, provider, model) in ENVELOPES {
        assert_cmd_snapshot!(
            format!("envelope_{format}_{provider}").replace('-', "_"),
            cli().args(envelope_args(format, provider, model))
        );
    }
}

/// Without `--id-field`, row i's id is `row-i`; with `--errors FILE` the
/// records go to the file and standard error holds only the summary.
#[test]
fn row_ids_and_an_errors_file() {
    let dir = tempfile::tempdir().unwrap();
    let errors = dir.path().join("errors.jsonl");
    let output = crate::output_with_stdin(
        cli()
            .args(["batch", "--rows", &format!("{INPUTS}/mixed.jsonl"), "--seed", "1"])
            .args(["--format", "openai-batch", "--param", "model=gpt-4o-mini"])
            .args(["--errors", errors.to_str().unwrap(), "--error-format", "json"]),
        "## user\n[[ q ]]\n",
    );
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let records = std::fs::read_to_string(&errors).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&stderr).unwrap();
    assert_eq!(summary["error"]["kind"], "batch_failed", "{stderr}");
    let ids: Vec<String> = stdout
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .map(|line| line["custom_id"].as_str().unwrap().to_owned())
        .collect();
    let failed: Vec<u64> = records
        .lines()
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["row"].as_u64().unwrap()
        })
        .collect();
    // Every row is in exactly one of the two, by its number.
    let mut all: Vec<String> = failed.iter().map(|row| format!("row-{row}")).collect();
    all.extend(ids.iter().cloned());
    all.sort_by_key(|id| id[4..].parse::<u64>().unwrap());
    let rows = std::fs::read_to_string(format!("{INPUTS}/mixed.jsonl")).unwrap().lines().count();
    assert_eq!(all, (0..rows).map(|i| format!("row-{i}")).collect::<Vec<_>>());
    assert!(!ids.is_empty() && !failed.is_empty());
    assert!(!stdout.contains("\"error\""), "{stdout}");
}

/// An Anthropic batch is one JSON document even when every row fails or
/// there is no row at all.
#[test]
fn anthropic_batch_with_no_request_is_still_json() {
    for rows in ["", "5\n{\"nope\": 1}\n"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.jsonl");
        std::fs::write(&path, rows).unwrap();
        let output = cli()
            .args(["batch", &format!("{INPUTS}/envelope.txt"), "--rows", path.to_str().unwrap()])
            .args(["--format", "anthropic-batch", "--provider", "anthropic"])
            .args(["--param", "model=claude-sonnet-4-5"])
            .args(["--errors", dir.path().join("e").to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(if rows.is_empty() { 0 } else { 1 }));
        assert_eq!(String::from_utf8(output.stdout).unwrap(), "{\"requests\":[\n]}\n");
    }
}

/// Flags that cannot go together are usage errors (exit code 2), before
/// anything is read.
#[test]
fn conflicting_batch_flags_are_usage_errors() {
    let cases: [(&str, &[&str]); 6] = [
        ("format_not_provider", &["--format", "openai-batch", "--provider", "gemini"]),
        ("anthropic_format_default_provider", &["--format", "anthropic-batch"]),
        (
            "envelope_of_messages",
            &["--format", "gemini-batch", "--provider", "gemini", "--messages"],
        ),
        ("id_field_with_bodies", &["--id-field", "id"]),
        ("errors_with_bodies", &["--errors", "e.jsonl"]),
        ("id_field_is_a_store", &["--format", "openai-batch", "--id-field", "global"]),
    ];
    for (name, flags) in cases {
        assert_cmd_snapshot!(
            format!("usage_{name}"),
            cli().args(["batch", "missing.txt", "--rows", "missing.jsonl"]).args(flags)
        );
    }
}

/// Every envelope checked against the providers' published shapes
/// (docs/providers-sources.md): the OpenAI batch line by hand
/// (`BatchRequestInput`, openai-openapi 498c71dd), Anthropic's
/// `POST /v1/messages/batches` body and Gemini's batch line with the strict
/// SDK shapes of prompt-pipeline's tests.
#[test]
fn envelopes_have_the_providers_shapes() {
    for (format, provider, model) in ENVELOPES {
        let output = cli().args(envelope_args(format, provider, model)).output().unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        let errors = match format {
            "openai-batch" => {
                stdout.lines().flat_map(|line| openai_line_errors(line, provider)).collect()
            }
            "anthropic-batch" => {
                crate::anthropic::batch_errors(&serde_json::from_str(&stdout).unwrap())
            }
            _ => stdout
                .lines()
                .flat_map(|line| {
                    crate::gemini::batch_line_errors(&serde_json::from_str(line).unwrap())
                })
                .collect::<Vec<_>>(),
        };
        assert!(errors.is_empty(), "{format}: {errors:#?}\n{stdout}");
        let requests = match format {
            "anthropic-batch" => stdout.lines().count() - 2,
            _ => stdout.lines().count(),
        };
        let expected = if format == "anthropic-batch" { 2 } else { 3 };
        assert_eq!(requests, expected, "{format}: {stdout}");
    }
}

/// `BatchRequestInput`: exactly `{custom_id, method, url, body}`, `method`
/// "POST", `url` the endpoint of `provider`'s bodies (`CreateBatchRequest`'s
/// `endpoint`), `body` an object with a model and messages (chat) or input
/// (Responses).
fn openai_line_errors(line: &str, provider: &str) -> Vec<String> {
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    let Some(object) = value.as_object() else { return vec![format!("not an object: {line}")] };
    let mut errors = Vec::new();
    let keys: Vec<&str> = object.keys().map(String::as_str).collect();
    if keys != ["custom_id", "method", "url", "body"] {
        errors.push(format!("keys {keys:?}"));
    }
    if object["custom_id"].as_str().is_none_or(str::is_empty) {
        errors.push("custom_id is not a non-empty string".to_owned());
    }
    if object["method"] != "POST" {
        errors.push("method is not POST".to_owned());
    }
    let (url, conversation) = match provider {
        "openai" => ("/v1/chat/completions", "messages"),
        _ => ("/v1/responses", "input"),
    };
    if object["url"] != url {
        errors.push(format!("url {}", object["url"]));
    }
    let body = &object["body"];
    if !(body["model"].is_string() && body[conversation].is_array()) {
        errors.push(format!("body {body}"));
    }
    errors
}

/// `--errors` naming the rows file or the prompt is refused before it is
/// created: the file being read is left as it was.
#[test]
fn the_errors_file_is_never_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let (prompt, rows) = (dir.path().join("p.txt"), dir.path().join("rows.jsonl"));
    std::fs::write(&prompt, "/// param: model=gpt-4o-mini\n## user\n[[ n ]]\n").unwrap();
    std::fs::write(&rows, "{\"state\": {\"n\": 1}}\n").unwrap();
    for (target, what) in [(&rows, "the rows file"), (&prompt, "the prompt")] {
        let before = std::fs::read(target).unwrap();
        let output = cli()
            .args(["batch", prompt.to_str().unwrap(), "--rows", rows.to_str().unwrap()])
            .args(["--format", "openai-batch", "--errors", target.to_str().unwrap()])
            .args(["--error-format", "json"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let error: serde_json::Value = serde_json::from_slice(&output.stderr).unwrap();
        assert_eq!(error["error"]["kind"], "same_file");
        assert!(error["error"]["message"].as_str().unwrap().contains(what), "{error}");
        assert!(output.stdout.is_empty());
        assert_eq!(std::fs::read(target).unwrap(), before);
    }
}

/// `batch --speaker/--transcript/--full` do what they do for `build`: row i's
/// line is `build`'s output for that row's context and seed `N + i`, on any
/// number of jobs.
#[test]
fn transcript_and_full_are_builds_flags() {
    let dir = tempfile::tempdir().unwrap();
    let rows = dir.path().join("rows.jsonl");
    let contexts = ["debate/ana.json", "debate/ben.json", "debate/chen.json"];
    let text: String = contexts
        .iter()
        .map(|c| {
            std::fs::read_to_string(format!("{EXAMPLES}/{c}")).unwrap().trim().to_owned() + "\n"
        })
        .collect();
    std::fs::write(&rows, text).unwrap();
    let prompt = format!("{EXAMPLES}/debate/agent.txt");
    let transcript = format!("{EXAMPLES}/debate/transcript.json");
    let shared = ["--speaker", "ben", "--transcript", &transcript, "--provider", "anthropic"];
    for extra in [&["--full"][..], &[], &["--full", "--messages"], &["--label", "[{speaker}] "]] {
        let mut expected = String::new();
        for (i, context) in contexts.iter().enumerate() {
            let built = cli()
                .args(["build", &prompt, "--context", &format!("{EXAMPLES}/{context}")])
                .args(shared)
                .args(extra)
                .args(["--seed", &(5 + i).to_string()])
                .output()
                .unwrap();
            assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
            expected.push_str(&String::from_utf8(built.stdout).unwrap());
        }
        for jobs in ["1", "3"] {
            let batch = cli()
                .args(["batch", &prompt, "--rows", rows.to_str().unwrap(), "--seed", "5"])
                .args(shared)
                .args(extra)
                .args(["--jobs", jobs])
                .output()
                .unwrap();
            assert!(batch.status.success(), "{}", String::from_utf8_lossy(&batch.stderr));
            assert_eq!(String::from_utf8(batch.stdout).unwrap(), expected, "{extra:?}");
        }
    }
    // Each line of `--full` is one whole object.
    let full = cli()
        .args(["batch", &prompt, "--rows", rows.to_str().unwrap(), "--seed", "5", "--full"])
        .args(shared)
        .output()
        .unwrap();
    for (row, line) in String::from_utf8(full.stdout).unwrap().lines().enumerate() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["body", "notices", "messages", "metadata", "writes", "effects", "seed"]);
        // Row i's seed is N+i.
        assert_eq!(value["seed"], 5 + row);
    }
}

#[test]
fn full_and_transcript_usage_errors() {
    let rows = format!("{INPUTS}/mixed.jsonl");
    assert_cmd_snapshot!(
        "usage_full_with_envelope",
        cli().args(["batch", "--rows", &rows, "--full", "--format", "openai-batch"])
    );
    assert_cmd_snapshot!(
        "usage_speaker_without_transcript",
        cli().args(["batch", "--rows", &rows, "--speaker", "ben"])
    );
}

/// A bare `[[name]]` that reads an undefined name warns once per name for
/// the whole batch (rows 0 and 2 both lack `Onboarding`), whatever the jobs.
#[test]
fn an_undefined_bare_tag_warns_once_per_batch() {
    let prompt = "tests/cli/inputs/build/wiki_links.txt";
    let rows = format!("{INPUTS}/wiki_rows.jsonl");
    for jobs in ["1", "3"] {
        let args = ["batch", prompt, "--rows", &rows, "--seed", "1", "--jobs", jobs];
        assert_cmd_snapshot!("undefined_bare_tag_batch", cli().args(args));
    }
}

/// Every row notice reaches standard error (not only `undefined_variable`):
/// each distinct one once for the whole batch, with the first row that gave
/// it, in row order, after the rows, whatever the jobs. The provider's
/// `model_family_mismatch` is row 0's; `@bo` first comes in row 1, the
/// undefined `[[topic]]` in row 2 (row 3 defines it).
#[test]
fn every_row_notice_warns_once_per_batch_with_its_row() {
    let prompt = format!("{INPUTS}/row_notices.txt");
    let rows = format!("{INPUTS}/row_notices.jsonl");
    for jobs in ["1", "3"] {
        let args = ["batch", &prompt, "--rows", &rows, "--seed", "1", "--jobs", jobs];
        assert_cmd_snapshot!("row_notices_batch", cli().args(args));
    }
}

/// The requests of one batch file of `format` (JSONL lines, or the
/// Anthropic document's `requests`), each checked to be what the provider
/// reads.
fn requests_of(format: &str, text: &str) -> Vec<serde_json::Value> {
    if format == "anthropic-batch" {
        let document: serde_json::Value = serde_json::from_str(text).unwrap();
        return document["requests"].as_array().unwrap().clone();
    }
    assert!(text.ends_with('\n') || text.is_empty(), "{text}");
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// `--split`: numbered files named after `-o`, their names on standard
/// output, each a whole file of the format within the limits
/// (`--max-requests`, `--max-bytes`), holding together exactly the
/// requests of the one file, in order; the error records as without it.
#[test]
fn split_writes_numbered_files_within_the_limits() {
    for (format, provider, model) in ENVELOPES {
        let whole = cli().args(envelope_args(format, provider, model)).output().unwrap();
        let whole_requests = requests_of(format, &String::from_utf8(whole.stdout).unwrap());
        assert!(whole_requests.len() >= 2, "{format}: {whole_requests:?}");
        let one = serde_json::to_vec(&whole_requests[0]).unwrap().len() as u64;
        for (limit, value, files) in
            [("--max-requests", "1".to_owned(), 2), ("--max-bytes", (one + 40).to_string(), 2)]
        {
            let dir = tempfile::tempdir().unwrap();
            let base = dir.path().join("requests.jsonl");
            let output = cli()
                .args(envelope_args(format, provider, model))
                .args(["--split", limit, &value, "-o", base.to_str().unwrap()])
                .output()
                .unwrap();
            assert_eq!(output.status.code(), whole.status.code(), "{format} {limit}");
            assert_eq!(output.stderr, whole.stderr, "{format} {limit}: the same records");
            let names = String::from_utf8(output.stdout).unwrap();
            let names: Vec<&str> = names.lines().collect();
            let expected: Vec<String> = (1..=names.len())
                .map(|n| dir.path().join(format!("requests-{n:04}.jsonl")).display().to_string())
                .collect();
            assert_eq!(names, expected, "{format} {limit}");
            assert!(names.len() >= files, "{format} {limit}: {names:?}");
            assert!(!base.exists(), "the -o file itself is not written");
            let mut all = Vec::new();
            for name in &names {
                let text = std::fs::read_to_string(name).unwrap();
                let requests = requests_of(format, &text);
                assert!(!requests.is_empty(), "{name}");
                match limit {
                    "--max-requests" => assert_eq!(requests.len(), 1, "{name}"),
                    _ => assert!(
                        text.len() as u64 <= one + 40 || requests.len() == 1,
                        "{name}: {} bytes",
                        text.len()
                    ),
                }
                all.extend(requests);
            }
            assert_eq!(all, whole_requests, "{format} {limit}");
        }
    }
}

/// A file of the next number left by an earlier run is named in a
/// warning; `--split` without `-o`, with `-o -` or with bare bodies, and
/// `--max-requests` without `--split`, are usage errors.
#[test]
fn split_usage_and_a_stale_file() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("out.jsonl");
    let stale = dir.path().join("out-0003.jsonl");
    std::fs::write(&stale, "old\n").unwrap();
    let (format, provider, model) = ENVELOPES[0];
    let output = cli()
        .args(envelope_args(format, provider, model))
        .args(["--split", "--max-requests", "2", "-o", base.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(dir.path().join("out-0002.jsonl").exists(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "warning[stale_batch_file]: {} is not part of this batch of 2 file(s)",
            stale.display()
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&stale).unwrap(), "old\n", "left as it was");
    let envelope = ["--format", "openai-batch", "--param", "model=m"];
    let cases: [&[&str]; 4] = [
        &["--split"],
        &["--split", "-o", "-"],
        &["--split", "--param", "model=m", "-o", "x.jsonl"],
        &["--max-requests", "3", "-o", "x.jsonl"],
    ];
    for (i, flags) in cases.into_iter().enumerate() {
        let mut command = cli();
        command.args(["batch", "missing.txt", "--rows", "missing.jsonl"]).args(flags);
        if i == 0 || i == 1 || i == 3 {
            command.args(envelope);
        }
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
        assert!(output.stdout.is_empty());
    }
}

/// A batch file past its provider's limit (here OpenAI's 50 000
/// requests) is `warning[batch_limit]` naming both figures and `--split`;
/// with `--split` the same rows make two files within it, quietly.
#[test]
fn a_batch_past_the_provider_limit_warns_or_splits() {
    let dir = tempfile::tempdir().unwrap();
    let rows = dir.path().join("rows.jsonl");
    std::fs::write(&rows, "{}\n".repeat(50_001)).unwrap();
    let prompt = dir.path().join("p.txt");
    std::fs::write(&prompt, "/// param: model=m\n## user\nHi\n").unwrap();
    let base = dir.path().join("out.jsonl");
    let run =
        |split: bool| {
            let mut command = cli();
            command
                .args(["batch", prompt.to_str().unwrap(), "--rows", rows.to_str().unwrap()])
                .args(["--format", "openai-batch", "--seed", "0", "-o", base.to_str().unwrap()]);
            if split {
                command.arg("--split");
            }
            command.output().unwrap()
        };
    let output = run(false);
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(
            "warning[batch_limit]: the openai-batch file holds 50001 requests in \
             6789026 bytes, over 50000 requests and 200000000 bytes a file; the provider \
             refuses it: pass `--split`"
        ),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&base).unwrap().lines().count(), 50_001);
    let output = run(true);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
    let counts: Vec<usize> = ["out-0001.jsonl", "out-0002.jsonl"]
        .map(|name| std::fs::read_to_string(dir.path().join(name)).unwrap().lines().count())
        .to_vec();
    assert_eq!(counts, [50_000, 1]);
}

/// `--provider completions` rows in an OpenAI batch file at
/// `/v1/completions`; the row whose value spells a control token is its
/// own error record.
#[test]
fn completions_rows_in_an_openai_batch() {
    assert_cmd_snapshot!(cli().args([
        "batch",
        "tests/cli/inputs/build/completions-turns.txt",
        "--rows",
        &format!("{INPUTS}/completions-rows.jsonl"),
        "--provider",
        "completions",
        "--chat-template",
        "tests/cli/inputs/build/completions-tools.jinja",
        "--now",
        "2026-01-02T03:04:05Z",
        "--format",
        "openai-batch",
        "--jobs",
        "2",
    ]));
}
