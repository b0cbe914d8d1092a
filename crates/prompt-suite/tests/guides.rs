//! The guides show code that runs. docs/testing-prompts.md shows
//! `tests/prompts.rs` whole, in its two test blocks (their hidden `# ` lines
//! aside): this test keeps the page and the file the same text. (Every Rust
//! block of every guide also runs as a doctest: `src/lib.rs`, `guides`.)

/// The Rust blocks of a Markdown text, each without its `# ` hidden lines.
fn rust_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut block: Option<String> = None;
    for line in markdown.lines() {
        match &mut block {
            None if line.starts_with("```rust") => block = Some(String::new()),
            None => {}
            Some(text) if line == "```" => {
                blocks.push(std::mem::take(text));
                block = None;
            }
            Some(_) if line.starts_with("# ") || line == "#" => {}
            Some(text) => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    blocks
}

#[test]
fn testing_prompts_shows_the_prompts_test_as_it_is() {
    let blocks = rust_blocks(include_str!("../docs/testing-prompts.md"));
    let shown = format!("{}\n{}", blocks[0], blocks[1]);
    assert_eq!(shown, include_str!("prompts.rs"));
}
