//! What a request declares besides its messages: the [`Tool`]s the model may
//! call, the [`ToolChoice`], and the [`ResponseSchema`] its answer must
//! follow. Each adapter writes them in its provider's own shape; the rules
//! every provider shares are checked once, here ([`check`]).

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::str::FromStr;

use prompt_core::json::RawJson;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::error::{Error, ErrorKind};

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    /// Its name: 1 to 64 letters, digits, `_` or `-` (the strictest
    /// provider's rule), and not `auto`, `none` or `required`.
    pub name: String,
    /// What it does, for the model.
    pub description: Option<String>,
    /// A JSON Schema object for its arguments, kept exactly as written.
    pub parameters: RawJson,
}

/// Which tool the model must call, if any.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ToolChoice {
    /// The model decides (every provider's default).
    Auto,
    /// No tool.
    None,
    /// Some tool (OpenAI `required`, Anthropic `any`, Gemini `ANY`).
    Required,
    /// This declared tool.
    Named(String),
}

/// The JSON Schema a structured answer must follow, and its name (OpenAI
/// requires one): the schema's `title` when that is a valid name, else
/// `response`. Made by [`ResponseSchema::parse`], which also finds, once,
/// what Gemini cannot express.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseSchema {
    name: String,
    schema: RawJson,
    /// The first keyword `responseJsonSchema` does not support, and where.
    gemini_refusal: Option<(String, String)>,
}

/// The names a tool may not have: they are [`ToolChoice`]'s keywords.
const RESERVED: [&str; 3] = ["auto", "none", "required"];

/// Whether `name` follows the strictest provider rule for tool names
/// (Anthropic's and Gemini's `^[a-zA-Z0-9_-]{1,64}$`).
pub(crate) fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl Tool {
    /// The tools of a JSON array, each `{"name", "description"?,
    /// "parameters"?}` or OpenAI's `{"type": "function", "function":
    /// {...}}` (whose `strict`, when given, must be `true`: the suite always
    /// asks for strict tools). A tool without `parameters` takes none
    /// (`{"type": "object", "properties": {}}`).
    ///
    /// ```
    /// use prompt_pipeline::Tool;
    ///
    /// let tools = Tool::parse_list(r#"[
    ///     {"name": "add", "parameters": {"type": "object", "properties": {"a": {"type": "number"}}}},
    ///     {"type": "function", "function": {"name": "now", "description": "The time"}}
    /// ]"#)?;
    /// assert_eq!(tools[1].name, "now");
    /// assert_eq!(tools[1].parameters.as_str(), r#"{"type":"object","properties":{}}"#);
    /// # Ok::<(), prompt_pipeline::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidTool`]: not strict JSON, not an array of such
    /// objects, an unknown key, a name that breaks the rule or is
    /// reserved, a repeated name, parameters that are not an object.
    pub fn parse_list(json: &str) -> Result<Vec<Tool>, Error> {
        let invalid = |tool: &str, reason: String| {
            Error::new(ErrorKind::InvalidTool { tool: tool.to_owned(), reason })
        };
        let raw = RawJson::parse(json).map_err(|err| invalid("", format!("not JSON: {err}")))?;
        let items: Vec<BTreeMap<String, Box<RawValue>>> = serde_json::from_str(raw.as_str())
            .map_err(|_| invalid("", "expected a JSON array of tool objects".to_owned()))?;
        let mut tools = Vec::with_capacity(items.len());
        for (index, mut item) in items.into_iter().enumerate() {
            let at = format!("#{index}");
            if item.contains_key("function") {
                match item.remove("type").map(|t| t.get().to_owned()).as_deref() {
                    Some("\"function\"") => {}
                    _ => {
                        return Err(invalid(
                            &at,
                            "a wrapped tool has `\"type\": \"function\"`".into(),
                        ));
                    }
                }
                let function = item.remove("function").unwrap_or_else(|| unreachable!());
                if let Some(key) = item.keys().next() {
                    return Err(invalid(&at, format!("unknown key `{key}`")));
                }
                item = serde_json::from_str(function.get())
                    .map_err(|_| invalid(&at, "`function` is an object".into()))?;
                match item.remove("strict").map(|s| s.get().to_owned()).as_deref() {
                    None | Some("true") => {}
                    Some(_) => {
                        return Err(invalid(
                            &at,
                            "`strict` must be true: the suite always asks for strict tools".into(),
                        ));
                    }
                }
            }
            let string = |item: &mut BTreeMap<String, Box<RawValue>>, key: &str| {
                item.remove(key)
                    .map(|raw| serde_json::from_str::<String>(raw.get()))
                    .transpose()
                    .map_err(|_| invalid(&at, format!("`{key}` is a string")))
            };
            let name = string(&mut item, "name")?
                .ok_or_else(|| invalid(&at, "a tool has a `name`".into()))?;
            let description = string(&mut item, "description")?;
            let parameters = match item.remove("parameters") {
                Some(raw) => {
                    let parameters = RawJson::parse(raw.get())
                        .map_err(|err| invalid(&name, format!("parameters: {err}")))?;
                    if !parameters.is_object() {
                        return Err(invalid(&name, "`parameters` is a JSON Schema object".into()));
                    }
                    compact(parameters)
                }
                None => RawJson::parse(r#"{"type":"object","properties":{}}"#)
                    .unwrap_or_else(|_| RawJson::empty_object()),
            };
            if let Some(key) = item.keys().next() {
                return Err(invalid(&name, format!("unknown key `{key}`")));
            }
            tools.push(Tool { name, description, parameters });
        }
        check_names(&tools)?;
        Ok(tools)
    }
}

impl ToolChoice {
    /// `auto`, `none`, `required` or a tool's name (what `/// tool_choice:`
    /// and `--tool-choice` take).
    pub fn parse(text: &str) -> ToolChoice {
        match text.trim() {
            "auto" => ToolChoice::Auto,
            "none" => ToolChoice::None,
            "required" => ToolChoice::Required,
            name => ToolChoice::Named(name.to_owned()),
        }
    }
}

impl FromStr for ToolChoice {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<ToolChoice, Self::Err> {
        Ok(ToolChoice::parse(text))
    }
}

impl fmt::Display for ToolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ToolChoice::Auto => "auto",
            ToolChoice::None => "none",
            ToolChoice::Required => "required",
            ToolChoice::Named(name) => name,
        })
    }
}

