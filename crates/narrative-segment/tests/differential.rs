//! Differential property: on narratives without any of the six features
//! where the dialects differ (no code, no embeds, comment delimiters with
//! only the role word, exact role words, references away from delimiter
//! lines and code spans, `\n` line endings), Standard and Lmml give the same
//! turns and the same messages.

use narrative_segment::{Attachments, Dialect, Narrative, RenderOptions, TurnRole, lmml, render};
use proptest::prelude::*;

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("## user\n".to_owned()),
        Just("### assistant\n".to_owned()),
        Just("# system\n".to_owned()),
        Just("<!-- user -->\n".to_owned()),
        Just("<!-- assistant -->\n".to_owned()),
        Just("## Turn 2 -- user\n".to_owned()),
        Just("\n".to_owned()),
        Just("see @a.png now\n".to_owned()),
        Just("Über naïve café\n".to_owned()),
        "[a-zA-Z ,.]{0,20}\n",
    ]
}

fn narrative() -> impl Strategy<Value = String> {
    prop::collection::vec(line(), 0..30).prop_map(|lines| lines.concat())
}

/// A turn as (role, text, embeds).
type OwnedTurn = (TurnRole, String, Vec<String>);

/// Each turn, and the rendered messages.
fn run(text: &str, dialect: Dialect) -> (Vec<OwnedTurn>, Vec<lmml::Message>) {
    let attachments = Attachments::from_entries([("a.png", b"\x89PNG".to_vec())]).unwrap();
    let resolved = Narrative::parse(text, dialect).resolve(&attachments).unwrap();
    let turns = resolved.segment();
    let messages = lmml::messages(&render(&resolved, &turns, &RenderOptions::default()));
    let turns = turns.into_iter().map(|t| (t.role, t.text.into_owned(), t.embeds)).collect();
    (turns, messages)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_dialects_agree_outside_the_six_differences(text in narrative()) {
        prop_assert_eq!(run(&text, Dialect::Standard), run(&text, Dialect::Lmml));
    }
}
