//! `prompt-suite convert`: an OpenAI Chat Completions body to each
//! provider's body, its notices as warnings, and its errors in both
//! renderings.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

const INPUTS: &str = "tests/cli/inputs/convert";

#[test]
fn tool_calls_for_each_target() {
    let path = format!("{INPUTS}/weather.json");
    for to in ["openai", "openai-responses", "anthropic", "gemini"] {
        let mut command = cli();
        command.args(["convert", "--from", "openai", "--to", to, &path]);
        if to == "anthropic" {
            command.args(["--param", "model=claude-sonnet-4-5"]);
        }
        assert_cmd_snapshot!(format!("convert_weather_to_{to}"), command);
    }
}

#[test]
fn merged_turns_and_refusals_are_warnings() {
    let path = format!("{INPUTS}/refusal.json");
    assert_cmd_snapshot!(cli().args([
        "convert",
        "--from",
        "openai",
        "--to",
        "anthropic",
        &path,
        "--param",
        "model=claude-haiku-4-5"
    ]));
}

#[test]
fn errors_point_into_the_body() {
    let body = "{\n  \"model\": \"gpt-4o\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": [{\"type\": \"image_url\", \"image_url\": {\"url\": \"http://x.test/a.png\"}}]}\n  ]\n}\n";
    assert_cmd_snapshot!(
        "convert_image_url_human",
        cli().args(["convert", "--from", "openai", "--to", "gemini"]).pass_stdin(body)
    );
    assert_cmd_snapshot!(
        "convert_image_url_json",
        cli()
            .args(["convert", "--from", "openai", "--to", "gemini", "--error-format", "json"])
            .pass_stdin(body)
    );
    // Usage: `--from` and `--to` are required, and only `openai` is read.
    assert_cmd_snapshot!("convert_without_to", cli().args(["convert", "--from", "openai"]));
    assert_cmd_snapshot!(
        "convert_from_anthropic",
        cli().args(["convert", "--from", "anthropic", "--to", "openai"])
    );
}
