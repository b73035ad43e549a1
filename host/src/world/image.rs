//! The world as bytes, whole: what a checkpoint holds and what a restart loads. Everything a
//! later step or call could read is in it — entities with their ECS handles, the rapier world
//! byte for byte (bodies, colliders, contacts, islands, broad phase: rapier promises that a
//! world restored from its snapshot steps on exactly as the original), collider owners and
//! undrained collision events, materials, lighting, UI panels, the mixer, agents, placed
//! assets, the tick and every id counter. A restored world is indistinguishable from the one
//! saved, so the journal replayed on it lands where the original did.
//!
//! Also the world's canonical hash ([`World::state_hash`]): a digest of what callers can
//! observe (ids, transforms, bodies and their velocities, every side table, the tick), used to
//! check that a restart found the world as it was left.

use super::collisions::{Contacts, Owner};
use super::entity::{Appearance, Body, Number, Tags};
use super::physics::{BodyShape, Physics};
use super::render::Surface;
use super::{
    CollisionEvent, GltfResource, Heard, Lighting, Movement, Panel, Sound, Transform, World,
    WorldSettings,
};
use hecs::Entity;
use rapier3d::prelude::{ColliderHandle, PhysicsWorld, RigidBodyHandle};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, VecDeque};

/// One entity as saved.
#[derive(Serialize, Deserialize)]
struct SavedEntity {
    number: u64,
    /// The hecs handle, kept so rapier's `user_data` (which names it) stays true.
    ecs: u64,
    transform: Transform,
    appearance: Appearance,
    tags: Tags,
    body: Option<(RigidBodyHandle, BodyShape)>,
}

/// The whole world; `P` is the rapier world, borrowed when saving and owned when loading
/// (both encode the same).
#[derive(Serialize, Deserialize)]
struct Image<P> {
    tick: u64,
    tick_seconds: f32,
    next_number: u64,
    entities: Vec<SavedEntity>,
    physics: P,
    /// Collider → (body id, hecs handle of its entity).
    owners: Vec<(ColliderHandle, u64, u64)>,
    retired: Vec<ColliderHandle>,
    pending: Vec<CollisionEvent>,
    surfaces: BTreeMap<u64, Surface>,
    lighting: Lighting,
    panels: BTreeMap<u64, Panel>,
    ui_next: u64,
    sounds: BTreeMap<u64, Sound>,
    buses: [f64; 4],
    audio_next: u64,
    movements: BTreeMap<String, Movement>,
    bubbles: BTreeMap<String, String>,
    heard: Vec<Heard>,
    resources: BTreeMap<u64, GltfResource>,
}

/// A body as the canonical hash sees it: exact bits of its pose and velocities.
#[derive(Serialize)]
struct BodyState {
    id: u64,
    shape: BodyShape,
    pose: [f32; 7],
    linvel: [f32; 3],
    angvel: [f32; 3],
    sleeping: bool,
}

impl World {
    /// The whole world as bytes (see the module doc). Only between calls: a call's undo
    /// journal is not saved.
    pub fn save_image(&self) -> Vec<u8> {
        let image = Image {
            tick: self.tick,
            tick_seconds: self.settings.tick_seconds,
            next_number: self.next_number,
            entities: self.saved_entities(),
            physics: &self.physics.world,
            owners: self
                .physics
                .contacts
                .owners
                .iter()
                .map(|(h, o)| (*h, o.body_id, o.entity.to_bits().get()))
                .collect(),
            retired: self.physics.contacts.retired.clone(),
            pending: self.physics.contacts.pending.iter().cloned().collect(),
            surfaces: self.render.surfaces.clone(),
            lighting: self.render.lighting,
            panels: self.ui.panels.clone(),
            ui_next: self.ui.next,
            sounds: self.audio.sounds.clone(),
            buses: self.audio.buses,
            audio_next: self.audio.next,
            movements: self.agents.movements.clone(),
            bubbles: self.agents.bubbles.clone(),
            heard: self.agents.heard.iter().cloned().collect(),
            resources: self.assets.resources.clone(),
        };
        postcard::to_allocvec(&image).expect("the world encodes")
    }

    fn saved_entities(&self) -> Vec<SavedEntity> {
        self.by_number
            .iter()
            .map(|(&number, &entity)| SavedEntity {
                number,
                ecs: entity.to_bits().get(),
                transform: *self.ecs.get::<&Transform>(entity).expect("transform"),
                appearance: Appearance::clone(
                    &self.ecs.get::<&Appearance>(entity).expect("appearance"),
                ),
                tags: Tags::clone(&self.ecs.get::<&Tags>(entity).expect("tags")),
                body: self
                    .ecs
                    .get::<&Body>(entity)
                    .ok()
                    .map(|b| (b.handle, b.shape)),
            })
            .collect()
    }

