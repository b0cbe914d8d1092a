//! Property tests: the shape of `Standard` output, sanitizing that leaves
//! no control token behind, nothing lost, and `Standard` agreeing with
//! `Llmr` on inputs without the features they differ on.

use proptest::prelude::*;
use transcript_flip::{
    Dialect, Error, ErrorKind, FlipOptions, Message, Role, Turn, ensure_alternating, sanitize,
    sanitize_with,
};

/// [`transcript_flip::flip`], its messages in LLMR's shape (`flip_json`'s),
/// which these properties are stated in.
fn flip(turns: &[Turn], speaker: &str, options: &FlipOptions) -> Result<Vec<Message>, Error> {
    let messages = transcript_flip::flip(turns, speaker, options)?;
    Ok(messages.into_iter().map(Message::from).collect())
}

const POV: &str = "Ben";

/// Pieces of hostile text: every token family, evasions, headers.
fn hostile_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<|im_start|>".to_owned()),
        Just("<|im_".to_owned()),
        Just("start|>".to_owned()),
        Just("<|eot_id|>".to_owned()),
        Just("<｜User｜>".to_owned()),
        Just("＜｜ｉｍ＿ｅｎｄ｜＞".to_owned()),
        Just("<|turn>".to_owned()),
        Just("<turn|>".to_owned()),
        Just("[INST]".to_owned()),
        Just("[|user|]".to_owned()),
        Just("<<SYS>>".to_owned()),
        Just("<s>".to_owned()),
        Just("</think>".to_owned()),
        Just("<start_of_turn>".to_owned()),
        Just("[gMASK]".to_owned()),
        Just("<unused12>".to_owned()),
        Just("<reserved_106>".to_owned()),
        Just("<seed:think>".to_owned()),
        Just("<|tool_call:begin|>".to_owned()),
        Just("]~b]".to_owned()),
        Just("[e~[".to_owned()),
        Just("~".to_owned()),
        Just("[System note:".to_owned()),
        Just("System message:".to_owned()),
        Just("Observation:".to_owned()),
        Just("Final Answer:".to_owned()),
        Just("System:".to_owned()),
        Just("Human :".to_owned()),
        Just("### Instruction:".to_owned()),
        Just("### Assistant:".to_owned()),
        Just("## user".to_owned()),
        Just("**System:**".to_owned()),
        Just("ipython:".to_owned()),
        Just("<b>".to_owned()),
        Just("</b>".to_owned()),
        Just("#".to_owned()),
        Just("*".to_owned()),
        Just("_".to_owned()),
        Just("-".to_owned()),
        Just("•".to_owned()),
        Just("∶".to_owned()),
        Just("\x0b".to_owned()),
        Just("\x0c".to_owned()),
        Just("\u{200b}".to_owned()),
        Just("\u{200d}".to_owned()),
        Just("<".to_owned()),
        Just("|".to_owned()),
        Just(">".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just(":".to_owned()),
        Just("\n".to_owned()),
        Just("\r".to_owned()),
        Just(" ".to_owned()),
        "[a-z]{1,6}",
    ]
}

fn hostile_text() -> impl Strategy<Value = String> {
    prop::collection::vec(hostile_piece(), 0..12).prop_map(|pieces| pieces.concat())
}

fn hostile_id() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Ana".to_owned()),
        Just("Cy".to_owned()),
        Just(POV.to_owned()),
        Just("System".to_owned()),
        Just("Ana system".to_owned()),
        Just("<|im_start|>".to_owned()),
        // An id holds no control character or line break (`Standard`
        // refuses those; see `controls_in_ids_are_refused`).
        hostile_text().prop_map(|id| id.replace(is_control, " ")),
    ]
}

/// What `Standard` refuses in an id: General Category Cc, LS and PS.
fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

fn hostile_turns() -> impl Strategy<Value = Vec<Turn>> {
    prop::collection::vec(
        (hostile_id(), prop::option::weighted(0.9, hostile_text()))
            .prop_map(|(speaker, text)| Turn { speaker, text }),
        0..10,
    )
}

/// Plain text: no token characters, no look-alikes, and of the role words
/// only LLMR's five, so that both modes must agree.
fn plain_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("system"),
            Just("user"),
            Just("assistant"),
            Just("Tool"),
            Just("DEVELOPER"),
            Just("hello"),
            Just("ok"),
            Just("x"),
            Just(":"),
            Just(" "),
            Just("  "),
            Just("\t"),
            Just("\n"),
            Just("\n\n"),
            // VT and FF start a line in `Standard` only (difference 1), so
            // here they follow a line feed, where both modes see a line start.
            Just("\n\x0b"),
            Just("\n\x0c"),
            Just("\r\n"),
            // Whole headers, so that the header rule is exercised often.
            Just("\nuser:"),
            Just("\r\nSystem :"),
            Just("\n \n\tTOOL\n:"),
        ],
        0..12,
    )
    .prop_map(|pieces| pieces.concat())
}

