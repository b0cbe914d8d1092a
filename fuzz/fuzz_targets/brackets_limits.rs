//! `minijinja_brackets` under its real limits: the default string limit
//! (16 MiB), range limit (100 000 items), memory limit (128 MiB) and output
//! limit (16 MiB), with less fuel than the default (200 000 steps) so that
//! an input still runs in well under a second. Unlike `brackets`, whose
//! small limits stop a template long before memory matters, this variant
//! can reach the memory class: large strings written, shared, converted and
//! split again and again. The first byte picks strict mode and the seed.
//!
//! Checked beyond "no panic, no OOM" (libFuzzer's RSS limit): a successful
//! render respects the output limit, and its data ranges are sorted,
//! disjoint, non-empty and on character boundaries of the output.

#![no_main]

use libfuzzer_sys::fuzz_target;
use minijinja_brackets::{Context, Environment, Limits};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(source) = std::str::from_utf8(rest) else { return };
    let mut env = Environment::new();
    let limits = Limits::default().with_fuel(Some(200_000));
    let output_limit = limits.output_limit();
    env.set_limits(limits);
    env.set_strict(selector & 1 == 1);
    let Ok(template) = env.compile(source) else { return };

    let context: Context = serde_json::from_str(
        r#"{"state": {"name": "Ann", "n": 3, "x": 2.5, "ok": true, "none": null,
                      "items": [1, "two", [3], {"four": 4}], "user": {"name": "Bo", "tags": ["a", "b"]}},
            "local": {"turn": 7}, "global": {"lang": "en"}}"#,
    )
    .expect("the fixed context is valid");
    let Ok(outcome) = template.render_outcome(&context, u64::from(selector >> 1)) else { return };
    assert!(outcome.output.len() <= output_limit, "output over its limit");
    let mut end = 0;
    for range in &outcome.data_ranges {
        assert!(end <= range.start && range.start < range.end, "{:?}", outcome.data_ranges);
        assert!(range.end <= outcome.output.len(), "a data range past the output");
        assert!(outcome.output.is_char_boundary(range.start));
        assert!(outcome.output.is_char_boundary(range.end));
        end = range.end;
    }
});
