//! Glob-driven render snapshots over `tests/inputs/*.txt`.
//!
//! Each input is a JSON header, a `---` line, then the template. The header
//! is a context (`{"state": .., "local": .., "global": ..}`), or, for
//! brevity, a bare object taken as the state store. Inputs named `err_*`
//! must fail; the snapshot holds the error as people see it. Others hold
//! the output, then the stores, writes and effects as JSON. Seed 0.

use minijinja_brackets::{Context, Environment};

fn context(header: &str) -> Context {
    serde_json::from_str::<Context>(header).unwrap_or_else(|_| Context {
        state: serde_json::from_str(header).expect("the header is a JSON object"),
        ..Context::default()
    })
}

#[test]
fn render_inputs() {
    let env = Environment::new();
    insta::glob!("inputs/*.txt", |path| {
        let input = std::fs::read_to_string(path).unwrap();
        let (header, template) = input.split_once("\n---\n").expect("a `---` line");
        let expect_error = path.file_name().unwrap().to_string_lossy().starts_with("err_");
        let snapshot = match env.render_str(template, &context(header), 0) {
            Ok(rendered) => {
                assert!(!expect_error, "{} rendered without an error", path.display());
                let mut data = serde_json::to_value(&rendered).unwrap();
                data.as_object_mut().unwrap().shift_remove("output");
                format!(
                    "{}\n=====\n{}",
                    rendered.output,
                    serde_json::to_string_pretty(&data).unwrap()
                )
            }
            Err(err) => {
                assert!(expect_error, "{} failed: {err}", path.display());
                format!("{}\n\n{err:#?}", err.annotated())
            }
        };
        insta::assert_snapshot!(snapshot);
    });
}
