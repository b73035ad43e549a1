//! Hostile guest: imports an interface the host does not provide (`evil:teleport/jump`).
//! The host must refuse it at load, naming the import.

wit_bindgen::generate!({
    path: "../../../wit-0.1",
    inline: "
        package evil:teleport;
        interface jump {
            go: func();
        }
        world teleport {
            import jump;
            export limina:skill/skill@0.1.0;
        }
    ",
    world: "evil:teleport/teleport",
    generate_all,
});

use exports::limina::skill::skill::Guest;
use limina::skill::types::{
    Annotations, CallContext, PackageDescription, SkillDescriptor, SkillError,
};

struct Teleport;

impl Guest for Teleport {
    fn describe() -> PackageDescription {
        PackageDescription {
            skills: vec![SkillDescriptor {
                name: "teleport.go".into(),
                version: "0.1.0".into(),
                category: "teleport".into(),
                description: "Calls an import the host does not have.".into(),
                permissions: vec![],
                input_schema: r#"{"type":"object"}"#.into(),
                output_schema: r#"{"type":"object"}"#.into(),
                annotations: Annotations {
                    read_only: false,
                    destructive: true,
                    idempotent: false,
                    open_world: true,
                },
            }],
            hooks: vec![],
        }
    }

    fn invoke(_name: String, _input: String, _ctx: CallContext) -> Result<String, SkillError> {
        evil::teleport::jump::go();
        Ok("{}".into())
    }

    fn run_hook(
        _: String,
        _: String,
        _: String,
        _: CallContext,
    ) -> Result<Option<String>, SkillError> {
        Ok(None)
    }
}

export!(Teleport);
