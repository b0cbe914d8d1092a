//! Renders a template from the command line's first argument with a seed,
//! printing the output, the writes and the effects.
//!
//! `cargo run -p minijinja-brackets --example render -- '[[ 1 + 2 ]]'`

use minijinja_brackets::{Context, Environment};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let source = std::env::args().nth(1).unwrap_or_else(|| {
        "[% set visits = (visits -> default(0)) + 1 %]Hello [[ name -> upper ]] (visit [[ visits ]]). \
         [% chance 0.5 %]Lucky![% else %]Not today.[% endchance %][% qr \"Greet\" %]"
            .to_owned()
    });
    let env = Environment::new();
    let template = match env.compile(&source) {
        Ok(template) => template,
        Err(err) => {
            eprintln!("{}", err.annotated());
            std::process::exit(1);
        }
    };
    let context: Context = serde_json::from_str(r#"{"state": {"name": "Ann", "visits": 2}}"#)?;
    let rendered = template.render(&context, 7)?;
    println!("{}", rendered.output);
    println!("writes: {}", serde_json::to_string(&rendered.writes)?);
    println!("effects: {}", serde_json::to_string(&rendered.effects)?);
    Ok(())
}
