//! Property: on randomized worlds, every query answers exactly what a scan of every entity
//! answers — same entities, same order, same distances — while entities are created, moved
//! (by calls and by physics), tagged, destroyed, rolled back and restored from an image.
//!
//! "On the radius" means what the scan means: the distance the host computes (the square
//! root of the sum of squared coordinate differences, in f64) equals the radius exactly;
//! such an entity is inside (the test is inclusive). Positions sit on a half-metre lattice so
//! exact ties are common (a 3-4-5 triangle is exactly 5 away), and the test counts them so it
//! cannot pass without exercising the edge.

use super::*;
use crate::realm::Rng;

struct Case {
    rng: Rng,
    world: World,
    /// Entities on the radius of a query seen so far (must end above zero).
    on_radius: usize,
    queries: usize,
}

impl Case {
    fn below(&mut self, n: u64) -> u64 {
        self.rng.next_u64() % n
    }

    /// A lattice coordinate in [-12, 12], sometimes far away or not finite.
    fn coordinate(&mut self) -> f64 {
        match self.below(40) {
            0 => 1e12 + self.below(4) as f64,
            1 => -3e8,
            _ => (self.below(49) as f64 - 24.0) * 0.5,
        }
    }

    fn point(&mut self) -> [f64; 3] {
        [self.coordinate(), self.coordinate(), self.coordinate()]
    }

    fn some_id(&mut self) -> Option<String> {
        let ids: Vec<u64> = self.world.by_number.keys().copied().collect();
        (!ids.is_empty()).then(|| entity_id(ids[self.below(ids.len() as u64) as usize]))
    }

    fn create(&mut self) {
        let mut position = self.point();
        let body = match self.below(10) {
            0 => {
                position[1] = 2.0 + self.below(5) as f64;
                position[0] = position[0].clamp(-12.0, 12.0);
                position[2] = position[2].clamp(-12.0, 12.0);
                BodyKind::Dynamic
            }
            1 => {
                // Render-only entities may sit where no distance is a number.
                position[self.below(3) as usize] =
                    [f64::NAN, f64::INFINITY][self.below(2) as usize];
                BodyKind::None
            }
            _ => BodyKind::None,
        };
        let spec = EntitySpec {
            shape: Shape::Box,
            collider: None,
            size: 1.0,
            color: 0,
            position,
            body,
            friction: 0.5,
            restitution: 0.0,
        };
        let _ = self.world.create_entity(&spec);
    }

    fn mutate(&mut self) {
        match self.below(8) {
            0 | 1 => self.create(),
            2 | 3 => {
                if let Some(id) = self.some_id() {
                    let to = self.point();
                    self.world.set_transform(&id, Some(to), None, None);
                }
            }
            4 => {
                if let Some(id) = self.some_id() {
                    self.world.destroy_entity(&id);
                }
            }
            5 => {
                if let Some(id) = self.some_id() {
                    let tag = ["crate", "agent:ann", "agent:bo"][self.below(3) as usize];
                    if self.below(2) == 0 {
                        self.world.add_tag(&id, tag);
                    } else {
                        self.world.remove_tag(&id, tag);
                    }
                }
            }
            6 => {
                for _ in 0..1 + self.below(5) {
                    self.world.step();
                }
            }
            _ => {
                // A call that creates, moves, tags and destroys, then is undone.
                self.world.begin();
                for _ in 0..1 + self.below(6) {
                    match self.below(3) {
                        0 => self.create(),
                        1 => {
                            if let Some(id) = self.some_id() {
                                let to = self.point();
                                self.world.set_transform(&id, Some(to), None, None);
                                self.world.add_tag(&id, "crate");
                            }
                        }
                        _ => {
                            if let Some(id) = self.some_id() {
                                self.world.destroy_entity(&id);
                            }
                        }
                    }
                }
                self.world.rollback();
            }
        }
    }

