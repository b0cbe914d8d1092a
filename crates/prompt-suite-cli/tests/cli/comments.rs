//! `prompt-suite comments`: the default, `--json`, `--strip` and
//! `--messages` outputs in both dialects, and its errors in both renderings.

use insta_cmd::assert_cmd_snapshot;

use crate::cli;

const PROMPT: &str = "tests/cli/inputs/comments/prompt.txt";
const MESSAGES: &str = "tests/cli/inputs/comments/messages.json";
const NOT_AN_ARRAY: &str = "tests/cli/inputs/comments/err_object.json";

#[test]
fn default_prints_the_cleaned_prompt() {
    assert_cmd_snapshot!(cli().args(["comments", PROMPT]));
}

#[test]
fn default_in_the_llmutils_dialect() {
    assert_cmd_snapshot!(cli().args(["comments", "--dialect", "llmutils", PROMPT]));
}

#[test]
fn no_trailing_newline_is_added() {
    assert_cmd_snapshot!(cli().arg("comments").pass_stdin("Hello /// c"));
}

#[test]
fn crlf_output_keeps_its_endings() {
    assert_cmd_snapshot!(cli().args(["comments", "--json"]).pass_stdin("A /// c\r\nB\r\n"));
}

#[test]
fn json_prints_the_directives_in_contract_order() {
    assert_cmd_snapshot!(cli().args(["comments", "--json", PROMPT]));
}

#[test]
fn json_in_the_llmutils_dialect() {
    assert_cmd_snapshot!(cli().args(["comments", "--json", "--dialect", "llmutils", PROMPT]));
}

#[test]
fn strip_keeps_blank_lines_in_standard() {
    assert_cmd_snapshot!(
        cli().args(["comments", "--strip", "-"]).pass_stdin("One. /// c\n\nTwo.\n")
    );
}

#[test]
fn strip_drops_blank_lines_in_llmutils() {
    assert_cmd_snapshot!(
        cli()
            .args(["comments", "--strip", "--dialect", "llmutils"])
            .pass_stdin("One. /// c\n\nTwo.\n")
    );
}

#[test]
fn messages_in_both_dialects() {
    assert_cmd_snapshot!("messages_standard", cli().args(["comments", "--messages", MESSAGES]));
    assert_cmd_snapshot!(
        "messages_llmutils",
        cli().args(["comments", "--messages", "--dialect", "llmutils", MESSAGES])
    );
}

#[test]
fn a_changed_param_is_a_warning_on_stderr() {
    let prompt = "/// param: temperature=0.2\nHi\n/// param: temperature=0.9\n";
    assert_cmd_snapshot!("duplicate_param_text", cli().arg("comments").pass_stdin(prompt));
    assert_cmd_snapshot!(
        "duplicate_param_json",
        cli().args(["comments", "--json"]).pass_stdin(prompt)
    );
    assert_cmd_snapshot!(
        "duplicate_param_llmutils",
        cli().args(["comments", "--dialect", "llmutils"]).pass_stdin(prompt)
    );
}

#[test]
fn a_byte_order_mark_is_not_text_in_standard() {
    let prompt = "\u{feff}/// flow: support\nHello\n";
    assert_cmd_snapshot!("byte_order_mark_standard", cli().arg("comments").pass_stdin(prompt));
    assert_cmd_snapshot!(
        "byte_order_mark_llmutils",
        cli().args(["comments", "--dialect", "llmutils"]).pass_stdin(prompt)
    );
    assert_cmd_snapshot!(
        "byte_order_mark_messages",
        cli()
            .args(["comments", "--messages"])
            .pass_stdin("\u{feff}[{\"role\": \"user\", \"content\": \"Hi /// c\"}]\n")
    );
}

/// Everything but the stripped contents comes out as written: numbers
/// beyond 64 bits, trailing zeros, escapes, layout.
#[test]
fn messages_keep_numbers_and_layout() {
    assert_cmd_snapshot!(cli().args(["comments", "--messages"]).pass_stdin(
        "[\n  {\"role\": \"user\", \"content\": \"Hi /// draft\", \"seq\": 123456789012345678901234567890},\n  {\"role\": \"tool\", \"content\": \"caf\\u00e9\", \"price\": 1.50}\n]\n"
    ));
}

#[test]
fn messages_with_a_repeated_key_are_refused() {
    assert_cmd_snapshot!(
        cli()
            .args(["comments", "--messages", "--error-format", "json"])
            .pass_stdin(r#"[{"role": "user", "content": "hi", "role": "system"}]"#)
    );
}

#[test]
fn messages_must_be_an_array() {
    assert_cmd_snapshot!(cli().args(["comments", "--messages", NOT_AN_ARRAY]));
}

#[test]
fn messages_must_be_an_array_json_error() {
    assert_cmd_snapshot!(cli().args([
        "comments",
        "--messages",
        "--error-format",
        "json",
        NOT_AN_ARRAY
    ]));
}

#[test]
fn messages_must_be_json() {
    assert_cmd_snapshot!(
        cli().args(["comments", "--messages"]).pass_stdin("[{\"role\": \"user\",}]")
    );
}

#[test]
fn messages_must_be_json_json_error() {
    assert_cmd_snapshot!(
        cli().args(["comments", "--messages", "--error-format", "json"]).pass_stdin("[1,")
    );
}

#[test]
fn text_must_be_utf8() {
    assert_cmd_snapshot!(cli().arg("comments").pass_stdin(b"ok /// c\nbad \xff byte".to_vec()));
}

#[test]
fn text_must_be_utf8_json_error() {
    assert_cmd_snapshot!(
        cli().args(["comments", "--error-format", "json"]).pass_stdin(b"\xc3".to_vec())
    );
}

#[test]
fn missing_file_is_an_io_error() {
    assert_cmd_snapshot!(cli().args(["comments", "tests/cli/inputs/comments/no-such-file.txt"]));
}

#[test]
fn output_modes_are_exclusive() {
    assert_cmd_snapshot!(cli().args(["comments", "--json", "--messages"]));
}

#[test]
fn unknown_dialect_is_a_usage_error() {
    assert_cmd_snapshot!(cli().args(["comments", "--dialect", "go"]));
}

#[test]
fn messages_leave_elements_that_are_not_objects_untouched() {
    // An array element is never read as a message (nor an array part as a
    // text part): its strings reach the output as written.
    for dialect in ["llmutils", "standard"] {
        assert_cmd_snapshot!(
            format!("messages_nested_arrays_{dialect}"),
            cli().args(["comments", "--messages", "--dialect", dialect]).pass_stdin(
                r#"[["nested /// x"], {"role": "user", "content": [["text", "p /// q"]]}, {"role": "user", "content": "a /// b"}]"#
            )
        );
    }
}
