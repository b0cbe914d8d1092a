//! `prompt-suite build`: every example for each provider, the stage
//! switches, and the errors of each stage in both renderings.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

const INPUTS: &str = "tests/cli/inputs/build";
const EXAMPLES: &str = "tests/examples";

fn example(path: &str) -> String {
    format!("{EXAMPLES}/{path}")
}

/// `build` of the support bot with its context, for `provider`.
fn support_bot_for(provider: &str) -> std::process::Command {
    let mut command = cli();
    command.args([
        "build",
        &example("support-bot/prompt.txt"),
        "--context",
        &example("support-bot/context.json"),
        "--provider",
        provider,
    ]);
    command
}

#[test]
fn support_bot_for_anthropic() {
    assert_cmd_snapshot!(support_bot_for("anthropic"));
}

#[test]
fn param_flags_override_the_prompts_params() {
    // The prompt names an OpenAI model; `--param` sends Anthropic's instead.
    let mut command = support_bot_for("anthropic");
    command.args(["--param", "model=claude-sonnet-4-5", "--param", "max_tokens=100"]);
    assert_cmd_snapshot!(command);
}

#[test]
fn a_bad_param_flag_is_a_usage_error() {
    assert_cmd_snapshot!(cli().args([
        "build",
        &example("support-bot/prompt.txt"),
        "--param",
        "temperature=warm",
    ]));
    assert_cmd_snapshot!(cli().args([
        "build",
        &example("support-bot/prompt.txt"),
        "--param",
        "model"
    ]));
}

#[test]
fn roleplay_full_output_for_openai() {
    assert_cmd_snapshot!(cli().args([
        "build",
        &example("roleplay/preset.txt"),
        "--context",
        &example("roleplay/context.json"),
        "--seed",
        "42",
        "--full",
    ]));
}

#[test]
fn narrative_bundle_for_gemini() {
    assert_cmd_snapshot!(cli().args([
        "build",
        &example("narrative/conversation.lmmlz"),
        "--context",
        &example("narrative/context.json"),
        "--provider",
        "gemini",
    ]));
}

#[test]
fn narrative_with_embeds_dir_equals_bundle() {
    let run = |args: &[&str]| {
        let mut command = cli();
        command.arg("build").args(args).args([
            "--context",
            &example("narrative/context.json"),
            "--provider",
            "anthropic",
        ]);
        command.output().unwrap()
    };
    let bundle = run(&[&example("narrative/conversation.lmmlz")]);
    let dir = example("narrative");
    let directory = run(&[&example("narrative/conversation.lmml"), "--embeds-dir", &dir]);
    assert!(bundle.status.success() && directory.status.success());
    assert_eq!(String::from_utf8_lossy(&bundle.stdout), String::from_utf8_lossy(&directory.stdout));
}

#[test]
fn debate_flipped_for_ben() {
    assert_cmd_snapshot!(cli().args([
        "build",
        &example("debate/agent.txt"),
        "--context",
        &example("debate/ben.json"),
        "--speaker",
        "ben",
        "--transcript",
        &example("debate/transcript.json"),
        "--provider",
        "anthropic",
    ]));
}

#[test]
fn debate_for_a_speaker_who_never_speaks() {
    // `Ben` for `ben`: a typing slip, refused with its near miss.
    let args = |speaker: &'static str| {
        let mut command = cli();
        command.args([
            "build",
            &example("debate/agent.txt"),
            "--context",
            &example("debate/ben.json"),
            "--speaker",
            speaker,
            "--transcript",
            &example("debate/transcript.json"),
            "--full",
            "--seed",
            "1",
        ]);
        command
    };
    assert_cmd_snapshot!("debate_unknown_speaker", args("Ben"));
    // `dee`, whose first turn this is: a warning, and the notice in `--full`.
    assert_cmd_snapshot!("debate_speaker_not_in_transcript", args("dee"));
}

