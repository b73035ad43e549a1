//! Calls that look at the world without reaching it. A package whose only capability is
//! `scene.read`, that holds no state, and whose component imports `camera` and no other world
//! interface can see the world only as a picture. Its calls run off the engine like those
//! that cannot touch the world (`detached.rs`), on a render snapshot the engine copies when
//! the call is decided: 42 µs for 2,000 entities against about 5 ms to draw and encode them at
//! 640 × 480 (`cargo bench -p limina --bench camera`), so a picture never holds up others.

use super::Registry;
use crate::world::RenderSnapshot;
use std::sync::Arc;

/// Whether a package declaring `manifest` may be a viewer: `scene.read` only, no state. Such
/// a package is compiled when it loads (`load.rs`), so its imports are known before its first
/// call is placed.
pub(super) fn may_view(manifest: &crate::packages::Manifest) -> bool {
    manifest.capabilities.names() == ["scene.read"] && manifest.grants.state.is_none()
}

impl Registry {
    /// Whether `package` sees the world only through the camera: its manifest allows it and
    /// its compiled component's imports say so.
    pub(super) fn views_only(&self, package: usize) -> bool {
        let p = &self.packages[package];
        may_view(&p.manifest)
            && p.compiled
                .get()
                .is_some_and(|c| c.world_use().camera_only())
    }

    /// What a detached call of `package` brings along to look at: for a viewer, the world as
    /// the camera draws it now.
    pub(super) fn view_for(&self, package: usize) -> Option<Arc<RenderSnapshot>> {
        self.views_only(package)
            .then(|| Arc::new(self.realm().world.render_snapshot()))
    }
}
