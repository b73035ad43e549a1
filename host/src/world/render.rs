//! The render description a renderer would read: per-entity materials and the scene lighting.
//! The host draws nothing; these are the values snapshots and state sync report.

use super::entity::Appearance;
use super::journal::Undo;
use super::oplog::Op;
use super::{World, WorldError};
use std::collections::BTreeMap;

/// Highest 0xRRGGBB colour.
const MAX_COLOR: u32 = 0xff_ffff;

/// Surface settings of one entity, as a physically based material (three.js's
/// `MeshStandardMaterial`) holds them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Material {
    /// 0xRRGGBB; the same colour the entity was created with until changed.
    pub color: u32,
    /// 0 (mirror) ..= 1 (fully diffuse).
    pub roughness: f64,
    /// 0 (dielectric) ..= 1 (metal).
    pub metalness: f64,
    pub cast_shadow: bool,
    pub receive_shadow: bool,
}

/// Material fields to change; `None` keeps the current value.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MaterialPatch {
    pub color: Option<u32>,
    pub roughness: Option<f64>,
    pub metalness: Option<f64>,
    pub cast_shadow: Option<bool>,
    pub receive_shadow: Option<bool>,
}

/// The scene's ambient light plus one directional light with its shadow camera.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Lighting {
    pub ambient_color: u32,
    pub ambient_intensity: f64,
    pub directional_color: u32,
    pub directional_intensity: f64,
    /// Where the directional light shines from, relative to the origin.
    pub direction: [f64; 3],
    pub cast_shadow: bool,
    /// Shadow map edge in texels (256 ..= 4096).
    pub shadow_map_size: u32,
    /// Half-width of the orthographic shadow camera (> 0, ≤ 500).
    pub shadow_camera_extent: f64,
    pub shadow_camera_near: f64,
    pub shadow_camera_far: f64,
    /// Depth bias against shadow acne (-0.01 ..= 0.01).
    pub shadow_bias: f64,
}

impl Default for Lighting {
    /// The catalog's defaults for `three.setLighting`.
    fn default() -> Self {
        Lighting {
            ambient_color: 0x40_4060,
            ambient_intensity: 1.2,
            directional_color: 0xff_ffff,
            directional_intensity: 3.0,
            direction: [5.0, 9.0, 6.0],
            cast_shadow: false,
            shadow_map_size: 2048,
            shadow_camera_extent: 20.0,
            shadow_camera_near: 0.5,
            shadow_camera_far: 120.0,
            shadow_bias: -0.0008,
        }
    }
}

/// Everything of a material but its colour, which lives with the entity's appearance.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct Surface {
    roughness: f64,
    metalness: f64,
    cast_shadow: bool,
    receive_shadow: bool,
}

impl Surface {
    /// 0 (dielectric) ..= 1 (metal).
    pub(super) fn metalness(&self) -> f64 {
        self.metalness
    }
}

impl Default for Surface {
    /// three.js's `MeshStandardMaterial` defaults, so an untouched entity renders as usual.
    fn default() -> Self {
        Surface {
            roughness: 1.0,
            metalness: 0.0,
            cast_shadow: false,
            receive_shadow: false,
        }
    }
}

/// Materials and lighting.
#[derive(Debug, Default)]
pub struct RenderState {
    /// Only entities whose material was ever patched; the rest use `Surface::default()`.
    /// Keyed by entity number, which is never reused.
    pub(super) surfaces: BTreeMap<u64, Surface>,
    pub(super) lighting: Lighting,
}

/// The inverse of one render change.
pub(super) enum RenderUndo {
    /// Put back an entity's colour (when it still exists) and surface (`None`: untouched).
    Material {
        number: u64,
        color: Option<u32>,
        surface: Option<Surface>,
    },
    Lighting(Box<Lighting>),
}

impl RenderUndo {
    /// The entity whose material changed; `None` for the scene's lighting.
    pub(super) fn entity(&self) -> Option<u64> {
        match self {
            RenderUndo::Material { number, .. } => Some(*number),
            RenderUndo::Lighting(_) => None,
        }
    }
}

impl World {
    /// Changes the given fields of an entity's material; false for an unknown entity.
    pub fn set_material(&mut self, id: &str, patch: &MaterialPatch) -> Result<bool, WorldError> {
        self.logged(
            self.wants_op().then(|| Op::SetMaterial(id.into(), *patch)),
            |w| w.set_material_now(id, patch),
        )
    }

