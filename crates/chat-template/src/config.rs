//! Reading `tokenizer_config.json` and `chat_template.json`: the named
//! templates and the special tokens.

use serde_json::{Map, Value};

use crate::error::Error;

/// The special-token variables transformers passes to a template (its
/// `special_tokens_map`), in this order.
pub(crate) const TOKEN_VARIABLES: &[&str] =
    &["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"];

/// What a config file holds for rendering.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// The templates: one unnamed (`default`) or named ones, in order.
    pub(crate) templates: Vec<(String, String)>,
    /// Whether `chat_template` was a list of named templates.
    pub(crate) named: bool,
    /// The special-token variables the config sets, by name.
    pub(crate) variables: Vec<(&'static str, String)>,
    /// Every special token: the variables' values and the
    /// `added_tokens_decoder` entries marked `special`.
    pub(crate) special: Vec<String>,
}

fn token_text(name: &str, value: &Value) -> Result<Option<String>, Error> {
    match value {
        Value::Null => Ok(None),
        Value::String(text) => Ok(Some(text.clone())),
        Value::Object(object) => match object.get("content") {
            Some(Value::String(text)) => Ok(Some(text.clone())),
            _ => Err(Error::InvalidConfig(format!(
                "`{name}` is an object without a string `content`"
            ))),
        },
        _ => Err(Error::InvalidConfig(format!(
            "`{name}` is neither a string nor a `{{\"content\": ...}}` object"
        ))),
    }
}

/// Reads a config's text (strict JSON).
pub(crate) fn parse(text: &str) -> Result<Config, Error> {
    let value: Value = prompt_core::json::from_str(text)?;
    let Value::Object(object) = value else {
        return Err(Error::InvalidConfig("the config is not a JSON object".to_owned()));
    };
    let mut config = Config::default();
    match object.get("chat_template") {
        None | Some(Value::Null) => return Err(Error::NoChatTemplate),
        Some(Value::String(source)) => {
            config.templates.push(("default".to_owned(), source.clone()))
        }
        Some(Value::Array(entries)) => {
            config.named = true;
            for (index, entry) in entries.iter().enumerate() {
                let (Some(Value::String(name)), Some(Value::String(source))) =
                    (entry.get("name"), entry.get("template"))
                else {
                    return Err(Error::InvalidConfig(format!(
                        "`chat_template[{index}]` is not a `{{\"name\": string, \"template\": string}}` object"
                    )));
                };
                if config.templates.iter().any(|(n, _)| n == name) {
                    return Err(Error::InvalidConfig(format!(
                        "`chat_template` names `{name}` twice"
                    )));
                }
                config.templates.push((name.clone(), source.clone()));
            }
        }
        Some(_) => {
            return Err(Error::InvalidConfig(
                "`chat_template` is neither a string nor a list of named templates".to_owned(),
            ));
        }
    }
    for &name in TOKEN_VARIABLES {
        if let Some(value) = object.get(name)
            && let Some(text) = token_text(name, value)?
        {
            config.special.push(text.clone());
            config.variables.push((name, text));
        }
    }
    if let Some(decoder) = object.get("added_tokens_decoder") {
        let Value::Object(decoder) = decoder else {
            return Err(Error::InvalidConfig("`added_tokens_decoder` is not an object".to_owned()));
        };
        for (id, entry) in decoder {
            special_entry(id, entry, &mut config.special)?;
        }
    }
    Ok(config)
}

fn special_entry(id: &str, entry: &Value, special: &mut Vec<String>) -> Result<(), Error> {
    let shape = || {
        Error::InvalidConfig(format!(
            "`added_tokens_decoder[\"{id}\"]` is not a `{{\"content\": string, \"special\": bool}}` object"
        ))
    };
    let entry: &Map<String, Value> = entry.as_object().ok_or_else(shape)?;
    let Some(Value::String(content)) = entry.get("content") else {
        return Err(shape());
    };
    match entry.get("special") {
        Some(Value::Bool(true)) => special.push(content.clone()),
        Some(Value::Bool(false)) | None => {}
        Some(_) => return Err(shape()),
    }
    Ok(())
}
