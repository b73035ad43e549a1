//! The tag index: which entities carry each tag, kept by the world as tags change, so finding
//! an agent's body (`agent:<id>`) or every agent reads a few entries instead of every entity.

use std::collections::{BTreeMap, BTreeSet};

/// Entity numbers by tag, ascending.
#[derive(Default)]
pub(super) struct TagIndex {
    by_tag: BTreeMap<String, BTreeSet<u64>>,
}

impl TagIndex {
    pub(super) fn insert(&mut self, tag: &str, number: u64) {
        match self.by_tag.get_mut(tag) {
            Some(numbers) => {
                numbers.insert(number);
            }
            None => {
                self.by_tag
                    .insert(tag.to_string(), BTreeSet::from([number]));
            }
        }
    }

    pub(super) fn remove(&mut self, tag: &str, number: u64) {
        if let Some(numbers) = self.by_tag.get_mut(tag) {
            numbers.remove(&number);
            if numbers.is_empty() {
                self.by_tag.remove(tag);
            }
        }
    }

    /// The entities carrying `tag`, ascending.
    pub(super) fn carrying(&self, tag: &str) -> Option<&BTreeSet<u64>> {
        self.by_tag.get(tag)
    }

    /// Every tag starting with `prefix`, with its entities, in tag order.
    pub(super) fn starting_with<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a BTreeSet<u64>)> + 'a {
        self.by_tag
            .range::<str, _>((
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            ))
            .take_while(move |(tag, _)| tag.starts_with(prefix))
            .map(|(tag, numbers)| (tag.as_str(), numbers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_come_and_go_and_prefixes_list_in_order() {
        let mut index = TagIndex::default();
        index.insert("agent:bo", 7);
        index.insert("agent:ann", 9);
        index.insert("agent:ann", 3);
        index.insert("crate", 3);
        index.insert("agent", 1);
        index.remove("crate", 3);
        index.remove("crate", 3);
        assert!(index.carrying("crate").is_none(), "an emptied tag goes");
        assert_eq!(
            index
                .carrying("agent:ann")
                .unwrap()
                .iter()
                .collect::<Vec<_>>(),
            [&3, &9]
        );
        let listed: Vec<(&str, u64)> = index
            .starting_with("agent:")
            .map(|(tag, numbers)| (tag, *numbers.first().unwrap()))
            .collect();
        assert_eq!(listed, [("agent:ann", 3), ("agent:bo", 7)]);
    }
}
