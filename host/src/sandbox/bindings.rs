//! Host-side bindings generated from `wit/skill.wit`.

wasmtime::component::bindgen!({
    path: "../wit",
    world: "skill-package",
});

pub use exports::limina::skill::skill::Guest as SkillExport;
pub use limina::skill::types::{CallContext, PackageDescription, SkillDescriptor, SkillError};
