//! The host's camera renderer (`host/src/world/camera/`), compiled as it is, inside the few
//! world types it names; `draw` renders the bench scene and returns the PNG's size.

pub mod limits {
    pub use crate::world::camera_limits::*;
}

pub mod world;

#[path = "../../camera_scene.rs"]
pub mod scene;

/// Renders the bench scene of `n` entities at `width` × `height`; the PNG's size in bytes.
#[unsafe(no_mangle)]
pub extern "C" fn draw(n: u32, width: u32, height: u32) -> u32 {
    let snapshot = scene::snapshot(n as usize);
    let picture = world::Picture::take(&snapshot, &scene::shot(width, height)).unwrap();
    picture.png().len() as u32
}
