//! Reads the scaling benchmarks' criterion estimates back and prints one
//! Markdown table: each series' median times at 1x, 10x and 100x, and how
//! much time grew. Exits 1 when a crate's `cache` series grew more than 120x
//! for 100x the input (the linear-time bound), so `cargo xtask scaling` can
//! gate on it. The `memory` and `large` series also measure the machine's
//! memory (see `benches::Series`) and are shown beside the `machine` rows,
//! not gated.
//!
//! Usage: `scaling-table [CRITERION_DIR]` (default: the workspace's
//! `target/criterion`, or `$CARGO_TARGET_DIR/criterion`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The growth allowed for 100x the input.
const BOUND: f64 = 120.0;

/// One series of one benchmark: `group`, `variant`, `series`.
type Key = (String, String, String);

fn main() -> ExitCode {
    let dir = std::env::args_os().nth(1).map(PathBuf::from).unwrap_or_else(default_dir);
    let mut points: BTreeMap<Key, BTreeMap<u32, f64>> = BTreeMap::new();
    if let Err(err) = collect(&dir, &mut points) {
        eprintln!("scaling-table: cannot read {}: {err}", dir.display());
        return ExitCode::from(2);
    }
    if points.is_empty() {
        eprintln!(
            "scaling-table: no scaling estimates under {}; run `cargo xtask scaling`",
            dir.display()
        );
        return ExitCode::from(2);
    }
    let (table, over) = render(&points);
    print!("{table}");
    if over.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!("scaling-table: over {BOUND}x in the cache series: {}", over.join(", "));
        ExitCode::FAILURE
    }
}

fn default_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("benches/ has a parent")
            .join("target")
    });
    target.join("criterion")
}

/// Every `<group>/scaling/<variant>/<series>/<factor>x` point under `dir`.
fn collect(dir: &Path, points: &mut BTreeMap<Key, BTreeMap<u32, f64>>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name == "new") {
                if let Some((key, factor, median)) = read_point(&path) {
                    points.entry(key).or_default().insert(factor, median);
                }
            } else {
                collect(&path, points)?;
            }
        }
    }
    Ok(())
}

/// The id and median time (ns) of the estimate in `new_dir`, when it is a
/// scaling point.
fn read_point(new_dir: &Path) -> Option<(Key, u32, f64)> {
    let read = |name: &str| -> Option<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(new_dir.join(name)).ok()?).ok()
    };
    let benchmark = read("benchmark.json")?;
    let id = benchmark["full_id"].as_str()?;
    let (key, factor) = parse_id(id)?;
    let median = read("estimates.json")?["median"]["point_estimate"].as_f64()?;
    Some((key, factor, median))
}

/// `a/scaling/variant/series/10x` → (("a/scaling", "variant", "series"), 10).
fn parse_id(id: &str) -> Option<(Key, u32)> {
    let (group, rest) = id.split_once("/scaling/")?;
    let (rest, factor) = rest.rsplit_once('/')?;
    let factor = factor.strip_suffix('x')?.parse().ok()?;
    let (variant, series) = rest.rsplit_once('/')?;
    Some(((group.to_owned(), variant.to_owned(), series.to_owned()), factor))
}

/// The table, and the gated rows that are over the bound: a crate's cache
/// series, the one whose sizes all stay in the caches.
fn render(points: &BTreeMap<Key, BTreeMap<u32, f64>>) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut over = Vec::new();
    out.push_str("| benchmark | series | 1x | 10x | 100x | 10x / 1x | 100x / 1x | 100x / 10x |\n");
    out.push_str("|---|---|---|---|---|---|---|---|\n");
    // Each benchmark's series from smallest to largest sizes.
    let rank = |series: &str| ["cache", "memory", "large"].iter().position(|s| *s == series);
    let mut rows: Vec<_> = points.iter().collect();
    rows.sort_by_key(|((group, variant, series), _)| (group, variant, rank(series), series));
    for ((group, variant, series), times) in rows {
        let at = |factor: u32| times.get(&factor).copied();
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        };
        let growth = ratio(at(100), at(1));
        let name = format!("{group} {variant}");
        // The machine's own passes are the reference, not held to the bound.
        let gated = series == "cache" && group != "machine";
        if gated && growth.is_some_and(|g| g > BOUND) {
            over.push(format!("{name} ({:.0}x)", growth.unwrap_or_default()));
        }
        let _ = writeln!(
            out,
            "| {name} | {series} | {} | {} | {} | {} | {} | {} |",
            time(at(1)),
            time(at(10)),
            time(at(100)),
            times_cell(ratio(at(10), at(1))),
            bold_if_over(growth),
            times_cell(ratio(at(100), at(10))),
        );
    }
    (out, over)
}

fn time(ns: Option<f64>) -> String {
    match ns {
        None => "–".to_owned(),
        Some(ns) if ns >= 1e9 => format!("{:.2} s", ns / 1e9),
        Some(ns) if ns >= 1e6 => format!("{:.1} ms", ns / 1e6),
        Some(ns) if ns >= 1e3 => format!("{:.1} µs", ns / 1e3),
        Some(ns) => format!("{ns:.0} ns"),
    }
}

fn times_cell(ratio: Option<f64>) -> String {
    ratio.map_or_else(|| "–".to_owned(), |r| format!("{r:.1}x"))
}

fn bold_if_over(ratio: Option<f64>) -> String {
    match ratio {
        Some(r) if r > BOUND => format!("**{r:.0}x**"),
        Some(r) => format!("{r:.0}x"),
        None => "–".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_into_group_variant_series_factor() {
        let key = |g: &str, v: &str, s: &str| (g.to_owned(), v.to_owned(), s.to_owned());
        assert_eq!(
            parse_id("minijinja-brackets/scaling/compile+render/memory/100x"),
            Some((key("minijinja-brackets", "compile+render", "memory"), 100))
        );
        assert_eq!(
            parse_id("narrative-segment/scaling/segment/lmml/cache/1x"),
            Some((key("narrative-segment", "segment/lmml", "cache"), 1))
        );
        assert_eq!(parse_id("prompt-comments/10MiB/strip/standard/comment-free"), None);
    }

    #[test]
    fn only_a_crates_cache_series_is_held_to_the_bound() {
        let mut points = BTreeMap::new();
        let key = |s: &str| ("g".to_owned(), "v".to_owned(), s.to_owned());
        points.insert(key("cache"), BTreeMap::from([(1, 1e3), (10, 1e4), (100, 1.3e5)]));
        points.insert(key("memory"), BTreeMap::from([(1, 1e6), (10, 1e7), (100, 2e8)]));
        points.insert(key("large"), BTreeMap::from([(1, 1e7), (10, 1e8), (100, 1.3e9)]));
        let machine = ("machine".to_owned(), "read".to_owned(), "cache".to_owned());
        points.insert(machine, BTreeMap::from([(1, 1e3), (10, 1e4), (100, 1.4e5)]));
        let (table, over) = render(&points);
        assert_eq!(over, ["g v (130x)"]);
        assert!(table.contains("| g v | large | 10.0 ms | 100.0 ms | 1.30 s | 10.0x | **130x** |"));
        assert!(
            table.contains(
                "| g v | cache | 1.0 µs | 10.0 µs | 130.0 µs | 10.0x | **130x** | 13.0x |"
            )
        );
        assert!(
            table.contains(
                "| g v | memory | 1.0 ms | 10.0 ms | 200.0 ms | 10.0x | **200x** | 20.0x |"
            )
        );
    }
}
