//! The special tokens a check looks for: what a config names, the family
//! tokens a template's own text spells, and the caller's.

/// Control tokens of template families whose spelling has no pipe shape,
/// found in a template's text as they are written.
const FAMILY_TOKENS: &[&str] = &[
    // SentencePiece vocabularies (Llama 2, Mistral, Gemma).
    "<s>",
    "</s>",
    "<bos>",
    "<eos>",
    // Llama 2.
    "[INST]",
    "[/INST]",
    "<<SYS>>",
    "<</SYS>>",
    // Mistral.
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_CALLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
    // Gemma.
    "<start_of_turn>",
    "<end_of_turn>",
    // ChatML without pipes.
    "<im_start>",
    "<im_end>",
];

/// The longest token name a pipe shape may hold.
const MAX_NAME: usize = 64;

/// The special tokens a template's text spells: every pipe token
/// (`<|im_start|>`, `<|start_header_id|>`), every fullwidth one
/// (`<｜begin▁of▁sentence｜>`), and the family tokens of the table, in
/// the order first found, each once.
pub(crate) fn spelled_in(source: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut add = |token: &str| {
        if !found.iter().any(|t| t == token) {
            found.push(token.to_owned());
        }
    };
    for (open, close) in [("<|", "|>"), ("<｜", "｜>")] {
        let mut rest = source;
        while let Some(at) = rest.find(open) {
            let after = &rest[at + open.len()..];
            let mut name_end = None;
            for (n, (i, c)) in after.char_indices().enumerate() {
                if !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '▁')) {
                    name_end = Some(i);
                    break;
                }
                if n == MAX_NAME {
                    break;
                }
            }
            if let Some(name_end) = name_end.filter(|&end| end > 0)
                && after[name_end..].starts_with(close)
            {
                add(&rest[at..at + open.len() + name_end + close.len()]);
            }
            rest = after;
        }
    }
    for token in FAMILY_TOKENS {
        if source.contains(token) {
            add(token);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::spelled_in;

    #[test]
    fn finds_pipe_fullwidth_and_family_tokens() {
        let source =
            "{{ bos_token }}<|im_start|>{{ m.role }}<|{{ x }}|><｜User｜>[INST] <|im_start|>";
        assert_eq!(spelled_in(source), ["<|im_start|>", "<｜User｜>", "[INST]"]);
    }

    #[test]
    fn a_pipe_without_a_name_or_close_is_no_token() {
        assert!(spelled_in("<||> <|a b|> <|open").is_empty());
        let long = format!("<|{}|>", "a".repeat(65));
        assert!(spelled_in(&long).is_empty());
    }
}