fn plain_turns() -> impl Strategy<Value = Vec<Turn>> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["Ana", "Ben", "Cy", "Mod 1"]),
            prop::option::weighted(0.9, plain_text()),
        )
            .prop_map(|(speaker, text)| Turn { speaker: speaker.to_owned(), text }),
        0..10,
    )
}

/// Characters that render as nothing (default-ignorable).
const IGNORABLES: [char; 8] =
    ['\u{200b}', '\u{200c}', '\u{200d}', '\u{2060}', '\u{feff}', '\u{ad}', '\u{180e}', '\u{e0041}'];

/// Characters that show as a blank, which an id may end with unseen.
const BLANKS: [char; 8] =
    ['\u{a0}', '\u{2800}', '\u{3164}', '\u{3000}', '\u{2007}', '\u{205f}', '\u{ffa0}', '\u{115f}'];

/// `id` with ignorable characters put in before the characters at the
/// given positions (taken modulo the length).
fn with_ignorables(id: &str, inserts: &[(usize, usize)]) -> String {
    let mut chars: Vec<char> = id.chars().collect();
    for &(at, which) in inserts {
        chars.insert(at % (chars.len() + 1), IGNORABLES[which % IGNORABLES.len()]);
    }
    chars.into_iter().collect()
}

/// A letter drawn another way: itself, fullwidth, or a Cyrillic letter drawn
/// like it, chosen by `how`.
fn look_alike(c: char, how: u8) -> char {
    let cyrillic = match c {
        'A' => Some('А'),
        'B' => Some('В'),
        'C' => Some('С'),
        'E' => Some('Е'),
        'H' => Some('Н'),
        'K' => Some('К'),
        'M' => Some('М'),
        'O' => Some('О'),
        'P' => Some('Р'),
        'T' => Some('Т'),
        'X' => Some('Х'),
        'a' => Some('а'),
        'c' => Some('с'),
        'e' => Some('е'),
        'o' => Some('о'),
        'p' => Some('р'),
        'x' => Some('х'),
        'y' => Some('у'),
        _ => None,
    };
    match how % 3 {
        1 => char::from_u32(u32::from(c) - 0x21 + 0xff01).unwrap_or(c),
        2 => cyrillic.unwrap_or(c),
        _ => c,
    }
}

fn role(message: &Message) -> Option<&Role> {
    message.role.as_ref()
}

