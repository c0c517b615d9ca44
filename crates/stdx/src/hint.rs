//! Did-you-mean hints: the one rule for every "did you mean `x`?" in the workspace (config keys
//! and values, suite checks and operators, CLI values).

/// "did you mean `x`?" when one candidate is [`closest`] to `name`, otherwise the list of
/// candidates; `None` when there are none.
#[must_use]
pub fn did_you_mean(name: &str, candidates: &[&str]) -> Option<String> {
    if candidates.is_empty() {
        return None;
    }
    match closest(name, candidates.iter().copied()) {
        Some(candidate) => Some(format!("did you mean `{candidate}`?")),
        None => {
            let list: Vec<String> = candidates.iter().map(|c| format!("`{c}`")).collect();
            Some(format!("expected one of {}", list.join(", ")))
        }
    }
}

/// The candidate nearest to `word`, ignoring case, when it is near enough to be a typo: an edit
/// distance of at most a third of `word`'s length, and at least 2. The one rule for every
/// did-you-mean hint in the workspace (config keys and values here, suite checks and operators
/// in `scoring`).
#[must_use]
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    closest_within(word, candidates, (word.chars().count() / 3).max(2))
}

/// The candidate nearest to `word`, ignoring case, at an edit distance of at most `budget`.
#[must_use]
pub fn closest_within<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    budget: usize,
) -> Option<&'a str> {
    let word = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (edit_distance(&word, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= budget)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters (two-row dynamic programming).
#[must_use]
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = substitution.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_names_list_the_candidates() {
        assert_eq!(
            did_you_mean("zzzzzz", &["alpha", "beta"]).as_deref(),
            Some("expected one of `alpha`, `beta`")
        );
    }

    #[test]
    fn distance_basics() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
