//! `prompt-suite chat-template`: a conversation through a chat template
//! (written for these tests), as text and as `--json`, and its errors.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

const INPUTS: &str = "tests/cli/inputs/chat-template";

fn path(name: &str) -> String {
    format!("{INPUTS}/{name}")
}

#[test]
fn a_jinja_template_renders_exactly() {
    let (template, conversation) = (path("chatml.jinja"), path("hello.json"));
    assert_cmd_snapshot!(cli().args([
        "chat-template",
        &template,
        &conversation,
        "--now",
        "2026-01-02T23:30:00-02:00"
    ]));
}

#[test]
fn json_gives_data_and_generation_ranges() {
    let (template, conversation) = (path("chatml.jinja"), path("hello.json"));
    assert_cmd_snapshot!(cli().args([
        "chat-template",
        &template,
        &conversation,
        "--now",
        "2026-01-02T03:04:05Z",
        "--json"
    ]));
}

#[test]
fn a_config_chooses_tool_use_when_tools_are_offered_or_by_name() {
    let template = path("tokenizer_config.json");
    assert_cmd_snapshot!(
        "chat_template_config_tools",
        cli().args(["chat-template", &template, &path("tools.json")])
    );
    assert_cmd_snapshot!(
        "chat_template_config_named",
        cli().args(["chat-template", &template, &path("tools.json"), "--name", "default"])
    );
    assert_cmd_snapshot!(
        "chat_template_conversation_on_stdin",
        cli()
            .args(["chat-template", &template, "-"])
            .pass_stdin(r#"{"messages": [{"role": "user", "content": "x"}]}"#)
    );
}

#[test]
fn err_special_token_in_data() {
    assert_cmd_snapshot!(
        "chat_template_err_injection",
        cli().args(["chat-template", &path("chatml.jinja"), &path("err_injection.json")])
    );
    assert_cmd_snapshot!(
        "chat_template_err_added_token",
        cli().args(["chat-template", &path("tokenizer_config.json"), &path("err_tool_token.json")])
    );
    assert_cmd_snapshot!(
        "chat_template_err_caller_token",
        cli().args([
            "chat-template",
            &path("chatml.jinja"),
            &path("hello.json"),
            "--special-token",
            "✓",
            "--now",
            "2026-01-02T03:04:05Z"
        ])
    );
    assert_cmd_snapshot!(
        "chat_template_allowed",
        cli().args([
            "chat-template",
            &path("chatml.jinja"),
            &path("err_injection.json"),
            "--allow-special-tokens"
        ])
    );
}

#[test]
fn err_template_raised_and_bad_inputs() {
    assert_cmd_snapshot!(
        "chat_template_err_raised",
        cli()
            .args(["chat-template", &path("raises.jinja"), "-"])
            .pass_stdin(r#"{"messages": [{"role": "assistant", "content": "x"}]}"#)
    );
    assert_cmd_snapshot!(
        "chat_template_err_unknown_name",
        cli().args([
            "chat-template",
            &path("tokenizer_config.json"),
            &path("tools.json"),
            "--name",
            "rag"
        ])
    );
    assert_cmd_snapshot!(
        "chat_template_err_conversation",
        cli().args(["chat-template", &path("chatml.jinja"), "-"]).pass_stdin(r#"{"messages": {}}"#)
    );
    assert_cmd_snapshot!(
        "chat_template_err_now",
        cli().args(["chat-template", &path("chatml.jinja"), "--now", "yesterday"])
    );
    assert_cmd_snapshot!("chat_template_err_both_stdin", cli().args(["chat-template", "-", "-"]));
}
