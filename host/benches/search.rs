//! `cargo bench -p limina --bench search`: `skills.search` over 1,000 skills — the core
//! catalog and host built-ins as registered, padded with generated skills — against a naive
//! scan of the same skills (every doc's text searched for every query word) measured in the
//! same run. Also the index build, and the whole `skills.search` call through the pipeline
//! over the registered skills. Needs the core components from `cargo xtask build-guests`.

use limina::packages::{PackageSource, package_dirs};
use limina::policy::{Permissions, PolicyConfig, Profile, Profiles};
use limina::registry::search::{SearchDoc, SearchIndex, tokens};
use limina::registry::{Caller, Registry};
use limina::sandbox::{CompileCache, Sandbox};
use serde_json::json;
use std::path::Path;

#[path = "common.rs"]
mod common;

const SKILLS: usize = 1_000;
const SAMPLES: usize = 15;

const QUERIES: [&str; 6] = [
    "roll dice",
    "move a body",
    "create a sphere entity with physics",
    "speech bubble over an npc",
    "play a sound at a position",
    "which entities are near a point",
];

const VERBS: [&str; 12] = [
    "get", "set", "create", "remove", "find", "list", "spawn", "update", "play", "load", "measure",
    "send",
];
const NOUNS: [&str; 16] = [
    "Item",
    "Quest",
    "Door",
    "Light",
    "Sound",
    "Path",
    "Crowd",
    "Weather",
    "Shop",
    "Timer",
    "Camera",
    "Dialog",
    "Inventory",
    "Spell",
    "Trap",
    "Vehicle",
];
const WORDS: [&str; 24] = [
    "player",
    "world",
    "entity",
    "position",
    "radius",
    "inventory",
    "quest",
    "state",
    "npc",
    "time",
    "speed",
    "target",
    "tag",
    "group",
    "name",
    "value",
    "list",
    "event",
    "area",
    "map",
    "health",
    "damage",
    "score",
    "level",
];

/// A deterministic generated skill: a name, a category, a sentence and a few fields.
fn generated(i: usize) -> (SearchDoc, Permissions) {
    let mut seed = (i as u64)
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let category = format!("pkg{}", i % 40);
    let verb = VERBS[next(VERBS.len())];
    let noun = NOUNS[next(NOUNS.len())];
    let name = format!("{category}.{verb}{noun}{i}");
    let mut description = format!("{verb} a {} ", noun.to_lowercase());
    for _ in 0..(8 + next(10)) {
        description.push_str(WORDS[next(WORDS.len())]);
        description.push(' ');
    }
    let fields: Vec<String> = (0..(1 + next(4)))
        .map(|_| WORDS[next(WORDS.len())].to_string())
        .collect();
    let mut props = serde_json::Map::new();
    for f in fields {
        props.insert(
            f.clone(),
            json!({"type": "string", "description": format!("The {f} to use.")}),
        );
    }
    let doc = SearchDoc::of(
        &name,
        &category,
        &description,
        &json!({"properties": props}),
    );
    (doc, Permissions::NONE)
}

/// The naive baseline: every doc's whole text scanned for every query word.
fn scan(docs: &[(String, Permissions)], query: &str, keep: &dyn Fn(usize) -> bool) -> Vec<usize> {
    let words = tokens(query);
    let mut hits: Vec<(usize, usize)> = docs
        .iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(i, (text, _))| {
            (
                i,
                words.iter().filter(|w| text.contains(w.as_str())).count(),
            )
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    hits.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    hits.truncate(10);
    hits.into_iter().map(|(i, _)| i).collect()
}

fn main() {
    let mut registry = Registry::new(
        Sandbox::new(CompileCache::new(CompileCache::default_dir())).unwrap(),
        PolicyConfig::default(),
        *common::realm(100),
    );
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/core");
    for dir in package_dirs(&core).expect("build the guests first: cargo xtask build-guests") {
        registry.load(PackageSource::read(&dir).unwrap()).unwrap();
    }
    let registered = registry.skills().count();
    let mut docs: Vec<SearchDoc> = Vec::new();
    let mut required: Vec<Permissions> = Vec::new();
    for s in registry.skills() {
        docs.push(SearchDoc::of(
            &s.name,
            &s.category,
            &s.description,
            s.input.source(),
        ));
        required.push(s.permissions);
    }
    for i in 0..SKILLS.saturating_sub(registered) {
        let (doc, perms) = generated(i);
        docs.push(doc);
        required.push(perms);
    }
    let profile = Profile {
        name: "npc".into(),
        permissions: Profiles::default()
            .get("builder.readWrite")
            .unwrap()
            .permissions,
        tools: Some(vec!["*".into()]),
        max_latency_tier: None,
    };
    let keep = |doc: usize| profile.may_call(&docs[doc].name, required[doc]);

    let build = common::median_us(SAMPLES, 5, || {
        std::hint::black_box(SearchIndex::build(&docs));
    });
    let index = SearchIndex::build(&docs);
    let mut q = 0;
    let search = common::median_us(SAMPLES, 600, || {
        let hits = index.search(QUERIES[q % QUERIES.len()], 10, keep);
        std::hint::black_box(hits);
        q += 1;
    });
    let texts: Vec<(String, Permissions)> = docs
        .iter()
        .zip(&required)
        .map(|(d, p)| {
            let text = format!("{} {} {} {}", d.name, d.category, d.description, d.fields);
            (tokens(&text).join(" "), *p)
        })
        .collect();
    let mut q = 0;
    let naive = common::median_us(SAMPLES, 60, || {
        std::hint::black_box(scan(&texts, QUERIES[q % QUERIES.len()], &keep));
        q += 1;
    });

    // The whole call, through the pipeline, over the registered skills.
    let caller = Caller {
        agent_id: "bench".into(),
        session_id: "bench".into(),
        profile: "builder.readWrite".into(),
        permissions: profile.permissions,
    };
    let mut q = 0;
    let call = common::median_us(SAMPLES, 300, || {
        let r = registry.invoke(
            &caller,
            "skills.search",
            json!({"query": QUERIES[q % QUERIES.len()]}),
        );
        assert!(r.success, "{r:?}");
        q += 1;
    });

    let first = |query: &str| docs[index.search(query, 1, keep)[0].doc].name.clone();
    println!(
        "skills.search over {} skills ({registered} registered, the rest generated), median of {SAMPLES} samples (µs)",
        index.len()
    );
    println!("  naive scan (baseline)         {naive:>9.1} per query   1.00x");
    println!(
        "  BM25F index                   {search:>9.1} per query   {:.3}x naive (target ≤ 1000 µs)",
        search / naive
    );
    println!("  index build                   {build:>9.1} once per skill-set change");
    println!(
        "  skills.search call, pipeline  {call:>9.1} per call over the {registered} registered skills"
    );
    println!("  top hit for `move a body`: {}", first("move a body"));
}
