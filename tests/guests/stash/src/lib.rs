//! Hostile guest over state: `stash.put {key, value, scope, then}` writes a key and then ends
//! as `then` says — `ok`, `fail` (a handler error), `trap` (a panic) or `spin` (a loop that
//! fuel, a deadline or a cancel must cut); `stash.get {key, scope}` reads one back. None of the
//! failing ends may leave the write behind. `stash.noop` touches no state (for the benchmark).

use limina_sdk::host::state::{self, Scope};
use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
enum Then {
    Ok,
    Fail,
    Trap,
    Spin,
}

fn shared() -> String {
    "shared".into()
}

#[derive(Deserialize, JsonSchema)]
struct Put {
    key: String,
    value: String,
    /// `shared` or `agent`.
    #[serde(default = "shared")]
    scope: String,
    then: Then,
}

#[derive(Deserialize, JsonSchema)]
struct Get {
    key: String,
    #[serde(default = "shared")]
    scope: String,
}

#[derive(Serialize, JsonSchema)]
struct Got {
    value: Option<String>,
    keys: Vec<String>,
}

fn scope(name: &str) -> Scope {
    if name == "agent" { Scope::Agent } else { Scope::Shared }
}

fn put(input: Put, _: &CallContext) -> Result<Got, SkillError> {
    let s = scope(&input.scope);
    state::set(s, &input.key, input.value.as_bytes())?;
    match input.then {
        Then::Ok => {}
        Then::Fail => return Err(SkillError::HandlerError("failing after the write".into())),
        Then::Trap => panic!("trapping after the write"),
        Then::Spin => {
            let mut n: u64 = 0;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
    }
    Ok(Got {
        value: Some(input.value),
        keys: state::keys(s, "")?,
    })
}

fn get(input: Get, _: &CallContext) -> Result<Got, SkillError> {
    let s = scope(&input.scope);
    let value = state::get(s, &input.key)?.map(|v| String::from_utf8_lossy(&v).into_owned());
    Ok(Got {
        value,
        keys: state::keys(s, "")?,
    })
}

/// The same guest touching no state: the baseline of the state benchmark.
fn noop(input: Get, _: &CallContext) -> Result<Got, SkillError> {
    Ok(Got {
        value: Some(input.key),
        keys: Vec::new(),
    })
}

limina_sdk::export_package!(
    Package::new()
        .skill(Skill::new(
            "stash.noop",
            "0.1.0",
            "Touches no state (a baseline).",
            noop
        ))
        .skill(
            Skill::new("stash.put", "0.1.0", "Writes a key, then ends as told.", put)
                .permissions(&["state.write"])
        )
        .skill(
            Skill::new("stash.get", "0.1.0", "Reads a key and lists the scope's keys.", get)
                .permissions(&["state.read"])
        )
);