impl ResponseSchema {
    /// A JSON Schema object, named by its `title` when that is a valid name
    /// (letters, digits, `_`, `-`, at most 64), else `response`.
    ///
    /// ```
    /// use prompt_pipeline::ResponseSchema;
    ///
    /// let schema = ResponseSchema::parse(r#"{"title": "answer", "type": "object"}"#)?;
    /// assert_eq!(schema.name(), "answer");
    /// assert_eq!(ResponseSchema::parse(r#"{"title": "An answer"}"#)?.name(), "response");
    /// # Ok::<(), prompt_pipeline::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidSchema`] when `json` is not one strict JSON
    /// object.
    pub fn parse(json: &str) -> Result<ResponseSchema, Error> {
        let invalid = |reason: String| Error::new(ErrorKind::InvalidSchema { reason });
        let schema = RawJson::parse(json).map_err(|err| invalid(format!("not JSON: {err}")))?;
        if !schema.is_object() {
            return Err(invalid("a response schema is a JSON Schema object".to_owned()));
        }
        let fields: BTreeMap<String, Box<RawValue>> = serde_json::from_str(schema.as_str())
            .map_err(|err| invalid(format!("not an object: {err}")))?;
        let title =
            fields.get("title").and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
        let name = title.filter(|title| valid_name(title)).unwrap_or_else(|| "response".to_owned());
        let schema = compact(schema);
        let gemini_refusal = gemini_refusal(&schema);
        Ok(ResponseSchema { name, schema, gemini_refusal })
    }

