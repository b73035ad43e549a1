//! The host imports: every one checks the call's grants (session ∩ package) before touching
//! the realm, and a denial is traced and changes nothing.

use super::bindings::limina::skill::{ecs, log, random, scene, trace, types};
use super::instance::{ActiveCall, GuestState};
use crate::policy::Permission;
use crate::trace::NewEvent;
use crate::world;
use serde_json::{Value, json};
use types::{Quat, Vec3, WorldError};

impl GuestState {
    /// The call in progress, if it holds `needs`.
    fn active(&mut self, needs: Permission) -> Result<&mut ActiveCall, WorldError> {
        let package = self.package.clone();
        let Some(call) = self.call.as_mut() else {
            return Err(WorldError::Forbidden(
                "host imports are only available during a skill call".into(),
            ));
        };
        if !call.info.grants.contains(needs) {
            let id = call.realm.tracer.emit(NewEvent {
                kind: "security.permission.denied".into(),
                actor_id: call.info.agent_id.clone(),
                thread_id: call.info.session_id.clone(),
                parent_event_id: Some(call.info.invocation_id.clone()),
                caused_by: vec![call.info.invocation_id.clone()],
                payload: json!({
                    "boundary": "host-import",
                    "skill": call.info.skill,
                    "package": &*package,
                    "missing": needs.as_str(),
                    "agentId": call.info.agent_id,
                    "sessionId": call.info.session_id,
                }),
            });
            call.events.push(id);
            return Err(WorldError::Forbidden(format!(
                "missing permission: {needs}"
            )));
        }
        Ok(call)
    }
}

fn from_world(e: world::WorldError) -> WorldError {
    match e {
        world::WorldError::Invalid(m) => WorldError::Invalid(m),
        world::WorldError::Capacity(m) => WorldError::Capacity(m),
    }
}

