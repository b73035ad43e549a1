//! Assets loaded from the configured assets folder (glTF/GLB), and the resources they became.

/// Loaded resources (filled in by `three.loadGLTF`).
#[derive(Debug, Default)]
pub struct Assets {}
