//! The world as a renderer draws it: each entity's shape, size, transform, material, tags
//! and glTF source, and the scene-wide parts (lighting, UI panels with speech bubbles,
//! agents). State sync sends these to subscribers that ask for `detail` (the browser
//! viewer); everyone else gets transforms only.

use super::camera::{Corner, Drawn, PanelAnchor, RenderSnapshot};
use super::entity::{Appearance, Number, Shape, Transform};
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

fn f32x3(v: [f64; 3]) -> [f32; 3] {
    [v[0] as f32, v[1] as f32, v[2] as f32]
}

impl World {
    /// A compact copy of what the camera draws: every entity's shape, transform, size and
    /// material, the lighting, and each UI panel's anchor. Cheap enough for the engine
    /// (`cargo bench -p limina --bench camera` measures it); the drawing happens elsewhere.
    pub fn render_snapshot(&self) -> RenderSnapshot {
        let surfaces = &self.render.surfaces;
        let mut entities = Vec::with_capacity(self.by_number.len());
        for (number, transform, look) in self
            .ecs
            .query::<(&Number, &Transform, &Appearance)>()
            .iter()
        {
            let r = transform.rotation;
            entities.push(Drawn {
                shape: look.shape,
                position: f32x3(transform.position),
                rotation: [r[0] as f32, r[1] as f32, r[2] as f32, r[3] as f32],
                scale: f32x3(transform.scale),
                size: look.size as f32,
                color: look.color,
                metalness: surfaces
                    .get(&number.0)
                    .map_or(0.0, |s| s.metalness() as f32),
            });
        }
        RenderSnapshot {
            tick: self.tick,
            entities,
            lighting: self.render.lighting,
            anchors: self
                .ui
                .panels
                .values()
                .filter_map(|p| self.anchor_of(&p.spec))
                .collect(),
        }
    }

    /// A panel's anchor as a point or a screen place; `None` for an entity that is gone.
    fn anchor_of(&self, spec: &serde_json::Map<String, serde_json::Value>) -> Option<PanelAnchor> {
        let anchor = spec.get("anchor")?.as_object()?;
        let triple = |key: &str| -> Option<[f64; 3]> {
            let a = anchor.get(key)?.as_array()?;
            Some([
                a.first()?.as_f64()?,
                a.get(1)?.as_f64()?,
                a.get(2)?.as_f64()?,
            ])
        };
        if anchor.get("kind").and_then(|k| k.as_str()) == Some("screen") {
            let corner = anchor.get("corner").and_then(|c| c.as_str()).unwrap_or("");
            let margin = anchor
                .get("marginPx")
                .and_then(|m| m.as_f64())
                .unwrap_or(16.0);
            return Some(PanelAnchor::Screen {
                corner: Corner::parse(corner),
                margin_px: margin as f32,
            });
        }
        let base = match anchor.get("entity").and_then(|e| e.as_str()) {
            Some(id) => {
                let (_, entity) = self.lookup(id)?;
                self.ecs.get::<&Transform>(entity).ok()?.position
            }
            None => triple("point").unwrap_or([0.0; 3]),
        };
        let offset = triple("offset").unwrap_or([0.0; 3]);
        Some(PanelAnchor::World {
            at: f32x3([
                base[0] + offset[0],
                base[1] + offset[1],
                base[2] + offset[2],
            ]),
            on_top: anchor.get("depthTest").and_then(|d| d.as_bool()) == Some(false),
        })
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