fn v3(v: Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

fn to_v3(a: [f64; 3]) -> Vec3 {
    Vec3 {
        x: a[0],
        y: a[1],
        z: a[2],
    }
}

fn entity_info(e: world::EntityInfo) -> scene::EntityInfo {
    let t = e.transform;
    scene::EntityInfo {
        id: e.id,
        transform: scene::Transform {
            position: to_v3(t.position),
            rotation: Quat {
                x: t.rotation[0],
                y: t.rotation[1],
                z: t.rotation[2],
                w: t.rotation[3],
            },
            scale: to_v3(t.scale),
        },
        tags: e.tags,
        distance: e.distance,
        body_id: e.body_id,
    }
}

impl types::Host for GuestState {}

impl scene::Host for GuestState {
    fn create_entity(&mut self, spec: scene::EntitySpec) -> Result<String, WorldError> {
        let call = self.active(Permission::SceneWrite)?;
        let spec = world::EntitySpec {
            shape: match spec.shape {
                scene::Shape::Box => world::Shape::Box,
                scene::Shape::Sphere => world::Shape::Sphere,
            },
            collider: spec.collider.map(|c| match c {
                scene::ColliderShape::Box => world::ColliderShape::Box,
                scene::ColliderShape::Sphere => world::ColliderShape::Sphere,
                scene::ColliderShape::Capsule => world::ColliderShape::Capsule,
            }),
            size: spec.size,
            color: spec.color,
            position: v3(spec.position),
            body: match spec.body {
                scene::BodyKind::None => world::BodyKind::None,
                scene::BodyKind::Dynamic => world::BodyKind::Dynamic,
                scene::BodyKind::Fixed => world::BodyKind::Fixed,
            },
            friction: spec.friction,
            restitution: spec.restitution,
        };
        call.realm.world.create_entity(&spec).map_err(from_world)
    }

    fn destroy_entity(&mut self, id: String) -> Result<bool, WorldError> {
        let call = self.active(Permission::SceneWrite)?;
        Ok(call.realm.world.destroy_entity(&id))
    }

    fn query_entities(
        &mut self,
        filter: scene::EntityFilter,
    ) -> Result<Vec<scene::EntityInfo>, WorldError> {
        let call = self.active(Permission::SceneRead)?;
        let filter = world::EntityFilter {
            near: filter.near.map(v3),
            radius: filter.radius,
            tag: filter.tag,
        };
        Ok(call
            .realm
            .world
            .query_entities(&filter)
            .into_iter()
            .map(entity_info)
            .collect())
    }

    fn get_entity(&mut self, id: String) -> Result<Option<scene::EntityInfo>, WorldError> {
        let call = self.active(Permission::SceneRead)?;
        Ok(call.realm.world.get_entity(&id).map(entity_info))
    }

    fn set_transform(
        &mut self,
        id: String,
        position: Option<Vec3>,
        rotation: Option<Quat>,
        scale: Option<Vec3>,
    ) -> Result<bool, WorldError> {
        let call = self.active(Permission::SceneWrite)?;
        let rotation = rotation.map(|q| [q.x, q.y, q.z, q.w]);
        Ok(call
            .realm
            .world
            .set_transform(&id, position.map(v3), rotation, scale.map(v3)))
    }
}

impl ecs::Host for GuestState {
    fn update_component(
        &mut self,
        id: String,
        component: ecs::TransformComponent,
        value: Vec<f64>,
    ) -> Result<bool, WorldError> {
        let call = self.active(Permission::EcsModify)?;
        let world = &mut call.realm.world;
        let three = |v: &[f64]| -> Result<[f64; 3], WorldError> {
            match v {
                [x, y, z] => Ok([*x, *y, *z]),
                _ => Err(WorldError::Invalid(format!(
                    "`value` must have 3 numbers for this component, got {}",
                    v.len()
                ))),
            }
        };
        Ok(match component {
            ecs::TransformComponent::Position => {
                world.set_transform(&id, Some(three(&value)?), None, None)
            }
            ecs::TransformComponent::Scale => {
                world.set_transform(&id, None, None, Some(three(&value)?))
            }
            ecs::TransformComponent::Rotation => {
                let q = match value.as_slice() {
                    [x, y, z] => [*x, *y, *z, 1.0],
                    [x, y, z, w] => [*x, *y, *z, *w],
                    _ => {
                        return Err(WorldError::Invalid(format!(
                            "`value` must have 3 or 4 numbers for a rotation, got {}",
                            value.len()
                        )));
                    }
                };
                world.set_transform(&id, None, Some(q), None)
            }
        })
    }

    fn add_tag(&mut self, id: String, tag: String) -> Result<bool, WorldError> {
        let call = self.active(Permission::EcsModify)?;
        Ok(call.realm.world.add_tag(&id, &tag))
    }

    fn remove_tag(&mut self, id: String, tag: String) -> Result<bool, WorldError> {
        let call = self.active(Permission::EcsModify)?;
        Ok(call.realm.world.remove_tag(&id, &tag))
    }
}

impl trace::Host for GuestState {
    fn emit(&mut self, kind: String, payload: String) -> Result<String, WorldError> {
        let package = self.package.clone();
        let Some(call) = self.call.as_mut() else {
            return Err(WorldError::Forbidden(
                "host imports are only available during a skill call".into(),
            ));
        };
        let payload: Value = serde_json::from_str(&payload)
            .map_err(|e| WorldError::Invalid(format!("`payload` is not valid JSON: {e}")))?;
        let id = call.realm.tracer.emit(NewEvent {
            kind: format!("{package}.{kind}"),
            actor_id: call.info.agent_id.clone(),
            thread_id: call.info.session_id.clone(),
            parent_event_id: Some(call.info.invocation_id.clone()),
            caused_by: vec![call.info.invocation_id.clone()],
            payload,
        });
        call.events.push(id.clone());
        Ok(id)
    }
}

impl log::Host for GuestState {
    fn log(&mut self, level: log::Level, message: String) {
        let level = match level {
            log::Level::Debug => crate::log::Level::Debug,
            log::Level::Info => crate::log::Level::Info,
            log::Level::Warn => crate::log::Level::Warn,
            log::Level::Error => crate::log::Level::Error,
        };
        // Bounded so a chatty guest cannot flood the host's stderr with one line.
        let message: String = message.chars().take(4096).collect();
        crate::log::write(level, &format!("[{}] {message}", self.package));
    }
}

impl random::Host for GuestState {
    fn next_u64(&mut self) -> u64 {
        match self.call.as_mut() {
            Some(call) => call.realm.rng.next_u64(),
            None => 0,
        }
    }
}
