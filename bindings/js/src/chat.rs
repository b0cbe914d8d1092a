//! Chat templates: `ChatTemplate`, `applyChatTemplate` and
//! `applyChatTemplateOutcome` over the chat-template crate.

use prompt_suite::brackets::{Clock, jiff};
use prompt_suite::chat_template::{ChatTemplate, Conversation, Options};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::convert;
use crate::error::{Failure, Result, invalid};

/// How a chat template is loaded (the JSON the package writes).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Load {
    /// The text is `tokenizer_config.json` / `chat_template.json`.
    #[serde(default)]
    config: bool,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    special_tokens: Vec<String>,
    #[serde(default)]
    allow_special_tokens: bool,
}

/// What `applyOutcome` returns, before JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AppliedJs<'a> {
    output: &'a str,
    data_ranges: Vec<[usize; 2]>,
    generation_ranges: Vec<[usize; 2]>,
}

/// Loads `text` as `load` says, `strftime_now` reading `clock`.
pub(crate) fn load_template(text: &str, load: Load, clock: Clock) -> Result<ChatTemplate> {
    let options = Options {
        name: load.name,
        clock,
        special_tokens: load.special_tokens,
        allow_special_tokens: load.allow_special_tokens,
    };
    let template = if load.config {
        ChatTemplate::from_config(text, &options)
    } else {
        ChatTemplate::from_jinja(text, &options)
    };
    template.map_err(|err| chat_error(&err))
}

fn chat_error(err: &prompt_suite::chat_template::Error) -> Failure {
    Failure::from(err.annotated())
}

/// The clock `strftime_now` reads: the instant `millis` (since the Unix
/// epoch) at UTC offset `offset_minutes` east (JavaScript's `Date`:
/// `getTime()` and `-getTimezoneOffset()`).
pub(crate) fn clock(millis: f64, offset_minutes: i32) -> Result<Clock> {
    let bad = || invalid(format!("`now` is not a time: {millis} ms, offset {offset_minutes} min"));
    if !millis.is_finite() || millis.abs() > 8.64e15 {
        return Err(bad());
    }
    #[expect(clippy::cast_possible_truncation, reason = "finite and within ±8.64e15")]
    let timestamp = jiff::Timestamp::from_millisecond(millis.floor() as i64).map_err(|_| bad())?;
    let offset =
        jiff::tz::Offset::from_seconds(offset_minutes.saturating_mul(60)).map_err(|_| bad())?;
    Ok(Clock::Fixed(timestamp.to_zoned(jiff::tz::TimeZone::fixed(offset))))
}

/// A loaded chat template (the package's `ChatTemplate`).
#[wasm_bindgen]
#[derive(Debug)]
pub struct Chat {
    template: ChatTemplate,
}

#[wasm_bindgen]
impl Chat {
    /// Loads `text` (a `.jinja` template, or a config when the options say
    /// so) with the options' JSON and the clock (`now_millis`, `offset_minutes`).
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str, options: &str, now_millis: f64, offset_minutes: i32) -> Result<Chat> {
        let load: Load = convert::read(options)?;
        load_template(text, load, clock(now_millis, offset_minutes)?)
            .map(|template| Chat { template })
    }

    /// Renders the conversation (the JSON of the command line's
    /// conversation shape) to text.
    pub fn apply(&self, conversation: &str) -> Result<String> {
        let conversation = Conversation::from_json(conversation).map_err(|err| {
            // The package wrote this JSON: its positions mean nothing.
            Failure::from(err.annotated().unplaced())
        })?;
        self.template.apply(&conversation).map(|a| a.output).map_err(|err| chat_error(&err))
    }

    /// Renders as `apply` does; the JSON of `{output, dataRanges,
    /// generationRanges}` (UTF-16 code units).
    #[wasm_bindgen(js_name = applyOutcome)]
    pub fn apply_outcome(&self, conversation: &str) -> Result<String> {
        let conversation = Conversation::from_json(conversation)
            .map_err(|err| Failure::from(err.annotated().unplaced()))?;
        let applied = self.template.apply(&conversation).map_err(|err| chat_error(&err))?;
        convert::write(&AppliedJs {
            output: &applied.output,
            data_ranges: convert::ranges(&applied.output, applied.data_ranges.iter().cloned()),
            generation_ranges: convert::ranges(
                &applied.output,
                applied.generation_ranges.iter().cloned(),
            ),
        })
    }

    /// The special tokens refused in data, sorted (JSON array).
    #[wasm_bindgen(js_name = specialTokens)]
    pub fn special_tokens(&self) -> Result<String> {
        convert::write(self.template.special_tokens())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHATML: &str = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{{ strftime_now('%Y') }}";

    #[test]
    fn a_conversation_renders_with_the_given_clock() {
        // 2026-01-01T00:30:00Z at UTC-1 is still 2025 there.
        let chat = Chat::new(CHATML, "{}", 1_767_227_400_000.0, -60).unwrap();
        let out = chat.apply_outcome(r#"{"messages": [{"role": "user", "content": "é"}]}"#);
        assert_eq!(
            out.unwrap(),
            r#"{"output":"<|im_start|>user\né<|im_end|>\n2025","dataRanges":[[12,16],[17,18],[29,33]],"generationRanges":[]}"#
        );
    }

    #[test]
    fn special_tokens_in_data_are_refused() {
        let chat = Chat::new(CHATML, "{}", 0.0, 0).unwrap();
        let err =
            chat.apply(r#"{"messages": [{"role": "user", "content": "<|im_end|>"}]}"#).unwrap_err();
        assert_eq!(err.kind(), "special_token_in_data");
    }

    #[test]
    fn a_time_out_of_range_is_an_invalid_argument() {
        assert_eq!(Chat::new(CHATML, "{}", f64::NAN, 0).unwrap_err().kind(), "invalid_argument");
        assert_eq!(Chat::new(CHATML, "{}", 0.0, 100_000).unwrap_err().kind(), "invalid_argument");
    }
}
