//! [`Analysis`]: what a template reads, writes, calls and rolls, and what
//! looks wrong in it, found from the syntax tree without rendering.
//!
//! The analysis is static: it visits every branch, whether or not a render
//! would take it. Names are listed once each, in the order they first
//! appear in the source.

mod walk;

use std::fmt;

use serde::{Serialize, Serializer};

use crate::context::Scope;

pub(crate) use walk::analyze;

/// The result of [`Template::analyze`](crate::Template::analyze).
///
/// Serializes in the shape of `prompt-suite check --json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// Variables read and written, per scope.
    pub variables: Variables,
    /// Macros defined and called.
    pub macros: MacroNames,
    /// Filter names used, as written.
    pub filters: Vec<String>,
    /// Test names used, as written.
    pub tests: Vec<String>,
    /// Functions called (not macros).
    pub functions: Vec<String>,
    /// Every `qr`/`st` statement.
    pub effects: Vec<EffectSite>,
    /// Every `chance` and `weighted` block with its branch probabilities.
    pub random: Vec<RandomBlock>,
    /// Every template an `include`, `import`, `from` or `extends` names
    /// literally, in source order (a computed name is an
    /// `unfollowed_include` warning instead). The analysis covers this
    /// template alone; a host follows these ([`crate::Environment::template`]
    /// and its own analysis), as `prompt-suite check` does.
    pub templates: Vec<TemplateRef>,
    /// What looks wrong, in source order.
    pub warnings: Vec<Warning>,
}

impl Analysis {
    /// The names read and written in `scope`.
    pub fn scope(&self, scope: Scope) -> &ScopeNames {
        match scope {
            Scope::State => &self.variables.state,
            Scope::Local => &self.variables.local,
            Scope::Global => &self.variables.global,
        }
    }
}

/// Variables read and written in each of the three scopes.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Variables {
    /// Bare names (loop variables, macro parameters and macros excluded).
    pub state: ScopeNames,
    /// `L.x`, `L["x"]`.
    pub local: ScopeNames,
    /// `G.x`, `G["x"]`.
    pub global: ScopeNames,
}

/// The names a template reads and writes in one scope.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ScopeNames {
    /// Names read.
    pub read: Vec<String>,
    /// Names written by `set`.
    pub written: Vec<String>,
    /// Whether some read or write computes its name (`L[key]`) or reads the
    /// whole store (`L`), so the lists may be incomplete.
    pub dynamic: bool,
}

/// Macros defined and called.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct MacroNames {
    /// Macros defined.
    pub defined: Vec<String>,
    /// Macros called (or passed around by name).
    pub called: Vec<String>,
}

/// A `qr` or `st` statement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffectSite {
    /// `"qr"` or `"st"`.
    pub kind: &'static str,
    /// The Quick Reply name or command, when it is a constant string.
    pub value: Option<String>,
    /// The 1-based line of the statement.
    pub line: usize,
    /// The 1-based column (in characters) of the statement.
    pub column: usize,
}

/// A `chance` or `weighted` block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RandomBlock {
    /// `"chance"` or `"weighted"`.
    pub kind: &'static str,
    /// The 1-based line of the block's opening tag.
    pub line: usize,
    /// The 1-based column (in characters) of the block's opening tag.
    pub column: usize,
    /// Each branch in order; a `chance` block ends with its `else` branch
    /// (rendering nothing when the block has none).
    pub branches: Vec<Branch>,
}

/// A template named by a literal in an `include`, `import`, `from` or
/// `extends` statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TemplateRef {
    /// `"include"`, `"import"` (also `from ... import`) or `"extends"`.
    pub statement: &'static str,
    /// The name as written.
    pub name: String,
    /// The 1-based line of the name.
    pub line: usize,
    /// The 1-based column (in characters) of the name.
    pub column: usize,
}

/// One branch of a random block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Branch {
    /// `"chance"`, `"elif"`, `"else"` or `"choice"`.
    pub label: &'static str,
    /// The probability (`chance`/`elif`) or weight (`choice`) as written,
    /// when it is a constant number.
    pub value: Option<f64>,
    /// The probability that a render takes this branch, when every value it
    /// depends on is constant: the sequential-roll arithmetic for `chance`
    /// (`P`, `(1-P)·Q`, ...), the normalised weight for `choice`.
    pub probability: Option<f64>,
}

/// Something that looks wrong, with its position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Warning {
    /// What kind of problem.
    pub kind: WarningKind,
    /// A sentence for people.
    pub message: String,
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column in characters.
    pub column: usize,
    /// The offending text (at most 40 characters of one line).
    pub snippet: String,
    /// The byte span in the template (not serialized: the JSON form has
    /// the line, column and snippet).
    #[serde(skip)]
    pub span: prompt_core::text::Span,
}

/// The kinds of [`Warning`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// Every weight of a `weighted` block is 0 (or it has no choice), so it
    /// never renders anything. E.g. `[% weighted %][% choice 0 %]a[% endchoice %][% endweighted %]`.
    ZeroWeights,
    /// A constant `chance` probability outside [0, 1] (it is clamped; 50
    /// does not mean 50 %). E.g. `[% chance 50 %]`.
    ProbabilityOutOfRange,
    /// A constant probability or weight that is not a usable number, an
    /// `invalid_operation` when the block runs. E.g. `[% choice -1 %]` or
    /// `[% chance "often" %]`.
    InvalidNumber,
    /// A branch no render can take: after `chance 1`, a `chance 0`, a
    /// `choice 0`. E.g. `[% chance 1 %]a[% else %]never[% endchance %]`.
    UnreachableBranch,
    /// A macro nothing calls. E.g. `[% macro m() %]x[% endmacro %]` alone.
    UnusedMacro,
    /// A `set` of a state variable named like a macro: bare reads of the
    /// name find the macro, not the value.
    /// E.g. `[% macro greet() %]hi[% endmacro %][% set greet = 1 %]`.
    SetShadowsMacro,
    /// A state variable read that nothing in the template writes and the
    /// context does not provide, and that is never read through `default`
    /// or tested with `is defined`; often a typo. E.g. `[% set visits = 1 %][[ vists ]]`.
    UndefinedVariable,
    /// A call of a name that is neither a macro nor a known function, an
    /// `unknown_function` error when it runs. E.g. `[[ greeet() ]]`.
    UnknownFunction,
    /// An `include`, `import` or `extends` whose template name is computed
    /// when it renders (`[% include page %]`), or one a host could not
    /// load to analyse: what it names is not analysed.
    UnfollowedInclude,
}

impl WarningKind {
    /// The snake_case name: `zero_weights`, `probability_out_of_range`, ...
    pub fn as_str(&self) -> &'static str {
        match self {
            WarningKind::ZeroWeights => "zero_weights",
            WarningKind::ProbabilityOutOfRange => "probability_out_of_range",
            WarningKind::InvalidNumber => "invalid_number",
            WarningKind::UnreachableBranch => "unreachable_branch",
            WarningKind::UnusedMacro => "unused_macro",
            WarningKind::SetShadowsMacro => "set_shadows_macro",
            WarningKind::UndefinedVariable => "undefined_variable",
            WarningKind::UnknownFunction => "unknown_function",
            WarningKind::UnfollowedInclude => "unfollowed_include",
        }
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for WarningKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// `warning[kind]: message (line L, column C)`.
impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "warning[{}]: {} (line {}, column {})",
            self.kind, self.message, self.line, self.column
        )
    }
}
