//! The Rust guest SDK for Limina skill packages.
//!
//! A package declares its skills with typed inputs and outputs; the SDK derives their draft-07
//! JSON Schemas, answers the host's `describe`, and routes `invoke` to the right handler:
//!
//! ```ignore
//! use limina_sdk::prelude::*;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct RollInput { sides: u32 }
//! #[derive(Serialize, JsonSchema)]
//! struct RollOutput { value: u32 }
//!
//! fn roll(input: RollInput, _ctx: &CallContext) -> Result<RollOutput, SkillError> {
//!     let value = (host::random::next_u64() % input.sides as u64) as u32 + 1;
//!     Ok(RollOutput { value })
//! }
//!
//! limina_sdk::export_package!(Package::new().skill(
//!     Skill::new("dice.roll", "1.0.0", "Roll one die with the given number of sides.", roll)
//! ));
//! ```

mod content;
pub mod http;
mod offer;
mod package;
mod schema;
pub mod state;

/// Bindings generated from `wit/skill.wit`; the host interfaces live under `host`.
pub mod bindings {
    wit_bindgen::generate!({
        path: "../wit",
        world: "skill-package",
        pub_export_macro: true,
        export_macro_name: "__export_limina_world",
        default_bindings_module: "limina_sdk::bindings",
    });
}

/// The host interfaces a package may import (each checks the caller's permissions).
pub mod host {
    /// The package's own key-value state (raw bytes; [`crate::state`] reads and writes JSON).
    pub use crate::bindings::limina::skill::state;
    pub use crate::bindings::limina::skill::{
        agents, assets, audio, camera, ecs, log, physics, progress, random, render, scene, trace,
        ui,
    };
}

pub use bindings::exports::limina::skill::prompts::{PromptMessage, Role};
pub use bindings::limina::skill::content::{
    Binary, ContentBlock, ResourceBody, ResourceContents, ResourceLink,
};
pub use bindings::limina::skill::types::{
    Annotations, CallContext, HookPhase, Quat, SkillError, Vec3, WorldError,
};
pub use offer::{Offer, Prompt, Resource, argument, assistant, user};
pub use package::{Hook, Package, Skill, WithContent};

/// Everything a package author usually needs in one import.
pub mod prelude {
    pub use crate::host;
    pub use crate::{
        CallContext, ContentBlock, Hook, HookPhase, Package, Prompt, PromptMessage, Resource,
        Skill, SkillError, WithContent, WorldError,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

/// A world error seen from a handler: the skill fails with the matching skill error.
impl From<WorldError> for SkillError {
    fn from(e: WorldError) -> Self {
        match e {
            WorldError::Forbidden(m) => SkillError::Forbidden(m),
            WorldError::Invalid(m) => SkillError::InvalidInput(m),
            WorldError::Capacity(m) => SkillError::CapacityExceeded(m),
        }
    }
}

#[doc(hidden)]
pub mod __private {
    pub use crate::offer::runtime as offer;
    pub use crate::package::runtime;
}

/// Exports a package built by the given expression (a [`Package`]) as the component's `skill`
/// interface. Call it once, at the crate root of a `cdylib`.
#[macro_export]
macro_rules! export_package {
    ($build:expr) => {
        struct __LiminaPackage;

        fn __limina_package() -> &'static $crate::Package {
            static PACKAGE: ::std::sync::OnceLock<$crate::Package> = ::std::sync::OnceLock::new();
            PACKAGE.get_or_init(|| $build)
        }

        impl $crate::bindings::exports::limina::skill::skill::Guest for __LiminaPackage {
            fn describe() -> $crate::bindings::limina::skill::types::PackageDescription {
                $crate::__private::runtime::describe(__limina_package())
            }
            fn invoke(
                name: ::std::string::String,
                input: ::std::string::String,
                ctx: $crate::CallContext,
            ) -> ::std::result::Result<$crate::bindings::limina::skill::content::SkillOutput, $crate::SkillError> {
                $crate::__private::runtime::invoke(__limina_package(), &name, &input, &ctx)
            }
            fn run_hook(
                hook: ::std::string::String,
                skill: ::std::string::String,
                payload: ::std::string::String,
                ctx: $crate::CallContext,
            ) -> ::std::result::Result<::std::option::Option<::std::string::String>, $crate::SkillError>
            {
                $crate::__private::runtime::run_hook(__limina_package(), &hook, &skill, &payload, &ctx)
            }
        }

        impl $crate::bindings::exports::limina::skill::resources::Guest for __LiminaPackage {
            fn list_resources() -> ::std::vec::Vec<$crate::bindings::exports::limina::skill::resources::ResourceDescriptor> {
                $crate::__private::offer::list_resources(__limina_package())
            }
            fn read_resource(
                uri: ::std::string::String,
                ctx: $crate::CallContext,
            ) -> ::std::result::Result<::std::option::Option<$crate::ResourceContents>, $crate::SkillError> {
                $crate::__private::offer::read_resource(__limina_package(), &uri, &ctx)
            }
            fn complete_variable(
                template: ::std::string::String,
                variable: ::std::string::String,
                prefix: ::std::string::String,
            ) -> ::std::vec::Vec<::std::string::String> {
                $crate::__private::offer::complete_variable(__limina_package(), &template, &variable, &prefix)
            }
        }

        impl $crate::bindings::exports::limina::skill::prompts::Guest for __LiminaPackage {
            fn list_prompts() -> ::std::vec::Vec<$crate::bindings::exports::limina::skill::prompts::PromptDescriptor> {
                $crate::__private::offer::list_prompts(__limina_package())
            }
            fn get_prompt(
                name: ::std::string::String,
                arguments: ::std::vec::Vec<(::std::string::String, ::std::string::String)>,
                ctx: $crate::CallContext,
            ) -> ::std::result::Result<::std::vec::Vec<$crate::PromptMessage>, $crate::SkillError> {
                $crate::__private::offer::get_prompt(__limina_package(), &name, &arguments, &ctx)
            }
            fn complete_argument(
                name: ::std::string::String,
                argument: ::std::string::String,
                prefix: ::std::string::String,
            ) -> ::std::vec::Vec<::std::string::String> {
                $crate::__private::offer::complete_argument(__limina_package(), &name, &argument, &prefix)
            }
        }

        // Only a wasm build exports the component's functions: their `export_name`s (with
        // `:` and `/`) would break a native cdylib link, and natively the package is built
        // only to run its unit tests.
        #[cfg(target_arch = "wasm32")]
        $crate::bindings::__export_limina_world!(__LiminaPackage with_types_in $crate::bindings);
        // Natively, keep the package (and so its handlers) in use, without dead-code warnings.
        #[cfg(not(target_arch = "wasm32"))]
        const _: () = {
            let _ = __limina_package;
            let _ = <__LiminaPackage as $crate::bindings::exports::limina::skill::skill::Guest>::describe;
        };
    };
}
