//! What the template-rendering subcommands (`render`, `check`, `build`,
//! `batch`) share: the `--context` file (JSON, or TOML by extension), the
//! `-D` definitions over it, the templates includes name, and the seed
//! used without `--seed`.

use std::path::{Path, PathBuf};

use prompt_core::json::Budget;
use prompt_suite::brackets::{Context, Environment, Limits, LoadError, TemplateNames, random_seed};
use prompt_suite::pipeline::{AttachmentLimits, Attachments, RunFiles, Templates};

use crate::args::{Define, SourceArgs};
use crate::diagnostic::Diagnostic;
use crate::input::Input;

/// The template or prompt of the input flags: the text of `-t` (named
/// `<template>`), else FILE or standard input.
pub(crate) fn read_source(args: &SourceArgs) -> Result<Input, Diagnostic> {
    match &args.template {
        Some(text) => Ok(Input::from_bytes("<template>", text.clone().into_bytes())),
        None => Input::read(args.file.as_deref()),
    }
}

/// The stores in the `--context` file, or empty stores without one. A
/// file whose name ends in `.toml` (any case) is TOML, anything else strict
/// JSON. Either is read by minijinja-brackets' one rule: the state store
/// itself (no `state`, `local` or `global` key at the top), or those
/// stores (each optional); a mixed object is an error on its stray key,
/// with a help showing both shapes.
pub(crate) fn read_context(path: Option<&Path>) -> Result<Context, Diagnostic> {
    let Some(path) = path else { return Ok(Context::default()) };
    let input = Input::read(Some(path))?;
    let is_toml = path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("toml"));
    let text = input.text()?;
    if !is_toml {
        return Context::from_json(text)
            .map_err(|err| Diagnostic::of(&err, Some(text)).with_origin(input.origin()));
    }
    let invalid = |message: String| Diagnostic::new("invalid_toml", message);
    let table: toml::Table = text.parse().map_err(|err: toml::de::Error| {
        let diagnostic = invalid(err.message().to_owned()).with_origin(input.origin().to_owned());
        match err.span() {
            Some(span) => diagnostic.at_offset(text, span.start),
            None => diagnostic,
        }
    })?;
    let mut budget = Budget::new(Limits::default().memory_limit());
    let json = toml_to_json(toml::Value::Table(table), "", &mut budget)
        .map_err(|(kind, message)| Diagnostic::new(kind, message).with_origin(input.origin()))?;
    // A TOML document is a table, so its JSON is an object.
    let context = match json {
        serde_json::Value::Object(object) => Context::from_object(object),
        other => Context::from_serialize(&other),
    };
    context.map_err(|err| Diagnostic::of(&err, None).with_origin(input.origin()))
}

/// A TOML value as JSON: a date or time becomes its TOML text; a float
/// that JSON cannot hold (`nan`, `inf`) is an `invalid_toml` error naming
/// its key, never a silent `null`. What it builds counts in `budget`
/// (`prompt_core::json::Budget`'s model, the JSON readers' own) before it
/// is built: past it, a `memory_limit` error naming the key.
fn toml_to_json(
    value: toml::Value,
    key: &str,
    budget: &mut Budget,
) -> Result<serde_json::Value, (&'static str, String)> {
    use serde_json::Value as Json;
    let over = |over| ("memory_limit", format!("`{key}` would take {over} as values"));
    Ok(match value {
        toml::Value::String(s) => {
            budget.text(s.len()).map_err(over)?;
            Json::String(s)
        }
        toml::Value::Integer(i) => Json::from(i),
        toml::Value::Float(f) => match serde_json::Number::from_f64(f) {
            Some(number) => Json::Number(number),
            None => {
                return Err((
                    "invalid_toml",
                    format!("`{key}` is {f}, which JSON has no number for"),
                ));
            }
        },
        toml::Value::Boolean(b) => Json::Bool(b),
        toml::Value::Datetime(d) => {
            let text = d.to_string();
            budget.text(text.len()).map_err(over)?;
            Json::String(text)
        }
        toml::Value::Array(items) => {
            budget.list().map_err(over)?;
            let mut array = Vec::new();
            for (i, item) in items.into_iter().enumerate() {
                budget.value().map_err(over)?;
                array.push(toml_to_json(item, &format!("{key}[{i}]"), budget)?);
            }
            Json::Array(array)
        }
        toml::Value::Table(table) => {
            budget.object().map_err(over)?;
            let mut object = serde_json::Map::new();
            for (k, v) in table {
                let path = if key.is_empty() { k.clone() } else { format!("{key}.{k}") };
                budget
                    .entry(k.len())
                    .map_err(|e| ("memory_limit", format!("`{path}` would take {e} as values")))?;
                let v = toml_to_json(v, &path, budget)?;
                object.insert(k, v);
            }
            Json::Object(object)
        }
    })
}

/// Sets each `-D` definition in its store, in order (a later one wins),
/// over whatever the context had.
pub(crate) fn define(context: &mut Context, defines: &[Define]) {
    for define in defines {
        context.store_mut(define.scope).insert(define.name.clone(), define.value.clone());
    }
}

