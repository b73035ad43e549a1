//! Host-side bindings generated from the contract's two versions: `wit-0.1/skill.wit`
//! (`limina:skill@0.1.0`, which components built before 0.2.0 still import and export) and
//! `wit/skill.wit` (`@0.2.0`, the current one). wasmtime links 0.x minors as unrelated
//! packages, so the host serves both versions' imports (`imports/`) and tells a component's
//! version by its `skill` export (`instance.rs`).

/// `limina:skill@0.1.0`.
pub mod v01 {
    wasmtime::component::bindgen!({
        path: "../wit-0.1",
        world: "skill-package",
    });
}

/// `limina:skill@0.2.0`. Its `types` are 0.1.0's word for word, so they are shared: a call
/// context, a skill error or a description is one Rust type whichever version a package uses.
pub mod v02 {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "skill-package",
        with: {
            "limina:skill/types@0.2.0": crate::sandbox::bindings::v01::limina::skill::types,
        },
    });
}

/// The types both versions share (`limina:skill/types`), under their 0.1.0 path.
pub use v01::limina;

pub use limina::skill::types::{CallContext, PackageDescription, SkillDescriptor, SkillError};

/// The text of the current WIT contract.
const WIT: &str = include_str!("../../../wit/skill.wit");

/// The whole current WIT contract, as built into this host.
pub fn wit_text() -> &'static str {
    WIT
}

/// The versioned WIT package guests build against now, e.g. `limina:skill@0.2.0` (from the
/// `package` line of `wit/skill.wit`).
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
        assert_eq!(super::wit_package(), "limina:skill@0.2.0");
    }
}
