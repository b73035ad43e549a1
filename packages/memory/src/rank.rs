//! Ranking memories against a question: how many of the question's words a memory shares
//! (as a share of the question's words), and, second, how recent it is. Pure functions, tested
//! natively.

use std::collections::BTreeSet;

/// Words that say nothing about what a memory is about.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "at", "be", "by", "did", "do", "for", "from", "has", "have", "i",
    "in", "is", "it", "me", "my", "of", "on", "or", "the", "to", "was", "we", "what", "when",
    "where", "who", "with", "you",
];

/// The distinct, lowercased words of `text` that carry meaning.
pub fn terms(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect()
}

/// How well a memory with `terms`, the `seq`-th of `newest + 1`, answers `query`: the share
/// of the query's terms it holds (0..=1), plus up to 0.1 for being recent. Without query
/// terms only recency counts. `None` when the memory shares no term with a non-empty query.
pub fn score(query: &BTreeSet<String>, terms: &BTreeSet<String>, seq: u64, newest: u64) -> Option<f64> {
    let recency = (seq + 1) as f64 / (newest + 1).max(1) as f64;
    if query.is_empty() {
        return Some(0.1 * recency);
    }
    let shared = query.intersection(terms).count();
    (shared > 0).then(|| shared as f64 / query.len() as f64 + 0.1 * recency)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_lowercased_distinct_and_skip_stop_words() {
        let t = terms("The Blacksmith's forge is in the north, the FORGE!");
        assert_eq!(
            t.into_iter().collect::<Vec<_>>(),
            ["blacksmith", "forge", "north", "s"]
        );
    }

    #[test]
    fn overlap_ranks_first_and_recency_breaks_ties() {
        let q = terms("where is the forge");
        let old_match = score(&q, &terms("the forge is north"), 0, 9).unwrap();
        let new_match = score(&q, &terms("forge closed today"), 9, 9).unwrap();
        assert!(new_match > old_match, "same overlap: the newer wins");
        let q = terms("forge north");
        let both = score(&q, &terms("the forge is north"), 0, 9).unwrap();
        let one = score(&q, &terms("forge closed today"), 9, 9).unwrap();
        assert!(both > one, "more overlap beats recency");
        assert_eq!(score(&q, &terms("bread at the mill"), 9, 9), None);
        assert!(score(&terms(""), &terms("anything"), 3, 9).is_some());
    }
}
