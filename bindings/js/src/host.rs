//! The host's filters, tests and functions: JavaScript functions the
//! package's `host.js` keeps by number. A render calls one with the
//! JSON of `{"value"?, "args", "kwargs"}` and reads back `=` and the
//! result's JSON, or `!` and the message of what the function threw.

use prompt_suite::brackets::{Arguments, Error as TemplateError, ErrorKind, Value};

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(raw_module = "./host.js")]
extern "C" {
    /// Calls the host function `id` with the JSON of a call.
    #[wasm_bindgen(js_name = callHost)]
    fn call_host(id: u32, call: &str) -> String;
}

/// Outside WebAssembly there is no JavaScript to call.
#[cfg(not(target_arch = "wasm32"))]
fn call_host(_id: u32, _call: &str) -> String {
    "!host functions run only in WebAssembly".to_owned()
}

/// What a host callable is used as.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Use {
    Filter,
    Test,
    Function,
}

impl Use {
    fn label(self, name: &str) -> String {
        match self {
            Use::Filter => format!("filter `{name}`"),
            Use::Test => format!("test `{name}`"),
            Use::Function => format!("function `{name}`"),
        }
    }
}

/// Calls host function `id` (`label` names it in errors) on `value` (a
/// filter's or test's input) and the arguments; an undefined value is
/// `null`.
pub(crate) fn call(
    id: u32,
    label: &str,
    value: Option<&Value>,
    args: &Arguments<'_>,
) -> Result<Value, TemplateError> {
    let failed =
        |what: String| TemplateError::new(ErrorKind::InvalidOperation, format!("{label} {what}"));
    let json = |value: &Value| -> Result<serde_json::Value, TemplateError> {
        if value.is_undefined() {
            return Ok(serde_json::Value::Null);
        }
        value.to_json().map_err(|err| {
            TemplateError::new(ErrorKind::BadArguments, format!("{label}: {}", err.message()))
        })
    };
    let mut call = serde_json::Map::new();
    if let Some(value) = value {
        call.insert("value".to_owned(), json(value)?);
    }
    let positional = args.positional().iter().map(json).collect::<Result<Vec<_>, _>>()?;
    call.insert("args".to_owned(), serde_json::Value::Array(positional));
    let mut keywords = serde_json::Map::new();
    for (name, arg) in args.keywords() {
        keywords.insert((*name).to_owned(), json(arg)?);
    }
    call.insert("kwargs".to_owned(), serde_json::Value::Object(keywords));
    let answer = call_host(id, &serde_json::Value::Object(call).to_string());
    match answer.split_at_checked(1) {
        Some(("=", result)) => {
            let result: serde_json::Value = prompt_core::json::from_str(result).map_err(|err| {
                failed(format!("returned a value the template cannot hold: {}", err.message()))
            })?;
            Value::from_json(&result).map_err(|err| failed(format!("returned {}", err.message())))
        }
        Some(("!", message)) => Err(failed(format!("threw {message}"))),
        _ => Err(failed("is not a host function".to_owned())),
    }
}

/// Registers host function `id` as `name` in `env`.
pub(crate) fn add(env: &mut prompt_suite::brackets::Environment, use_: Use, name: &str, id: u32) {
    let label = use_.label(name);
    match use_ {
        Use::Filter => env.add_filter(name, move |value: Value, args: Arguments<'_>| {
            call(id, &label, Some(&value), &args)
        }),
        Use::Test => env.add_test(name, move |value: &Value, args: Arguments<'_>| {
            call(id, &label, Some(value), &args).map(|result| result.is_true())
        }),
        Use::Function => {
            env.add_function(name, move |args: Arguments<'_>| call(id, &label, None, &args))
        }
    }
}
