//! The undo log that makes a skill call atomic: each world mutation records its inverse, and
//! a failed call replays them backwards.

use super::World;
use super::agents::AgentUndo;
use super::assets::AssetUndo;
use super::audio::AudioUndo;
use super::collisions::CollisionEvent;
use super::entity::{Removed, Transform};
use super::physics::PhysicsUndo;
use super::render::RenderUndo;
use super::ui::UiUndo;

/// The inverse of one mutation.
pub(super) enum Undo {
    Create(u64),
    Destroy(Box<Removed>),
    Transform(u64, Transform),
    AddTag(u64, String),
    RemoveTag(u64, String),
    /// A material or lighting change (`world/render.rs`).
    Render(RenderUndo),
    /// A velocity change (`world/physics.rs`).
    Physics(PhysicsUndo),
    /// Collision events drained (`world/collisions.rs`), to be put back.
    Collisions(Vec<CollisionEvent>),
    /// A loaded resource change (`world/assets.rs`).
    Asset(AssetUndo),
    /// A UI panel change (`world/ui.rs`).
    Ui(UiUndo),
    /// A mixer change (`world/audio.rs`).
    Audio(AudioUndo),
    /// An agent-state change (`world/agents.rs`).
    Agents(AgentUndo),
}

/// Mutations made since the call began, newest last.
#[derive(Default)]
pub struct Journal {
    undos: Vec<Undo>,
}

impl Journal {
    pub(super) fn is_empty(&self) -> bool {
        self.undos.is_empty()
    }

    pub(super) fn push(&mut self, undo: Undo) {
        self.undos.push(undo);
    }

    /// Reverts every recorded mutation, newest first.
    pub(super) fn undo(self, world: &mut World) {
        for undo in self.undos.into_iter().rev() {
            match undo {
                Undo::Create(number) => {
                    if let Some(entity) = world.entity_by_number(number) {
                        world.remove(number, entity);
                    }
                }
                Undo::Destroy(removed) => world.restore(*removed),
                Undo::Transform(number, before) => {
                    if let Some(entity) = world.entity_by_number(number) {
                        world.write_transform(entity, before);
                    }
                }
                Undo::AddTag(number, tag) => world.retag(number, tag, false),
                Undo::RemoveTag(number, tag) => world.retag(number, tag, true),
                Undo::Render(undo) => world.undo_render(undo),
                Undo::Physics(undo) => world.undo_physics(undo),
                Undo::Collisions(events) => world.undrain_collision_events(events),
                Undo::Asset(undo) => world.undo_asset(undo),
                Undo::Ui(undo) => world.ui.undo(undo),
                Undo::Audio(undo) => world.audio.undo(undo),
                Undo::Agents(undo) => world.agents.undo(undo),
            }
        }
    }
}
