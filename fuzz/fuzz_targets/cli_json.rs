//! The command line's JSON inputs, as `prompt-suite` reads them: the input
//! reader and its `invalid_json`/`invalid_utf8` diagnostics (drawn in both
//! renderings), then each subcommand's use of the document: `comments
//! --messages` (`strip_messages_json`, and the `Value` API), `flip`,
//! `alternate`, and `render --context`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use minijinja_brackets::{Context, Environment};
use prompt_suite_cli::diagnostic::Diagnostic;
use prompt_suite_cli::input::Input;
use serde_json::Value;
use transcript_flip::{FlipOptions, Dialect};

fuzz_target!(|data: &[u8]| {
    let input = Input::from_bytes("input.json", data.to_vec());
    draw(input.text().map(|_| ()));

    match input.json::<Value>() {
        Ok(mut document) => {
            for dialect in [prompt_comments::Dialect::Standard, prompt_comments::Dialect::Llmutils]
            {
                let _ = dialect.strip_messages_document(&mut document.clone());
            }
            let _ = prompt_comments::Dialect::Standard.strip_messages_document(&mut document);
        }
        Err(diagnostic) => draw(Err(diagnostic)),
    }

    if let Ok(text) = input.text() {
        for dialect in [prompt_comments::Dialect::Standard, prompt_comments::Dialect::Llmutils] {
            let _ = dialect.strip_messages_json(text);
        }
        for mode in [Dialect::Standard, Dialect::Llmr] {
            let options = FlipOptions::new().with_dialect(mode);
            let _ = transcript_flip::flip_json(text, &Value::from("Ana"), &options);
            let _ = transcript_flip::alternate_json(text, mode);
        }
    }

    match input.json::<Context>() {
        Ok(context) => {
            let env = Environment::new();
            let template = env
                .compile("[[ name ]][% for k, v in items -> items %][[ k ]]=[[ v ]][% endfor %]")
                .expect("the fixed template compiles");
            let _ = template.render(&context, 0);
        }
        Err(diagnostic) => draw(Err(diagnostic)),
    }
});

/// Both renderings of a diagnostic, as the CLI prints them.
fn draw(result: Result<(), Diagnostic>) {
    if let Err(diagnostic) = result {
        assert!(!diagnostic.render(false).is_empty());
        let json: Value = serde_json::from_str(&prompt_suite_cli::diagnostic::render_json(&diagnostic))
            .expect("--error-format json prints JSON");
        assert!(json.is_object());
    }
}
