//! Request parameters, from the `/// param: name=value` metadata authors
//! write, typed once and then mapped by each provider to its own field names.
//!
//! Values arrive as text. Known names are parsed into numbers or lists here
//! (`temperature=0.7` becomes the number 0.7); a value that does not parse is
//! an error naming the parameter, never a silently dropped field. Unknown names
//! are kept in [`Params::extra`] in the order written: OpenAI receives them as
//! they are (a JSON literal when the text is one, a string otherwise), the
//! other providers report them as [`crate::Notice`]s. A value that is JSON is
//! read strictly: a repeated key or an integer beyond 64 bits, which would
//! lose a value or digits on the way, is an error naming the parameter.

use prompt_core::json::{self, JsonErrorKind};
use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::tools::{ResponseSchema, Tool, ToolChoice};

/// Typed request parameters.
///
/// Start from [`Params::default`] and set the fields you need (the struct
/// is `#[non_exhaustive]`: a new parameter is not a breaking change):
///
/// ```
/// let mut params = prompt_pipeline::Params::default();
/// params.model = Some("gpt-5.4".to_owned());
/// params.temperature = Some(0.2);
/// assert_eq!(params.max_tokens, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Params {
    /// `model`: the model name. OpenAI and Anthropic carry it in the body;
    /// Gemini names it in the URL, so its body leaves it out.
    pub model: Option<String>,
    /// `temperature`: sampling temperature.
    pub temperature: Option<f64>,
    /// `top_p`: nucleus sampling mass.
    pub top_p: Option<f64>,
    /// `top_k`: sample from the k most likely tokens (Anthropic, Gemini).
    pub top_k: Option<u64>,
    /// `max_tokens` (also written `max_output_tokens` or
    /// `max_completion_tokens`): the output token budget.
    pub max_tokens: Option<u64>,
    /// `stop`: stop sequences; one string, or a JSON array of strings.
    pub stop: Vec<String>,
    /// `seed`: the sampling seed (OpenAI, Gemini).
    pub seed: Option<i64>,
    /// `presence_penalty` (OpenAI, Gemini).
    pub presence_penalty: Option<f64>,
    /// `frequency_penalty` (OpenAI, Gemini).
    pub frequency_penalty: Option<f64>,
    /// `reasoning_effort`: `low`, `medium` or `high`, mapped by each
    /// provider (OpenAI's own field; a thinking budget for Anthropic and
    /// Gemini: 1 024 / 4 096 / 16 384 and 1 024 / 8 192 / 24 576 tokens).
    pub reasoning_effort: Option<Effort>,
    /// `thinking_budget`: the thinking tokens for Anthropic and Gemini; wins
    /// over [`Params::reasoning_effort`] there. OpenAI has no budget: an
    /// error without `reasoning_effort`, a notice with it.
    pub thinking_budget: Option<u64>,
    /// Every other `name=value`, in the order written.
    pub extra: Vec<(String, String)>,
    /// The tools the model may call (`/// tools:`, `--tools`).
    pub tools: Vec<Tool>,
    /// Which tool the model must call (`/// tool_choice:`, `--tool-choice`).
    pub tool_choice: Option<ToolChoice>,
    /// The JSON Schema of a structured answer (`/// response_schema:`,
    /// `--response-schema`).
    pub response_schema: Option<ResponseSchema>,
}

/// The neutral reasoning effort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effort {
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
}

impl Effort {
    /// `low`, `medium` or `high`.
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
        }
    }
}

