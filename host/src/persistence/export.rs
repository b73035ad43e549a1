//! The world as a scene file: the JSONL of `{"skill", "input"}` calls that `--scene` and
//! `dev.reload scene` replay, so a builder can keep what an agent built.
//!
//! A scene describes what was built, not a moment of a simulation: every entity (shape,
//! size, colour, position, rotation, scale, body kind, collider, friction, restitution, tags
//! — agent bodies are tags — and material), the lighting, the UI panels a `ui.*` call can
//! make, looping ambient sounds and bus volumes. Replayed into an empty world, entities get
//! ids in the same order (`ent_1`, `ent_2`, …; panels anchored to an entity follow it).
//! Left out, because no scene call makes them: velocities and the tick (a replayed scene
//! starts at rest at tick 0), sounds that end by themselves, approaches in progress, what
//! agents heard, speech bubbles of `social.say` (a speaker is a session), and collision
//! events not yet drained.
//!
//! [`scene_hash`] digests exactly what a scene carries, ids renumbered, so the world a
//! replay builds hashes the same as the world exported.

use crate::world::{
    Bus, ColliderShape, EntityFilter, EntityInfo, Material, Shape, World, entity_id,
};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// Panel spec keys a `ui.panel` call accepts.
const PANEL_KEYS: [&str; 12] = [
    "anchor",
    "style",
    "text",
    "title",
    "lines",
    "maxWidth",
    "width",
    "maxLines",
    "pixelScale",
    "tail",
    "leader",
    "lifecycle",
];

/// A scene file's text and its number of lines.
pub struct Scene {
    pub text: String,
    pub lines: usize,
}

/// The scene calls that rebuild `world`, in order.
pub fn calls(world: &World) -> Vec<Value> {
    let entities = world.query_entities(&EntityFilter::default());
    let renamed = renaming(&entities);
    let mut out = Vec::new();
    for info in &entities {
        let id = &renamed[&info.id];
        entity_calls(world, info, id, &mut out);
    }
    let lighting = world.lighting();
    if *lighting != crate::world::Lighting::default() {
        out.push(call(
            "three.setLighting",
            json!({
                "ambientColor": lighting.ambient_color,
                "ambientIntensity": lighting.ambient_intensity,
                "directionalColor": lighting.directional_color,
                "directionalIntensity": lighting.directional_intensity,
                "direction": lighting.direction,
                "castShadow": lighting.cast_shadow,
                "shadowMapSize": lighting.shadow_map_size,
                "shadowCameraExtent": lighting.shadow_camera_extent,
                "shadowCameraNear": lighting.shadow_camera_near,
                "shadowCameraFar": lighting.shadow_camera_far,
                "shadowBias": lighting.shadow_bias,
            }),
        ));
    }
    for spec in panels(world, &renamed) {
        out.push(call("ui.panel", spec));
    }
    let mixer = world.mixer();
    for bus in Bus::ALL {
        if mixer.bus_volume(bus) != 1.0 {
            out.push(call(
                "audio.setBusVolume",
                json!({"bus": bus.as_str(), "volume": mixer.bus_volume(bus)}),
            ));
        }
    }
    for sound in mixer.to_json()["sounds"].as_array().into_iter().flatten() {
        if sound["sound"]["kind"] == "ambient" {
            out.push(call(
                "audio.ambient",
                json!({"bus": sound["bus"], "volume": sound["volume"]}),
            ));
        }
    }
    out
}

/// [`calls`] as a scene file.
pub fn scene(world: &World) -> Scene {
    let calls = calls(world);
    let mut text = String::new();
    for c in &calls {
        text.push_str(&c.to_string());
        text.push('\n');
    }
    Scene {
        text,
        lines: calls.len(),
    }
}

/// sha256 (hex) of what a scene of `world` carries (see the module doc), entities
/// renumbered in order and numbers rounded to 9 significant digits (a replay normalizes a
/// rotation again, which may move its last bit).
pub fn scene_hash(world: &World) -> String {
    let calls: Vec<Value> = calls(world).into_iter().map(rounded).collect();
    hex::encode(Sha256::digest(
        crate::json::text(&Value::Array(calls)).as_bytes(),
    ))
}

