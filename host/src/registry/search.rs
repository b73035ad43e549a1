//! `skills.search`: ranked search over the registered skills with BM25F — BM25 over several
//! fields (name, category, description, input field names and descriptions), each weighted
//! and length-normalized on its own. A term's saturated weight per skill does not depend on
//! the query, so it is computed when the index is built; a query only sums postings, which
//! keeps a search over a thousand skills well under a millisecond.

use serde_json::Value;
use std::collections::HashMap;

/// What is searched of one skill.
#[derive(Debug, Clone, Default)]
pub struct SearchDoc {
    pub name: String,
    pub category: String,
    pub description: String,
    /// Input field names and their descriptions, as one text.
    pub fields: String,
}

impl SearchDoc {
    /// The searchable text of a skill: the input schema's top-level property names and
    /// descriptions stand for its fields.
    pub fn of(name: &str, category: &str, description: &str, input_schema: &Value) -> SearchDoc {
        let mut fields = String::new();
        if let Some(props) = input_schema.get("properties").and_then(Value::as_object) {
            for (key, prop) in props {
                fields.push_str(key);
                fields.push(' ');
                if let Some(d) = prop.get("description").and_then(Value::as_str) {
                    fields.push_str(d);
                    fields.push(' ');
                }
            }
        }
        SearchDoc {
            name: name.to_string(),
            category: category.to_string(),
            description: description.to_string(),
            fields,
        }
    }
}

/// Field weights: a word in the name says more than one in a field description.
const WEIGHTS: [f32; 4] = [3.0, 1.5, 1.0, 0.5];
/// BM25 term-frequency saturation.
const K1: f32 = 1.2;
/// BM25 length normalization.
const B: f32 = 0.75;

/// Words too common to tell skills apart.
const STOPWORDS: [&str; 28] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "if", "in", "into", "is", "it",
    "its", "of", "on", "one", "or", "so", "some", "that", "the", "this", "to", "with", "me",
];

/// An inverted index over skills; document `i` is the `i`th doc it was built from.
#[derive(Debug, Default)]
pub struct SearchIndex {
    /// term → (doc, saturated weighted frequency), docs ascending.
    postings: HashMap<String, (f32, Vec<(u32, f32)>)>,
    docs: usize,
}

/// The index of the registry's skills, for the skill set it was built from.
#[derive(Debug)]
pub(crate) struct SearchCatalog {
    pub skill_set: u64,
    pub index: SearchIndex,
    /// Skill name of each doc.
    pub names: Vec<String>,
}

/// One ranked result: the doc's index and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub doc: usize,
    pub score: f32,
}

impl SearchIndex {
    /// Indexes `docs` in order.
    pub fn build(docs: &[SearchDoc]) -> SearchIndex {
        let texts = |d: &SearchDoc| {
            [
                tokens(&d.name),
                tokens(&d.category),
                tokens(&d.description),
                tokens(&d.fields),
            ]
        };
        let tokenized: Vec<[Vec<String>; 4]> = docs.iter().map(texts).collect();
        let mut average = [0f32; 4];
        for fields in &tokenized {
            for (f, words) in fields.iter().enumerate() {
                average[f] += words.len() as f32;
            }
        }
        for a in &mut average {
            *a = (*a / docs.len().max(1) as f32).max(1.0);
        }
        let mut postings: HashMap<String, (f32, Vec<(u32, f32)>)> = HashMap::new();
        for (doc, fields) in tokenized.iter().enumerate() {
            // Weighted, length-normalized frequency of each term in this doc.
            let mut weighted: HashMap<&str, f32> = HashMap::new();
            for (f, words) in fields.iter().enumerate() {
                let norm = 1.0 - B + B * words.len() as f32 / average[f];
                for w in words {
                    *weighted.entry(w.as_str()).or_default() += WEIGHTS[f] / norm;
                }
            }
            for (term, tf) in weighted {
                postings
                    .entry(term.to_string())
                    .or_default()
                    .1
                    .push((doc as u32, tf / (K1 + tf)));
            }
        }
        let n = docs.len() as f32;
        for (idf, list) in postings.values_mut() {
            let df = list.len() as f32;
            *idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        }
        SearchIndex {
            postings,
            docs: docs.len(),
        }
    }