impl Params {
    /// Parses `name=value` pairs (as collected from `/// param:` lines).
    /// Names are matched case-insensitively; a later value for the same name
    /// wins, as it does in the metadata.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidParam`] when a known parameter's value is not of
    /// its type (a float, a whole number, a string list).
    pub fn parse<'a, I>(pairs: I) -> Result<Params, Error>
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let mut params = Params::default();
        params.apply(pairs)?;
        Ok(params)
    }

    /// The `name=value` pairs of a JSON object of parameters, as a host
    /// gives them (the Python and JavaScript packages' `params`): a string
    /// as it is, any other value as its JSON text (`0.2`, `true`,
    /// `["a"]`), as a `/// param:` line would write it.
    ///
    /// ```
    /// use prompt_pipeline::Params;
    ///
    /// let object = serde_json::json!({"model": "gpt-4o", "temperature": 0.2, "stop": ["x"]});
    /// let pairs = Params::pairs_of_object(object.as_object().unwrap());
    /// assert_eq!(pairs[1], ("temperature".to_owned(), "0.2".to_owned()));
    /// assert_eq!(pairs[2].1, r#"["x"]"#);
    /// ```
    pub fn pairs_of_object(
        object: &serde_json::Map<String, serde_json::Value>,
    ) -> Vec<(String, String)> {
        object
            .iter()
            .map(|(name, value)| match value {
                serde_json::Value::String(text) => (name.clone(), text.clone()),
                other => (name.clone(), other.to_string()),
            })
            .collect()
    }

    /// Sets more `name=value` pairs over these, as [`Params::parse`] reads
    /// them: a value replaces the one already set for its name (how a host
    /// overrides what the prompt's `/// param:` lines say).
    ///
    /// ```
    /// use prompt_pipeline::Params;
    ///
    /// let mut params = Params::parse([("model", "gpt-4o"), ("temperature", "0.9")])?;
    /// params.apply([("model", "claude-sonnet-4-5")])?;
    /// assert_eq!(params.model.as_deref(), Some("claude-sonnet-4-5"));
    /// assert_eq!(params.temperature, Some(0.9));
    /// # Ok::<(), prompt_pipeline::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Params::parse`]; the pairs before the bad one are applied.
    pub fn apply<'a, I>(&mut self, pairs: I) -> Result<(), Error>
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let params = self;
        for (name, value) in pairs {
            let key = name.trim().to_ascii_lowercase();
            let value = value.trim();
            match key.as_str() {
                "model" => params.model = Some(value.to_owned()),
                "temperature" => params.temperature = Some(float(name, value)?),
                "top_p" => params.top_p = Some(float(name, value)?),
                "top_k" => params.top_k = Some(whole(name, value)?),
                "max_tokens" | "max_output_tokens" | "max_completion_tokens" => {
                    params.max_tokens = Some(whole(name, value)?)
                }
                "stop" | "stop_sequences" => params.stop = strings(name, value)?,
                "seed" => {
                    params.seed =
                        Some(value.parse().map_err(|_| invalid(name, value, "a whole number"))?)
                }
                "reasoning_effort" => {
                    params.reasoning_effort = Some(match value.trim() {
                        "low" => Effort::Low,
                        "medium" => Effort::Medium,
                        "high" => Effort::High,
                        _ => return Err(invalid(name, value, "`low`, `medium` or `high`")),
                    })
                }
                "thinking_budget" => params.thinking_budget = Some(whole(name, value)?),
                "presence_penalty" => params.presence_penalty = Some(float(name, value)?),
                "frequency_penalty" => params.frequency_penalty = Some(float(name, value)?),
                _ => {
                    literal(name, value)?;
                    params.extra.retain(|(old, _)| !old.eq_ignore_ascii_case(name.trim()));
                    params.extra.push((name.trim().to_owned(), value.to_owned()));
                }
            }
        }
        Ok(())
    }

    /// The names of the set parameters that some provider has no field for
    /// (`stop`, `top_k`, `seed`, `presence_penalty`, `frequency_penalty`,
    /// `thinking_budget`), in that order.
    pub(crate) fn set_optional_names(&self) -> impl Iterator<Item = &'static str> {
        [
            ("stop", !self.stop.is_empty()),
            ("top_k", self.top_k.is_some()),
            ("seed", self.seed.is_some()),
            ("presence_penalty", self.presence_penalty.is_some()),
            ("frequency_penalty", self.frequency_penalty.is_some()),
            ("thinking_budget", self.thinking_budget.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, set)| set.then_some(name))
    }

    /// `extra` as JSON values: a value that is a JSON literal (number,
    /// boolean, null, array, object) is sent as that literal, anything else as
    /// a string.
    pub fn extra_json(&self) -> impl Iterator<Item = (&str, Value)> + '_ {
        self.extra.iter().map(|(name, value)| {
            let json = serde_json::from_str::<Value>(value)
                .ok()
                .filter(|v| !v.is_string())
                .unwrap_or_else(|| Value::String(value.clone()));
            (name.as_str(), json)
        })
    }
}

