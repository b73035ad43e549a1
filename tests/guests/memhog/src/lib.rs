//! Hostile guest: `memhog.grow` allocates until memory runs out (the limiter must stop it);
//! `memhog.ok` answers.

use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Empty {}

#[derive(Serialize, JsonSchema)]
struct Held {
    bytes: u64,
}

fn grow(_: Empty, _: &CallContext) -> Result<Held, SkillError> {
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    loop {
        hoard.push(vec![1u8; 1 << 20]);
        std::hint::black_box(&hoard);
    }
}

fn ok(_: Empty, _: &CallContext) -> Result<Held, SkillError> {
    Ok(Held { bytes: 0 })
}

limina_sdk::export_package!(
    Package::new()
        .skill(Skill::new("memhog.grow", "0.1.0", "Allocates without end.", grow))
        .skill(Skill::new("memhog.ok", "0.1.0", "Answers at once.", ok))
);