/// The files `named` (each with what it is; standard input, `-`, and
/// absent ones skipped) and the `-o` file: the run's own files, which are
/// never served as templates.
pub(crate) fn run_files(named: &[(&str, Option<&Path>)]) -> RunFiles {
    let mut files = RunFiles::new();
    for (what, path) in named {
        if let Some(path) = path.filter(|path| path.as_os_str() != "-") {
            files = files.with(what, path);
        }
    }
    match crate::output::target() {
        Some(output) => files.with("the -o output", &output),
        None => files,
    }
}

/// The templates `include`, `import` and `extends` name, installed as
/// `env`'s loader: under `dir` (`--templates`), else under the input
/// file's directory, never serving one of the run's own files (`run`). A template from `from` (`-t`, standard input) without
/// `--templates` has none: naming one is a `load_error` that says which flag
/// to give. Returns the templates and their directory as given (empty for
/// the current one), to name the files errors are in.
pub(crate) fn templates(
    dir: Option<&Path>,
    input: &Input,
    from: &str,
    env: &mut Environment,
    run: RunFiles,
) -> Result<Option<(Templates, PathBuf)>, Diagnostic> {
    let dir = match (dir, input.path()) {
        (Some(dir), _) => dir.to_owned(),
        (None, Some(path)) => {
            // The template's own directory holds its data too: a name must
            // be written in a template (`--templates DIR` is the user's
            // choice of a templates directory, where data may build names).
            env.set_template_names(TemplateNames::Authored);
            path.parent().map(Path::to_owned).unwrap_or_default()
        }
        (None, None) => {
            let why = format!(
                "a template from {from} has no directory to resolve names in; \
                 give `--templates DIR`"
            );
            env.set_loader(move |_| Err(LoadError::new(why.clone())));
            return Ok(None);
        }
    };
    let open = if dir.as_os_str().is_empty() { Path::new(".") } else { &dir };
    let files = Attachments::directory(open, AttachmentLimits::default()).map_err(|err| {
        Diagnostic::new("io_error", format!("--templates {}: {}", dir.display(), err.message()))
    })?;
    let templates = Templates::new(files).refusing(run);
    templates.install(env);
    Ok(Some((templates, dir)))
}

/// A value given on the command line: parsed as JSON when it is JSON
/// (strictly: `3`, `null`, `"quoted"`, `{"a": 1}`), else the text as a
/// string (`hello`).
///
/// # Errors
///
/// `invalid_json` for text that is JSON but not strict JSON (a key repeated
/// in an object, an integer outside 64 bits): it was meant as JSON, and
/// taking it as a string would silently change it.
pub(crate) fn json_or_string(text: &str) -> Result<serde_json::Value, Diagnostic> {
    match prompt_core::json::Reader::new().parse(text) {
        Ok(value) => Ok(value),
        Err(err) if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() => {
            Err(Diagnostic::new("invalid_json", format!("`{text}`: {}", err.message())))
        }
        Err(_) => Ok(serde_json::Value::String(text.to_owned())),
    }
}

/// The seed to render with: `given` (`--seed`), else one drawn from the
/// operating system's entropy below 2^53 (minijinja-brackets'
/// `random_seed`), which the `--json` and `--full` outputs report.
pub(crate) fn seed(given: Option<u64>) -> Result<u64, Diagnostic> {
    match given {
        Some(seed) => Ok(seed),
        None => random_seed().map_err(|err| Diagnostic::of(&err, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toml_context(text: &str) -> Result<Context, Diagnostic> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.TOML");
        std::fs::write(&path, text).unwrap();
        read_context(Some(&path))
    }

    #[test]
    fn toml_contexts_become_the_same_stores() {
        let context = toml_context(
            "[state]\nname = \"Ann\"\nn = 9007199254740993\nx = 0.1\nwhen = 1979-05-27\n\
             [local.deep]\nlist = [1, \"a\"]\n",
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&context.state).unwrap(),
            r#"{"name":"Ann","n":9007199254740993,"x":0.1,"when":"1979-05-27"}"#
        );
        assert_eq!(serde_json::to_string(&context.local).unwrap(), r#"{"deep":{"list":[1,"a"]}}"#);
    }

    #[test]
    fn bad_toml_is_a_placed_error() {
        let err = toml_context("[state]\nname = \"Ann\"\nname = \"Bo\"\n").unwrap_err();
        assert_eq!(err.kind(), "invalid_toml");
        assert_eq!(err.line(), Some(3), "{}", err.message());
        let err = toml_context("[state]\nx = nan\n").unwrap_err();
        assert_eq!(err.message(), "`state.x` is NaN, which JSON has no number for");
        let err = toml_context("state = 1\n").unwrap_err();
        assert_eq!(err.kind(), "invalid_context");
        assert_eq!(err.message(), "`state` must be an object of variables, not a number");
        // Without `state`, `local` or `global` the document is the state store.
        let context = toml_context("name = \"Ann\"\n[deep]\nx = 1\n").unwrap();
        assert_eq!(
            serde_json::to_string(&context.state).unwrap(),
            r#"{"name":"Ann","deep":{"x":1}}"#
        );
        let err = toml_context("name = \"Ann\"\n[state]\nx = 1\n").unwrap_err();
        assert!(err.message().starts_with("`name` is beside `state`"), "{}", err.message());
    }
}
