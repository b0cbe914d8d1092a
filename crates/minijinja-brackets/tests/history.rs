//! `StateHistory` against a naive model that recomputes everything from
//! scratch, and the regenerate rule end to end with real renders.

use minijinja_brackets::{Context, Environment, Scope, StateHistory, Store, StoreWrite, Value};
use proptest::prelude::*;
use serde_json::json;

/// One swipe of the model: every write in order, duplicates included.
type Swipe = Vec<(String, i64)>;

/// The model: every message's swipes as ordered lists of every write
/// (duplicates included), and the active swipe.
#[derive(Debug, Default, Clone)]
struct Model {
    messages: Vec<(Vec<Swipe>, usize)>,
}

impl Model {
    /// The state before message `n`: replay every write of every active
    /// swipe from the start.
    fn state_at(&self, n: usize) -> Store {
        let mut state = Store::new();
        for (swipes, active) in &self.messages[..n] {
            for (name, value) in &swipes[*active] {
                state.insert(name.clone(), json!(value));
            }
        }
        state
    }
}

#[derive(Debug, Clone)]
enum Op {
    Push,
    Record(usize, Swipe),
    AddSwipe(usize),
    Select(usize, usize),
    Delete(usize),
    Truncate(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let writes = prop::collection::vec(("[abc]", 0i64..5), 0..4);
    prop_oneof![
        3 => Just(Op::Push),
        4 => (0usize..8, writes).prop_map(|(m, w)| Op::Record(m, w)),
        2 => (0usize..8).prop_map(Op::AddSwipe),
        2 => (0usize..8, 0usize..4).prop_map(|(m, s)| Op::Select(m, s)),
        1 => (0usize..8).prop_map(Op::Delete),
        1 => (0usize..8).prop_map(Op::Truncate),
    ]
}

fn apply(history: &mut StateHistory, model: &mut Model, op: &Op) {
    let len = model.messages.len();
    match op {
        Op::Push => {
            assert_eq!(history.push_message(), len);
            model.messages.push((vec![Vec::new()], 0));
        }
        Op::Record(m, writes) => {
            let as_writes: Vec<StoreWrite> = writes
                .iter()
                .map(|(name, value)| StoreWrite {
                    scope: Scope::State,
                    name: name.clone(),
                    value: Value::from_json(&json!(value)).unwrap(),
                })
                .collect();
            let result = history.record_writes(*m, &as_writes);
            assert_eq!(result.is_ok(), *m < len);
            if let Some((swipes, active)) = model.messages.get_mut(*m) {
                swipes[*active] = writes.clone();
            }
        }
        Op::AddSwipe(m) => {
            let result = history.add_swipe(*m);
            assert_eq!(result.is_ok(), *m < len);
            if let Some((swipes, active)) = model.messages.get_mut(*m) {
                swipes.push(Vec::new());
                *active = swipes.len() - 1;
            }
        }
        Op::Select(m, s) => {
            let ok = model.messages.get(*m).is_some_and(|(swipes, _)| *s < swipes.len());
            assert_eq!(history.select_swipe(*m, *s).is_ok(), ok);
            if ok {
                model.messages[*m].1 = *s;
            }
        }
        Op::Delete(m) => {
            assert_eq!(history.delete_message(*m).is_ok(), *m < len);
            if *m < len {
                model.messages.remove(*m);
            }
        }
        Op::Truncate(n) => {
            history.truncate(*n);
            model.messages.truncate(*n);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn effective_state_matches_the_naive_model(ops in prop::collection::vec(op(), 0..40)) {
        let mut history = StateHistory::new();
        let mut model = Model::default();
        for op in &ops {
            apply(&mut history, &mut model, op);
            prop_assert_eq!(history.len(), model.messages.len());
            for n in 0..=model.messages.len() {
                prop_assert_eq!(history.state_at(n).unwrap(), model.state_at(n));
            }
            prop_assert!(history.state_at(model.messages.len() + 1).is_err());
            prop_assert_eq!(history.state(), model.state_at(model.messages.len()));
        }
        prop_assert_eq!(StateHistory::from_json(&history.to_json()).unwrap(), history);
    }

    /// No input makes reading a history panic.
    #[test]
    fn any_text_is_a_history_or_a_typed_error(text in ".{0,64}") {
        if let Err(err) = StateHistory::from_json(&text) {
            prop_assert_eq!(err.kind().as_str(), "invalid_history");
        }
    }
}

#[test]
fn regenerating_ten_times_never_applies_a_write_twice() {
    let env = Environment::new();
    let t = env
        .compile(
            "[% set turns = (turns -> default(0)) + 1 %][% set mood = \"ok\" %]turn [[ turns ]]",
        )
        .unwrap();
    let base = Context::default();
    let mut history = StateHistory::new();
    for _ in 0..3 {
        let m = history.push_message();
        let rendered = t.render(&history.context_at(m, &base).unwrap(), 0).unwrap();
        history.record(m, &rendered).unwrap();
    }
    assert_eq!(history.state()["turns"], 3);
    // Regenerate the last message ten times (new swipes), then the middle one.
    for seed in 0..10 {
        let rendered = t.render(&history.context_at(2, &base).unwrap(), seed).unwrap();
        assert_eq!(rendered.output, "turn 3");
        history.add_swipe(2).unwrap();
        history.record(2, &rendered).unwrap();
    }
    assert_eq!(history.state()["turns"], 3);
    assert_eq!(history.messages()[2].swipes().len(), 11);
    // Going back to the first swipe, or rolling back, restores earlier values.
    history.select_swipe(2, 0).unwrap();
    assert_eq!(history.state()["turns"], 3);
    history.truncate(1);
    assert_eq!(history.state()["turns"], 1);
    history.delete_message(0).unwrap();
    assert!(history.state().is_empty());
}

#[test]
fn context_state_is_the_starting_point() {
    let mut history = StateHistory::new();
    let m = history.push_message();
    let write = StoreWrite { scope: Scope::State, name: "a".into(), value: 2.into() };
    history.record_writes(m, &[write]).unwrap();
    let base: Context =
        serde_json::from_value(json!({"state": {"a": 1, "b": 1}, "local": {"l": 1}})).unwrap();
    let context = history.context_at(1, &base).unwrap();
    assert_eq!(json!(context.state), json!({"a": 2, "b": 1}));
    assert_eq!(context.local, base.local);
    assert_eq!(history.context_at(0, &base).unwrap(), base);
}