    /// Docs indexed.
    pub fn len(&self) -> usize {
        self.docs
    }

    /// Whether no doc is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// The best `limit` docs for `query` among those `keep` accepts, best first (ties by doc
    /// order, which is name order in the registry). Docs matching no query word are left out.
    pub fn search(&self, query: &str, limit: usize, keep: impl Fn(usize) -> bool) -> Vec<Hit> {
        let mut scores = vec![0f32; self.docs];
        let mut touched = Vec::new();
        let mut terms = tokens(query);
        terms.sort();
        terms.dedup();
        for term in &terms {
            let Some((idf, list)) = self.postings.get(term) else {
                continue;
            };
            for &(doc, weight) in list {
                let slot = &mut scores[doc as usize];
                if *slot == 0.0 {
                    touched.push(doc as usize);
                }
                *slot += idf * weight;
            }
        }
        // Best first, then `keep` asked only until `limit` are kept: with most skills
        // visible, the filter runs about `limit` times rather than once per match.
        let mut ranked: Vec<Hit> = touched
            .into_iter()
            .map(|doc| Hit {
                doc,
                score: scores[doc],
            })
            .collect();
        ranked.sort_unstable_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
        let mut hits = Vec::with_capacity(limit.min(ranked.len()));
        for hit in ranked {
            if hits.len() == limit {
                break;
            }
            if keep(hit.doc) {
                hits.push(hit);
            }
        }
        hits
    }
}

