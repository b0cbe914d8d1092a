//! `minijinja_brackets`: lexing, parsing and rendering arbitrary templates
//! under small limits, against a context with values of every kind. The
//! first byte picks strict mode and the seed.
//!
//! Checked beyond "no panic": a successful render respects the output
//! limit, and rendering twice with the same seed gives the same result.

#![no_main]

use libfuzzer_sys::fuzz_target;
use minijinja_brackets::{Context, Environment, Limits};

const OUTPUT_LIMIT: usize = 64 * 1024;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(source) = std::str::from_utf8(rest) else { return };
    let mut env = Environment::new();
    env.set_limits(
        Limits::default()
            .with_nesting_limit(32)
            .with_recursion_limit(16)
            .with_fuel(Some(20_000))
            .with_output_limit(OUTPUT_LIMIT)
            .with_string_limit(OUTPUT_LIMIT)
            .with_range_limit(1_000),
    );
    env.set_strict(selector & 1 == 1);
    let Ok(template) = env.compile(source) else { return };

    let context: Context = serde_json::from_str(
        r#"{"state": {"name": "Ann", "n": 3, "x": 2.5, "ok": true, "none": null,
                      "items": [1, "two", [3], {"four": 4}], "user": {"name": "Bo", "tags": ["a", "b"]}},
            "local": {"turn": 7}, "global": {"lang": "en"}}"#,
    )
    .expect("the fixed context is valid");
    let seed = u64::from(selector >> 1);
    let first = template.render(&context, seed);
    if let Ok(rendered) = &first {
        assert!(rendered.output.len() <= OUTPUT_LIMIT, "output over its limit");
    }
    let second = template.render(&context, seed);
    assert_eq!(first, second, "the same seed rendered differently");
});
