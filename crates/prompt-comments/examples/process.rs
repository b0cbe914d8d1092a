//! Processes a prompt from standard input and prints the result as JSON.
//!
//! ```text
//! cargo run -p prompt-comments --example process -- [standard|llmutils] < prompt.txt
//! ```

use std::io::Read;

use prompt_comments::Dialect;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dialect: Dialect = std::env::args().nth(1).as_deref().unwrap_or("standard").parse()?;
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    let processed = dialect.process(&text);
    println!("{}", serde_json::to_string_pretty(&processed)?);
    Ok(())
}
