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
//! The snapshot tests in `tests/random.rs` pin this stream.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// Uniform draws in [0, 1) from a seed; the generator is built on first use
/// so templates without randomness pay nothing.
#[derive(Debug)]
pub(crate) struct Draws {
    seed: u64,
    rng: Option<ChaCha8Rng>,
}

impl Draws {
    pub(crate) fn new(seed: u64) -> Draws {
        Draws { seed, rng: None }
    }

    /// The next draw, in [0, 1).
    pub(crate) fn next_unit(&mut self) -> f64 {
        let seed = self.seed;
        let rng = self.rng.get_or_insert_with(|| ChaCha8Rng::seed_from_u64(seed));
        (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_reproducible_and_in_range() {
        let first: Vec<f64> = (0..100).scan(Draws::new(7), |d, _| Some(d.next_unit())).collect();
        let again: Vec<f64> = (0..100).scan(Draws::new(7), |d, _| Some(d.next_unit())).collect();
        assert_eq!(first, again);
        assert!(first.iter().all(|u| (0.0..1.0).contains(u)));
        assert_ne!(Draws::new(8).next_unit(), first[0]);
    }
}
