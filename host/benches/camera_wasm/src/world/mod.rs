//! The world types the camera's files name, as the host defines them.

/// The host's two limits on a picture, as `limits.rs` sets them.
pub mod camera_limits {
    pub const MAX_CAPTURE_EDGE: u32 = 2_048;
    pub const MAX_CAPTURE_PIXELS: u64 = 1_920 * 1_080;
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    Box,
    Sphere,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lighting {
    pub ambient_color: u32,
    pub ambient_intensity: f64,
    pub directional_color: u32,
    pub directional_intensity: f64,
    pub direction: [f64; 3],
}

impl Default for Lighting {
    fn default() -> Self {
        Lighting {
            ambient_color: 0x40_4060,
            ambient_intensity: 1.2,
            directional_color: 0xff_ffff,
            directional_intensity: 3.0,
            direction: [5.0, 9.0, 6.0],
        }
    }
}

#[derive(Debug)]
pub enum WorldError {
    Invalid(String),
}

#[path = "../../../../src/world/camera/mod.rs"]
pub mod camera;
pub use camera::{Drawn, Picture, RenderSnapshot, Shot};
