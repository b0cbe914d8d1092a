//! Inputs shared by the criterion benchmarks in `benches/benches/`.
//!
//! Benchmarks read realistic fixtures from `benches/inputs/` and scale them to
//! a chosen size, so that throughput and linear growth are measured on text
//! that looks like what users write.

#![forbid(unsafe_code)]

use std::path::PathBuf;

/// The contents of `benches/inputs/<name>`.
///
/// # Panics
///
/// When the fixture is missing or not UTF-8: a benchmark without its input
/// cannot measure anything, so failing loudly is right.
pub fn input(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("inputs").join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("cannot read bench input {}: {err}", path.display()))
}

/// `unit` repeated until the result is at least `bytes` long (whole copies
/// only, so every copy stays well-formed).
pub fn repeat_to(unit: &str, bytes: usize) -> String {
    if unit.is_empty() {
        return String::new();
    }
    let copies = bytes.div_ceil(unit.len());
    unit.repeat(copies)
}

/// One size series of the scaling benchmarks: the same input at 1x, 10x and
/// 100x a base size (in bytes, or in turns for transcripts).
///
/// Every scaling benchmark runs these series, named in its criterion id as
/// `<variant>/<series>/<factor>x` inside a `<crate>/scaling` group, the
/// shape `cargo xtask scaling` reads back into one table:
///
/// - [`Series::CACHE`] keeps the whole working set inside this machine's
///   caches, so the time ratio shows how the code grows;
/// - [`Series::MEMORY`] (1 to 100 MiB) crosses from the caches into main
///   memory, so its ratio also holds the machine's step between the two;
/// - [`Series::LARGE`] (opt-in, see [`Series::selected`]) goes from 32 MiB
///   to 3.2 GiB, where this virtual machine's first touch of fresh memory
///   (the host backing the page) dominates.
///
/// The `machine/scaling` group measures what the machine alone charges a
/// plain read and a plain copy over the same sizes, so each crate's ratio
/// can be read against the floor it stands on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Series {
    /// The series' name in benchmark ids: `cache` or `memory`.
    pub name: &'static str,
    /// The size at 1x.
    pub base: usize,
}

impl Series {
    /// 32 KiB, 320 KiB and 3.2 MiB: input, output and any tree together stay
    /// well under the 16 MiB beyond which a plain read on this machine slows
    /// from about 5.5 to 2 GB/s.
    pub const CACHE: Series = Series { name: "cache", base: 32 << 10 };
    /// 1, 10 and 100 MiB.
    pub const MEMORY: Series = Series { name: "memory", base: 1 << 20 };
    /// 32 MiB, 320 MiB and 3.2 GiB. Takes about fifteen minutes and up to
    /// 12 GiB of memory, hence opt-in.
    pub const LARGE: Series = Series { name: "large", base: 32 << 20 };
    /// The environment variable that adds [`Series::LARGE`] to a run.
    pub const LARGE_VARIABLE: &str = "BENCH_LARGE";

    /// The series to run: cache and memory, then large when the environment
    /// sets `BENCH_LARGE=1` (`cargo xtask scaling --large` does).
    pub fn selected() -> Vec<Series> {
        let large = std::env::var_os(Series::LARGE_VARIABLE).is_some_and(|v| v == "1");
        let mut series = vec![Series::CACHE, Series::MEMORY];
        series.extend(large.then_some(Series::LARGE));
        series
    }
    /// The multiples of the base size every series measures.
    pub const FACTORS: [usize; 3] = [1, 10, 100];

    /// The same series over another unit (turns instead of bytes).
    pub const fn with_base(self, base: usize) -> Series {
        Series { name: self.name, base }
    }

    /// `(factor, size)` for 1x, 10x and 100x.
    pub fn sizes(self) -> impl Iterator<Item = (usize, usize)> {
        Series::FACTORS.into_iter().map(move |factor| (factor, factor * self.base))
    }

    /// The criterion id of one point: function `<variant>/<series>`,
    /// parameter `<factor>x`.
    pub fn id(self, variant: &str, factor: usize) -> criterion::BenchmarkId {
        criterion::BenchmarkId::new(format!("{variant}/{}", self.name), format!("{factor}x"))
    }
}

/// Criterion settings for one scaling point of `size_bytes` bytes: ten
/// samples, and more time for the large cases (criterion stretches it
/// further when ten runs do not fit).
pub fn configure_scaling<M: criterion::measurement::Measurement>(
    group: &mut criterion::BenchmarkGroup<'_, M>,
    size_bytes: usize,
) {
    let large = size_bytes >= 50 << 20;
    group.sample_size(10);
    group.warm_up_time(std::time::Duration::from_millis(if large { 1 } else { 300 }));
    group.measurement_time(std::time::Duration::from_secs(if large { 8 } else { 3 }));
}

/// The scaling group `group` for an operation on text: `routine` runs on
/// `unit` repeated to every size of every selected series, measured as
/// `<variant>/<series>/<factor>x`.
pub fn scale_text<R>(
    c: &mut criterion::Criterion,
    group: &str,
    unit: &str,
    variant: &str,
    mut routine: impl FnMut(&str) -> R,
) {
    let mut group = c.benchmark_group(group);
    for series in Series::selected() {
        for (factor, bytes) in series.sizes() {
            let text = repeat_to(unit, bytes);
            configure_scaling(&mut group, bytes);
            group.throughput(criterion::Throughput::Bytes(text.len() as u64));
            group.bench_function(series.id(variant, factor), |b| {
                b.iter(|| routine(std::hint::black_box(&text)))
            });
        }
    }
    group.finish();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeat_to_uses_whole_copies() {
        assert_eq!(repeat_to("abc", 7), "abcabcabc");
        assert_eq!(repeat_to("abc", 6), "abcabc");
        assert_eq!(repeat_to("", 6), "");
    }

    #[test]
    fn series_ids_have_the_shape_the_table_reads() {
        let sizes: Vec<_> = Series::CACHE.with_base(3).sizes().collect();
        assert_eq!(sizes, [(1, 3), (10, 30), (100, 300)]);
        assert!(Series::MEMORY.id("flip", 10) == criterion::BenchmarkId::new("flip/memory", "10x"));
    }
}
