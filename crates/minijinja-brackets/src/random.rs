//! The seeded random stream behind `chance` and `weighted`.
//!
//! The stream is part of the crate's stability promise: the same seed,
//! template and context give the same output in every release. It is
//! defined exactly as follows.
//!
//! * The generator is `rand_chacha::ChaCha8Rng` (rand_chacha 0.9), created
//!   with `SeedableRng::seed_from_u64(seed)` (rand_core 0.9's PCG32-based
//!   expansion of the `u64` into a 32-byte key), on the first draw.
//! * One draw is one `next_u64()` call; its top 53 bits divided by 2^53
//!   give `u` in [0, 1).
//! * Draws happen in evaluation order: one for each `chance` or `elif`
//!   branch actually tested (branch taken when `u < p`), and one for each
//!   `weighted` block executed (even when every weight is 0), after all its
//!   weights are evaluated; the choice is the first whose running total of
//!   weights exceeds `u * total`.
//!
//! The snapshot tests in `tests/random.rs` pin this stream. The same
//! decision points also drive the exact enumeration (`exact.rs`).

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// Where `chance` and `weighted` get their decisions: the seeded stream,
/// or (for [`Template::distribution`](crate::Template::distribution)) a
/// walk that follows one chosen random path and records the branching
/// points, so the real evaluator enumerates its own paths.
// One per render, never stored in bulk: the seeded variant's inline
// generator costs nothing worth an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Draws {
    /// Uniform draws in [0, 1) from a seed; the generator is built on first
    /// use so templates without randomness pay nothing.
    Seeded { seed: u64, rng: Option<ChaCha8Rng> },
    /// Replays a path prefix, then takes the first possible option.
    Path(PathWalk),
}

impl Draws {
    pub(crate) fn new(seed: u64) -> Draws {
        Draws::Seeded { seed, rng: None }
    }

    /// The next draw, in [0, 1).
    fn next_unit(seed: u64, rng: &mut Option<ChaCha8Rng>) -> f64 {
        let rng = rng.get_or_insert_with(|| ChaCha8Rng::seed_from_u64(seed));
        (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// One `chance` roll with probability `p` in [0, 1]: whether the branch
    /// fires (`u < p`).
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        match self {
            Draws::Seeded { seed, rng } => Draws::next_unit(*seed, rng) < p,
            Draws::Path(walk) => walk.choose(&[p, 1.0 - p]) == Some(0),
        }
    }

    /// One `weighted` draw over finite, non-negative `weights` with a
    /// finite `total`: the index of the chosen one, `None` when every
    /// weight is 0. The seeded stream always draws, even then.
    pub(crate) fn weighted(&mut self, weights: &[f64], total: f64) -> Option<usize> {
        match self {
            Draws::Seeded { seed, rng } => {
                let u = Draws::next_unit(*seed, rng) * total;
                // The first choice whose running total exceeds `u`; rounding
                // can leave `u` at the very top, which belongs to the last
                // positive one.
                let mut running = 0.0;
                let mut chosen = None;
                for (index, weight) in weights.iter().enumerate() {
                    if *weight > 0.0 {
                        running += weight;
                        chosen = Some(index);
                        if running > u {
                            break;
                        }
                    }
                }
                chosen
            }
            Draws::Path(_) if total <= 0.0 => None,
            Draws::Path(walk) => {
                let options: Vec<f64> = weights.iter().map(|w| w / total).collect();
                walk.choose(&options)
            }
        }
    }
}

/// One branching point of a path: the option taken and every option's
/// probability.
#[derive(Debug)]
struct Decision {
    chosen: usize,
    options: Vec<f64>,
}

impl Decision {
    /// The next option after the chosen one that can happen.
    fn next_possible(&self) -> Option<usize> {
        (self.chosen + 1..self.options.len()).find(|&i| self.options[i] > 0.0)
    }
}

/// Follows one random path, recording its branching points.
#[derive(Debug, Default)]
pub(crate) struct PathWalk {
    /// The options to take at the first branching points.
    prefix: Vec<usize>,
    decisions: Vec<Decision>,
    probability: f64,
}

impl PathWalk {
    pub(crate) fn replay(prefix: Vec<usize>) -> PathWalk {
        PathWalk { prefix, decisions: Vec::new(), probability: 1.0 }
    }

    /// Chooses among `options` (probabilities summing to 1): the prefix's
    /// choice, else the first possible one. `None` when none can happen.
    /// A point with one possible option is not a branching point.
    pub(crate) fn choose(&mut self, options: &[f64]) -> Option<usize> {
        let mut possible = options.iter().enumerate().filter(|(_, p)| **p > 0.0);
        let first = possible.next()?.0;
        if possible.next().is_none() {
            return Some(first);
        }
        let chosen = match self.prefix.get(self.decisions.len()) {
            Some(&index) if index < options.len() => index,
            _ => first,
        };
        self.probability *= options[chosen];
        self.decisions.push(Decision { chosen, options: options.to_vec() });
        Some(chosen)
    }

    /// The product of the probabilities of the options taken so far.
    pub(crate) fn probability(&self) -> f64 {
        self.probability
    }

    /// The prefix of the next path in depth-first order, if any is left.
    pub(crate) fn next_prefix(mut self) -> Option<Vec<usize>> {
        while let Some(last) = self.decisions.pop() {
            if let Some(next) = last.next_possible() {
                let mut prefix: Vec<usize> = self.decisions.iter().map(|d| d.chosen).collect();
                prefix.push(next);
                return Some(prefix);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_reproducible_and_in_range() {
        let draws = |seed| {
            let mut rng = None;
            (0..100).map(move |_| Draws::next_unit(seed, &mut rng)).collect::<Vec<f64>>()
        };
        let first = draws(7);
        assert_eq!(first, draws(7));
        assert!(first.iter().all(|u| (0.0..1.0).contains(u)));
        assert_ne!(draws(8)[0], first[0]);
    }
}
