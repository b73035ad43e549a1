//! What a picture needs of the world, copied compactly: the engine pays only for this copy
//! (about 60 bytes per entity, no strings; taken by `World::render_snapshot` in `view.rs`),
//! and the drawing runs on it anywhere.

use crate::world::{Lighting, Shape};

/// One entity as the camera draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drawn {
    pub shape: Shape,
    pub position: [f32; 3],
    /// Quaternion x, y, z, w.
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
    /// Edge of the box or diameter of the sphere before scaling, in metres.
    pub size: f32,
    /// 0xRRGGBB.
    pub color: u32,
    /// 0 (dielectric) ..= 1 (metal): a metal reflects no diffuse light.
    pub metalness: f32,
}

/// Where a UI panel sits, resolved to a point (entity anchors follow their entity).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PanelAnchor {
    /// A point in the world; `on_top` when the panel ignores depth (`depthTest: false`).
    World { at: [f32; 3], on_top: bool },
    /// A place on the screen.
    Screen { corner: Corner, margin_px: f32 },
}

/// Where on the screen a screen-anchored panel sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corner {
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
    Top,
    Bottom,
    Center,
}

impl Corner {
    /// A corner by the name panels give it (`top-left` or `topLeft`); top-left otherwise.
    pub fn parse(name: &str) -> Corner {
        match name {
            "top-right" | "topRight" => Corner::TopRight,
            "bottom-left" | "bottomLeft" => Corner::BottomLeft,
            "bottom-right" | "bottomRight" => Corner::BottomRight,
            "top" => Corner::Top,
            "bottom" => Corner::Bottom,
            "center" => Corner::Center,
            // The viewer's default corner.
            _ => Corner::TopLeft,
        }
    }
}

/// The world as the camera sees it at one tick.
#[derive(Debug, Clone, Default)]
pub struct RenderSnapshot {
    pub tick: u64,
    pub entities: Vec<Drawn>,
    pub lighting: Lighting,
    pub anchors: Vec<PanelAnchor>,
}
