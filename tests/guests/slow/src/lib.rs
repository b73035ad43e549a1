//! Test guest: `slow.buildThenSpin` creates an entity and then loops until it is stopped
//! (cancelled, or cut at its deadline), so a test can check the creation is undone;
//! `slow.steps` reports progress through the `progress` import.

use limina_sdk::Vec3;
use limina_sdk::host::scene;
use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Empty {}

#[derive(Serialize, JsonSchema)]
struct Made {
    entity: String,
}

fn build_then_spin(_: Empty, _: &CallContext) -> Result<Made, SkillError> {
    let entity = scene::create_entity(scene::EntitySpec {
        shape: scene::Shape::Box,
        collider: None,
        size: 1.0,
        color: 0,
        position: Vec3 {
            x: 1.0,
            y: 2.0,
            z: 3.0,
        },
        body: scene::BodyKind::None,
        friction: 0.5,
        restitution: 0.0,
    })?;
    let mut n: u64 = 0;
    loop {
        n = std::hint::black_box(n.wrapping_add(1));
        if n == u64::MAX {
            return Ok(Made { entity });
        }
    }
}

#[derive(Deserialize, JsonSchema)]
struct Steps {
    /// How many steps to report.
    #[schemars(range(min = 1, max = 100))]
    steps: u32,
}

#[derive(Serialize, JsonSchema)]
struct Done {
    steps: u32,
}

fn steps(input: Steps, _: &CallContext) -> Result<Done, SkillError> {
    for done in 1..=input.steps {
        let message = format!("step {done}");
        host::progress::report(done as f64, Some(input.steps as f64), Some(&message));
    }
    Ok(Done { steps: input.steps })
}

limina_sdk::export_package!(
    Package::new()
        .skill(Skill::new(
            "slow.buildThenSpin",
            "0.1.0",
            "Creates an entity, then loops until stopped.",
            build_then_spin
        ))
        .skill(Skill::new(
            "slow.steps",
            "0.1.0",
            "Reports `steps` steps of progress, then answers.",
            steps
        ))
);
