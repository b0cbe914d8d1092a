//! `prompt-suite state`: the state history file of `render --history`, from
//! the command line, as the reference engine's `getstatevar`/`setstatevar`
//! and chat edits give it to hosts.
//!
//! `get` and `list` read the file as it is (it is only ever replaced whole).
//! Every other subcommand edits it under the history's lock (a lock file
//! beside it, the one `render --commit` takes) and saves it atomically (a
//! temporary file renamed over it), so concurrent runs each see the last
//! saved file and none loses another's edit; they print nothing.

use prompt_suite::brackets::{HistoryError, Scope, StateHistory, StoreWrite, Value};

use crate::args::{StateAction, StateArgs};
use crate::context::json_or_string;
use crate::diagnostic::Diagnostic;
use crate::history::{HistoryLock, LOCK_TIMEOUT, misuse, read_history, save_history};
use crate::output;

/// Runs `state`.
pub(crate) fn execute(args: StateArgs) -> Result<(), Diagnostic> {
    match args.action {
        StateAction::Get { name, history, at } => {
            let state = state(&read_history(&history.history, false)?, at)
                .map_err(|err| misuse(&err, &history.history))?;
            let Some(value) = state.get(&name) else {
                let place = at.map_or("after the last message".to_owned(), |at| {
                    format!("before message {at}")
                });
                return Err(Diagnostic::new(
                    "unset_variable",
                    format!("the state variable `{name}` is not set {place}"),
                )
                .with_origin(history.history.display().to_string()));
            };
            output::write_json(value)
        }
        StateAction::List { history, at } => {
            let state = state(&read_history(&history.history, false)?, at)
                .map_err(|err| misuse(&err, &history.history))?;
            output::write_json(&state)
        }
        StateAction::Set { name, value, history } => {
            let json = json_or_string(&value)?;
            let value = Value::from_json(&json).map_err(|err| {
                Diagnostic::new("invalid_value", format!("`{name}` cannot be set: {err}"))
            })?;
            edit(&history.history, true, |h| set(h, name, value))
        }
        StateAction::Swipe { message, history } => {
            edit(&history.history, false, |h| h.add_swipe(message).map(drop))
        }
        StateAction::Select { message, swipe, history } => {
            edit(&history.history, false, |h| h.select_swipe(message, swipe))
        }
        StateAction::Delete { message, history } => {
            edit(&history.history, false, |h| h.delete_message(message))
        }
        StateAction::Truncate { len, history } => edit(&history.history, false, |h| {
            h.truncate(len);
            Ok(())
        }),
    }
}

/// The effective state after every message, or before message `at`.
fn state(
    history: &StateHistory,
    at: Option<usize>,
) -> Result<prompt_suite::brackets::Store, HistoryError> {
    match at {
        Some(at) => history.state_at(at),
        None => Ok(history.state()),
    }
}

/// Reads the history under its lock, applies `change` and saves it; a
/// missing file is an empty history when `create` (else an `io_error`).
fn edit(
    path: &std::path::Path,
    create: bool,
    change: impl FnOnce(&mut StateHistory) -> Result<(), HistoryError>,
) -> Result<(), Diagnostic> {
    let lock = HistoryLock::acquire(path, LOCK_TIMEOUT)?;
    let mut history = read_history(path, create)?;
    change(&mut history).map_err(|err| misuse(&err, path))?;
    save_history(path, &history)?;
    drop(lock);
    Ok(())
}

/// Sets `name` in the active swipe of the last message (a first message
/// when there is none), keeping what the swipe holds: as the reference's
/// `setstatevar` saves a variable in the chat's last message.
fn set(history: &mut StateHistory, name: String, value: Value) -> Result<(), HistoryError> {
    let last = match history.len() {
        0 => history.push_message(),
        len => len - 1,
    };
    let kept = history.messages()[last].writes();
    let mut writes = Vec::with_capacity(kept.len() + 1);
    for (kept_name, kept_value) in kept {
        // A stored value has a JSON form, so it converts back.
        if let Ok(value) = Value::from_json(kept_value) {
            writes.push(StoreWrite { scope: Scope::State, name: kept_name.clone(), value });
        }
    }
    writes.push(StoreWrite { scope: Scope::State, name, value });
    history.record_writes(last, &writes)
}
