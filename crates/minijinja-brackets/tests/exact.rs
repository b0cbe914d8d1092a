//! Exact output distributions: enumerated random paths of the real
//! evaluator, compared with the language definition's arithmetic.

use minijinja_brackets::{Context, Distribution, Environment, ErrorKind, Limits};
use proptest::prelude::*;

fn exact(source: &str) -> Distribution {
    let env = Environment::new();
    env.compile(source).unwrap().distribution(&Context::default(), 10_000).unwrap()
}

#[test]
fn sequential_chance_rolls_are_exact() {
    let d = exact("[% chance 0.2 %]A[% elif 0.5 %]B[% else %]C[% endchance %]");
    assert_eq!(d.probability("A"), 0.2);
    assert_eq!(d.probability("B"), 0.4);
    assert_eq!(d.probability("C"), 0.4);
    assert_eq!(d.paths(), 3);
}

#[test]
fn weights_are_normalised_exactly() {
    let d = exact(
        "[% weighted %][% choice 10 %]common[% endchoice %][% choice 1 %]rare[% endchoice %][% endweighted %]",
    );
    assert_eq!(d.outputs(), [("common".to_owned(), 10.0 / 11.0), ("rare".to_owned(), 1.0 / 11.0)]);
}

#[test]
fn certain_and_impossible_branches_are_not_branching_points() {
    let d = exact("[% chance 1 %]a[% else %]b[% endchance %][% chance 0 %]c[% endchance %]");
    assert_eq!(d.outputs(), [("a".to_owned(), 1.0)]);
    assert_eq!(d.paths(), 1);
    let d = exact("[% weighted %][% choice 0 %]x[% endchoice %][% endweighted %]done");
    assert_eq!(d.outputs(), [("done".to_owned(), 1.0)]);
}

#[test]
fn identical_outputs_merge_and_paths_multiply() {
    // Two independent coin flips: the two paths printing one "x" merge.
    let d = exact("[% chance 0.5 %]x[% endchance %][% chance 0.5 %]x[% endchance %]");
    assert_eq!(d.paths(), 4);
    assert_eq!(d.probability("x"), 0.5);
    assert_eq!(d.probability("xx"), 0.25);
    assert_eq!(d.probability(""), 0.25);
    assert_eq!(d.outputs()[0].0, "x");
}

#[test]
fn later_rolls_see_earlier_writes() {
    // The second block's probability depends on the first block's choice.
    let d = exact(
        "[% set p = 0 %][% chance 0.5 %][% set p = 1 %][% endchance %]\
         [% chance p %]yes[% else %]no[% endchance %]",
    );
    assert_eq!(d.outputs(), [("yes".to_owned(), 0.5), ("no".to_owned(), 0.5)]);
}

#[test]
fn no_randomness_is_one_path() {
    let d = exact("[% for i in range(3) %][[ i ]][% endfor %]");
    assert_eq!(d.outputs(), [("012".to_owned(), 1.0)]);
    assert_eq!(serde_json::to_string(&d).unwrap(), r#"{"outputs":{"012":1.0}}"#);
}

#[test]
fn too_many_paths_is_a_typed_error_suggesting_samples() {
    let env = Environment::new();
    let t = env
        .compile("[% for i in range(20) %][% chance 0.5 %]x[% endchance %][% endfor %]")
        .unwrap();
    let err = t.distribution(&Context::default(), 10_000).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TooManyPaths);
    assert_eq!(err.kind().as_str(), "too_many_paths");
    assert!(err.message().contains("--samples"), "{err}");
    // Exactly at the cap is fine: 2^3 paths with a cap of 8.
    let t =
        env.compile("[% for i in range(3) %][% chance 0.5 %]x[% endchance %][% endfor %]").unwrap();
    assert_eq!(t.distribution(&Context::default(), 8).unwrap().paths(), 8);
    assert_eq!(t.distribution(&Context::default(), 7).unwrap_err().kind(), ErrorKind::TooManyPaths);
}

#[test]
fn all_paths_share_ten_renders_of_fuel() {
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_fuel(Some(2_000)));
    // 2^8 paths of a few hundred steps each: far more than 10 x 2 000.
    let t = env
        .compile(
            "[% for i in range(100) %][[ i ]][% endfor %]\
             [% for i in range(8) %][% chance 0.5 %]x[% endchance %][% endfor %]",
        )
        .unwrap();
    let err = t.distribution(&Context::default(), 10_000).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TooManyPaths);
    assert!(err.message().contains("fuel of 10 renders"), "{err}");
    // One render that runs out on its own is still `out_of_fuel`.
    let t = env.compile("[% for i in range(5000) %][% endfor %]").unwrap();
    let err = t.distribution(&Context::default(), 10_000).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfFuel);
}

#[test]
fn distinct_outputs_share_ten_outputs_of_memory() {
    let mut env = Environment::new();
    env.set_limits(Limits::default().with_output_limit(100));
    let t = env
        .compile("[% for i in range(5) %][% chance 0.5 %]xxxxxxxxxx[% else %]yyyyyyyyyy[% endchance %][% endfor %]")
        .unwrap();
    let err = t.distribution(&Context::default(), 10_000).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutputLimit);
}

#[test]
fn a_render_error_on_any_path_is_reported() {
    let env = Environment::new();
    let t = env.compile("[% chance 0.5 %][[ 1 / 0 ]][% endchance %]").unwrap();
    let err = t.distribution(&Context::default(), 10_000).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidOperation);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The enumeration agrees with the closed form of sequential rolls and
    /// its probabilities add up to 1.
    #[test]
    fn chance_chains_match_the_closed_form(ps in prop::collection::vec(0.0f64..=1.0, 1..6)) {
        let mut source = String::new();
        for (i, p) in ps.iter().enumerate() {
            source.push_str(&format!("[% {} {p} %]{i}", if i == 0 { "chance" } else { "elif" }));
        }
        source.push_str("[% else %]else[% endchance %]");
        let d = exact(&source);
        let mut remaining = 1.0;
        for (i, p) in ps.iter().enumerate() {
            let expected = remaining * p;
            prop_assert!((d.probability(&i.to_string()) - expected).abs() < 1e-12);
            remaining *= 1.0 - p;
        }
        prop_assert!((d.probability("else") - remaining).abs() < 1e-12);
        let total: f64 = d.outputs().iter().map(|(_, p)| p).sum();
        prop_assert!((total - 1.0).abs() < 1e-9);
    }

    /// Every output the seeded renderer produces is one the enumeration
    /// gives a positive probability.
    #[test]
    fn seeded_outputs_are_in_the_support(seed in any::<u64>(), w in prop::collection::vec(0u8..4, 1..4)) {
        let mut source = String::from("[% weighted %]");
        for (i, w) in w.iter().enumerate() {
            source.push_str(&format!("[% choice {w} %]{i}[% endchoice %]"));
        }
        source.push_str("[% endweighted %][% chance 0.3 %]!");
        source.push_str("[% endchance %]");
        let env = Environment::new();
        let t = env.compile(&source).unwrap();
        let d = t.distribution(&Context::default(), 10_000).unwrap();
        let out = t.render(&Context::default(), seed).unwrap().output;
        prop_assert!(d.probability(&out) > 0.0, "{out:?} not in {d:?}");
    }
}
