//! Which world interfaces a component imports. A package that sees the world only through
//! `camera` can run away from the engine on a render snapshot (`registry/viewing.rs`): the
//! imports it could reach are known before it runs.

use wasmtime::component::Component;

/// The world interfaces of `limina:skill` a component imports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorldUse {
    /// `camera`: pictures of the world.
    pub camera: bool,
    /// An interface that reads or changes the world itself.
    pub world: bool,
}

/// The interfaces that reach the live world (`trace`, `log`, `random`, `progress` and
/// `state` do not: a detached call has its own, or none).
const WORLD: [&str; 8] = [
    "scene", "ecs", "render", "physics", "assets", "agents", "ui", "audio",
];

impl WorldUse {
    pub(super) fn of(component: &Component) -> WorldUse {
        let mut found = WorldUse::default();
        for (name, _) in component.component_type().imports(component.engine()) {
            let Some(rest) = name.strip_prefix("limina:skill/") else {
                continue;
            };
            let interface = rest.split('@').next().unwrap_or(rest);
            if interface == "camera" {
                found.camera = true;
            } else if WORLD.contains(&interface) {
                found.world = true;
            }
        }
        found
    }

    /// Whether it sees the world only through the camera.
    pub fn camera_only(self) -> bool {
        self.camera && !self.world
    }
}
