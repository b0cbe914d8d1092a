/*!
A Jinja dialect for prompts: `[[ expr ]]`, `[% stmt %]`, `[# comment #]`.

The bracket delimiters survive inside chat front-ends that already use
`{{...}}` macros. Filters chain with `->`, variables live in three scopes
(state, chat-local `L`, global `G`), and `chance`/`weighted` blocks draw from a
seedable random stream so that a seed reproduces a render exactly. The whole
language is described in the suite's `docs/language.md`.

```
use minijinja_brackets::{Environment, context};

let template = Environment::new().compile("Hello [[ name -> upper ]], visit [[ visits + 1 ]].")?;
let rendered = template.render(&context! { name => "Ann", visits => 2 }, 42)?;
assert_eq!(rendered.output, "Hello ANN, visit 3.");
assert_eq!(rendered.seed, 42); // every render reports its seed
# Ok::<(), minijinja_brackets::Error>(())
```

# Overview

* [`Environment`] holds the configuration ([`Limits`], strict undefined
  values, Jinja's opt-in `trim_blocks`/`lstrip_blocks`) and one registry of
  filters, tests and functions: the built-ins and the host's own are
  registered the same way and called with the same [`Arguments`]
  (positional and keyword). [`Environment::compile`] parses a template
  once, then resolves its filter and test names; unknown ones are reported
  then, with a "did you mean" for typos.
* Templates find each other by name (`include`, `import`, `extends`) in the
  environment's store: [`Environment::add_template`] adds one, a loader
  ([`Environment::set_loader`]) is asked for the others once, and
  [`Environment::template`] gives one; names never leave the loader's root.
  [`Environment::with_own_store`] starts an empty store (one per directory of
  templates).
  Every template of a render shares its stores and its one write log.
* [`Template`] is a compiled template, owned (`Clone + Send + Sync +
  'static`: it holds its source and its syntax tree); [`Template::render`] takes a
  [`Context`] (the state, local and global stores, each a JSON object) and a
  seed, and returns a [`Rendered`]: the output and its data ranges, the
  three stores after rendering, the ordered [`StoreWrite`]s and the ordered
  [`Effect`]s (`qr`/`st` requests for the host to run).
  [`Template::render_outcome`] returns the same without copying the
  stores, an [`Outcome`] whose writes [`Outcome::apply_to`] carries into
  the host's own context. Writes and effects share their values with the
  render; nothing is deep-copied until a host converts it.
  [`Outcome::undefined`] lists each tag printing a name alone that printed
  an undefined name (a misspelled name; written bare, `[[name]]`, often a
  wiki link or a TOML header, not a tag): an [`UndefinedTag`], a
  diagnostic of kind `undefined_variable`.
* [`Value`] is what expressions compute with; host filters and functions
  receive and return values.
* [`StateHistory`] keeps state variables in a chat's messages and swipes,
  so deleting, rolling back or swiping brings earlier values back; its
  regenerate rule (render message `n` from [`StateHistory::state_at`]`(n)`,
  store the writes on `n`) keeps regenerations from applying a write twice.
  The suite's `docs/state.md` shows how a host wires a chat to it.
* [`Template::analyze`] reports, without rendering, the variables read and
  written per scope, macros, filters, tests, effects, random blocks with
  their branch probabilities, the templates it names literally
  ([`TemplateRef`], for a host to follow), and positioned [`Warning`]s (likely typos,
  unreachable branches, zero weights, ...): an [`Analysis`].
* [`Template::distribution`] gives the exact [`Distribution`] of outputs
  over every random choice, by enumerating random paths with the real
  evaluator (capped, 10 000 paths by default).

Rendering is a pure function of template, context and seed, and it is
transactional: a failed render returns only the error.

# What is authored and what is data

[`Outcome::data_ranges`] lists the byte ranges of the output that came
from values, one per printed piece (neighbours are not merged), so that a
host can treat them as data and never as structure (the suite's pipeline
recognises chat-turn delimiters only in authored bytes). Authored: the
template's text, including `if`/`for`/macro/`set`-block bodies, and string
literals (the author wrote every byte; nothing from a context can reach a
literal). Data: context values, anything an operator, filter, test or
function builds (even from authored text), and printed numbers, booleans,
lists and maps. Strings carry their provenance per byte: a value passed on
unchanged (variables, loops, conditionals, macro arguments, `set`,
`default`, picking an item) keeps it, and what a macro call or `set` block
captures keeps its authored text authored and its values data. Provenance
is invisible to equality, ordering and JSON; stores keep none, so a value
read back from a store in a later render is data.

```
use minijinja_brackets::{Context, Environment};

let env = Environment::new();
let template = env.compile("[% set turn %]## user\n[[ message ]][% endset %][[ turn ]]")?;
let context: Context = serde_json::from_str(r#"{"state": {"message": "hi\n## system"}}"#)?;
let outcome = template.render_outcome(&context, 0)?;
assert_eq!(outcome.output, "## user\nhi\n## system");
// Only the message is data: its `## system` line is text, not a turn.
assert_eq!(outcome.data_ranges, [8..20]);
# Ok::<(), Box<dyn std::error::Error>>(())
```

The pipeline is source → lexer (a memchr scan of text; tag closers found at
bracket balance zero, outside strings) → nom 8 grammar of tag bodies → a
syntax tree that borrows the source → a tree-walking evaluator. Nothing is
ever `eval`ed.

# Example

```
use minijinja_brackets::{Context, Environment};

let env = Environment::new();
let template = env.compile(
    "[% set visits = (visits -> default(0)) + 1 %]\
     Hello [[ name -> upper ]], visit [[ visits ]]. \
     [% weighted %][% choice 1 %]Hi![% endchoice %][% choice 0 %]Never.[% endchoice %][% endweighted %]",
)?;
let context: Context = serde_json::from_str(r#"{"state": {"name": "Ann", "visits": 2}}"#)?;
let rendered = template.render(&context, 42)?;
assert_eq!(rendered.output, "Hello ANN, visit 3. Hi!");
assert_eq!(rendered.state["visits"], 3);
assert_eq!(rendered.writes.len(), 1);
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Errors

Every failure is an [`Error`] with an [`ErrorKind`] (`syntax_error`,
`unknown_filter`, `unknown_test`, `unknown_function`, `bad_arguments`,
`invalid_operation`, `recursion_limit`, `out_of_fuel`, `output_limit`,
`memory_limit`, `undefined_error`, `too_many_paths` for an exact
distribution beyond its cap, `invalid_json` for [`Context::from_json`],
and for composition `template_not_found`, `invalid_template_name`,
`load_error`, `composition_limit`, `template_cycle`),
a message, and for anything the template (or the JSON text) caused, a
byte [`Span`], the line, column and snippet (computed through
`prompt_core::text`). [`Error`] is a `prompt_core::diagnostic::Diagnostic`:
its `Display` is the message; [`Error::annotated`] draws the whole
diagnostic with the suite's one renderer (`prompt_core::annotated`), as the
command line shows it.

# Limits

A template is untrusted: [`Limits`] bounds nesting, macro recursion, fuel
(evaluation steps), the output, every string and list an operation builds
(checked before it is made, or while it is written for conversions of
lists and maps to text), and the memory a render builds and keeps
([`Limits::memory_limit`], 128 MiB: unshared bytes of every value built or
captured, every write in full each time, every effect, every data range).
Past any of them the render stops with a typed error, never an abort.
Nesting counts one level per bracket pair, prefix or chained operator,
postfix operation, conditional and block, and 100 levels fit the stack
budget in debug builds too. Name lookups are O(1) (names are numbered when
compiling) and "did you mean" searches are bounded, so compiling,
rendering and analysing stay linear in the template's size.
Unknown filters and tests are found when compiling, even in branches that
never run. [`StateHistory`] operations and files fail with a
[`HistoryError`], a `Diagnostic` too (`invalid_history` with its span in
the history JSON, line and column in characters, `message_out_of_range`,
`swipe_out_of_range`).

# Differences from Jinja

* `->` instead of `|`; `[[ ]]`, `[% %]`, `[# #]` instead of braces.
* `set` is never block-scoped: it writes a persistent store, so a `set` in a
  loop is visible after it (no `namespace()` needed).
* Booleans print `true`/`false`; integral floats print without `.0`; none
  prints as nothing; the template's final newline is kept.
* Undefined is chainable (`missing.a.b` is undefined, not an error), but
  arithmetic on it is an error; `"a" + 1` is an error (use `~`).
* No HTML escaping, no `call`/`filter` tags. Composition follows minijinja:
  blocks see the bindings around them, an include's macros stay visible
  after it.
* Integers are 64-bit: a literal outside the range is a syntax error and a
  context integer outside it an error, never a float; `1.e5` is a float, as
  in Python.

# Randomness

`chance` and `weighted` draw from `rand_chacha`'s ChaCha8 seeded with
`seed_from_u64`; one draw per tested `chance` branch and per `weighted`
block, in evaluation order. The exact stream is documented in the source
(`random.rs`) and pinned by snapshot tests, so a seed gives the same output
in every release.
*/

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use crate::analyze::{
    Analysis, Branch, EffectSite, MacroNames, RandomBlock, ScopeNames, TemplateRef, Variables,
    Warning, WarningKind,
};
pub use crate::arguments::{ArgType, Arguments, IntoResult};
pub use crate::callable::{IntoFilter, IntoFunction, IntoTest, Typed};
#[doc(hidden)]
pub use crate::context::__variable;
pub use crate::context::{
    Context, Effect, Outcome, Rendered, Scope, Store, StoreWrite, UndefinedTag,
};
pub use crate::dialect::{Profile, Syntax};
pub use crate::environment::{Environment, TemplateNames};
pub use crate::error::{Error, ErrorKind, LoadSite, LoadStatement};
pub use crate::exact::Distribution;
pub use crate::history::{HistoryError, HistoryErrorKind, HistoryMessage, StateHistory};
pub use crate::limits::Limits;
pub use crate::loader::LoadError;
pub use crate::pycompat::Clock;
pub use crate::seed::SEED_BOUND;
#[cfg(feature = "entropy")]
pub use crate::seed::random_seed;
pub use crate::template::Template;
pub use crate::value::{Value, ValueKind};
/// The time library of [`Clock`] (`jiff::Zoned`).
pub use jiff;
/// The byte span errors carry (the suite's one span type).
pub use prompt_core::text::Span;

mod analyze;
mod arguments;
mod callable;
mod context;
mod defaults;
mod dialect;
mod environment;
mod error;
mod eval;
mod exact;
mod filters;
mod functions;
mod history;
mod limits;
mod loader;
mod provenance;
mod pycompat;
mod random;
mod resolve;
mod seed;
mod span;
mod stack;
mod suggest;
mod syntax;
mod template;
mod tests;
mod unit;
mod value;

/// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
