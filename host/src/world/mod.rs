//! The authoritative world: entities in a hecs ECS, bodies in rapier3d, advanced on a fixed
//! timestep. It knows nothing about skills, sessions or guests; the sandbox's host imports
//! call into it. Every mutation can be journaled so a failed call is rolled back whole.

mod agents;
mod assets;
mod audio;
mod camera;
mod changes;
mod collisions;
mod entity;
mod image;
mod inspect;
mod journal;
mod json_text;
mod oplog;
mod physics;
mod render;
mod spatial;
mod tagged;
mod ui;
mod view;

pub use agents::{ApproachTarget, Heard, Movement, body_tag};
pub use assets::{GltfResource, resolve_asset};
pub use audio::{Bus, Sound, SoundKind, SoundSpec};
pub use camera::{Corner, Drawn, PanelAnchor, Picture, RenderSnapshot, Shot};
pub use changes::{ChangeSet, EntityState};
pub use collisions::CollisionEvent;
pub use entity::{BodyKind, ColliderShape, EntityFilter, EntityInfo, EntitySpec, Shape, Transform};
pub use journal::Journal;
pub use oplog::Op;
pub use physics::{BodyShape, RayHit};
pub use render::{Lighting, Material, MaterialPatch};
pub use spatial::SpatialGrid;
pub use ui::{PANEL_KINDS, Panel};
pub use {agents::Agents, assets::Assets, audio::Mixer, render::RenderState, ui::UiState};

use hecs::Entity;
use std::collections::BTreeMap;
use std::fmt;

/// A world operation that could not be done; the world is unchanged.
#[derive(Debug, Clone, PartialEq)]
pub enum WorldError {
    /// An argument was out of range; the message names it.
    Invalid(String),
    /// A world limit was reached.
    Capacity(String),
}

impl fmt::Display for WorldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorldError::Invalid(m) | WorldError::Capacity(m) => f.write_str(m),
        }
    }
}

/// World-wide settings.
#[derive(Debug, Clone)]
pub struct WorldSettings {
    /// Most entities that may exist at once.
    pub max_entities: usize,
    /// Length of one simulation step, in seconds.
    pub tick_seconds: f32,
}

/// The simulated world.
pub struct World {
    settings: WorldSettings,
    ecs: hecs::World,
    physics: physics::Physics,
    /// `ent_<n>` → ECS entity; a BTreeMap keyed by number so queries come out in id order.
    by_number: BTreeMap<u64, Entity>,
    /// Every entity's position, for queries by distance.
    places: SpatialGrid,
    /// Every entity's tags, for queries by tag.
    tagged: tagged::TagIndex,
    next_number: u64,
    tick: u64,
    journal: Option<Journal>,
    /// Where the journal began in the change log (a rollback truncates back to it).
    changes: changes::ChangeLog,
    /// Operations recorded for the durable journal (off unless the host turns it on).
    oplog: oplog::OpLog,
    instance: u64,
    pub(crate) render: RenderState,
    pub(crate) ui: UiState,
    pub(crate) audio: Mixer,
    pub(crate) agents: Agents,
    pub(crate) assets: Assets,
}

impl World {
    /// An empty world.
    pub fn new(settings: WorldSettings) -> Self {
        let physics = physics::Physics::new(settings.tick_seconds);
        World {
            settings,
            ecs: hecs::World::new(),
            physics,
            by_number: BTreeMap::new(),
            places: SpatialGrid::new(crate::limits::SPATIAL_CELL_METRES),
            tagged: tagged::TagIndex::default(),
            next_number: 1,
            tick: 0,
            journal: None,
            changes: changes::ChangeLog::default(),
            oplog: oplog::OpLog::default(),
            instance: NEXT_INSTANCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            render: RenderState::default(),
            ui: UiState::default(),
            audio: Mixer::default(),
            agents: Agents::default(),
            assets: Assets::default(),
        }
    }

    /// Current tick (number of steps taken).
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// The settings the world was created with.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Empties the world (entities, bodies, scene state, tick) but keeps its settings and
    /// host configuration such as the assets folder.
    pub fn reset(&mut self) {
        *self = self.emptied();
    }

