//! The render description a renderer would read: per-entity materials and the scene lighting.

/// Materials and lighting (filled in by the `three` skills).
#[derive(Debug, Default)]
pub struct RenderState {}
