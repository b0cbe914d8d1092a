//! The exact output distribution of a template over all its random
//! choices, found by enumerating random paths with the real evaluator.
//!
//! Each render runs with a [`PathWalk`] as its source of decisions: the
//! walk replays a chosen prefix of options, then takes the first possible
//! option at every later branching point and records it. After a render,
//! the deepest recorded point that still has an untried option is advanced
//! (depth-first), and the next render replays the path up to it. Options
//! with probability 0 are never taken, so impossible branches are never
//! rendered. A path's probability is the product of its options'
//! probabilities; paths with the same output merge.
//!
//! Only decisions made so far can influence later ones, and rendering is a
//! pure function of the decisions, so replaying a prefix reaches the same
//! branching points with the same options.

use std::collections::HashMap;

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::context::Context;
use crate::environment::Environment;
use crate::error::{Error, ErrorKind};
use crate::random::{Draws, PathWalk};
use crate::unit::Compiled;

/// The exact distribution of a template's output over its random choices:
/// each distinct output with its probability, most likely first (ties in
/// the order the depth-first enumeration met them).
///
/// Serializes as `{"outputs": {"<output>": probability, ...}}`, the shape
/// of `prompt-suite render --exact`. A probability within rounding noise
/// of a short decimal (at most 12 significant digits) is written as that
/// decimal (`0.075`, not `0.07500000000000001`); others are written in full
/// (`0.9090909090909091`). [`Distribution::outputs`] gives the values as
/// computed.
///
/// ```
/// use minijinja_brackets::{Context, Environment};
///
/// let env = Environment::new();
/// let template = env.compile(
///     "[% chance 0.2 %]A[% elif 0.5 %]B[% else %]C[% endchance %]",
/// )?;
/// let exact = template.distribution(&Context::default(), 10_000)?;
/// assert_eq!(exact.outputs(), [("B".to_owned(), 0.4), ("C".to_owned(), 0.4), ("A".to_owned(), 0.2)]);
/// assert_eq!(exact.paths(), 3);
/// # Ok::<(), minijinja_brackets::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
    outputs: Vec<(String, f64)>,
    paths: usize,
}

impl Distribution {
    /// The default cap on random paths, used by the command line.
    pub const DEFAULT_MAX_PATHS: usize = 10_000;

    /// Each distinct output with its probability, most likely first.
    pub fn outputs(&self) -> &[(String, f64)] {
        &self.outputs
    }

    /// The probability of `output` (0 when it cannot happen).
    pub fn probability(&self, output: &str) -> f64 {
        self.outputs.iter().find(|(o, _)| o == output).map_or(0.0, |(_, p)| *p)
    }

    /// How many random paths were rendered.
    pub fn paths(&self) -> usize {
        self.paths
    }
}

impl Serialize for Distribution {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Outputs<'a>(&'a [(String, f64)]);
        impl Serialize for Outputs<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(self.0.len()))?;
                for (output, probability) in self.0 {
                    map.serialize_entry(output, &tidy(*probability))?;
                }
                map.end()
            }
        }
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("outputs", &Outputs(&self.outputs))?;
        map.end()
    }
}

/// `x`, or the short decimal it is within rounding noise of: rounded to 15
/// significant digits (f64 carries 15.9), kept when that leaves at most 12.
fn tidy(x: f64) -> f64 {
    let Ok(rounded) = format!("{x:.14e}").parse::<f64>() else { return x };
    let shortest = format!("{rounded:e}");
    let mantissa = shortest.split('e').next().unwrap_or_default();
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).count();
    if digits <= 12 { rounded } else { x }
}

/// How many renders' worth of fuel ([`Limits::fuel`](crate::Limits::fuel))
/// the whole enumeration may spend, and of output
/// ([`Limits::output_limit`](crate::Limits::output_limit)) its distinct
/// outputs may hold.
const FUEL_RENDERS: u64 = 10;

/// Enumerates every random path of `template`, rendering at most `max_paths`.
pub(crate) fn distribution(
    env: &Environment,
    template: &Compiled,
    context: &Context,
    max_paths: usize,
) -> Result<Distribution, Error> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut outputs: Vec<(String, f64)> = Vec::new();
    let mut paths = 0;
    let mut stored = 0;
    let mut prefix = Some(Vec::new());
    // All the renders share ten renders' worth of fuel: many paths through
    // an expensive template must not add up to hours.
    let per_render = env.limits().fuel;
    let mut budget = per_render.map(|fuel| fuel.saturating_mul(FUEL_RENDERS));
    while let Some(next) = prefix {
        if paths == max_paths {
            return Err(Error::new(
                ErrorKind::TooManyPaths,
                format!(
                    "the template has more than {max_paths} random paths; \
                     estimate the distribution by sampling instead (`--samples N`)"
                ),
            ));
        }
        let fuel = per_render.zip(budget).map(|(one, left)| one.min(left));
        let walk = Draws::Path(PathWalk::replay(next));
        let (rendered, draws, left) =
            match crate::eval::render_with(env, template, context, &[], walk, fuel) {
                Ok(done) => done,
                // The shared budget ran out, not this render's own fuel.
                Err(err) if err.kind() == ErrorKind::OutOfFuel && fuel < per_render => {
                    return Err(Error::new(
                        ErrorKind::TooManyPaths,
                        format!(
                            "rendering the first {paths} random paths used up the fuel of \
                             {FUEL_RENDERS} renders; estimate the distribution by sampling \
                             instead (`--samples N`)"
                        ),
                    ));
                }
                Err(err) => return Err(err),
            };
        // What this render spent comes off the shared budget.
        budget = budget.zip(fuel.zip(left)).map(|(total, (given, left))| total - (given - left));
        // The renderer hands back the walk it was given.
        let Draws::Path(walk) = draws else {
            return Err(Error::new(ErrorKind::InvalidOperation, "internal error: path walk lost"));
        };
        paths += 1;
        match index.get(&rendered.output) {
            Some(&at) => outputs[at].1 += walk.probability(),
            None => {
                // The distinct outputs are kept: bound them like the budget.
                stored += rendered.output.len();
                if stored > env.limits().output_limit().saturating_mul(FUEL_RENDERS as usize) {
                    return Err(Error::new(
                        ErrorKind::OutputLimit,
                        format!(
                            "the distinct outputs of the random paths exceed {FUEL_RENDERS} \
                             times the output limit; sample instead (`--samples N`)"
                        ),
                    ));
                }
                index.insert(rendered.output.clone(), outputs.len());
                outputs.push((rendered.output, walk.probability()));
            }
        }
        prefix = walk.next_prefix();
    }
    // Stable: ties keep the order the enumeration met them in.
    outputs.sort_by(|a, b| b.1.total_cmp(&a.1));
    Ok(Distribution { outputs, paths })
}

#[cfg(test)]
mod tests {
    use super::tidy;

    #[test]
    fn tidy_removes_noise_but_keeps_full_values() {
        assert_eq!(tidy(0.75 * 0.1), 0.075);
        assert_eq!(tidy(0.1 + 0.2), 0.3);
        assert_eq!(tidy(10.0 / 11.0), 10.0 / 11.0);
        assert_eq!(tidy(1.0 / 3.0), 1.0 / 3.0);
        assert_eq!(tidy(1.0), 1.0);
        assert_eq!(tidy(2f64.powi(-30)), 2f64.powi(-30));
    }
}