    fn set_material_now(&mut self, id: &str, patch: &MaterialPatch) -> Result<bool, WorldError> {
        if let Some(color) = patch.color {
            check_color("color", color)?;
        }
        if let Some(r) = patch.roughness {
            check_range("roughness", r, 0.0, 1.0)?;
        }
        if let Some(m) = patch.metalness {
            check_range("metalness", m, 0.0, 1.0)?;
        }
        let Some((number, entity)) = self.lookup(id) else {
            return Ok(false);
        };
        let before_surface = self.render.surfaces.get(&number).copied();
        let mut surface = before_surface.unwrap_or_default();
        surface.roughness = patch.roughness.unwrap_or(surface.roughness);
        surface.metalness = patch.metalness.unwrap_or(surface.metalness);
        surface.cast_shadow = patch.cast_shadow.unwrap_or(surface.cast_shadow);
        surface.receive_shadow = patch.receive_shadow.unwrap_or(surface.receive_shadow);
        let before_color = {
            let mut appearance = self
                .ecs
                .get::<&mut Appearance>(entity)
                .expect("every entity has an appearance");
            let before = appearance.color;
            appearance.color = patch.color.unwrap_or(before);
            before
        };
        self.render.surfaces.insert(number, surface);
        self.record(Undo::Render(RenderUndo::Material {
            number,
            color: Some(before_color),
            surface: before_surface,
        }));
        Ok(true)
    }

    /// An entity's material, if the entity exists.
    pub fn material(&self, id: &str) -> Option<Material> {
        let (number, entity) = self.lookup(id)?;
        let color = self.ecs.get::<&Appearance>(entity).ok()?.color;
        let s = self
            .render
            .surfaces
            .get(&number)
            .copied()
            .unwrap_or_default();
        Some(Material {
            color,
            roughness: s.roughness,
            metalness: s.metalness,
            cast_shadow: s.cast_shadow,
            receive_shadow: s.receive_shadow,
        })
    }

    /// Replaces the scene lighting; every field is checked first.
    pub fn set_lighting(&mut self, lighting: Lighting) -> Result<(), WorldError> {
        self.logged(self.wants_op().then_some(Op::SetLighting(lighting)), |w| {
            w.set_lighting_now(lighting)
        })
    }

    fn set_lighting_now(&mut self, lighting: Lighting) -> Result<(), WorldError> {
        check_color("ambientColor", lighting.ambient_color)?;
        check_color("directionalColor", lighting.directional_color)?;
        check_range("ambientIntensity", lighting.ambient_intensity, 0.0, 10.0)?;
        check_range(
            "directionalIntensity",
            lighting.directional_intensity,
            0.0,
            10.0,
        )?;
        if !lighting.direction.iter().all(|c| c.is_finite()) {
            return Err(WorldError::Invalid(
                "`direction` must hold three finite numbers".into(),
            ));
        }
        if !(256..=4096).contains(&lighting.shadow_map_size) {
            return Err(WorldError::Invalid(format!(
                "`shadowMapSize` must be ≥ 256 and ≤ 4096, got {}",
                lighting.shadow_map_size
            )));
        }
        check_positive("shadowCameraExtent", lighting.shadow_camera_extent)?;
        check_range(
            "shadowCameraExtent",
            lighting.shadow_camera_extent,
            0.0,
            500.0,
        )?;
        check_positive("shadowCameraNear", lighting.shadow_camera_near)?;
        check_positive("shadowCameraFar", lighting.shadow_camera_far)?;
        check_range("shadowBias", lighting.shadow_bias, -0.01, 0.01)?;
        let before = std::mem::replace(&mut self.render.lighting, lighting);
        self.record(Undo::Render(RenderUndo::Lighting(Box::new(before))));
        Ok(())
    }

    /// The scene lighting.
    pub fn lighting(&self) -> &Lighting {
        &self.render.lighting
    }

    /// Drops a destroyed entity's material (journaled, so a rollback brings it back).
    pub(super) fn forget_material(&mut self, number: u64) {
        if let Some(surface) = self.render.surfaces.remove(&number) {
            self.record(Undo::Render(RenderUndo::Material {
                number,
                color: None,
                surface: Some(surface),
            }));
        }
    }

    pub(super) fn undo_render(&mut self, undo: RenderUndo) {
        match undo {
            RenderUndo::Material {
                number,
                color,
                surface,
            } => {
                if let (Some(color), Some(entity)) = (color, self.entity_by_number(number))
                    && let Ok(mut appearance) = self.ecs.get::<&mut Appearance>(entity)
                {
                    appearance.color = color;
                }
                match surface {
                    Some(s) => self.render.surfaces.insert(number, s),
                    None => self.render.surfaces.remove(&number),
                };
            }
            RenderUndo::Lighting(before) => self.render.lighting = *before,
        }
    }
}

fn check_color(field: &str, color: u32) -> Result<(), WorldError> {
    if color > MAX_COLOR {
        return Err(WorldError::Invalid(format!(
            "`{field}` must be a 0xRRGGBB colour ≤ 0xffffff ({MAX_COLOR}), got {color}"
        )));
    }
    Ok(())
}

fn check_range(field: &str, value: f64, min: f64, max: f64) -> Result<(), WorldError> {
    if !(min..=max).contains(&value) {
        return Err(WorldError::Invalid(format!(
            "`{field}` must be ≥ {min} and ≤ {max}, got {value}"
        )));
    }
    Ok(())
}

fn check_positive(field: &str, value: f64) -> Result<(), WorldError> {
    if !(value > 0.0 && value.is_finite()) {
        return Err(WorldError::Invalid(format!(
            "`{field}` must be a finite number > 0, got {value}"
        )));
    }
    Ok(())
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
