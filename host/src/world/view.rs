//! The world as a renderer draws it: each entity's shape, size, transform, material, tags
//! and glTF source, and the scene-wide parts (lighting, UI panels with speech bubbles,
//! agents). State sync sends these to subscribers that ask for `detail` (the browser
//! viewer); everyone else gets transforms only.

use super::entity::{Appearance, Shape, Transform};
use super::{World, entity_id};
use serde_json::{Value, json};

impl World {
    /// Entity `number` as a renderer needs it; `None` when it does not exist.
    pub fn entity_view(&self, number: u64) -> Option<Value> {
        let entity = self.entity_by_number(number)?;
        let t = *self.ecs.get::<&Transform>(entity).ok()?;
        let appearance = self.ecs.get::<&Appearance>(entity).ok()?.clone();
        let id = entity_id(number);
        let material = self.material(&id)?;
        let info = self.get_entity(&id)?;
        let mut view = json!({
            "id": id,
            "pos": t.position,
            "rot": t.rotation,
            "scale": t.scale,
            "shape": match appearance.shape {
                Shape::Box => "box",
                Shape::Sphere => "sphere",
            },
            "size": appearance.size,
            "material": {
                "color": material.color,
                "roughness": material.roughness,
                "metalness": material.metalness,
                "castShadow": material.cast_shadow,
                "receiveShadow": material.receive_shadow,
            },
            "tags": info.tags,
        });
        if let Some(resource) = self.assets.resources.get(&number) {
            view["gltf"] = json!(resource.source);
        }
        Some(view)
    }

    /// The scene-wide parts a renderer draws: lighting, UI panels (speech and thought
    /// bubbles among them) and agents.
    pub fn scene_view(&self) -> Value {
        let l = self.lighting();
        json!({
            "lighting": {
                "ambientColor": l.ambient_color,
                "ambientIntensity": l.ambient_intensity,
                "directionalColor": l.directional_color,
                "directionalIntensity": l.directional_intensity,
                "direction": l.direction,
                "castShadow": l.cast_shadow,
                "shadowMapSize": l.shadow_map_size,
                "shadowCameraExtent": l.shadow_camera_extent,
                "shadowCameraNear": l.shadow_camera_near,
                "shadowCameraFar": l.shadow_camera_far,
                "shadowBias": l.shadow_bias,
            },
            "panels": self.ui().to_json(),
            "agents": self.agents_json(),
        })
    }
}

impl World {
    /// Up to `limit` entity numbers after `after` (all when `None`), ascending: listings page
    /// through the world with it.
    pub fn entity_numbers_after(&self, after: Option<u64>, limit: usize) -> Vec<u64> {
        let from = after.map_or(std::ops::Bound::Unbounded, std::ops::Bound::Excluded);
        self.by_number
            .range((from, std::ops::Bound::Unbounded))
            .take(limit)
            .map(|(n, _)| *n)
            .collect()
    }

    /// The highest entity number issued so far (0 before the first): an entity numbered
    /// above it appeared since.
    pub fn last_issued(&self) -> u64 {
        self.next_number - 1
    }

    /// Each agent with a body and its body's entity number (the lowest-numbered entity
    /// carrying its tag), by agent id.
    pub fn agent_bodies(&self) -> Vec<(String, u64)> {
        self.tagged
            .starting_with("agent:")
            .filter_map(|(tag, numbers)| {
                Some((tag.strip_prefix("agent:")?.to_string(), *numbers.first()?))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::world::{BodyKind, EntitySpec, MaterialPatch, Shape, World, WorldSettings};

    fn world() -> World {
        World::new(WorldSettings {
            max_entities: 100,
            tick_seconds: 1.0 / 60.0,
        })
    }

    fn spec() -> EntitySpec {
        EntitySpec {
            shape: Shape::Sphere,
            collider: None,
            size: 2.0,
            color: 0xff0000,
            position: [1.0, 2.0, 3.0],
            body: BodyKind::None,
            friction: 0.5,
            restitution: 0.0,
        }
    }

    #[test]
    fn an_entity_view_carries_its_shape_size_material_and_tags() {
        let mut w = world();
        let id = w.create_entity(&spec()).unwrap();
        w.add_tag(&id, "crate");
        let view = w.entity_view(1).unwrap();
        assert_eq!(view["id"], id);
        assert_eq!(view["shape"], "sphere");
        assert_eq!(view["size"], 2.0);
        assert_eq!(view["pos"], serde_json::json!([1.0, 2.0, 3.0]));
        assert_eq!(view["material"]["color"], 0xff0000);
        assert_eq!(view["tags"], serde_json::json!(["crate"]));
        assert!(view.get("gltf").is_none());
        assert!(w.entity_view(99).is_none());
    }

    #[test]
    fn entity_numbers_page_in_order_and_the_last_issued_stays_after_a_destroy() {
        let mut w = world();
        assert_eq!(w.last_issued(), 0);
        for _ in 0..5 {
            w.create_entity(&spec()).unwrap();
        }
        assert!(w.destroy_entity("ent_3"));
        assert_eq!(w.entity_numbers_after(None, 2), [1, 2]);
        assert_eq!(w.entity_numbers_after(Some(2), 10), [4, 5]);
        assert!(w.entity_numbers_after(Some(5), 10).is_empty());
        assert_eq!(w.last_issued(), 5);
        w.add_tag("ent_4", "agent:bob");
        assert_eq!(w.agent_bodies(), [("bob".to_string(), 4)]);
    }

    #[test]
    fn a_material_change_reports_the_entity_and_lighting_the_scene() {
        let mut w = world();
        let id = w.create_entity(&spec()).unwrap();
        w.take_changes();
        w.begin();
        let patch = MaterialPatch {
            roughness: Some(0.2),
            ..MaterialPatch::default()
        };
        assert!(w.set_material(&id, &patch).unwrap());
        w.commit();
        let changes = w.take_changes();
        assert_eq!(changes.changed.len(), 1, "{changes:?}");
        assert!(!changes.scene);

        w.begin();
        let mut lighting = *w.lighting();
        lighting.ambient_intensity = 0.9;
        w.set_lighting(lighting).unwrap();
        w.commit();
        let changes = w.take_changes();
        assert!(changes.changed.is_empty() && changes.scene, "{changes:?}");
        assert_eq!(w.scene_view()["lighting"]["ambientIntensity"], 0.9);
        assert!(w.take_changes().is_empty());
    }
}