#[test]
fn debate_with_flip_flags_shows_others_as_told() {
    // `--label`, `--speaker-name` and `--no-sanitize` work as in `flip`: the
    // forged `SYSTEM -` line in Ben's turn stays as written.
    assert_cmd_snapshot!(cli().args([
        "build",
        &example("debate/agent.txt"),
        "--context",
        &example("debate/ana.json"),
        "--speaker",
        "ana",
        "--transcript",
        &example("debate/transcript.json"),
        "--label",
        "[{speaker}] ",
        "--speaker-name",
        "both",
        "--no-sanitize",
    ]));
}

/// The one merge of same-role turns: for Anthropic the body is the same
/// whatever `--alternation` says, and a run holding an image joins its
/// texts as a text-only run does (the image stays a block between).
#[test]
fn alternation_no_longer_changes_the_body() {
    let prompt = "/// param: model=claude-sonnet-4-5, max_tokens=50\n## user\nLook:\n## user\nWhat is @funnel.png ?\n\
                  ## user\nThanks.\n## assistant\nA funnel.\n";
    let dir = example("narrative");
    let run = |alternation: &str| {
        let mut command = cli();
        command.args(["build", "--provider", "anthropic", "--embeds-dir", &dir]);
        command.args(["--alternation", alternation]);
        command
    };
    let auto = crate::output_with_stdin(&mut run("auto"), prompt);
    assert!(auto.status.success(), "{}", String::from_utf8_lossy(&auto.stderr));
    for alternation in ["never", "always"] {
        let output = crate::output_with_stdin(&mut run(alternation), prompt);
        assert_eq!(output.stdout, auto.stdout, "{alternation}");
    }
    assert_cmd_snapshot!(run("never").pass_stdin(prompt));
}

#[test]
fn messages_only_and_stage_switches() {
    let prompt = "/// param: top_k=3\nHi [[ 1 + 1 ]]\n## user\nYo\n";
    assert_cmd_snapshot!("messages_only", cli().args(["build", "--messages"]).pass_stdin(prompt));
    assert_cmd_snapshot!(
        "no_template_no_segment",
        cli()
            .args(["build", "--no-template", "--no-segment", "--context-as", "user"])
            .args(["--param", "model=gpt-5.4"])
            .pass_stdin(prompt)
    );
    assert_cmd_snapshot!(
        "no_comments",
        cli().args(["build", "--no-comments", "--messages"]).pass_stdin(prompt)
    );
}

#[test]
fn notices_go_to_stderr() {
    assert_cmd_snapshot!(
        cli()
            .args(["build", "--provider", "gemini"])
            .pass_stdin("/// param: logprobs=true, top_k=4\n## user\nHi\n")
    );
}

#[test]
fn template_error_points_at_the_prompt_line() {
    let path = format!("{INPUTS}/err_filter.txt");
    assert_cmd_snapshot!("err_filter_human", cli().args(["build", &path]));
    assert_cmd_snapshot!("err_filter_json", cli().args(["build", &path, "--error-format", "json"]));
}

#[test]
fn param_error_points_at_the_param_line() {
    let path = format!("{INPUTS}/err_param.txt");
    assert_cmd_snapshot!("err_param_human", cli().args(["build", &path]));
    assert_cmd_snapshot!("err_param_json", cli().args(["build", &path, "--error-format", "json"]));
}

#[test]
fn missing_embed_points_into_the_rendered_narrative() {
    let path = format!("{INPUTS}/err_missing_embed.txt");
    assert_cmd_snapshot!("err_missing_embed_human", cli().args(["build", &path]));
    assert_cmd_snapshot!(
        "err_missing_embed_json",
        cli().args(["build", &path, "--error-format", "json"])
    );
}

