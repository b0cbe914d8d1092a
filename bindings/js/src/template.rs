//! Templates: `Environment`, `Template` and `StateHistory`, wrapping
//! minijinja-brackets' types of the same names.

use prompt_suite::brackets::{
    Context, Environment, HistoryError, Profile, StateHistory, StoreWrite, Syntax, Template,
};
use serde::Serialize;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::convert;
use crate::error::{Failure, Result, invalid};
use crate::host::{self, Use};

/// The syntax named `name`: `"brackets"` or `"jinja"`.
fn syntax(name: &str) -> Result<Syntax> {
    match name {
        "brackets" => Ok(Syntax::Brackets),
        "jinja" => Ok(Syntax::Jinja),
        _ => Err(invalid(format!("syntax must be \"brackets\" or \"jinja\", not {name:?}"))),
    }
}

/// The profile named `name`: `"reference"` or `"jinja2"`.
fn profile(name: &str) -> Result<Profile> {
    [Profile::Reference, Profile::Jinja2]
        .into_iter()
        .find(|profile| profile.as_str() == name)
        .ok_or_else(|| {
            invalid(format!("profile must be \"reference\" or \"jinja2\", not {name:?}"))
        })
}

fn template_error(err: &prompt_suite::brackets::Error) -> Failure {
    Failure::from(err.annotated())
}

fn history_error(err: &HistoryError) -> Failure {
    Failure::from(err.annotated())
}

/// A template environment (the package's `Environment`).
#[wasm_bindgen]
#[derive(Debug)]
pub struct Env {
    env: Environment,
}

#[wasm_bindgen]
impl Env {
    /// An environment of `syntax` and `profile` with the whitespace and
    /// strictness options.
    #[wasm_bindgen(constructor)]
    pub fn new(
        syntax: &str,
        profile: &str,
        trim_blocks: bool,
        lstrip_blocks: bool,
        strict: bool,
    ) -> Result<Env> {
        let mut env = Environment::new();
        env.set_syntax(self::syntax(syntax)?);
        env.set_profile(self::profile(profile)?);
        env.set_trim_blocks(trim_blocks);
        env.set_lstrip_blocks(lstrip_blocks);
        env.set_strict(strict);
        Ok(Env { env })
    }

    /// Adds (or replaces) the template `name` for include, import and
    /// extends.
    #[wasm_bindgen(js_name = addTemplate)]
    pub fn add_template(&mut self, name: &str, source: &str) -> Result<()> {
        self.env.add_template(name, source).map_err(|err| template_error(&err))
    }

    /// Adds (or replaces) host function `id` as a filter (`kind` 0), a
    /// test (1) or a function (2) named `name`.
    #[wasm_bindgen(js_name = addHost)]
    pub fn add_host(&mut self, kind: u8, name: &str, id: u32) -> Result<()> {
        let use_ = match kind {
            0 => Use::Filter,
            1 => Use::Test,
            2 => Use::Function,
            _ => return Err(invalid(format!("no host callable kind {kind}"))),
        };
        host::add(&mut self.env, use_, name, id);
        Ok(())
    }

    /// Compiles `source` with what the environment holds now.
    pub fn compile(&self, source: &str) -> Result<Tpl> {
        self.env.compile(source).map(|template| Tpl { template }).map_err(|e| template_error(&e))
    }
}

/// A compiled template (the package's `Template`).
#[wasm_bindgen]
#[derive(Debug)]
pub struct Tpl {
    template: Template,
}

/// What `renderOutcome` returns, before JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OutcomeJs<'a> {
    output: &'a str,
    writes: &'a [StoreWrite],
    effects: &'a [prompt_suite::brackets::Effect],
    data_ranges: Vec<[usize; 2]>,
}

impl Tpl {
    fn outcome(&self, context: &str, seed: u64) -> Result<prompt_suite::brackets::Outcome> {
        let context: Context = convert::read(context)?;
        self.template.render_outcome(&context, seed).map_err(|err| template_error(&err))
    }
}

#[wasm_bindgen]
impl Tpl {
    /// Renders with the JSON of `{state, local, global}` and a seed.
    pub fn render(&self, context: &str, seed: u64) -> Result<String> {
        Ok(self.outcome(context, seed)?.output)
    }

    /// Renders as `render` does; the JSON of `{output, writes, effects,
    /// dataRanges}` (ranges in UTF-16 code units).
    #[wasm_bindgen(js_name = renderOutcome)]
    pub fn render_outcome(&self, context: &str, seed: u64) -> Result<String> {
        let outcome = self.outcome(context, seed)?;
        convert::write(&OutcomeJs {
            output: &outcome.output,
            writes: &outcome.writes,
            effects: &outcome.effects,
            data_ranges: convert::ranges(&outcome.output, outcome.data_ranges.iter().cloned()),
        })
    }

    /// The JSON of what the template does, as `prompt-suite check --json`
    /// prints it, given the stores the host renders with (the JSON of
    /// `{state, local, global}`).
    pub fn analyze(&self, context: &str) -> Result<String> {
        let context: Context = convert::read(context)?;
        convert::write(&self.template.analyze_with(&context))
    }

