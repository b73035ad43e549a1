//! The host imports: every one checks the call's grants (session ∩ package) before touching
//! the realm, and a denial is traced and changes nothing. One file per WIT interface.

mod agents;
mod assets;
mod audio;
mod camera;
mod ecs;
mod log;
mod physics;
mod progress;
mod random;
mod render;
mod scene;
mod state;
mod trace;
mod ui;

use super::bindings::limina::skill::types::{Vec3, WorldError};
use super::instance::{ActiveCall, GuestState};
use crate::policy::Permission;
use crate::world;
use serde_json::json;

// `types` holds no functions, and 0.2.0's is 0.1.0's (the bindings share it).
impl super::bindings::limina::skill::types::Host for GuestState {}

impl GuestState {
    /// The call in progress, if it holds `needs`.
    pub(super) fn active(&mut self, needs: Permission) -> Result<&mut ActiveCall, WorldError> {
        let package = self.package.clone();
        let Some(call) = self.call.as_mut() else {
            return Err(WorldError::Forbidden(
                "host imports are only available during a skill call".into(),
            ));
        };
        if !call.info.grants.contains(needs) {
            call.emit(
                "security.permission.denied",
                json!({
                    "boundary": "host-import",
                    "skill": call.info.skill,
                    "package": &*package,
                    "missing": needs.as_str(),
                    "agentId": call.info.agent_id,
                    "sessionId": call.info.session_id,
                }),
            );
            return Err(WorldError::Forbidden(format!(
                "missing permission: {needs}"
            )));
        }
        Ok(call)
    }
}

pub(super) fn from_world(e: world::WorldError) -> WorldError {
    match e {
        world::WorldError::Invalid(m) => WorldError::Invalid(m),
        world::WorldError::Capacity(m) => WorldError::Capacity(m),
    }
}

pub(super) fn v3(v: Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

pub(super) fn to_v3(a: [f64; 3]) -> Vec3 {
    Vec3 {
        x: a[0],
        y: a[1],
        z: a[2],
    }
}