    /// The same schema under `name` (OpenAI's `json_schema.name`, which a
    /// converted request keeps).
    ///
    /// ```
    /// use prompt_pipeline::ResponseSchema;
    ///
    /// let schema = ResponseSchema::parse(r#"{"type": "object"}"#)?.named("weather_report")?;
    /// assert_eq!(schema.name(), "weather_report");
    /// assert!(ResponseSchema::parse("{}")?.named("a report").is_err());
    /// # Ok::<(), prompt_pipeline::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidSchema`] when `name` is not 1 to 64 letters,
    /// digits, `_` or `-`.
    pub fn named(mut self, name: &str) -> Result<ResponseSchema, Error> {
        if !valid_name(name) {
            return Err(Error::new(ErrorKind::InvalidSchema {
                reason: format!("the name `{name}` is not 1 to 64 letters, digits, `_` or `-`"),
            }));
        }
        self.name = name.to_owned();
        Ok(self)
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The schema object, as written (compacted).
    pub fn schema(&self) -> &RawJson {
        &self.schema
    }

    /// The first keyword Gemini's `responseJsonSchema` cannot express and
    /// its JSON pointer (`("not", "/properties/x")`), if any.
    pub(crate) fn gemini_refusal(&self) -> Option<(&str, &str)> {
        let (keyword, at) = self.gemini_refusal.as_ref()?;
        Some((keyword.as_str(), at.as_str()))
    }
}

/// `json` (valid JSON) without the whitespace between its tokens, so a
/// body stays one line (a JSONL batch line above all); strings, numbers and
/// key order are kept byte for byte.
fn compact(json: RawJson) -> RawJson {
    let text = json.as_str();
    if !text.bytes().any(|b| matches!(b, b' ' | b'\n' | b'\r' | b'\t')) {
        return json;
    }
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if !matches!(c, ' ' | '\n' | '\r' | '\t') {
            in_string = c == '"';
            out.push(c);
        }
    }
    RawJson::parse(&out).unwrap_or(json)
}

/// The keywords `responseJsonSchema` supports (python-genai 2.19.0,
/// `GenerateContentConfig.response_json_schema`).
const SCHEMA_KEYWORDS: [&str; 21] = [
    "$id",
    "$defs",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "oneOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
];

/// The first keyword of `schema` that Gemini's `responseJsonSchema` does
/// not support and its JSON pointer, if any; walks iteratively (no
/// recursion on hostile depth). Found once, when the schema is read.
fn gemini_refusal(schema: &RawJson) -> Option<(String, String)> {
    // serde_json stops at 128 levels, as the strict reader did before it
    // (so this cannot happen); if it did, refuse rather than skip the check.
    let Ok(value) = serde_json::from_str::<Value>(schema.as_str()) else {
        return Some(("(nesting deeper than 128 levels)".to_owned(), "/".to_owned()));
    };
    let mut stack: Vec<(String, &Value)> = vec![(String::new(), &value)];
    while let Some((at, schema)) = stack.pop() {
        let Some(object) = schema.as_object() else { continue };
        for (key, value) in object {
            let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
            if !SCHEMA_KEYWORDS.contains(&key.as_str()) {
                return Some((key.clone(), if at.is_empty() { "/".to_owned() } else { at }));
            }
            match key.as_str() {
                // Maps of names to schemas.
                "properties" | "$defs" => {
                    for (name, sub) in value.as_object().into_iter().flatten() {
                        stack.push((
                            format!("{here}/{}", name.replace('~', "~0").replace('/', "~1")),
                            sub,
                        ));
                    }
                }
                // Lists of schemas.
                "anyOf" | "oneOf" | "prefixItems" => {
                    for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                        stack.push((format!("{here}/{i}"), sub));
                    }
                }
                // One schema (or a boolean).
                "items" | "additionalProperties" => stack.push((here, value)),
                _ => {}
            }
        }
    }
    None
}

/// Tool names: the provider rule, not reserved, each once.
fn check_names(tools: &[Tool]) -> Result<(), Error> {
    let mut seen = HashSet::with_capacity(tools.len());
    for tool in tools {
        let reason = if !valid_name(&tool.name) {
            "a tool name is 1 to 64 letters, digits, `_` or `-`"
        } else if RESERVED.contains(&tool.name.as_str()) {
            "`auto`, `none` and `required` are tool-choice keywords, not tool names"
        } else if !seen.insert(tool.name.as_str()) {
            "two tools have this name"
        } else {
            continue;
        };
        return Err(Error::new(ErrorKind::InvalidTool {
            tool: tool.name.clone(),
            reason: reason.to_owned(),
        }));
    }
    Ok(())
}

