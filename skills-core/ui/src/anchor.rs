//! Where a panel sits: `{kind: "world", …}` on an entity or a point in the world, or
//! `{kind: "screen", …}` at a screen corner. Both are strict.

use limina_sdk::prelude::*;
use schemars::{Schema, SchemaGenerator, json_schema};
use std::borrow::Cow;

/// A world or screen anchor. Its schema is written by hand (below) so that an unknown key is
/// reported by name: a derived `oneOf` would only say that no variant matched.
#[derive(Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "lowercase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum Anchor {
    /// In the world: on an entity (following it) or at a point.
    World {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        entity: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        point: Option<[f64; 3]>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offset: Option<[f64; 3]>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        billboard: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        render_order: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        depth_test: Option<bool>,
    },
    /// On the screen, at a corner.
    Screen {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        corner: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        margin_px: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        distance: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        render_order: Option<i32>,
    },
}

const WORLD_KEYS: [&str; 7] = [
    "kind",
    "entity",
    "point",
    "offset",
    "billboard",
    "renderOrder",
    "depthTest",
];
const SCREEN_KEYS: [&str; 5] = ["kind", "corner", "marginPx", "distance", "renderOrder"];

/// Only `keys` are allowed when `kind` is `kind`.
fn only_keys_when(kind: &str, keys: &[&str]) -> serde_json::Value {
    let props: serde_json::Map<String, serde_json::Value> = keys
        .iter()
        .map(|k| (k.to_string(), serde_json::json!({})))
        .collect();
    serde_json::json!({
        "if": {"properties": {"kind": {"const": kind}}},
        "then": {"properties": props, "additionalProperties": false},
    })
}

impl JsonSchema for Anchor {
    fn schema_name() -> Cow<'static, str> {
        "Anchor".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let vec3 = json_schema!({
            "type": "array",
            "items": {"type": "number"},
            "minItems": 3,
            "maxItems": 3,
        });
        json_schema!({
            "type": "object",
            "description": "`{kind: \"world\", entity? or point?, offset?, billboard?, renderOrder?, depthTest?}` places the panel in the world; `{kind: \"screen\", corner?, marginPx?, distance?, renderOrder?}` on the screen.",
            "required": ["kind"],
            "properties": {
                "kind": {"type": "string", "enum": ["world", "screen"], "description": "In the world or on the screen."},
                "entity": {"type": "string", "description": "world: the entity to follow, `ent_<n>`."},
                "point": {"description": "world: a fixed point [x, y, z], used when no entity is given.", "allOf": [vec3]},
                "offset": {"description": "world: offset [x, y, z] from the entity or point, in metres.", "allOf": [vec3]},
                "billboard": {"type": "boolean", "description": "world: always face the camera."},
                "depthTest": {"type": "boolean", "description": "world: hide the panel behind scene geometry."},
                "corner": {"type": "string", "description": "screen: e.g. top-left, top-right, bottom-left, bottom-right, top, bottom, center."},
                "marginPx": {"type": "number", "minimum": 0, "description": "screen: gap from the screen edges, in pixels."},
                "distance": {"type": "number", "exclusiveMinimum": 0, "description": "screen: distance in front of the camera, in metres."},
                "renderOrder": {"type": "integer", "description": "Draw order among panels; higher draws on top."},
            },
            "additionalProperties": false,
            "allOf": [only_keys_when("world", &WORLD_KEYS), only_keys_when("screen", &SCREEN_KEYS)],
        })
    }
}
