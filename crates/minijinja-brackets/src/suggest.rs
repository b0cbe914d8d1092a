//! "Did you mean ...?" for unknown filter and test names and for state
//! variables nothing sets.
//!
//! A suggestion is the known name closest to the unknown one by edit
//! distance, when it is close enough to be a likely typo (at most one edit
//! per three characters); ties go to the name listed first. The search is
//! bounded whatever the number of names: only names of a similar length can
//! be that close, and at most [`MAX_COMPARED`] of them are compared, the
//! nearest in length first, so a template with 16 000 names is checked in
//! linear time.

use std::collections::HashMap;

/// The most names compared for one suggestion.
pub(crate) const MAX_COMPARED: usize = 1_000;

/// The candidate closest to `name` (see the module docs). `name` itself is
/// expected not to be among the candidates.
pub(crate) fn closest<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    Candidates::new(candidates).closest(name)
}

/// Known names indexed by length in characters, built once for many
/// suggestions.
pub(crate) struct Candidates<'c> {
    /// Names of each length, in order, with their position in the list and
    /// their [`signature`].
    by_length: HashMap<usize, Vec<(usize, u64, &'c str)>>,
}

/// The set of a name's characters, folded into 64 bits: each character of
/// one name whose bit the other name lacks needs an edit of its own, so the
/// bits set in one signature only give a lower bound of the distance that
/// rules most names out without computing it.
fn signature(chars: impl Iterator<Item = char>) -> u64 {
    chars.fold(0, |bits, c| bits | 1 << (c as u32 % 64))
}

/// A lower bound of the edit distance of two names, from their signatures.
fn lower_bound(a: u64, b: u64) -> usize {
    (a & !b).count_ones().max((b & !a).count_ones()) as usize
}

impl<'c> Candidates<'c> {
    pub(crate) fn new(candidates: impl IntoIterator<Item = &'c str>) -> Candidates<'c> {
        let mut by_length: HashMap<usize, Vec<(usize, u64, &'c str)>> = HashMap::new();
        for (order, candidate) in candidates.into_iter().enumerate() {
            let entry = (order, signature(candidate.chars()), candidate);
            by_length.entry(candidate.chars().count()).or_default().push(entry);
        }
        Candidates { by_length }
    }

    /// The candidate closest to `name`: the smallest distance within the
    /// limit, then the first listed.
    pub(crate) fn closest(&self, name: &str) -> Option<&'c str> {
        let name: Vec<char> = name.chars().collect();
        let bits = signature(name.iter().copied());
        let limit = (name.len() / 3).max(1);
        // Lengths from `name`'s outwards: a distance is at least the
        // difference in length.
        let lengths = (0..=limit).flat_map(|d| {
            let shorter = name.len().checked_sub(d).filter(|_| d > 0);
            [Some(name.len() + d), shorter].into_iter().flatten()
        });
        let mut best: Option<(usize, usize, &'c str)> = None;
        let mut compared = 0;
        let mut row = Vec::new();
        let mut other = Vec::new();
        for length in lengths {
            for &(order, their_bits, candidate) in self.by_length.get(&length).into_iter().flatten()
            {
                if compared == MAX_COMPARED {
                    return best.map(|(.., c)| c);
                }
                compared += 1;
                // Only a strictly closer name, or an equally close one
                // listed earlier, replaces the best so far.
                let cutoff = match best {
                    None => limit,
                    Some((d, o, _)) if order < o => d,
                    Some((0, ..)) => continue,
                    Some((d, ..)) => d - 1,
                };
                if lower_bound(bits, their_bits) > cutoff {
                    continue;
                }
                other.clear();
                other.extend(candidate.chars());
                if let Some(d) = distance_within(&name, &other, cutoff, &mut row) {
                    best = Some((d, order, candidate));
                }
            }
        }
        best.map(|(.., c)| c)
    }
}

/// The Levenshtein distance of `a` and `b` when it is at most `cutoff`.
/// Only the band of the table within `cutoff` of its diagonal is computed,
/// and the computation stops as soon as no cell in a row is within it.
fn distance_within(a: &[char], b: &[char], cutoff: usize, row: &mut Vec<usize>) -> Option<usize> {
    if a.len().abs_diff(b.len()) > cutoff {
        return None;
    }
    let beyond = cutoff + 1;
    row.clear();
    row.extend((0..=b.len()).map(|j| j.min(beyond)));
    for (i, ca) in a.iter().enumerate() {
        let low = (i + 1).saturating_sub(cutoff);
        let high = (i + 1 + cutoff).min(b.len());
        // The cell left of the band is out of reach.
        let mut diagonal = row[low.saturating_sub(1)];
        let mut left = if low == 0 { (i + 1).min(beyond) } else { beyond };
        if low == 0 {
            diagonal = row[0];
            row[0] = left;
        }
        let mut smallest = left;
        for j in low.max(1)..=high {
            let up = row[j];
            let substitution = diagonal + usize::from(*ca != b[j - 1]);
            let cell = substitution.min(up + 1).min(left + 1).min(beyond);
            diagonal = up;
            row[j] = cell;
            left = cell;
            smallest = smallest.min(cell);
        }
        // Cells right of the band are out of reach for the next row.
        if high < b.len() {
            row[high + 1] = beyond;
        }
        if smallest > cutoff {
            return None;
        }
    }
    Some(row[b.len()]).filter(|&d| d <= cutoff)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        distance_within(&a, &b, a.len().max(b.len()), &mut Vec::new()).unwrap()
    }

    #[test]
    fn typos_find_their_name() {
        let names = ["upper", "lower", "default", "length", "d"];
        assert_eq!(closest("uper", names), Some("upper"));
        assert_eq!(closest("lenght", names), Some("length"));
        assert_eq!(closest("defualt", names), Some("default"));
        assert_eq!(closest("shout", names), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn ties_go_to_the_name_listed_first() {
        assert_eq!(closest("cat", ["bat", "hat"]), Some("bat"));
        // Listed first, though longer than the equally close `ca`.
        assert_eq!(closest("cat", ["cats", "ca"]), Some("cats"));
        assert_eq!(closest("cat", ["ca", "cats"]), Some("ca"));
    }

    #[test]
    fn the_banded_distance_agrees_with_the_full_table() {
        let words =
            ["", "a", "ab", "ba", "abc", "acb", "kitten", "sitting", "héllo", "hello", "xyzzy"];
        for a in words {
            for b in words {
                let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                let full = full_distance(&ca, &cb);
                for cutoff in 0..8 {
                    let banded = distance_within(&ca, &cb, cutoff, &mut Vec::new());
                    assert_eq!(banded, Some(full).filter(|&d| d <= cutoff), "{a} {b} {cutoff}");
                }
            }
        }
    }

    fn full_distance(a: &[char], b: &[char]) -> usize {
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.iter().enumerate() {
            let mut diagonal = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let substitution = diagonal + usize::from(ca != cb);
                diagonal = row[j + 1];
                row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
            }
        }
        row[b.len()]
    }

    #[test]
    fn the_search_is_bounded() {
        // 5 000 names of the same length, none close: at most MAX_COMPARED
        // are compared (no observable count; the result is what matters).
        let names: Vec<String> = (0..5_000).map(|i| format!("zz{i:05}")).collect();
        assert_eq!(closest("abcdefg", names.iter().map(String::as_str)), None);
        // The nearest in length come first: an exact-length typo is found.
        let mut names: Vec<String> = (0..5_000).map(|i| format!("q{i:07}x")).collect();
        names.push("visits".into());
        assert_eq!(closest("vists", names.iter().map(String::as_str)), Some("visits"));
    }
}