/// The rules every provider shares: tool names (see [`Tool::parse_list`];
/// checked again for tools made by hand) and a named choice that names a
/// declared tool.
pub(crate) fn check(tools: &[Tool], choice: Option<&ToolChoice>) -> Result<(), Error> {
    if tools.is_empty() && choice.is_none() {
        // Nothing declared (the usual build): no name set to make.
        return Ok(());
    }
    check_names(tools)?;
    match choice {
        Some(ToolChoice::Named(name)) if !tools.iter().any(|tool| &tool.name == name) => {
            Err(Error::new(ErrorKind::UnknownTool { name: name.clone() }))
        }
        Some(ToolChoice::Required | ToolChoice::Named(_)) if tools.is_empty() => {
            Err(Error::new(ErrorKind::UnknownTool {
                name: choice.map(ToString::to_string).unwrap_or_default(),
            }))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_and_their_errors() {
        let tools = Tool::parse_list(
            r#"[{"name": "a", "description": "A", "parameters": {"type": "object", "n": 123456789012345678901234567890}},
                {"type": "function", "function": {"name": "b", "strict": true}}]"#,
        )
        .unwrap();
        // Compact (one line in a body), digits and strings kept.
        assert_eq!(
            tools[0].parameters.as_str(),
            r#"{"type":"object","n":123456789012345678901234567890}"#
        );
        let schema = ResponseSchema::parse("{\n \"a b\": \"x \\\" y\"\t}").unwrap();
        assert_eq!(schema.schema().as_str(), r#"{"a b":"x \" y"}"#);
        assert_eq!(tools[1].description, None);
        let reason = |json: &str| match Tool::parse_list(json).unwrap_err().kind() {
            ErrorKind::InvalidTool { reason, .. } => reason.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(reason(r#"[{"name": "a"}, {"name": "a"}]"#), "two tools have this name");
        assert!(reason(r#"[{"name": "auto"}]"#).contains("keywords"));
        assert!(reason(r#"[{"name": "a b"}]"#).contains("1 to 64"));
        assert!(reason(&format!(r#"[{{"name": "{}"}}]"#, "x".repeat(65))).contains("1 to 64"));
        assert_eq!(reason(r#"[{"name": "a", "params": {}}]"#), "unknown key `params`");
        assert_eq!(
            reason(r#"[{"type": "function", "function": {"name": "a"}, "x": 1}]"#),
            "unknown key `x`"
        );
        assert!(
            reason(r#"[{"type": "function", "function": {"name": "a", "strict": false}}]"#)
                .contains("strict")
        );
        assert!(reason(r#"[{"name": "a", "parameters": [1]}]"#).contains("object"));
        assert!(reason(r#"[{"name": "a", "name": "b"}]"#).starts_with("not JSON"));
        assert!(reason(r#"{"name": "a"}"#).contains("array"));
    }

    #[test]
    fn choices_name_declared_tools() {
        let tools = Tool::parse_list(r#"[{"name": "a"}]"#).unwrap();
        assert!(check(&tools, Some(&ToolChoice::parse("a"))).is_ok());
        let err = check(&tools, Some(&ToolChoice::parse("b"))).unwrap_err();
        assert_eq!(err.kind().as_str(), "unknown_tool");
        assert!(check(&[], Some(&ToolChoice::Required)).is_err());
        assert!(check(&[], Some(&ToolChoice::None)).is_ok());
        assert_eq!(ToolChoice::parse(" required ").to_string(), "required");
        // Nesting past 128 levels is refused when read (prompt_core::json),
        // so the Gemini keyword walk always sees the whole schema.
        let deep = format!("{}{}", r#"{"items":"#.repeat(200), "{}".to_owned() + &"}".repeat(200));
        let err = ResponseSchema::parse(&deep).unwrap_err();
        assert_eq!(err.kind().as_str(), "invalid_schema");
    }
}
