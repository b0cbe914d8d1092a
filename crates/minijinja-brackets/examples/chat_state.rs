//! A chat wired to `StateHistory`, following the regenerate rule
//! (`docs/state.md` walks through the same steps).
//!
//! Run with `cargo run -p minijinja-brackets --example chat_state`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    use minijinja_brackets::{Context, Environment, StateHistory};

    let env = Environment::new();
    let template = env.compile("[% set turns = (turns -> default(0)) + 1 %]Turn [[ turns ]].")?;
    // Local and global stores come from the host on every render.
    let base: Context = serde_json::from_str(r#"{"local": {"location": "the inn"}}"#)?;
    let mut history = StateHistory::new();

    // 1. The user sends a message; the host builds the prompt for the next reply.
    let reply = history.push_message();
    let rendered = template.render(&history.context_at(reply, &base)?, 1)?;
    history.record(reply, &rendered)?; // writes belong to the reply
    assert_eq!(rendered.output, "Turn 1.");

    // 2. The user regenerates that reply: same state in, a new swipe out.
    let rendered = template.render(&history.context_at(reply, &base)?, 2)?;
    history.add_swipe(reply)?;
    history.record(reply, &rendered)?;
    assert_eq!(rendered.output, "Turn 1."); // not "Turn 2."

    // 3. The next reply sees the active swipe's writes.
    let next = history.push_message();
    let rendered = template.render(&history.context_at(next, &base)?, 3)?;
    history.record(next, &rendered)?;
    assert_eq!(rendered.output, "Turn 2.");

    // 4. The user deletes the last reply: its writes vanish.
    history.delete_message(next)?;
    assert_eq!(history.state()["turns"], 1);

    // Store it next to the chat log.
    let json = history.to_json();
    assert_eq!(StateHistory::from_json(&json)?, history);
    println!("{json}");
    Ok(())
}
