//! Areas of interest: the sphere a client wants to hear about, and which entities are inside
//! it — answered by the world's spatial index without scanning the world, for snapshots and
//! for a client that moves its area.

use crate::world::World;
use serde_json::Value;

/// A sphere; the distance test is inclusive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aoi {
    pub center: [f64; 3],
    pub radius: f64,
}

impl Aoi {
    /// `{center: [x, y, z], radius}`; `None` (everything) when absent or malformed.
    pub fn parse(value: &Value) -> Option<Aoi> {
        let center = value.get("center")?.as_array()?;
        if center.len() != 3 {
            return None;
        }
        let mut c = [0.0; 3];
        for (slot, v) in c.iter_mut().zip(center) {
            *slot = v.as_f64().filter(|x| x.is_finite())?;
        }
        let radius = value
            .get("radius")?
            .as_f64()
            .filter(|r| r.is_finite() && *r >= 0.0)?;
        Some(Aoi { center: c, radius })
    }

    pub fn contains(&self, p: [f64; 3]) -> bool {
        let d2: f64 = (0..3).map(|i| (p[i] - self.center[i]).powi(2)).sum();
        d2 <= self.radius * self.radius
    }
}

/// Whether `p` is inside `aoi` (no area: everywhere).
pub fn inside(aoi: Option<&Aoi>, p: [f64; 3]) -> bool {
    aoi.is_none_or(|a| a.contains(p))
}

/// Entities inside `aoi` (everything without one), ascending.
pub fn within(world: &World, aoi: Option<&Aoi>) -> Vec<u64> {
    match aoi {
        None => world.entity_numbers(),
        Some(a) => world.entities_within(a.center, a.radius, |p| a.contains(p)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{BodyKind, EntitySpec, Shape, WorldSettings, entity_id};
    use serde_json::json;

    #[test]
    fn an_area_parses_or_means_everything() {
        let a = Aoi::parse(&json!({"center": [1, 2, 3], "radius": 5})).unwrap();
        assert_eq!(a.center, [1.0, 2.0, 3.0]);
        assert!(a.contains([6.0, 2.0, 3.0]), "inclusive");
        assert!(!a.contains([6.1, 2.0, 3.0]));
        for bad in [
            json!({}),
            json!({"center": [1, 2], "radius": 1}),
            json!({"center": [0, 0, 0], "radius": -1}),
            json!({"center": "x", "radius": 1}),
        ] {
            assert_eq!(Aoi::parse(&bad), None, "{bad}");
        }
    }

    #[test]
    fn the_world_finds_what_a_scan_finds_as_entities_move_and_go() {
        let mut world = World::new(WorldSettings {
            max_entities: 1_000,
            tick_seconds: 1.0 / 60.0,
        });
        let spec = |position| EntitySpec {
            shape: Shape::Box,
            collider: None,
            size: 1.0,
            color: 0,
            position,
            body: BodyKind::None,
            friction: 0.5,
            restitution: 0.0,
        };
        for n in 0..500u64 {
            let p = [
                (n * 37 % 200) as f64 - 100.0,
                0.0,
                (n * 53 % 300) as f64 - 150.0,
            ];
            world.create_entity(&spec(p)).unwrap();
        }
        for n in (1..=500u64).step_by(3) {
            let p = [n as f64 / 3.0, 1.0, -(n as f64) / 5.0];
            world.set_transform(&entity_id(n), Some(p), None, None);
        }
        for n in (1..=500u64).step_by(7) {
            world.destroy_entity(&entity_id(n));
        }
        for aoi in [
            Aoi {
                center: [0.0; 3],
                radius: 20.0,
            },
            Aoi {
                center: [50.0, 0.0, -40.0],
                radius: 33.0,
            },
            Aoi {
                center: [0.0; 3],
                radius: 10_000.0,
            },
        ] {
            let scan: Vec<u64> = world
                .entity_states()
                .into_iter()
                .filter(|s| aoi.contains(s.transform.position))
                .map(|s| s.number)
                .collect();
            assert!(!scan.is_empty());
            assert_eq!(within(&world, Some(&aoi)), scan, "{aoi:?}");
        }
        assert_eq!(within(&world, None).len(), world.entity_count());
    }
}