fn float(name: &str, value: &str) -> Result<f64, Error> {
    value
        .parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .ok_or_else(|| invalid(name, value, "a finite number"))
}

fn whole(name: &str, value: &str) -> Result<u64, Error> {
    value.parse().map_err(|_| invalid(name, value, "a whole number"))
}

/// An unknown parameter's value that is JSON must be strict JSON: sent as
/// a literal, a repeated key would silently lose a value and an integer
/// beyond 64 bits its digits. Text that is not JSON at all is sent as a
/// string, as before.
fn literal(name: &str, value: &str) -> Result<(), Error> {
    match json::from_str::<serde::de::IgnoredAny>(value) {
        Err(err)
            if matches!(
                err.kind(),
                JsonErrorKind::DuplicateKey | JsonErrorKind::IntegerOutOfRange
            ) =>
        {
            Err(invalid(name, value, "JSON without a repeated key or an integer beyond 64 bits"))
        }
        _ => Ok(()),
    }
}

fn strings(name: &str, value: &str) -> Result<Vec<String>, Error> {
    if value.starts_with('[') {
        json::from_str(value).map_err(|_| invalid(name, value, "a JSON array of strings"))
    } else {
        Ok(vec![value.to_owned()])
    }
}

fn invalid(name: &str, value: &str, expected: &'static str) -> Error {
    Error::new(ErrorKind::InvalidParam {
        name: name.trim().to_owned(),
        value: value.to_owned(),
        expected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_params_are_typed() {
        let params = Params::parse([
            ("temperature", "0.7"),
            ("MAX_TOKENS", " 1000 "),
            ("stop", r#"["END", "STOP"]"#),
            ("model", "gpt-4o"),
            ("seed", "-3"),
        ])
        .unwrap();
        assert_eq!(params.temperature, Some(0.7));
        assert_eq!(params.max_tokens, Some(1000));
        assert_eq!(params.stop, ["END", "STOP"]);
        assert_eq!(params.model.as_deref(), Some("gpt-4o"));
        assert_eq!(params.seed, Some(-3));
    }

    #[test]
    fn bad_values_name_the_parameter() {
        let err = Params::parse([("temperature", "warm")]).unwrap_err();
        assert_eq!(err.to_string(), "parameter `temperature` is `warm`, expected a finite number");
        assert!(Params::parse([("temperature", "NaN")]).is_err());
        assert!(Params::parse([("max_tokens", "-1")]).is_err());
        assert!(Params::parse([("stop", "[1, 2]")]).is_err());
    }

    #[test]
    fn json_values_are_strict() {
        let err = Params::parse([("logit_bias", r#"{"50256": -100, "50256": 5}"#)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "parameter `logit_bias` is `{\"50256\": -100, \"50256\": 5}`, \
             expected JSON without a repeated key or an integer beyond 64 bits"
        );
        assert!(Params::parse([("user_id", "18446744073709551616")]).is_err());
        // Text that is not JSON stays a string; valid JSON a literal.
        let params = Params::parse([("note", "{not json"), ("n", "-9223372036854775808")]).unwrap();
        let extra: Vec<_> = params.extra_json().collect();
        assert_eq!(extra[0].1, Value::String("{not json".into()));
        assert_eq!(extra[1].1, Value::from(i64::MIN));
    }

    #[test]
    fn unknown_params_keep_order_and_last_wins() {
        let params =
            Params::parse([("user", "alice"), ("logprobs", "true"), ("User", "bob")]).unwrap();
        let extra: Vec<_> = params.extra_json().collect();
        assert_eq!(extra, [("logprobs", Value::Bool(true)), ("User", Value::String("bob".into()))]);
    }
}
