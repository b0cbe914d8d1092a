//! The special tokens a template's own text spells: every token of a
//! delimited shape and every named token of the suite's one table
//! (`prompt_core::tokens`, which the transcript sanitizer reads too).

use prompt_core::tokens::{DELIMITED_SHAPES, MAX_NAME, Name, SPECIAL_TOKENS, Shape, is_name_char};

/// The special tokens a template's text spells, in the order first found,
/// each once and as the template writes it: every token of a delimited
/// shape (`<|im_start|>`, `<｜User｜>`, `<|turn>`, `<turn|>`, `[|user|]`)
/// and every named token of the table (`[INST]`, `<<SYS>>`, `</s>`,
/// `<start_of_turn>`, `<unused0>`, `]~b]`), its name matched without regard
/// to ASCII case.
pub(crate) fn spelled_in(source: &str) -> Vec<String> {
    let mut found: Vec<(usize, &str)> = Vec::new();
    for (open, close) in DELIMITED_SHAPES {
        for (at, _) in source.match_indices(open) {
            if let Some(name) = name_at(&source[at + open.len()..])
                && source[at + open.len() + name.len()..].starts_with(close)
            {
                found.push((at, &source[at..at + open.len() + name.len() + close.len()]));
            }
        }
    }
    // Named tokens: `<name>`, `[name]`, `<<name>>`, and `</name>`,
    // `[/name]`, `<</name>>` for those that close.
    for (at, c) in source.match_indices(['<', '[']) {
        let (shape, open, close) = match (c, source[at..].starts_with("<<")) {
            ("<", true) => (Shape::DoubleAngle, "<<", ">>"),
            ("<", false) => (Shape::Angle, "<", ">"),
            _ => (Shape::Bracket, "[", "]"),
        };
        let mut start = at + open.len();
        let closing = source[start..].starts_with('/');
        start += usize::from(closing);
        let Some(name) = name_at(&source[start..]) else { continue };
        let end = start + name.len();
        if source[end..].starts_with(close)
            && SPECIAL_TOKENS
                .iter()
                .any(|t| t.shape == shape && (t.closes || !closing) && t.matches(name))
        {
            found.push((at, &source[at..end + close.len()]));
        }
    }
    // Tokens spelled whole (`]~b]`).
    for special in SPECIAL_TOKENS.iter().filter(|t| t.shape == Shape::Bare) {
        let (Name::Exact(spelling) | Name::Numbered(spelling) | Name::Prefix(spelling)) =
            special.name;
        found.extend(source.match_indices(spelling));
    }
    found.sort_by_key(|(at, _)| *at);
    let mut tokens: Vec<String> = Vec::new();
    for (_, token) in found {
        if !tokens.iter().any(|t| t == token) {
            tokens.push(token.to_owned());
        }
    }
    tokens
}

/// The token name at the start of `text`: 1 to [`MAX_NAME`] name
/// characters, ending where a non-name character follows.
fn name_at(text: &str) -> Option<&str> {
    for (n, (i, c)) in text.char_indices().enumerate() {
        if !is_name_char(c) {
            return (i > 0).then(|| &text[..i]);
        }
        if n == MAX_NAME {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::spelled_in;

    #[test]
    fn finds_shaped_and_named_tokens() {
        let source = "{{ bos_token }}<|im_start|>{{ m.role }}<|{{ x }}|><｜User｜>[INST] <|im_start|>\
                      <<SYS>> [/INST]<start_of_turn><unused7><|turn>x<turn|>[|user|]]~b]</s>";
        assert_eq!(
            spelled_in(source),
            [
                "<|im_start|>",
                "<｜User｜>",
                "[INST]",
                "<<SYS>>",
                "[/INST]",
                "<start_of_turn>",
                "<unused7>",
                "<|turn>",
                "<turn|>",
                "[|user|]",
                "]~b]",
                "</s>",
            ]
        );
    }

    #[test]
    fn a_shape_without_a_name_or_close_is_no_token() {
        assert!(spelled_in("<||> <|a b|> <|open <notatoken> [/sys] </im_end>").is_empty());
        let long = format!("<|{}|>", "a".repeat(65));
        assert!(spelled_in(&long).is_empty());
    }
}
