//! Read-only views of the world for inspection (`inspector.snapshot`).

use super::entity::{Appearance, Body};
use super::physics::BodyShape;
use super::{Material, Shape, World};

impl World {
    /// The ECS index and generation behind an entity id: stable while it lives, and the
    /// generation tells a reused slot apart.
    pub fn ecs_handle(&self, id: &str) -> Option<(u32, u32)> {
        let (_, entity) = self.lookup(id)?;
        // hecs documents no layout for `to_bits`; this version packs generation above id.
        let generation = (entity.to_bits().get() >> 32) as u32;
        Some((entity.id(), generation))
    }

    /// How an entity was made: render shape, size, colour and its body's properties.
    pub fn entity_look(&self, id: &str) -> Option<(Shape, f64, u32, Option<BodyShape>)> {
        let (_, entity) = self.lookup(id)?;
        let look = self.ecs.get::<&Appearance>(entity).ok()?;
        let body = self.ecs.get::<&Body>(entity).ok().map(|b| b.shape);
        Some((look.shape, look.size, look.color, body))
    }

    /// An entity's material when it was ever changed from the defaults (`None` otherwise).
    pub fn patched_material(&self, id: &str) -> Option<Material> {
        let (number, _) = self.lookup(id)?;
        self.render
            .surfaces
            .contains_key(&number)
            .then(|| self.material(id))?
    }
}
