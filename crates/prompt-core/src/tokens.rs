//! The special tokens of the model families, as data: one table that the
//! transcript sanitizer (`transcript-flip`) defangs in untrusted text and
//! the chat-template crate treats as special when a bare template spells
//! them.
//!
//! Two kinds of token are control tokens:
//!
//! * every token of a delimited shape, whatever its name
//!   ([`DELIMITED_SHAPES`]): pipe tokens `<|name|>`, fullwidth `<｜name｜>`,
//!   half-pipe `<|name>` and `<name|>`, and EXAONE's `[|name|]`;
//! * the named tokens of [`SPECIAL_TOKENS`], whose delimiters (`<s>`,
//!   `[INST]`, `<<SYS>>`, `]~b]`) are ordinary text elsewhere.
//!
//! A name is written here in lowercase ASCII and matched without regard to
//! ASCII case ([`Special::matches`]); the sanitizer matches it on its
//! normalized view (look-alikes folded).
//!
//! ```
//! use prompt_core::tokens::{SPECIAL_TOKENS, Shape};
//!
//! let inst = SPECIAL_TOKENS.iter().find(|t| t.shape == Shape::Bracket && t.matches("INST"));
//! assert!(inst.is_some_and(|t| t.closes));
//! assert!(SPECIAL_TOKENS.iter().any(|t| t.shape == Shape::Angle && t.matches("unused42")));
//! ```

/// The shapes whose every token is a control token, whatever its name:
/// `(open, close)`. A name is 1 to [`MAX_NAME`] characters, each
/// alphanumeric or one of `_ - . : ▁`.
pub const DELIMITED_SHAPES: &[(&str, &str)] =
    &[("<|", "|>"), ("<｜", "｜>"), ("[|", "|]"), ("<|", ">"), ("<", "|>")];

/// The longest name a delimited shape or a [`Name::Prefix`] token may hold,
/// in characters.
pub const MAX_NAME: usize = 64;

/// Whether `c` may be part of a token's name.
pub fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '▁')
}

/// How a named token is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
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
pub enum Name {
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
pub struct Special {
    /// Its delimiters.
    pub shape: Shape,
    /// Its name, in lowercase ASCII.
    pub name: Name,
    /// Whether `</name>` (`[/name]`) is a token too.
    pub closes: bool,
}

const fn token(shape: Shape, name: Name, closes: bool) -> Special {
    Special { shape, name, closes }
}

use Name::{Exact, Numbered, Prefix};
use Shape::{Angle, Bare, Bracket, DoubleAngle};

/// Every named control token, grouped by the family that uses it.
#[rustfmt::skip]
pub const SPECIAL_TOKENS: &[Special] = &[
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

impl Name {
    /// Whether `candidate` (a name without its delimiters) is this name,
    /// ASCII case ignored: exactly, or the prefix then 1 to 6 digits
    /// ([`Name::Numbered`]), or the prefix then a name of 1 to
    /// [`MAX_NAME`] name characters ([`Name::Prefix`]).
    pub fn matches(&self, candidate: &str) -> bool {
        let rest = |prefix: &str| {
            candidate
                .get(..prefix.len())
                .filter(|head| head.eq_ignore_ascii_case(prefix))
                .map(|_| &candidate[prefix.len()..])
        };
        match *self {
            Name::Exact(name) => candidate.eq_ignore_ascii_case(name),
            Name::Numbered(prefix) => rest(prefix).is_some_and(|n| {
                (1..=6).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_digit())
            }),
            Name::Prefix(prefix) => rest(prefix).is_some_and(|n| {
                !n.is_empty() && n.chars().count() <= MAX_NAME && n.chars().all(is_name_char)
            }),
        }
    }
}

impl Special {
    /// Whether `candidate` (a name without its delimiters) names this
    /// token (see [`Name::matches`]).
    pub fn matches(&self, candidate: &str) -> bool {
        self.name.matches(candidate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names are written as the sanitizer's view reads them, so that they
    /// can match.
    #[test]
    fn names_are_lowercase_ascii_without_delimiters() {
        for special in SPECIAL_TOKENS {
            let (Name::Exact(name) | Name::Numbered(name) | Name::Prefix(name)) = special.name;
            assert!(!name.is_empty() && name.len() <= MAX_NAME, "{name:?}");
            assert!(name.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()), "{name:?}");
            if special.shape == Shape::Bare {
                // The sanitizer looks for its `~` before anything else.
                assert!(name[1..3].contains('~'), "{name:?}");
            } else {
                assert!(!name.contains(['<', '>', '[', ']', '|', ' ']), "{name:?}");
            }
        }
    }

    #[test]
    fn names_match_without_regard_to_ascii_case() {
        assert!(Name::Exact("inst").matches("INST"));
        assert!(!Name::Exact("inst").matches("instx"));
        assert!(Name::Numbered("unused").matches("unused98"));
        assert!(!Name::Numbered("unused").matches("unused"));
        assert!(!Name::Numbered("unused").matches("unused1234567"));
        assert!(Name::Prefix("seed:").matches("seed:think"));
        assert!(!Name::Prefix("seed:").matches("seed:"));
        assert!(!Name::Prefix("seed:").matches("seed:a b"));
    }
}
