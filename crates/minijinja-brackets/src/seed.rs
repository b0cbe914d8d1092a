//! Seeds: the range a drawn seed lies in, and the draw itself (the
//! `entropy` feature).

#[cfg(feature = "entropy")]
use crate::error::{Error, ErrorKind};

/// Every seed a seedless call draws lies below this bound, 2^53: a JSON
/// reader that holds numbers as doubles (JavaScript's, most others') keeps
/// its every digit, so a seed printed in a report replays the render.
/// Seeds passed in may be any `u64`.
pub const SEED_BOUND: u64 = 1 << 53;

/// A seed drawn from the operating system's entropy, below [`SEED_BOUND`]:
/// what a seedless render uses ([`Template::render_unseeded`]), for hosts
/// that draw one themselves and pass it on (a pipeline build, a batch).
/// Report it with the result: it is the only way to replay the render.
///
/// ```
/// let seed = minijinja_brackets::random_seed()?;
/// assert!(seed < minijinja_brackets::SEED_BOUND);
/// # Ok::<(), minijinja_brackets::Error>(())
/// ```
///
/// # Errors
///
/// `entropy_unavailable` when the operating system gives no random bytes.
///
/// [`Template::render_unseeded`]: crate::Template::render_unseeded
#[cfg(feature = "entropy")]
pub fn random_seed() -> Result<u64, Error> {
    let bits = getrandom::u64().map_err(|err| {
        Error::new(
            ErrorKind::EntropyUnavailable,
            format!(
                "no random seed: the operating system gave no random bytes ({err}); pass a seed"
            ),
        )
    })?;
    Ok(below_bound(bits))
}

/// The top 53 bits of `bits`: uniform below [`SEED_BOUND`] when `bits` is
/// uniform.
#[cfg_attr(not(feature = "entropy"), allow(dead_code))]
pub(crate) fn below_bound(bits: u64) -> u64 {
    bits >> (64 - SEED_BOUND.trailing_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_seeds_stay_below_the_bound() {
        assert_eq!(below_bound(u64::MAX), SEED_BOUND - 1);
        assert_eq!(below_bound(0), 0);
        // The bound is exact in a double, and the seed below it too.
        assert_eq!((SEED_BOUND - 1) as f64 as u64, SEED_BOUND - 1);
    }

    #[cfg(feature = "entropy")]
    #[test]
    fn random_seeds_differ() {
        let seeds: Vec<u64> = (0..4).map(|_| random_seed().unwrap()).collect();
        assert!(seeds.iter().all(|&s| s < SEED_BOUND));
        // Four equal 53-bit draws would mean no entropy at all.
        assert!(seeds.windows(2).any(|w| w[0] != w[1]), "{seeds:?}");
    }
}
