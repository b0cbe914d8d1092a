//! The named control tokens: every special token of the model families
//! whose spelling is not already caught by a shape (pipe tokens `<|name|>`,
//! fullwidth `<｜name｜>`, half-pipe `<|name>` / `<name|>` and EXAONE's
//! `[|name|]` are caught whatever their name), as data in one table.
//!
//! A name is matched on the normalized view (lowercase, look-alikes
//! folded), so each is written here in lowercase ASCII.

/// How a named token is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// `<name>`.
    Angle,
    /// `[name]`.
    Bracket,
    /// `<<name>>`.
    DoubleAngle,
    /// The whole spelling, delimiters included (`]~b]`): its first and last
    /// characters are the delimiters.
    Bare,
}

/// How a name is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Name {
    /// Exactly this.
    Exact(&'static str),
    /// This, then 1 to 6 digits: a numbered family (`<unused0>` ..
    /// `<unused98>`, `[control_8]`).
    Numbered(&'static str),
    /// This, then any token name (`<seed:think>`).
    Prefix(&'static str),
}

/// One named token, or a family of them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Special {
    pub(super) shape: Shape,
    pub(super) name: Name,
    /// Whether `</name>` (`[/name]`) is a token too.
    pub(super) closes: bool,
}

const fn token(shape: Shape, name: Name, closes: bool) -> Special {
    Special { shape, name, closes }
}

use Name::{Exact, Numbered, Prefix};
use Shape::{Angle, Bare, Bracket, DoubleAngle};

/// Every named control token, grouped by the family that uses it.
#[rustfmt::skip]
pub(super) const SPECIAL_TOKENS: &[Special] = &[
    // SentencePiece and BERT-style vocabularies.
    token(Angle, Exact("s"), true),
    token(Angle, Exact("unk"), false),
    token(Angle, Exact("pad"), false),
    token(Angle, Exact("bos"), false),
    token(Angle, Exact("eos"), false),
    token(Angle, Exact("mask"), false),
    token(Angle, Exact("sep"), false),
    token(Angle, Exact("cls"), false),
    // Llama 2.
    token(Bracket, Exact("inst"), true),
    token(DoubleAngle, Exact("sys"), true),
    // Mistral (Tekken and SentencePiece v3 vocabularies): `[control_N]`
    // are its reserved control tokens.
    token(Bracket, Exact("system_prompt"), true),
    token(Bracket, Exact("available_tools"), true),
    token(Bracket, Exact("tool_calls"), true),
    token(Bracket, Exact("tool_results"), true),
    token(Bracket, Exact("tool_content"), false),
    token(Bracket, Exact("args"), false),
    token(Bracket, Exact("call_id"), false),
    token(Bracket, Exact("think"), true),
    token(Bracket, Exact("img"), true),
    token(Bracket, Exact("img_break"), false),
    token(Bracket, Exact("img_end"), false),
    token(Bracket, Exact("prefix"), false),
    token(Bracket, Exact("middle"), false),
    token(Bracket, Exact("suffix"), false),
    token(Bracket, Exact("audio"), false),
    token(Bracket, Exact("begin_audio"), false),
    token(Bracket, Exact("transcribe"), false),
    token(Bracket, Numbered("control_"), false),
    // GLM and ChatGLM: the mask family, `<sop>`/`<eop>`, and the tool-call
    // argument tags of GLM 4.5 and later.
    token(Bracket, Exact("mask"), false),
    token(Bracket, Exact("smask"), false),
    token(Bracket, Exact("gmask"), false),
    token(Angle, Exact("sop"), false),
    token(Angle, Exact("eop"), false),
    token(Angle, Exact("arg_key"), true),
    token(Angle, Exact("arg_value"), true),
    // Gemma: turns, images, and the unused vocabulary; FunctionGemma's
    // function-call tokens.
    token(Angle, Exact("start_of_turn"), false),
    token(Angle, Exact("end_of_turn"), false),
    token(Angle, Exact("start_of_image"), false),
    token(Angle, Exact("end_of_image"), false),
    token(Angle, Exact("image_soft_token"), false),
    token(Angle, Numbered("unused"), false),
    token(Angle, Exact("start_function_call"), false),
    token(Angle, Exact("end_function_call"), false),
    token(Angle, Exact("start_function_response"), false),
    token(Angle, Exact("end_function_response"), false),
    token(Angle, Exact("start_function_declaration"), false),
    token(Angle, Exact("end_function_declaration"), false),
    token(Angle, Exact("escape"), false),
    // SmolVLM / Idefics.
    token(Angle, Exact("end_of_utterance"), false),
    // Reasoning and tool tags of Qwen, DeepSeek, Hermes, Apriel and
    // Nemotron (`<TOOLCALL>`), and DeepSeek V3.2's tool results.
    token(Angle, Exact("think"), true),
    token(Angle, Exact("tool_call"), true),
    token(Angle, Exact("tool_calls"), true),
    token(Angle, Exact("tool_response"), true),
    token(Angle, Exact("tools"), true),
    token(Angle, Exact("toolcall"), true),
    token(Angle, Exact("result"), true),
    token(Angle, Exact("function_results"), true),
    // Nemotron Nano 2: role tokens and tool sections.
    token(Angle, Numbered("special_"), false),
    token(Angle, Exact("available_tools"), true),
    // ChatML without pipes, and Phi's `<im_sep>`.
    token(Angle, Exact("im_start"), false),
    token(Angle, Exact("im_end"), false),
    token(Angle, Exact("im_sep"), false),
    // Role tags written as angle tokens (TeleFLM, EXAONE 3's `<ai>`,
    // `<role>`).
    token(Angle, Exact("_user"), false),
    token(Angle, Exact("_bot"), false),
    token(Angle, Exact("_system"), false),
    token(Angle, Exact("ai"), true),
    token(Angle, Exact("role"), true),
    // Baichuan: `<reserved_106>` is the user and `<reserved_107>` the
    // assistant.
    token(Angle, Numbered("reserved_"), false),
    // Vision placeholders (LLaVA, LFM2, MiniCPM-V, Reka).
    token(Angle, Exact("image"), true),
    token(Angle, Exact("video"), true),
    token(Angle, Exact("im_patch"), false),
    token(Angle, Exact("slice"), true),
    token(Angle, Exact("reka_img_token"), false),
    // MiniMax: M1's sentence and document tokens, M2's role tokens and
    // tool-call tag.
    token(Angle, Exact("beginning_of_sentence"), false),
    token(Angle, Exact("end_of_sentence"), false),
    token(Angle, Exact("begin_of_document"), false),
    token(Angle, Prefix("minimax:"), true),
    token(Bare, Exact("]~!b["), false),
    token(Bare, Exact("]~b]"), false),
    token(Bare, Exact("[e~["), false),
    // ByteDance Seed-OSS: `<seed:bos>`, `<seed:think>`, ...
    token(Angle, Prefix("seed:"), true),
];

/// Whether a unit code is the first of a name in [`SPECIAL_TOKENS`]: one
/// lookup turns most `<word>` and `[word]` away.
pub(super) const STARTS_A_NAME: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < SPECIAL_TOKENS.len() {
        let (Exact(name) | Numbered(name) | Prefix(name)) = SPECIAL_TOKENS[i].name;
        table[name.as_bytes()[0] as usize] = true;
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Names are written as the view reads them, so that they can match.
    #[test]
    fn names_are_lowercase_ascii_without_delimiters() {
        for special in SPECIAL_TOKENS {
            let (Exact(name) | Numbered(name) | Prefix(name)) = special.name;
            assert!(!name.is_empty() && name.len() <= 64, "{name:?}");
            assert!(name.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()), "{name:?}");
            if special.shape == Bare {
                // The scanner looks for its `~` before anything else.
                assert!(name[1..3].contains('~'), "{name:?}");
            } else {
                assert!(!name.contains(['<', '>', '[', ']', '|', ' ']), "{name:?}");
            }
        }
    }
}