    fn radius(&mut self) -> f64 {
        match self.below(12) {
            0 => 0.0,
            1 => -1.0,
            2 => f64::INFINITY,
            3 => f64::NAN,
            4 => 5.0,
            5 => 1e9,
            _ => self.below(40) as f64 * 0.5,
        }
    }

    fn check(&mut self) {
        let mut near = self.point();
        // Often centred on an entity, at a lattice offset: its neighbours then lie at exact
        // lattice distances, some of them on the radius.
        if self.below(2) == 0
            && let Some(id) = self.some_id()
        {
            let at = self.world.get_entity(&id).unwrap().transform.position;
            near = std::array::from_fn(|i| at[i] + [3.0, 4.0, 0.0][i]);
        }
        if self.below(15) == 0 {
            near[0] = f64::NAN;
        }
        let filter = EntityFilter {
            near: (self.below(8) != 0).then_some(near),
            radius: (self.below(8) != 0).then(|| self.radius()),
            tag: match self.below(4) {
                0 => Some("crate".into()),
                1 => Some(["agent:ann", "agent:bo", "nobody"][self.below(3) as usize].into()),
                _ => None,
            },
        };
        let found = self.world.query_entities(&filter);
        let scanned = self.world.scan_entities(&filter);
        // Compared as printed: exact for every float, and NaN (a distance to a NaN position)
        // equals NaN.
        assert_eq!(format!("{found:?}"), format!("{scanned:?}"), "{filter:?}");
        if let Some(radius) = filter.radius {
            self.on_radius += found.iter().filter(|e| e.distance == radius).count();
        }
        self.queries += 1;
        for agent in ["ann", "bo"] {
            let first = self
                .world
                .scan_entities(&EntityFilter {
                    tag: Some(body_tag(agent)),
                    ..EntityFilter::default()
                })
                .into_iter()
                .next();
            let body = self.world.agent_body(agent);
            assert_eq!(format!("{body:?}"), format!("{first:?}"), "{agent}'s body");
        }
    }
}

fn settings() -> WorldSettings {
    WorldSettings {
        max_entities: 400,
        tick_seconds: 1.0 / 60.0,
    }
}

#[test]
fn queries_equal_a_full_scan_on_randomized_worlds() {
    let mut on_radius = 0;
    for seed in 0..60u64 {
        let mut case = Case {
            rng: Rng::seeded(seed),
            world: World::new(settings()),
            on_radius: 0,
            queries: 0,
        };
        // A floor for the dynamic bodies to fall onto and settle.
        let floor = EntitySpec {
            shape: Shape::Box,
            collider: None,
            size: 50.0,
            color: 0,
            position: [0.0, -25.0, 0.0],
            body: BodyKind::Fixed,
            friction: 0.5,
            restitution: 0.0,
        };
        case.world.create_entity(&floor).unwrap();
        for _ in 0..150 {
            case.create();
        }
        for round in 0..300 {
            case.mutate();
            if round % 3 == 0 {
                case.check();
            }
            if round % 100 == 99 {
                // Restored from its image, the world's indexes are rebuilt from what it holds.
                case.world = World::load_image(&case.world.save_image(), settings()).unwrap();
                case.check();
            }
        }
        assert!(case.queries > 100, "seed {seed}");
        on_radius += case.on_radius;
    }
    assert!(
        on_radius > 100,
        "only {on_radius} entities were on a radius"
    );
}

#[test]
fn an_entity_exactly_on_the_radius_is_found_and_one_just_past_it_is_not() {
    let mut w = World::new(settings());
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
    let on = w.create_entity(&spec([103.0, 4.0, 0.0])).unwrap();
    let past = w
        .create_entity(&spec([(103.0f64).next_up(), 4.0, 0.0]))
        .unwrap();
    let filter = EntityFilter {
        near: Some([100.0, 0.0, 0.0]),
        radius: Some(5.0),
        tag: None,
    };
    let found = w.query_entities(&filter);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].id.as_str(), found[0].distance),
        (on.as_str(), 5.0)
    );
    assert_ne!(found[0].id, past);
    assert_eq!(found, w.scan_entities(&filter));
}