    /// The exact distribution of the output over every random choice
    /// (`chance`, `weighted`), rendering at most `max_paths` paths: the JSON
    /// of `{outputs: [{output, probability}], paths}`, most likely first.
    pub fn exact(&self, context: &str, max_paths: usize) -> Result<String> {
        #[derive(Serialize)]
        struct Odds<'a> {
            output: &'a str,
            probability: f64,
        }
        #[derive(Serialize)]
        struct Exact<'a> {
            outputs: Vec<Odds<'a>>,
            paths: usize,
        }
        let context: Context = convert::read(context)?;
        let distribution =
            self.template.distribution(&context, max_paths).map_err(|err| template_error(&err))?;
        let outputs = distribution
            .outputs()
            .iter()
            .map(|(output, probability)| Odds { output, probability: *probability })
            .collect();
        convert::write(&Exact { outputs, paths: distribution.paths() })
    }

    /// The template's source text.
    #[wasm_bindgen(getter)]
    pub fn source(&self) -> String {
        self.template.source().to_owned()
    }
}

/// State kept in a chat's messages and swipes (the package's
/// `StateHistory`).
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct History {
    history: StateHistory,
}

#[wasm_bindgen]
impl History {
    /// An empty history.
    #[wasm_bindgen(constructor)]
    pub fn new() -> History {
        History::default()
    }

    /// Reads the CLI's history file format (the caller's text: errors are
    /// placed in it).
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(text: &str) -> Result<History> {
        StateHistory::from_json(text)
            .map(|history| History { history })
            .map_err(|e| history_error(&e))
    }

    /// The history in the CLI's file format.
    #[wasm_bindgen(js_name = toJson)]
    pub fn to_json(&self) -> String {
        self.history.to_json()
    }

    /// Stores the state writes (their JSON) on message `message`, on its
    /// active swipe; `message` may be the number of messages (a new one).
    pub fn record(&mut self, message: usize, writes: &str) -> Result<()> {
        let writes: Vec<StoreWrite> = convert::read(writes)?;
        if message == self.history.len() {
            self.history.push_message();
        }
        self.history.record_writes(message, &writes).map_err(|err| history_error(&err))
    }

    /// The JSON of the state store before message `message`.
    #[wasm_bindgen(js_name = stateAt)]
    pub fn state_at(&self, message: usize) -> Result<String> {
        let state = self.history.state_at(message).map_err(|err| history_error(&err))?;
        convert::write(&state)
    }

    /// Appends a message with one empty swipe; its index.
    #[wasm_bindgen(js_name = pushMessage)]
    pub fn push_message(&mut self) -> usize {
        self.history.push_message()
    }

    /// Adds an empty swipe to message `message` and makes it active; its
    /// index.
    pub fn swipe(&mut self, message: usize) -> Result<usize> {
        self.history.add_swipe(message).map_err(|err| history_error(&err))
    }

    /// Makes swipe `swipe` of message `message` the active one.
    pub fn select(&mut self, message: usize, swipe: usize) -> Result<()> {
        self.history.select_swipe(message, swipe).map_err(|err| history_error(&err))
    }

    /// Deletes message `message`; later messages move down by one.
    pub fn delete(&mut self, message: usize) -> Result<()> {
        self.history.delete_message(message).map_err(|err| history_error(&err))
    }

    /// Keeps the first `length` messages.
    pub fn truncate(&mut self, length: usize) {
        self.history.truncate(length);
    }

    /// The number of messages.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.history.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_renders_and_reports_utf16_ranges() {
        let env = Env::new("brackets", "reference", false, false, false).unwrap();
        let tpl = env.compile("😀 [[ name ]]!").unwrap();
        let out = tpl.render_outcome(r#"{"state": {"name": "Ann"}}"#, 1).unwrap();
        assert_eq!(out, r#"{"output":"😀 Ann!","writes":[],"effects":[],"dataRanges":[[3,6]]}"#);
    }

    #[test]
    fn exact_odds_and_the_analysis_come_as_json() {
        let env = Env::new("brackets", "reference", false, false, false).unwrap();
        let tpl = env.compile("[% chance 0.25 %]a[% else %]b[% endchance %]").unwrap();
        assert_eq!(
            tpl.exact("{}", 100).unwrap(),
            r#"{"outputs":[{"output":"b","probability":0.75},{"output":"a","probability":0.25}],"paths":2}"#
        );
        let err = tpl.exact("{}", 1).unwrap_err();
        assert_eq!(err.kind(), "too_many_paths");
        assert!(tpl.analyze("{}").unwrap().contains(r#""random":[{"#));
    }

    #[test]
    fn unknown_names_are_invalid_arguments() {
        let err = Env::new("mustache", "reference", false, false, false).unwrap_err();
        assert_eq!(err.kind(), "invalid_argument");
        assert!(err.text().contains("mustache"), "{}", err.text());
    }

    #[test]
    fn template_errors_keep_their_place_and_drawing() {
        let env = Env::new("brackets", "reference", false, false, false).unwrap();
        let err = env.compile("line\n[[ name ").unwrap_err();
        assert_eq!(err.line(), Some(2));
        assert!(err.text().starts_with("error["), "{}", err.text());
    }

    #[test]
    fn history_follows_deletions() {
        let mut history = History::new();
        history.record(0, r#"[{"scope": "state", "name": "n", "value": 1}]"#).unwrap();
        history.record(1, r#"[{"scope": "state", "name": "n", "value": 2}]"#).unwrap();
        assert_eq!(history.state_at(2).unwrap(), r#"{"n":2}"#);
        history.delete(1).unwrap();
        assert_eq!(history.state_at(1).unwrap(), r#"{"n":1}"#);
        assert_eq!(History::from_json(&history.to_json()).unwrap().length(), 1);
    }
}