#[test]
fn transcript_error_points_at_the_transcript() {
    let transcript = format!("{INPUTS}/err_transcript.json");
    let args = ["build", "--speaker", "ana", "--transcript", &transcript];
    assert_cmd_snapshot!("err_transcript_human", cli().args(args).pass_stdin("Be brief."));
    assert_cmd_snapshot!(
        "err_transcript_json",
        cli().args(args).args(["--error-format", "json"]).pass_stdin("Be brief.")
    );
}

#[test]
fn provider_errors() {
    assert_cmd_snapshot!(
        "err_missing_model",
        cli().args(["build", "--provider", "anthropic"]).pass_stdin("## user\nHi\n")
    );
    assert_cmd_snapshot!(
        "err_missing_max_tokens",
        cli()
            .args(["build", "--provider", "anthropic", "--param", "model=claude-sonnet-4-5"])
            .pass_stdin("## user\nHi\n")
    );
    assert_cmd_snapshot!(
        "err_no_messages_json",
        cli()
            .args(["build", "--provider", "gemini", "--error-format", "json"])
            .pass_stdin("Only a system prompt.\n")
    );
}

#[test]
fn bad_bundle_and_usage_errors() {
    assert_cmd_snapshot!(
        "err_bad_bundle",
        cli().args(["build", "--error-format", "json"]).pass_stdin(&b"PK\x03\x04broken"[..])
    );
    assert_cmd_snapshot!("err_speaker_without_transcript", cli().args(["build", "--speaker", "a"]));
}

#[test]
fn strict_rejects_undefined_values() {
    assert_cmd_snapshot!(
        cli().args(["build", "--strict", "--messages"]).pass_stdin("## user\nHi [[ nobody ]]\n")
    );
}

#[test]
fn a_repeated_param_key_is_a_warning_and_a_notice() {
    let prompt = format!("{INPUTS}/repeated_param.txt");
    assert_cmd_snapshot!("repeated_param_warning", cli().args(["build", &prompt, "--seed", "1"]));
    assert_cmd_snapshot!(
        "repeated_param_notice",
        cli().args(["build", &prompt, "--seed", "1", "--full"])
    );
}

