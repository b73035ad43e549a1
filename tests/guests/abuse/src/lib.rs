//! Hostile guest: each skill does one bad thing.

use limina_sdk::Vec3;
use limina_sdk::host::{log, random, scene};
use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Empty {}

#[derive(Serialize, JsonSchema)]
struct Out {
    value: String,
}

/// Loops over a cheap host import: no guest work to speak of, so only the deadline stops it.
fn import_loop(_: Empty, _: &CallContext) -> Result<Out, SkillError> {
    let mut x = 0u64;
    loop {
        x ^= random::next_u64();
        std::hint::black_box(x);
    }
}

#[inline(never)]
#[allow(unconditional_recursion)] // the point of this guest
fn dive(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; 16]);
    dive(depth + 1) + frame[3]
}

/// Recurses without end: the wasm stack limit stops it.
fn recurse(_: Empty, _: &CallContext) -> Result<Out, SkillError> {
    Ok(Out {
        value: dive(0).to_string(),
    })
}

/// Returns 2 MiB of output, over the host's output cap.
fn big_output(_: Empty, _: &CallContext) -> Result<Out, SkillError> {
    Ok(Out {
        value: "x".repeat(2 << 20),
    })
}

/// Declares `value` as a number in its schema but serializes a string.
#[derive(JsonSchema)]
struct Liar {
    #[allow(dead_code)] // only its schema matters
    value: u32,
}

impl Serialize for Liar {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = s.serialize_struct("Liar", 1)?;
        out.serialize_field("value", "not a number")?;
        out.end()
    }
}

/// Returns output that breaks its own output schema.
fn wrong_shape(_: Empty, _: &CallContext) -> Result<Liar, SkillError> {
    Ok(Liar { value: 0 })
}

/// Returns bytes that are not UTF-8 where the contract says a string.
fn bad_utf8(_: Empty, _: &CallContext) -> Result<Out, SkillError> {
    // SAFETY: deliberately breaks String's invariant; the host must reject it at the boundary.
    let value = unsafe { String::from_utf8_unchecked(vec![b'"', 0xff, 0xfe, b'"']) };
    Ok(Out { value })
}

#[derive(Deserialize, JsonSchema)]
struct Claims {
    /// Who the payload claims to be.
    #[serde(rename = "agentId", default)]
    agent_id: Option<String>,
    #[serde(rename = "sessionId", default)]
    session_id: Option<String>,
}

#[derive(Serialize, JsonSchema)]
struct Identity {
    agent: String,
    session: String,
    claimed_agent: Option<String>,
    claimed_session: Option<String>,
}

/// Reports the identity the host bound, next to what the payload claimed.
fn whoami(input: Claims, ctx: &CallContext) -> Result<Identity, SkillError> {
    Ok(Identity {
        agent: ctx.agent_id.clone(),
        session: ctx.session_id.clone(),
        claimed_agent: input.agent_id,
        claimed_session: input.session_id,
    })
}

/// Creates an entity although the package declares no capability.
fn sneaky_create(_: Empty, _: &CallContext) -> Result<Out, SkillError> {
    let spec = scene::EntitySpec {
        shape: scene::Shape::Box,
        collider: None,
        size: 1.0,
        color: 0,
        position: Vec3 {
            x: 0.0,
            y: 0.0,
            z: 0.0,
        },
        body: scene::BodyKind::None,
        friction: 0.5,
        restitution: 0.0,
    };
    Ok(Out {
        value: scene::create_entity(spec)?,
    })
}

#[derive(Deserialize, JsonSchema)]
struct Lines {
    lines: u32,
}

/// Logs `lines` info lines and one error: more than the host passes on per call.
fn chatty(input: Lines, _: &CallContext) -> Result<Out, SkillError> {
    for i in 0..input.lines {
        log::log(log::Level::Info, &format!("line {i}"));
    }
    log::log(log::Level::Error, "something went wrong");
    Ok(Out {
        value: "done".into(),
    })
}

limina_sdk::export_package!(
    Package::new()
        .skill(Skill::new(
            "abuse.importLoop",
            "0.1.0",
            "Loops over a host import.",
            import_loop
        ))
        .skill(Skill::new(
            "abuse.recurse",
            "0.1.0",
            "Recurses forever.",
            recurse
        ))
        .skill(Skill::new(
            "abuse.bigOutput",
            "0.1.0",
            "Returns 2 MiB.",
            big_output
        ))
        .skill(Skill::new(
            "abuse.badUtf8",
            "0.1.0",
            "Returns invalid UTF-8.",
            bad_utf8
        ))
        .skill(Skill::new("abuse.chatty", "0.1.0", "Logs a lot.", chatty))
        .skill(Skill::new(
            "abuse.whoami",
            "0.1.0",
            "Echoes the bound identity.",
            whoami
        ))
        .skill(Skill::new(
            "abuse.sneakyCreate",
            "0.1.0",
            "Creates an entity without the capability.",
            sneaky_create
        ))
        .skill(Skill::new(
            "abuse.wrongShape",
            "0.1.0",
            "Breaks its output schema.",
            wrong_shape
        ))
);
