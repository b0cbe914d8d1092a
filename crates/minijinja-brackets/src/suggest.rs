//! "Did you mean ...?" for unknown filter and test names.

/// The candidate closest to `name` by edit distance, when it is close
/// enough to be a likely typo (at most one edit per three characters).
pub(crate) fn closest<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|candidate| (distance(name, candidate), candidate))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance in characters; names are short, so the quadratic
/// table is a single row.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_name() {
        let names = ["upper", "lower", "default", "length", "d"];
        assert_eq!(closest("uper", names), Some("upper"));
        assert_eq!(closest("lenght", names), Some("length"));
        assert_eq!(closest("defualt", names), Some("default"));
        assert_eq!(closest("shout", names), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
