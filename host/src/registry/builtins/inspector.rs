//! `inspector.snapshot`: the whole host at a glance, entities paged.

use super::{Builtin, Spec, object};
use crate::call::{ErrorCode, Failure};
use crate::registry::{Caller, Registry};
use crate::world::EntityFilter;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// Events the trace summary shows.
const RECENT_EVENTS: usize = 20;

pub(super) fn specs() -> Vec<Spec> {
    let vec3 = json!({"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3});
    let quat = json!({"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4});
    let entity = object(
        json!({
            "entity": {"type": "string"}, "eid": {"type": "integer"}, "generation": {"type": "integer"},
            "transform": object(json!({"position": vec3, "rotation": quat, "scale": vec3}), &["position", "rotation", "scale"]),
            "tags": {"type": "array", "items": {"type": "string"}},
            "physics": object(json!({"bodyId": {"type": "integer"}}), &[]),
            "resource": {}
        }),
        &[
            "entity",
            "eid",
            "generation",
            "transform",
            "tags",
            "physics",
        ],
    );
    vec![Spec {
        builtin: Builtin::InspectorSnapshot,
        name: "inspector.snapshot",
        description: "Snapshot the host for inspection: world settings and lighting, a page of entities with transforms, tags, bodies and materials, agents, skills with permissions, the caller's and every profile's permissions, loaded resources and a trace summary.",
        input: object(
            json!({
                "afterEntity": {"type": "string", "description": "Continue after this entity id (the previous page's nextAfterEntity)."},
                "limit": {"type": "integer", "minimum": 0, "maximum": 500, "default": 100, "description": "Most entities in this page."}
            }),
            &[],
        ),
        output: object(
            json!({
                "page": object(json!({"limit": {"type": "integer"}, "totalEntities": {"type": "integer"}, "nextAfterEntity": {"type": ["string", "null"]}}), &["limit", "totalEntities", "nextAfterEntity"]),
                "world": {},
                "entities": {"type": "array", "items": entity},
                "agents": {"type": "array"},
                "skills": {"type": "array", "items": object(json!({"name": {"type": "string"}, "version": {"type": "string"}, "category": {"type": "string"}, "permissions": {"type": "array", "items": {"type": "string"}}}), &["name", "version", "category", "permissions"])},
                "permissions": object(json!({"caller": {"type": "array", "items": {"type": "string"}}, "profiles": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}}), &["caller", "profiles"]),
                "resources": object(json!({"counts": {"type": "object", "additionalProperties": {"type": "number"}}, "loaded": {"type": "array"}}), &["counts", "loaded"]),
                "trace": object(json!({"threadId": {"type": "string"}, "eventCount": {"type": "integer"}, "actors": {"type": "array", "items": {"type": "string"}}, "recent": {"type": "array", "items": {"type": "object"}}}), &["threadId", "eventCount", "actors", "recent"])
            }),
            &[
                "page",
                "world",
                "entities",
                "agents",
                "skills",
                "permissions",
                "resources",
                "trace",
            ],
        ),
    }]
}

fn number(id: &str) -> Option<u64> {
    id.strip_prefix("ent_")?.parse().ok()
}

pub(super) fn snapshot(
    registry: &Registry,
    caller: &Caller,
    input: &Value,
) -> Result<Value, Failure> {
    let limit = input["limit"].as_u64().unwrap_or(100) as usize;
    let after = match input.get("afterEntity").and_then(Value::as_str) {
        None => 0,
        Some(id) => number(id).ok_or_else(|| {
            Failure::new(
                ErrorCode::InvalidInput,
                format!("`afterEntity`: `{id}` is not an entity id (`ent_<n>`)"),
            )
        })?,
    };
    let world = &registry.realm().world;
    let all = world.query_entities(&EntityFilter::default());
    let rest: Vec<_> = all
        .iter()
        .filter(|e| number(&e.id).is_some_and(|n| n > after))
        .collect();
    let page: Vec<_> = rest.iter().take(limit).collect();
    let next = (rest.len() > page.len())
        .then(|| page.last().map(|e| e.id.clone()))
        .flatten();
    let entities: Vec<Value> = page
        .iter()
        .map(|e| {
            let (eid, generation) = world.ecs_handle(&e.id).unwrap_or((0, 0));
            let t = &e.transform;
            let mut physics = Map::new();
            if let Some(body) = e.body_id {
                physics.insert("bodyId".into(), json!(body));
            }
            let mut out = json!({
                "entity": e.id, "eid": eid, "generation": generation,
                "transform": {"position": t.position, "rotation": t.rotation, "scale": t.scale},
                "tags": e.tags, "physics": physics,
            });
            if let Some(m) = world.material(&e.id) {
                out["material"] = json!({
                    "color": m.color, "roughness": m.roughness, "metalness": m.metalness,
                    "castShadow": m.cast_shadow, "receiveShadow": m.receive_shadow,
                });
            }
            if let Some(r) = world.resource(&e.id) {
                out["resource"] = gltf_json(r);
            }
            out
        })
        .collect();
    let lighting = world.lighting();
    let settings = world.settings();
    let loaded: Vec<Value> = world
        .resources()
        .map(|(entity, r)| {
            let mut v = gltf_json(r);
            v["entity"] = json!(entity);
            v
        })
        .collect();
    let tracer = &registry.realm().tracer;
    let recent: Vec<_> = tracer.recent().collect();
    let actors: BTreeSet<&str> = recent.iter().map(|e| e.actor_id.as_str()).collect();
    let profiles: Map<String, Value> = registry
        .profiles()
        .iter()
        .map(|p| (p.name.clone(), json!(p.permissions.names())))
        .collect();
    Ok(json!({
        "page": {"limit": limit, "totalEntities": all.len(), "nextAfterEntity": next},
        "world": {
            "tick": world.tick(),
            "tickSeconds": settings.tick_seconds,
            "maxEntities": settings.max_entities,
            "lighting": {
                "ambientColor": lighting.ambient_color, "ambientIntensity": lighting.ambient_intensity,
                "directionalColor": lighting.directional_color, "directionalIntensity": lighting.directional_intensity,
                "direction": lighting.direction, "castShadow": lighting.cast_shadow,
            },
            "uiPanels": world.ui().to_json(),
            "audio": world.mixer().to_json(),
        },
        "entities": entities,
        "agents": world.agents_json(),
        "skills": registry.skills().map(|s| json!({
            "name": s.name, "version": s.version, "category": s.category, "permissions": s.permissions.names(),
        })).collect::<Vec<_>>(),
        "permissions": {"caller": caller.permissions.names(), "profiles": profiles},
        "resources": {
            "counts": {
                "entities": all.len(), "gltf": loaded.len(), "uiPanels": world.ui().len(),
                "sounds": world.mixer().len(), "packages": registry.packages().len(),
            },
            "loaded": loaded,
        },
        "trace": {
            "threadId": caller.session_id,
            "eventCount": tracer.count(),
            "actors": actors,
            "recent": recent.iter().rev().take(RECENT_EVENTS).rev().collect::<Vec<_>>(),
        },
    }))
}

fn gltf_json(r: &crate::world::GltfResource) -> Value {
    json!({
        "kind": "gltf", "assetId": r.asset_id, "source": r.source, "bytes": r.bytes, "rootName": r.root_name,
        "objectCount": r.object_count, "meshCount": r.mesh_count, "materialCount": r.material_count,
        "textureCount": r.texture_count,
    })
}
