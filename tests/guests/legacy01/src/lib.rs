//! A 0.1.0 package: `legacy01.place` places an entity through the 0.1.0 `scene` import and
//! returns its id and how many entities the world holds, as plain JSON text.

wit_bindgen::generate!({
    path: "../../../wit-0.1",
    world: "skill-package",
    generate_all,
});

use exports::limina::skill::skill::Guest;
use limina::skill::scene;
use limina::skill::types::{
    Annotations, CallContext, PackageDescription, SkillDescriptor, SkillError, Vec3,
};

struct Legacy;

impl Guest for Legacy {
    fn describe() -> PackageDescription {
        PackageDescription {
            skills: vec![SkillDescriptor {
                name: "legacy01.place".into(),
                version: "0.1.0".into(),
                category: "legacy01".into(),
                description: "Places a box and counts the entities.".into(),
                permissions: vec!["scene.write".into(), "scene.read".into()],
                input_schema: r#"{"type":"object","properties":{"x":{"type":"number","default":0}}}"#
                    .into(),
                output_schema: r#"{"type":"object","required":["id","count"],"properties":{"id":{"type":"string"},"count":{"type":"integer"}}}"#
                    .into(),
                annotations: Annotations {
                    read_only: false,
                    destructive: false,
                    idempotent: false,
                    open_world: false,
                },
            }],
            hooks: vec![],
        }
    }

    fn invoke(name: String, input: String, _ctx: CallContext) -> Result<String, SkillError> {
        if name != "legacy01.place" {
            return Err(SkillError::NotFound(format!("no skill `{name}`")));
        }
        // The input is `{"x": <number>}` (validated by the host); read it without serde.
        let x = input
            .split(':')
            .nth(1)
            .and_then(|v| v.trim_end_matches('}').trim().parse::<f64>().ok())
            .unwrap_or(0.0);
        let id = scene::create_entity(scene::EntitySpec {
            shape: scene::Shape::Box,
            collider: None,
            size: 1.0,
            color: 0x00ff00,
            position: Vec3 { x, y: 0.0, z: 0.0 },
            body: scene::BodyKind::None,
            friction: 0.5,
            restitution: 0.0,
        })
        .map_err(|e| SkillError::HandlerError(format!("{e:?}")))?;
        let count = scene::query_entities(&scene::EntityFilter {
            near: None,
            radius: None,
            tag: None,
        })
        .map_err(|e| SkillError::HandlerError(format!("{e:?}")))?
        .len();
        Ok(format!(r#"{{"id":"{id}","count":{count}}}"#))
    }

    fn run_hook(
        hook: String,
        _skill: String,
        _payload: String,
        _ctx: CallContext,
    ) -> Result<Option<String>, SkillError> {
        Err(SkillError::NotFound(format!("no hook `{hook}`")))
    }
}

export!(Legacy);
