//! Hostile guest: `spin.forever` loops without end (fuel must stop it); `spin.burn` loops a
//! set number of times (a known CPU cost); `spin.ok` answers.

use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Empty {}

#[derive(Serialize, JsonSchema)]
struct Count {
    n: u64,
}

fn forever(_: Empty, _: &CallContext) -> Result<Count, SkillError> {
    let mut n: u64 = 0;
    loop {
        n = std::hint::black_box(n.wrapping_add(1));
    }
}

#[derive(Deserialize, JsonSchema)]
struct Burn {
    /// Loop iterations to run before answering.
    iterations: u64,
}

fn burn(input: Burn, _: &CallContext) -> Result<Count, SkillError> {
    let mut n: u64 = 0;
    for i in 0..input.iterations {
        n = std::hint::black_box(n.wrapping_add(i));
    }
    Ok(Count { n })
}

fn ok(_: Empty, _: &CallContext) -> Result<Count, SkillError> {
    Ok(Count { n: 1 })
}

limina_sdk::export_package!(
    Package::new()
        .skill(Skill::new("spin.forever", "0.1.0", "Loops forever.", forever))
        .skill(Skill::new("spin.ok", "0.1.0", "Answers at once.", ok))
        .skill(Skill::new("spin.burn", "0.1.0", "Loops a given number of times.", burn))
);