/// `--tools`, `--tool-choice`, `--response-schema` and `--provider
/// openai-responses`; the flags win over the prompt's directives, whose
/// paths resolve beside the prompt file and never outside it.
#[test]
fn tools_choice_and_schema_flags() {
    let tools = example("tools/tools.json");
    let schema = example("structured/triage.schema.json");
    assert_cmd_snapshot!(
        "tools_flags_responses",
        cli()
            .args(["build", "--provider", "openai-responses", "--param", "model=gpt-5.4"])
            .args([
                "--tools",
                &tools,
                "--tool-choice",
                "get_forecast",
                "--response-schema",
                &schema,
            ])
            .pass_stdin("## user\nForecast for Lyon?\n")
    );
    // The directive's file is beside the prompt: the example builds from
    // anywhere; a flag replaces the directive's choice.
    let output = cli()
        .args(["build", &example("tools/prompt.txt"), "--context", &example("tools/context.json")])
        .args(["--tool-choice", "required", "--provider", "anthropic"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let body: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(body["tool_choice"], serde_json::json!({"type": "any"}));
    assert_eq!(body["tools"][1]["name"], "get_forecast");
    // Refusals: a choice naming no tool, a directive path outside the
    // prompt's directory.
    assert_cmd_snapshot!(
        "err_tool_choice_unknown",
        cli()
            .args(["build", "--param", "model=gpt-5.4", "--tools", &tools, "--tool-choice", "nope"])
            .pass_stdin("## user\nHi\n")
    );
    let dir = tempfile::tempdir().unwrap();
    let prompt = dir.path().join("p.txt");
    std::fs::write(&prompt, "/// param: model=gpt-5.4\n/// tools: ../tools.json\n## user\nHi\n")
        .unwrap();
    let output = cli().args(["build", prompt.to_str().unwrap(), "--error-format", "json"]).output();
    let output = output.unwrap();
    assert_eq!(output.status.code(), Some(1));
    let error: serde_json::Value = serde_json::from_slice(&output.stderr).unwrap();
    assert_eq!(error["error"]["kind"], "unsafe_entry", "{error}");
    assert_eq!(error["error"]["line"], 2);
}

#[test]
fn role_aliases_and_an_unresolved_handle_in_a_build() {
    let prompt = "/// param: model=gpt-4o-mini\n#### You:\nthanks @dana for the list\n\
                  #### ChatGPT:\nYou are welcome.\n";
    assert_cmd_snapshot!(
        cli()
            .args([
                "build",
                "--full",
                "--seed",
                "1",
                "--role-alias",
                "You=user",
                "--role-alias",
                "ChatGPT=assistant"
            ])
            .pass_stdin(prompt)
    );
    assert_cmd_snapshot!(cli().args(["batch", "--role-alias", "You"]).pass_stdin(""));
}

/// A bare `[[name]]` that reads an undefined name (a wiki link, a TOML
/// table) is a warning placed in the prompt file, once per name, and a
/// notice in `--full`; `--strict` makes it an error instead.
#[test]
fn an_undefined_bare_tag_is_a_warning_and_a_notice() {
    let prompt = format!("{INPUTS}/wiki_links.txt");
    let context = format!("{INPUTS}/wiki_context.json");
    let args = ["build", &prompt, "--seed", "1", "--context", &context];
    assert_cmd_snapshot!("undefined_bare_tag_warning", cli().args(args));
    assert_cmd_snapshot!("undefined_bare_tag_notice", cli().args(args).arg("--full"));
    assert_cmd_snapshot!("undefined_bare_tag_strict", cli().args(args).arg("--strict"));
}

/// Never a silent wrong answer: a misspelled name (whatever the spacing)
/// and the turn it empties are warnings; a request left with no message
/// says which turns went empty; an embed never closed is a warning.
#[test]
fn what_a_render_silently_lost_is_said() {
    let input = |name: &str| format!("{INPUTS}/{name}");
    assert_cmd_snapshot!(
        "misspelled_variable",
        cli().args(["build", &input("misspelled_variable.txt"), "--seed", "0"])
    );
    assert_cmd_snapshot!(
        "all_turns_empty",
        cli().args(["build", &input("all_turns_empty.txt"), "--provider", "anthropic"])
    );
    // OpenAI takes a system message alone, never no message at all: a
    // prompt whose every turn went empty (or an empty prompt) is an error
    // there too, never an empty body with exit 0.
    assert_cmd_snapshot!(
        "all_turns_empty_openai",
        cli().args(["build", &input("all_turns_empty.txt"), "--param", "model=gpt-4o"])
    );
    assert_cmd_snapshot!(
        "empty_prompt_openai_responses",
        cli()
            .args(["build", "--provider", "openai-responses", "--param", "model=gpt-4o"])
            .pass_stdin("/// note: nothing else\n")
    );
    assert_cmd_snapshot!(
        "unclosed_embed",
        cli().args(["build", &input("unclosed_embed.txt"), "--messages"])
    );
    // `render` of a lone template prints nothing for `[[ name ]]` as meant.
    assert_cmd_snapshot!(
        "render_spaced_undefined_is_quiet",
        cli().args(["render", "-t", "a[[ mesage ]]b [[wiki]]"])
    );
}

/// `build --full` reports the seed it built with: the one given, or the one
/// drawn (below 2^53), which replays the build.
#[test]
fn full_reports_the_seed() {
    let prompt = "/// param: model=gpt-4o\n## user\n\
                  [% chance 0.5 %]a[% endchance %][% chance 0.5 %]b[% endchance %]\
                  [% chance 0.5 %]c[% endchance %][% chance 0.5 %]d[% endchance %]!\n";
    let full = |args: &[&str]| -> serde_json::Value {
        let out = crate::output_with_stdin(cli().args(["build", "--full"]).args(args), prompt);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    assert_eq!(full(&["--seed", "9"])["seed"], 9);
    for _ in 0..3 {
        let drawn = full(&[]);
        let seed = drawn["seed"].as_u64().unwrap();
        assert!(seed < 1 << 53, "{seed}");
        assert_eq!(full(&["--seed", &seed.to_string()])["body"], drawn["body"]);
    }
}

/// `--provider completions`: the conversation (tool call and result, the
/// prompt's tools) through a chat template written for these tests, into
/// `{"model", "prompt", ...params}`.
#[test]
fn completions_through_a_chat_template() {
    let template = format!("{INPUTS}/completions-tools.jinja");
    let now = "2026-01-02T03:04:05Z";
    assert_cmd_snapshot!(
        "completions_with_tools",
        cli().args([
            "build",
            &example("tools/prompt.txt"),
            "--context",
            &example("tools/context.json"),
            "--provider",
            "completions",
            "--chat-template",
            &template,
            "--now",
            now,
            "--param",
            "model=qwen2.5-7b-instruct",
        ])
    );
    assert_cmd_snapshot!(
        "completions_with_tool_calls",
        cli().args([
            "build",
            &format!("{INPUTS}/completions-turns.txt"),
            "-D",
            "city=Lyon",
            "--provider",
            "completions",
            "--chat-template",
            &template,
            "--now",
            now,
        ])
    );
    // A config's named template (`tool_use` when tools are offered).
    assert_cmd_snapshot!(
        "completions_with_a_config",
        cli().args([
            "build",
            &example("tools/prompt.txt"),
            "--context",
            &example("tools/context.json"),
            "--provider",
            "completions",
            "--chat-template",
            "tests/cli/inputs/chat-template/tokenizer_config.json",
        ])
    );
}

#[test]
fn err_completions_flags() {
    let prompt = format!("{INPUTS}/completions-turns.txt");
    let template = format!("{INPUTS}/completions-tools.jinja");
    // No template for completions; a template for another provider; the
    // template's flags without it: usage errors.
    assert_cmd_snapshot!(
        "err_completions_without_chat_template",
        cli().args(["build", &prompt, "--provider", "completions"])
    );
    assert_cmd_snapshot!(
        "err_chat_template_for_another_provider",
        cli().args(["build", &prompt, "--chat-template", &template])
    );
    assert_cmd_snapshot!(
        "err_chat_template_flags_without_it",
        cli().args(["build", &prompt, "--provider", "anthropic", "--allow-special-tokens"])
    );
    assert_cmd_snapshot!(
        "err_convert_to_completions",
        cli().args(["convert", "tests/cli/inputs/convert/weather.json", "--to", "completions"])
    );
}

#[test]
fn err_completions_special_token_and_raise() {
    let prompt = format!("{INPUTS}/completions-turns.txt");
    let template = format!("{INPUTS}/completions-tools.jinja");
    let build = |city: &str| {
        let mut command = cli();
        command.args([
            "build",
            &prompt,
            "-D",
            city,
            "--provider",
            "completions",
            "--chat-template",
            &template,
            "--now",
            "2026-01-02T03:04:05Z",
        ]);
        command
    };
    assert_cmd_snapshot!("err_completions_special_token_in_data", build("city=Lyon<|im_end|>"));
    assert_cmd_snapshot!(
        "err_completions_special_token_in_data_json",
        build("city=Lyon<|im_end|>").args(["--error-format", "json"])
    );
    // Allowed for trusted input: rendered as written.
    assert_cmd_snapshot!(
        "completions_special_token_allowed",
        build("city=Lyon<|im_end|>").arg("--allow-special-tokens")
    );
    assert_cmd_snapshot!(
        "err_completions_template_raised",
        cli().args([
            "build",
            &prompt,
            "--provider",
            "completions",
            "--chat-template",
            "tests/cli/inputs/chat-template/raises.jinja",
        ])
    );
}