    /// A world from [`World::save_image`] bytes, with `settings` (its tick length is the
    /// saved one, which the physics was built with). Decoded whole before anything is built,
    /// so bytes that do not decode give an error and no world.
    pub fn load_image(bytes: &[u8], settings: WorldSettings) -> Result<World, String> {
        let image: Image<PhysicsWorld> =
            postcard::from_bytes(bytes).map_err(|e| format!("the world does not decode: {e}"))?;
        let mut world = World::new(WorldSettings {
            tick_seconds: image.tick_seconds,
            ..settings
        });
        let handle = |bits: u64| {
            Entity::from_bits(bits).ok_or_else(|| format!("entity handle {bits:#x} is not valid"))
        };
        for saved in image.entities {
            let entity = handle(saved.ecs)?;
            if world.ecs.contains(entity) || world.by_number.contains_key(&saved.number) {
                return Err(format!("entity {} is saved twice", saved.number));
            }
            world.index(saved.number, &saved.transform, &saved.tags);
            world.ecs.spawn_at(
                entity,
                (
                    saved.transform,
                    saved.appearance,
                    saved.tags,
                    Number(saved.number),
                ),
            );
            if let Some((handle, shape)) = saved.body {
                if !image.physics.bodies.contains(handle) {
                    return Err(format!(
                        "entity {} names a body that is missing",
                        saved.number
                    ));
                }
                world
                    .ecs
                    .insert_one(entity, Body { handle, shape })
                    .expect("entity was just spawned");
            }
            world.by_number.insert(saved.number, entity);
        }

        let mut contacts = Contacts::default();
        for (collider, body_id, bits) in image.owners {
            let entity = handle(bits)?;
            contacts.owners.insert(collider, Owner { body_id, entity });
        }
        contacts.retired = image.retired;
        contacts.pending = VecDeque::from(image.pending);
        world.physics = Physics::from_parts(image.physics, contacts);
        world.tick = image.tick;
        world.next_number = image.next_number;
        world.render.surfaces = image.surfaces;
        world.render.lighting = image.lighting;
        world.ui.panels = image.panels;
        world.ui.next = image.ui_next;
        world.audio.sounds = image.sounds;
        world.audio.buses = image.buses;
        world.audio.next = image.audio_next;
        world.agents.movements = image.movements;
        world.agents.bubbles = image.bubbles;
        world.agents.heard = VecDeque::from(image.heard);
        world.assets.resources = image.resources;
        Ok(world)
    }

    /// Changes the length of a step (the host's `--tick-ms` after a world saved with
    /// another was loaded).
    pub fn set_tick_seconds(&mut self, tick_seconds: f32) {
        self.settings.tick_seconds = tick_seconds;
        self.physics.world.integration_parameters.dt = tick_seconds;
    }

    /// sha256 (hex) of everything a caller can observe: the tick and id counters, every
    /// entity (transform, look, tags, material, body with the exact bits of its pose and
    /// velocities), lighting, panels, sounds, agents, assets and undrained collisions. Equal
    /// hashes mean the same world.
    pub fn state_hash(&self) -> String {
        let entities: Vec<_> = self
            .saved_entities()
            .into_iter()
            .map(|e| {
                let body = e.body.map(|(handle, shape)| self.body_state(handle, shape));
                let surface = self.render.surfaces.get(&e.number).copied();
                (e.number, e.transform, e.appearance, e.tags, surface, body)
            })
            .collect();
        let canonical = (
            (self.tick, self.next_number, self.ui.next, self.audio.next),
            entities,
            self.render.lighting,
            &self.ui.panels,
            (&self.audio.sounds, self.audio.buses),
            (
                &self.agents.movements,
                &self.agents.bubbles,
                &self.agents.heard,
            ),
            &self.assets.resources,
            &self.physics.contacts.pending,
        );
        let bytes = postcard::to_allocvec(&canonical).expect("the world encodes");
        hex::encode(Sha256::digest(&bytes))
    }

    fn body_state(&self, handle: RigidBodyHandle, shape: BodyShape) -> Option<BodyState> {
        let body = self.physics.world.bodies.get(handle)?;
        let (t, r, v, w) = (
            body.translation(),
            body.rotation(),
            body.linvel(),
            body.angvel(),
        );
        Some(BodyState {
            id: super::physics::body_id(handle),
            shape,
            pose: [t.x, t.y, t.z, r.x, r.y, r.z, r.w],
            linvel: [v.x, v.y, v.z],
            angvel: [w.x, w.y, w.z],
            sleeping: body.is_sleeping(),
        })
    }

    /// The rapier world's own snapshot bytes, for tests that check a restore byte for byte.
    #[cfg(test)]
    pub(crate) fn physics_bytes(&self) -> Vec<u8> {
        postcard::to_allocvec(&self.physics.world).expect("the physics encodes")
    }
}
