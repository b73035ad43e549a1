//! Host-side bindings generated from `wit/skill.wit`.

wasmtime::component::bindgen!({
    path: "../wit",
    world: "skill-package",
});

pub use exports::limina::skill::skill::Guest as SkillExport;
pub use limina::skill::types::{CallContext, PackageDescription, SkillDescriptor, SkillError};

/// The text of the WIT contract the bindings above were generated from.
const WIT: &str = include_str!("../../../wit/skill.wit");

/// The whole WIT contract, as built into this host.
pub fn wit_text() -> &'static str {
    WIT
}

/// The versioned WIT package the host implements and guests build against, e.g.
/// `limina:skill@0.1.0` (from the `package` line of `wit/skill.wit`).
pub fn wit_package() -> &'static str {
    WIT.lines()
        .find_map(|line| line.trim().strip_prefix("package "))
        .map(|rest| rest.trim_end_matches(';').trim())
        .expect("wit/skill.wit declares its package")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_wit_package_is_read_with_its_version() {
        assert_eq!(super::wit_package(), "limina:skill@0.1.0");
    }
}