    /// An empty world with this one's settings and host configuration (the assets folder):
    /// a scene is replayed into it and swapped in only if the whole replay succeeds.
    pub fn emptied(&self) -> World {
        let mut fresh = World::new(self.settings.clone());
        fresh.set_assets_dir(self.assets_dir().to_path_buf());
        fresh
    }

    /// Number of live entities.
    pub fn entity_count(&self) -> usize {
        self.by_number.len()
    }

    /// Number of physics bodies (fixed ones included): what a step's cost grows with.
    pub fn body_count(&self) -> usize {
        self.physics.world.bodies.len()
    }

    /// Advances the simulation by one fixed step.
    pub fn step(&mut self) {
        self.log_step();
        self.physics.step();
        self.queue_collision_events();
        // Dynamic bodies drive their entity's transform.
        let mut moved = Vec::new();
        for (transform, body, number) in self
            .ecs
            .query_mut::<(&mut Transform, &entity::Body, &entity::Number)>()
        {
            if let Some((position, rotation)) = self.physics.pose(body.handle)
                && (transform.position != position || transform.rotation != rotation)
            {
                transform.position = position;
                transform.rotation = rotation;
                moved.push((number.0, position));
            }
        }
        for (number, position) in moved {
            self.places.put(number, position);
            self.touch(number);
        }
        self.tick += 1;
        self.advance_agents();
        self.advance_audio();
    }

    /// Starts recording undo information for the mutations that follow.
    pub fn begin(&mut self) {
        self.log_frame(Op::Begin);
        self.journal = Some(Journal::default());
        self.mark_changes();
    }

    /// Keeps every mutation since `begin`.
    pub fn commit(&mut self) {
        self.log_frame(Op::Commit);
        self.journal = None;
        self.keep_marked_changes();
    }

    /// Undoes every mutation since `begin`.
    pub fn rollback(&mut self) {
        self.log_frame(Op::Rollback);
        if let Some(journal) = self.journal.take() {
            journal.undo(self);
            self.drop_marked_changes();
        }
    }

    /// Whether the running call has changed the world so far (there is something to undo).
    pub fn changed_in_call(&self) -> bool {
        self.journal.as_ref().is_some_and(|j| !j.is_empty())
    }

    /// Whether a call is running on the world (between `begin` and its end).
    pub fn in_call(&self) -> bool {
        self.journal.is_some()
    }

    fn record(&mut self, undo: journal::Undo) {
        // What a whole-scene viewer draws beyond transforms changes only here, so it is
        // flagged in one place: an entity's look or tags, or something scene-wide.
        match &undo {
            journal::Undo::AddTag(number, _) | journal::Undo::RemoveTag(number, _) => {
                self.touch(*number)
            }
            journal::Undo::Render(render) => match render.entity() {
                Some(number) => self.touch(number),
                None => self.touch_scene(),
            },
            journal::Undo::Ui(_) | journal::Undo::Agents(_) => self.touch_scene(),
            _ => {}
        }
        if let Some(journal) = &mut self.journal {
            journal.push(undo);
        }
    }

    fn lookup(&self, id: &str) -> Option<(u64, Entity)> {
        let number = parse_entity_id(id)?;
        self.by_number.get(&number).map(|e| (number, *e))
    }
}

/// Gives every world value its own [`World::instance`].
static NEXT_INSTANCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// `ent_<n>` → n. Only the spelling [`entity_id`] gives: `ent_01` or `ent_+1` name nothing,
/// so an entity has one id (and one resource URI, which subscriptions match exactly).
pub fn parse_entity_id(id: &str) -> Option<u64> {
    let number = id.strip_prefix("ent_")?.parse().ok()?;
    (entity_id(number) == id).then_some(number)
}

/// The id of entity `number` (`ent_<n>`), as skills and state sync name it.
pub fn entity_id(number: u64) -> String {
    format!("ent_{number}")
}

#[cfg(test)]
mod tests;

#[cfg(test)]
#[path = "query_tests.rs"]
mod query_tests;
