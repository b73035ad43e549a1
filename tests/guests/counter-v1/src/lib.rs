//! Version 1 of the `counter` package, for the hot-reload tests: `counter.version` says
//! which build is answering.

use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Empty {}

#[derive(Serialize, JsonSchema)]
struct Version {
    version: u32,
}

fn version(_: Empty, _: &CallContext) -> Result<Version, SkillError> {
    Ok(Version { version: 1 })
}

limina_sdk::export_package!(Package::new().skill(Skill::new(
    "counter.version",
    "0.1.0",
    "Says which build of the package is answering.",
    version
)));
