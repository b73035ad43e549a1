//! A guest that looks a key up in a fixed table and reports `not-found` for any other key.

use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Input {
    /// The key to look up.
    key: String,
}

#[derive(Serialize, JsonSchema)]
struct Found {
    value: String,
}

fn find(input: Input, _: &CallContext) -> Result<Found, SkillError> {
    match input.key.as_str() {
        "answer" => Ok(Found { value: "42".into() }),
        other => Err(SkillError::NotFound(format!(
            "no entry `{other}`; the table holds only `answer`"
        ))),
    }
}

limina_sdk::export_package!(Package::new().skill(Skill::new(
    "lookup.find",
    "0.1.0",
    "Looks a key up in a fixed table.",
    find
)));
