//! Read-only views of the world for inspection (`inspector.snapshot`).

use super::World;

impl World {
    /// The ECS index and generation behind an entity id: stable while it lives, and the
    /// generation tells a reused slot apart.
    pub fn ecs_handle(&self, id: &str) -> Option<(u32, u32)> {
        let (_, entity) = self.lookup(id)?;
        // hecs documents no layout for `to_bits`; this version packs generation above id.
        let generation = (entity.to_bits().get() >> 32) as u32;
        Some((entity.id(), generation))
    }
}