/// Lowercase word stems: split on anything but letters and digits and between camelCase
/// words, stopwords dropped, a light suffix strip so that `moves`, `moving` and `move` meet.
pub fn tokens(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && previous_lower && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
            word.extend(c.to_lowercase());
        } else {
            previous_lower = false;
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
        .into_iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// A light English stem: plural and verb endings, then a final `e`.
fn stem(word: &str) -> String {
    let mut w = word;
    let owned;
    if let Some(base) = w.strip_suffix("ies").filter(|b| b.len() >= 2) {
        owned = format!("{base}y");
        w = &owned;
    } else if let Some(base) = w.strip_suffix("ing").filter(|b| b.len() >= 3) {
        w = base;
    } else if let Some(base) = w.strip_suffix("ed").filter(|b| b.len() >= 3) {
        w = base;
    } else if let Some(base) = w.strip_suffix("es").filter(|b| b.len() >= 3) {
        w = base;
    } else if let Some(base) = w
        .strip_suffix('s')
        .filter(|b| b.len() >= 3 && !b.ends_with('s'))
    {
        w = base;
    }
    let w = w.strip_suffix('e').filter(|b| b.len() >= 3).unwrap_or(w);
    w.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_split_names_camel_case_and_stem() {
        assert_eq!(
            tokens("physics.applyImpulse"),
            ["physic", "apply", "impuls"]
        );
        assert_eq!(tokens("Move a body"), ["mov", "body"]);
        assert_eq!(tokens("moving bodies, moved"), ["mov", "body", "mov"]);
        assert_eq!(tokens("roll dice"), tokens("rolls the dice"));
        assert_eq!(
            tokens("three.loadGLTF 2d6"),
            ["thre", "load", "gltf", "2d6"]
        );
        assert!(tokens("the of a").is_empty());
    }

    /// A fixture catalog: real descriptions of a few core and example skills.
    fn catalog() -> Vec<SearchDoc> {
        let doc = |name: &str, description: &str, fields: Value| {
            let category = name.split('.').next().unwrap();
            SearchDoc::of(name, category, description, &json!({"properties": fields}))
        };
        vec![
            doc(
                "dice.roll",
                "Roll a dice expression such as 2d6+3, 4d8-1 or 1d20: returns each die, the modifier and the total.",
                json!({"expression": {"description": "Dice notation NdS+M."}}),
            ),
            doc(
                "dice.rollTable",
                "Roll on a random table (encounter, loot or weather) one or more times.",
                json!({"table": {}, "count": {}}),
            ),
            doc(
                "physics.applyImpulse",
                "Push an entity's dynamic physics body to move it with an instant impulse (in newton-seconds); ok is false if it has no dynamic body.",
                json!({"entity": {}, "impulse": {}}),
            ),
            doc(
                "physics.raycast",
                "Cast a ray from a point in a direction and report the nearest physics body it hits: distance, hit point and entity.",
                json!({"origin": {}, "direction": {}, "maxDistance": {}}),
            ),
            doc(
                "three.setTransform",
                "Move, rotate (Euler angles in radians, XYZ order) or scale an entity; only the given parts change, and ok is false if the entity does not exist.",
                json!({"entity": {}, "position": {}, "rotationEuler": {}, "scale": {}}),
            ),
            doc(
                "scene.createEntity",
                "Create a box or sphere entity in the world, optionally with a dynamic or static physics body; returns its id.",
                json!({"shape": {}, "size": {}, "position": {}, "dynamic": {}}),
            ),
            doc(
                "scene.destroyEntity",
                "Remove an entity and its physics body from the world; removed is false if the id did not exist.",
                json!({"entity": {}}),
            ),
            doc(
                "audio.play",
                "Play a tone on a mixer bus for some seconds.",
                json!({"freq": {}, "secs": {}, "bus": {}}),
            ),
        ]
    }

    fn first(index: &SearchIndex, docs: &[SearchDoc], query: &str) -> String {
        let hits = index.search(query, 10, |_| true);
        docs[hits
            .first()
            .unwrap_or_else(|| panic!("no hit for {query}"))
            .doc]
            .name
            .clone()
    }

    #[test]
    fn ranking_finds_the_skill_a_request_means() {
        let docs = catalog();
        let index = SearchIndex::build(&docs);
        assert_eq!(first(&index, &docs, "roll dice"), "dice.roll");
        assert_eq!(first(&index, &docs, "move a body"), "physics.applyImpulse");
        assert_eq!(first(&index, &docs, "loot table"), "dice.rollTable");
        assert_eq!(first(&index, &docs, "rotate"), "three.setTransform");
        assert_eq!(
            first(&index, &docs, "remove an entity"),
            "scene.destroyEntity"
        );
        assert_eq!(first(&index, &docs, "make a sphere"), "scene.createEntity");
        assert_eq!(first(&index, &docs, "ray hits"), "physics.raycast");
    }

    #[test]
    fn results_are_limited_filtered_and_ordered_by_score() {
        let docs = catalog();
        let index = SearchIndex::build(&docs);
        let hits = index.search("entity physics body", 3, |_| true);
        assert_eq!(hits.len(), 3);
        assert!(
            hits.windows(2).all(|w| w[0].score >= w[1].score),
            "{hits:?}"
        );
        let all = index.search("entity physics body", 100, |_| true);
        assert_eq!(&all[..3], &hits[..]);
        // A filter removes docs without moving the others.
        let physics = index.search("entity physics body", 100, |d| {
            docs[d].category == "physics"
        });
        assert!(physics.iter().all(|h| docs[h.doc].category == "physics"));
        assert_eq!(physics.len(), 2);
        assert!(index.search("xylophone", 10, |_| true).is_empty());
        assert!(index.search("the a of", 10, |_| true).is_empty());
        assert!(index.search("roll", 0, |_| true).is_empty());
    }

    #[test]
    fn an_empty_index_finds_nothing() {
        let index = SearchIndex::build(&[]);
        assert!(index.is_empty());
        assert!(index.search("roll dice", 10, |_| true).is_empty());
    }
}