fn call(skill: &str, input: Value) -> Value {
    json!({"skill": skill, "input": input})
}

/// Old entity id → the id a replay gives it (`ent_<its place in id order>`).
fn renaming(entities: &[EntityInfo]) -> BTreeMap<String, String> {
    entities
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.clone(), entity_id(i as u64 + 1)))
        .collect()
}

fn entity_calls(world: &World, info: &EntityInfo, id: &str, out: &mut Vec<Value>) {
    let t = info.transform;
    match world.resource(&info.id) {
        Some(resource) => out.push(call(
            "three.loadGLTF",
            json!({"assetId": resource.asset_id, "position": t.position}),
        )),
        None => {
            let (shape, size, color, body) = world
                .entity_look(&info.id)
                .expect("a listed entity has a look");
            let mut input = json!({
                "shape": match shape { Shape::Box => "box", Shape::Sphere => "sphere" },
                "size": size,
                "color": color,
                "position": t.position,
            });
            if let Some(body) = body {
                input["dynamic"] = json!(body.kind == crate::world::BodyKind::Dynamic);
                input["static"] = json!(body.kind == crate::world::BodyKind::Fixed);
                input["collider"] = json!(match body.collider {
                    ColliderShape::Box => "box",
                    ColliderShape::Sphere => "sphere",
                    ColliderShape::Capsule => "capsule",
                });
                input["friction"] = json!(body.friction);
                input["restitution"] = json!(body.restitution);
            }
            out.push(call("scene.createEntity", input));
        }
    }
    if t.rotation != [0.0, 0.0, 0.0, 1.0] {
        out.push(call(
            "ecs.updateComponent",
            json!({"entity": id, "component": "rotation", "value": t.rotation}),
        ));
    }
    if t.scale != [1.0, 1.0, 1.0] {
        out.push(call(
            "ecs.updateComponent",
            json!({"entity": id, "component": "scale", "value": t.scale}),
        ));
    }
    for tag in &info.tags {
        out.push(call(
            "ecs.addComponent",
            json!({"entity": id, "component": tag}),
        ));
    }
    if let Some(m) = world.patched_material(&info.id) {
        let Material {
            roughness,
            metalness,
            cast_shadow,
            receive_shadow,
            ..
        } = m;
        out.push(call(
            "three.setMaterial",
            json!({"entity": id, "roughness": roughness, "metalness": metalness,
                   "castShadow": cast_shadow, "receiveShadow": receive_shadow}),
        ));
    }
    // A loaded asset's colour is white until changed.
    if world.resource(&info.id).is_some()
        && let Some(m) = world.material(&info.id)
        && m.color != 0xff_ffff
    {
        out.push(call(
            "three.setMaterial",
            json!({"entity": id, "color": m.color}),
        ));
    }
}

/// Inputs of `ui.panel` for every panel one can make, anchors renamed.
fn panels(world: &World, renamed: &BTreeMap<String, String>) -> Vec<Value> {
    let mut out = Vec::new();
    for panel in world.ui().to_json() {
        let Some(spec) = panel["spec"].as_object() else {
            continue;
        };
        if !spec.keys().all(|k| PANEL_KEYS.contains(&k.as_str())) {
            continue;
        }
        let mut input: Map<String, Value> = spec.clone();
        if let Some(entity) = input.get_mut("anchor").and_then(|a| a.get_mut("entity")) {
            match entity.as_str().and_then(|e| renamed.get(e)) {
                Some(new) => *entity = json!(new),
                // Anchored to an entity that is gone: nothing to show it on.
                None => continue,
            }
        }
        input.insert("kind".into(), panel["kind"].clone());
        out.push(Value::Object(input));
    }
    out
}

/// `value` with every number rounded to 9 significant digits.
fn rounded(value: Value) -> Value {
    match value {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(0.0);
            let text = format!("{f:.8e}");
            json!(text.parse::<f64>().unwrap_or(f))
        }
        Value::Array(items) => Value::Array(items.into_iter().map(rounded).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, rounded(v))).collect())
        }
        other => other,
    }
}
