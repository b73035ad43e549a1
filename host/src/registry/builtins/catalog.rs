//! `skills.list` and `skills.describe`.

use super::{Builtin, Spec, not_found, object};
use crate::call::{ErrorCode, Failure};
use crate::registry::search::{SearchCatalog, SearchDoc, SearchIndex};
use crate::registry::{Caller, Registry, Skill};
use serde_json::{Value, json};

pub(super) fn specs() -> Vec<Spec> {
    vec![
        Spec {
            builtin: Builtin::SkillsList,
            name: "skills.list",
            description: "List the skills this session may call, each with a one-line description, a page at a time.",
            input: object(
                json!({
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "description": "Most skills to return; all when absent."},
                    "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Skills to skip, for the next page pass the previous nextOffset."}
                }),
                &[],
            ),
            output: object(
                json!({
                    "tools": {"type": "array", "items": object(json!({"name": {"type": "string"}, "description": {"type": "string"}}), &["name", "description"])},
                    "total": {"type": "integer", "minimum": 0, "description": "Skills this session may call in all."},
                    "nextOffset": {"type": "integer", "minimum": 0, "description": "The offset of the next page; absent on the last one."}
                }),
                &["tools", "total"],
            ),
        },
        Spec {
            builtin: Builtin::SkillsSearch,
            name: "skills.search",
            description: "Search the skills this session may call by what they do, best match first, with each one's latency tier.",
            input: object(
                json!({
                    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "What the skill should do, in a few words, e.g. roll dice."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10, "description": "Most results to return."},
                    "category": {"type": "string", "minLength": 1, "description": "Only skills of this category, e.g. physics."}
                }),
                &["query"],
            ),
            output: object(
                json!({"results": {"type": "array", "items": object(json!({
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "category": {"type": "string"},
                    "score": {"type": "number", "minimum": 0},
                    "tier": {"type": "string", "enum": ["fast", "standard", "deep"]}
                }), &["name", "description", "category", "score", "tier"])}}),
                &["results"],
            ),
        },
        Spec {
            builtin: Builtin::SkillsDescribe,
            name: "skills.describe",
            description: "Describe one skill by name: version, category, description, the JSON Schema of its input, its measured latency and what its package may reach outside the world (grants).",
            input: object(
                json!({"name": {"type": "string", "description": "The skill's full name, e.g. scene.createEntity."}}),
                &["name"],
            ),
            output: object(
                json!({
                    "name": {"type": "string"},
                    "version": {"type": "string"},
                    "category": {"type": "string"},
                    "description": {"type": "string"},
                    "input_schema": {},
                    "latency": crate::registry::latency::report_schema(),
                    "grants": {"type": ["object", "null"], "description": "The package's network patterns, volumes, secret names and state quota; null for the host's built-ins."}
                }),
                &[
                    "name",
                    "version",
                    "category",
                    "description",
                    "input_schema",
                    "latency",
                    "grants",
                ],
            ),
        },
    ]
}

/// Largest `skills.list` page.
const MAX_PAGE: u64 = 1000;

pub(super) fn list(registry: &Registry, caller: &Caller, input: &Value) -> Value {
    let offset = input["offset"].as_u64().unwrap_or(0) as usize;
    let limit = input["limit"].as_u64().map_or(usize::MAX, |l| l as usize);
    let visible: Vec<&Skill> = registry.visible_skills(caller).collect();
    let tools: Vec<Value> = visible
        .iter()
        .skip(offset)
        .take(limit)
        .map(|s| json!({"name": s.name, "description": s.description}))
        .collect();
    let mut out = json!({ "tools": tools, "total": visible.len() });
    let next = offset.saturating_add(tools.len());
    if next < visible.len() {
        out["nextOffset"] = json!(next);
    }
    out
}

/// Ranked search over the skills `caller` may call within its latency tier (see
/// [`crate::registry::search`]).
pub(super) fn search(registry: &mut Registry, caller: &Caller, input: &Value) -> Value {
    let query = input["query"].as_str().unwrap_or_default();
    let limit = input["limit"].as_u64().unwrap_or(10) as usize;
    let category = input.get("category").and_then(Value::as_str);
    let skill_set = registry.skill_set;
    if registry
        .search
        .as_ref()
        .is_none_or(|s| s.skill_set != skill_set)
    {
        let (names, docs): (Vec<String>, Vec<SearchDoc>) = registry
            .skills()
            .map(|s| {
                let doc = SearchDoc::of(&s.name, &s.category, &s.description, s.input.source());
                (s.name.clone(), doc)
            })
            .unzip();
        registry.search = Some(SearchCatalog {
            skill_set,
            index: SearchIndex::build(&docs),
            names,
        });
    }
    let registry = &*registry;
    let catalog = registry.search.as_ref().expect("built above");
    let skill_of = |doc: usize| registry.skill(&catalog.names[doc]);
    let tier = registry.session_tier(caller);
    let hits = catalog.index.search(query, limit, |doc| {
        skill_of(doc).is_some_and(|s| {
            category.is_none_or(|c| s.category == c)
                && s.tier <= tier
                && registry.may_call(caller, s)
        })
    });
    let results: Vec<Value> = hits
        .iter()
        .filter_map(|hit| {
            let s = skill_of(hit.doc)?;
            Some(json!({
                "name": s.name,
                "description": s.description,
                "category": s.category,
                "score": (hit.score as f64 * 1000.0).round() / 1000.0,
                // The stored tier: kept equal to the latency report's, without building one.
                "tier": s.tier.as_str(),
            }))
        })
        .collect();
    json!({ "results": results })
}

pub(super) fn describe(
    registry: &Registry,
    caller: &Caller,
    input: &Value,
) -> Result<Value, Failure> {
    let name = input["name"].as_str().unwrap_or_default();
    let skill = registry.skill(name).ok_or_else(|| {
        not_found(format!(
            "`name`: no skill named `{name}`; skills.list shows the available ones"
        ))
    })?;
    // A skill this session may not call is acknowledged, never described.
    if !registry.may_call(caller, skill) {
        return Err(Failure::new(
            ErrorCode::Forbidden,
            format!(
                "`{name}` is not available to this session (profile `{}`); skills.list shows the ones it may call",
                caller.profile
            ),
        ));
    }
    Ok(json!({
        "name": skill.name,
        "version": skill.version,
        "category": skill.category,
        "description": skill.description,
        "input_schema": skill.input.source(),
        "latency": registry.latency(skill).to_json(),
        "grants": skill
            .package_index()
            .map(|i| registry.packages[i].manifest.grants.to_json()),
    }))
}
