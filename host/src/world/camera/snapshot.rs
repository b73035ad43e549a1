//! What a picture needs of the world, copied compactly: the engine pays only for this copy
//! (about 60 bytes per entity, no strings), and the drawing runs on it anywhere.

use super::super::entity::{Appearance, Number, Shape, Transform};
use super::super::{Lighting, World};

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
    fn parse(name: &str) -> Corner {
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

fn f32x3(v: [f64; 3]) -> [f32; 3] {
    [v[0] as f32, v[1] as f32, v[2] as f32]
}

impl World {
    /// A compact copy of what the camera draws: every entity's shape, transform, size and
    /// material, the lighting, and each UI panel's anchor. Cheap enough for the engine
    /// (`cargo bench -p limina --bench camera` measures it); the drawing happens elsewhere.
    pub fn render_snapshot(&self) -> RenderSnapshot {
        let surfaces = &self.render.surfaces;
        let mut entities = Vec::with_capacity(self.by_number.len());
        for (number, transform, look) in self
            .ecs
            .query::<(&Number, &Transform, &Appearance)>()
            .iter()
        {
            let r = transform.rotation;
            entities.push(Drawn {
                shape: look.shape,
                position: f32x3(transform.position),
                rotation: [r[0] as f32, r[1] as f32, r[2] as f32, r[3] as f32],
                scale: f32x3(transform.scale),
                size: look.size as f32,
                color: look.color,
                metalness: surfaces
                    .get(&number.0)
                    .map_or(0.0, |s| s.metalness() as f32),
            });
        }
        RenderSnapshot {
            tick: self.tick,
            entities,
            lighting: self.render.lighting,
            anchors: self
                .ui
                .panels
                .values()
                .filter_map(|p| self.anchor_of(&p.spec))
                .collect(),
        }
    }

    /// A panel's anchor as a point or a screen place; `None` for an entity that is gone.
    fn anchor_of(&self, spec: &serde_json::Map<String, serde_json::Value>) -> Option<PanelAnchor> {
        let anchor = spec.get("anchor")?.as_object()?;
        let triple = |key: &str| -> Option<[f64; 3]> {
            let a = anchor.get(key)?.as_array()?;
            Some([
                a.first()?.as_f64()?,
                a.get(1)?.as_f64()?,
                a.get(2)?.as_f64()?,
            ])
        };
        if anchor.get("kind").and_then(|k| k.as_str()) == Some("screen") {
            let corner = anchor.get("corner").and_then(|c| c.as_str()).unwrap_or("");
            let margin = anchor
                .get("marginPx")
                .and_then(|m| m.as_f64())
                .unwrap_or(16.0);
            return Some(PanelAnchor::Screen {
                corner: Corner::parse(corner),
                margin_px: margin as f32,
            });
        }
        let base = match anchor.get("entity").and_then(|e| e.as_str()) {
            Some(id) => {
                let (_, entity) = self.lookup(id)?;
                self.ecs.get::<&Transform>(entity).ok()?.position
            }
            None => triple("point").unwrap_or([0.0; 3]),
        };
        let offset = triple("offset").unwrap_or([0.0; 3]);
        Some(PanelAnchor::World {
            at: f32x3([
                base[0] + offset[0],
                base[1] + offset[1],
                base[2] + offset[2],
            ]),
            on_top: anchor.get("depthTest").and_then(|d| d.as_bool()) == Some(false),
        })
    }
}
