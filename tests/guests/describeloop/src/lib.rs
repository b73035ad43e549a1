//! Hostile guest: runs away during set-up (the first thing the host calls at load), like a
//! start function that never returns. Fuel must stop it and the load must be refused.

use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Empty {}

#[derive(Serialize, JsonSchema)]
struct Out {}

fn never(_: Empty, _: &CallContext) -> Result<Out, SkillError> {
    Ok(Out {})
}

fn build() -> Package {
    let mut n = 0u64;
    loop {
        n = std::hint::black_box(n.wrapping_add(1));
        if n == u64::MAX {
            break;
        }
    }
    Package::new().skill(Skill::new(
        "describeloop.never",
        "0.1.0",
        "Never reached.",
        never,
    ))
}

limina_sdk::export_package!(build());