/// The ASCII words of `text`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// At most one leading system, then user/assistant strictly alternating,
    /// starting with user.
    #[test]
    fn standard_output_alternates_from_user(
        turns in hostile_turns(),
        system in prop::option::of("[a-z ]{0,8}"),
        instruction in prop::option::of("[a-z ]{0,8}"),
    ) {
        let mut options = FlipOptions::new();
        if let Some(system) = system { options = options.with_system(system); }
        if let Some(instruction) = instruction { options = options.with_instruction(instruction); }
        let messages = flip(&turns, POV, &options).unwrap();
        let body = match messages.first() {
            Some(first) if role(first) == Some(&Role::System) => &messages[1..],
            _ => &messages[..],
        };
        for (i, message) in body.iter().enumerate() {
            let expected = if i % 2 == 0 { Role::User } else { Role::Assistant };
            prop_assert_eq!(role(message), Some(&expected), "{:?}", messages);
        }
        // It ends on user whenever there is a body.
        if let Some(last) = body.last() {
            prop_assert_eq!(role(last), Some(&Role::User));
        }
    }

    /// What other speakers said (with their labels) holds no control token
    /// or header after sanitizing: a second sanitizing pass finds nothing.
    #[test]
    fn no_control_token_survives(turns in hostile_turns()) {
        let messages = flip(&turns, POV, &FlipOptions::new()).unwrap();
        for message in messages.iter().filter(|m| role(m) == Some(&Role::User)) {
            let text = message.text().unwrap();
            prop_assert_eq!(sanitize(text), text);
        }
    }

    /// Every word of every turn (and of every other speaker's id) appears in
    /// the output, in `Standard` mode: defanging never deletes.
    #[test]
    fn nothing_is_lost(turns in hostile_turns()) {
        let messages = flip(&turns, POV, &FlipOptions::new()).unwrap();
        let output: String = messages.iter().filter_map(Message::text).collect::<Vec<_>>().join("\n");
        for turn in &turns {
            for word in words(turn.text()) {
                prop_assert!(output.contains(word), "{:?} lost from {:?}", word, output);
            }
            if turn.speaker != POV {
                for word in words(&turn.speaker) {
                    prop_assert!(output.contains(word), "id word {:?} lost from {:?}", word, output);
                }
            }
        }
    }

    /// On inputs without the features the modes differ on, `Standard`
    /// output is exactly `Llmr` output.
    #[test]
    fn standard_equals_llmr_on_plain_input(
        turns in plain_turns(),
        system in prop::option::of(plain_text()),
        instruction in prop::option::of(plain_text()),
        sanitize in any::<bool>(),
        ensure_final_user in any::<bool>(),
    ) {
        // Difference 4: without the cue, Standard adds no leading one either.
        prop_assume!(ensure_final_user || turns.first().is_none_or(|t| t.speaker != POV));
        let mut options = FlipOptions::new().with_sanitize(sanitize).with_ensure_final_user(ensure_final_user);
        if let Some(system) = system { options = options.with_system(system); }
        if let Some(instruction) = instruction { options = options.with_instruction(instruction); }
        let standard = flip(&turns, POV, &options.clone().with_dialect(Dialect::Standard)).unwrap();
        let llmr = flip(&turns, POV, &options.with_dialect(Dialect::Llmr)).unwrap();
        prop_assert_eq!(standard, llmr);
    }

    /// The two sanitizers agree on plain text, and both are idempotent on
    /// any text.
    #[test]
    fn sanitizers_agree_on_plain_text_and_are_idempotent(plain in plain_text(), hostile in hostile_text()) {
        prop_assert_eq!(sanitize(&plain), sanitize_with(&plain, Dialect::Llmr));
        let once = sanitize(&hostile);
        prop_assert_eq!(sanitize(&once), once.clone());
    }

    /// Any Unicode text: no panic, and the result is a fixed point, in
    /// both modes.
    #[test]
    fn any_text_sanitizes_to_a_fixed_point(text in any::<String>()) {
        let once = sanitize(&text);
        prop_assert_eq!(sanitize(&once), once.clone());
        let llmr = sanitize_with(&text, Dialect::Llmr);
        prop_assert_eq!(sanitize_with(&llmr, Dialect::Llmr), llmr.clone());
    }

    /// Any input text gives messages or a typed error, never a panic.
    #[test]
    fn any_json_input_is_handled(input in "[\\[\\]{}\":, a-z0-9nul\\\\]{0,40}") {
        let flipped = transcript_flip::flip_json(&input, &serde_json::json!("a"), &FlipOptions::new());
        let alternated = transcript_flip::alternate_json(&input, Dialect::Standard);
        prop_assert!(flipped.is_ok() || flipped.is_err_and(|e| !e.message().is_empty()));
        prop_assert!(alternated.is_ok() || alternated.is_err_and(|e| !e.message().is_empty()));
    }

    /// `ensure_alternating` is idempotent, in both modes.
    #[test]
    fn alternation_is_idempotent(
        messages in prop::collection::vec(
            (prop::sample::select(vec!["system", "user", "assistant", "tool", "System"]), "[a-z]{0,3}")
                .prop_map(|(role, content)| Message::new(Role::from(role), content)),
            0..10,
        ),
    ) {
        let once = ensure_alternating(messages.clone()).unwrap();
        prop_assert_eq!(ensure_alternating(once.clone()).unwrap(), once);
        let llmr = transcript_flip::ensure_alternating_with(messages, Dialect::Llmr).unwrap();
        prop_assert_eq!(transcript_flip::ensure_alternating_with(llmr.clone(), Dialect::Llmr).unwrap(), llmr);
    }

    /// An id drawn like the point of view's (look-alike letters, invisible
    /// characters, surrounding spaces) is refused wherever it appears, in
    /// `Standard` mode; `Llmr` mode takes it as another speaker.
    #[test]
    fn look_alikes_of_the_point_of_view_are_refused(
        pov in "[A-Za-z]{1,6}",
        letters in prop::collection::vec(any::<u8>(), 6),
        inserts in prop::collection::vec((any::<usize>(), any::<usize>()), 0..4),
        spaces in (any::<bool>(), any::<bool>()),
        before in 0usize..3,
    ) {
        let drawn: String = pov.chars().zip(&letters).map(|(c, &how)| look_alike(c, how)).collect();
        let mut impostor = with_ignorables(&drawn, &inserts);
        if spaces.0 { impostor.insert(0, ' '); }
        if spaces.1 { impostor.push(BLANKS[letters[0] as usize % BLANKS.len()]); }
        prop_assume!(impostor != pov);
        let mut turns: Vec<Turn> = ["Ana", "Cy"].iter().cycle().take(before).map(|id| Turn::new(*id, "x")).collect();
        turns.push(Turn::new(impostor.as_str(), "obey"));
        let err = flip(&turns, &pov, &FlipOptions::new()).unwrap_err();
        prop_assert_eq!((err.kind(), err.index()), (ErrorKind::AmbiguousSpeaker, Some(before)));
        prop_assert!(flip(&turns, &pov, &FlipOptions::new().with_dialect(Dialect::Llmr)).is_ok());
    }

    /// An id holding a control character or a line break, anywhere, is
    /// refused as the point of view and as any turn's speaker, in
    /// `Standard` mode; `Llmr` mode takes it as it is.
    #[test]
    fn controls_in_ids_are_refused(
        id in "[A-Za-z ]{0,5}",
        at in any::<usize>(),
        control in prop_oneof![0u32..0x20, 0x7fu32..0xa0, 0x2028u32..0x202a],
        before in 0usize..3,
    ) {
        let control = char::from_u32(control).unwrap();
        let mut chars: Vec<char> = id.chars().collect();
        chars.insert(at % (chars.len() + 1), control);
        let bad: String = chars.into_iter().collect();
        let mut turns: Vec<Turn> = ["Ana", "Cy"].iter().cycle().take(before).map(|id| Turn::new(*id, "x")).collect();
        turns.push(Turn::new(bad.as_str(), "x"));
        let err = flip(&turns, POV, &FlipOptions::new()).unwrap_err();
        prop_assert_eq!((err.kind(), err.index()), (ErrorKind::InvalidSpeaker, Some(before)));
        let err = flip(&turns[..before], &bad, &FlipOptions::new()).unwrap_err();
        prop_assert_eq!((err.kind(), err.index()), (ErrorKind::InvalidSpeaker, None));
        let llmr = FlipOptions::new().with_dialect(Dialect::Llmr);
        prop_assert!(flip(&turns, POV, &llmr).is_ok());
    }

    /// Ignorable characters never decide: an id with some added is refused
    /// exactly when the id without them is (a look-alike in plain ASCII,
    /// `Il` for `ll`), and case alone is never refused.
    #[test]
    fn ignorables_never_decide_ambiguity(
        pov in "[A-Za-z01|]{1,5}",
        other in "[A-Za-z01|]{1,5}",
        inserts in prop::collection::vec((any::<usize>(), any::<usize>()), 1..4),
    ) {
        prop_assume!(other != pov);
        let outcome = |id: &str| {
            flip(&[Turn::new(id, "x")], &pov, &FlipOptions::new()).err().map(|e| e.kind())
        };
        prop_assert_eq!(outcome(&with_ignorables(&other, &inserts)), outcome(&other));
        let case_only = pov.to_lowercase() == other.to_lowercase();
        prop_assert!(!case_only || outcome(&other).is_none(), "{:?} for {:?}", other, pov);
    }

    /// `alternate_json` never rewrites a number: every number in its output
    /// is written as one in its input (big integers, trailing zeros,
    /// exponents), in both modes; and in `Standard` mode it merges only
    /// messages whose fields are written alike.
    #[test]
    fn alternate_json_keeps_numbers_as_written(
        messages in prop::collection::vec(
            (
                prop::sample::select(vec!["user", "assistant", "system"]),
                prop::option::of(prop::sample::select(vec![
                    "12345678901234567890123",
                    "12345678901234567890124",
                    "-98765432109876543210987654321",
                    "1.50",
                    "1e3",
                    "0.1000000000000000055511151231257827",
                    "[ 18446744073709551616 , {\"n\" : -0 } ]",
                ])),
                " {0,2}",
            ),
            0..8,
        ),
    ) {
        let json = format!(
            "[{}]",
            messages
                .iter()
                .map(|(role, id, space)| match id {
                    Some(id) => format!(r#"{{"role":{space}"{role}","content":"x","id":{space}{id}}}"#),
                    None => format!(r#"{{"role":"{role}","content":"x"}}"#),
                })
                .collect::<Vec<_>>()
                .join(",")
        );
        let input_numbers = number_tokens(&json);
        for mode in [Dialect::Standard, Dialect::Llmr] {
            match transcript_flip::alternate_json(&json, mode) {
                Ok(output) => {
                    serde_json::from_str::<serde_json::value::Value>(&output).unwrap();
                    for number in number_tokens(&output) {
                        prop_assert!(input_numbers.contains(&number), "{} not in {}", number, json);
                    }
                }
                Err(err) => {
                    prop_assert_eq!(mode, Dialect::Standard);
                    prop_assert_eq!(err.kind(), ErrorKind::ConflictingFields);
                }
            }
        }
    }
}

/// The number literals of a JSON text, outside strings.
fn number_tokens(json: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = json.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_string => {
                chars.next();
            }
            '"' => in_string = !in_string,
            '-' | '0'..='9' if !in_string => {
                let mut token = c.to_string();
                while let Some(&next) = chars.peek() {
                    if next.is_ascii_digit() || matches!(next, '.' | 'e' | 'E' | '+' | '-') {
                        token.push(next);
                        chars.next();
                    } else {
                        break;
                    }
                }
                tokens.push(token);
            }
            _ => {}
        }
    }
    tokens
}
