//! `limina:skill/camera` (0.2.0 only): a picture of the world, drawn on the CPU. A call that
//! runs away from the engine brings the render snapshot taken when it was decided
//! (`CallInfo::view`); one on the engine draws the world as the call sees it. The drawing's CPU
//! time is charged to the caller's budget beside the call's fuel.

use super::{from_world, v3};
use crate::call::thread_cpu_time;
use crate::policy::Permission;
use crate::sandbox::bindings::limina::skill::types::WorldError;
use crate::sandbox::bindings::v02::limina::skill::camera;
use crate::sandbox::instance::GuestState;
use crate::world::{Picture, RenderSnapshot, Shot};

impl camera::Host for GuestState {
    fn capture(&mut self, shot: camera::Shot) -> Result<camera::Picture, WorldError> {
        let call = self.active(Permission::SceneRead)?;
        let shot = Shot {
            position: v3(shot.position),
            look_at: v3(shot.look_at),
            up: v3(shot.up),
            fov_degrees: shot.fov_degrees,
            width: shot.width,
            height: shot.height,
            background: shot.background,
            panels: shot.panels,
        };
        // A shot that cannot be taken costs no snapshot.
        shot.check().map_err(from_world)?;
        // The drawing runs on the host, where fuel does not count it: its CPU is charged.
        let started = thread_cpu_time();
        // Off the engine (a snapshot came with the call) the worker yields its core between
        // bands of the drawing and of the encoding: any thread waiting for a core (the
        // engine, a transport) gets it within a band, not when the scheduler next looks. On
        // the engine there is nobody of ours to yield to.
        let fresh;
        let (snapshot, pause): (&RenderSnapshot, fn()) = match &call.info.view {
            Some(snapshot) => (snapshot, std::thread::yield_now),
            None => {
                fresh = call.realm.world.render_snapshot();
                (&fresh, || {})
            }
        };
        let drawn = Picture::take_paced(snapshot, &shot, pause).map(|picture| {
            let png = picture.png_paced(pause);
            (picture, png)
        });
        call.host_cpu += thread_cpu_time().saturating_sub(started);
        let (picture, png) = drawn.map_err(from_world)?;
        Ok(camera::Picture {
            png,
            width: picture.width,
            height: picture.height,
            tick: picture.tick,
            entities_in_view: picture.entities_in_view as u32,
            anchors_marked: picture.anchors_marked as u32,
        })
    }
}
