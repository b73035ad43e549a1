//! A synthetic history shaped like a busy host's, for the index benchmark and the crash tests:
//! per call a policy decision (one in five denied) and, when allowed, the `skill.executed`
//! it causes, across a few sessions, skills and packages.

use super::{NewEvent, Retention, Tracer};
use anyhow::Result;
use serde_json::json;
use std::path::Path;

const CAPS: [(&str, Option<&str>); 6] = [
    ("scene.createEntity", None),
    ("scene.queryEntities", None),
    ("dice.roll", Some("dice")),
    ("names.generate", Some("names")),
    ("physics.applyImpulse", None),
    ("trace.tail", None),
];

/// Appends about `events` events to the durable trace in `dir` (made if missing) and returns
/// how many calls were traced. The index is left as it was: a host opening the folder next
/// brings it up to date.
pub fn write_history(dir: &Path, events: u64, retention: Retention) -> Result<u64> {
    let mut tracer = Tracer::open_on(
        dir,
        0,
        retention,
        super::Durability {
            fsync: super::Fsync::Never,
            ..Default::default()
        },
        std::sync::Arc::new(super::disk::RealDisk),
        false,
    )?;
    let mut calls = 0;
    let start = tracer.count();
    while tracer.count() - start < events {
        calls += 1;
        let (cap, package) = CAPS[(calls % CAPS.len() as u64) as usize];
        let session = format!("sess_{}", calls % 7);
        let agent = format!("agent_{}", calls % 5);
        let allow = calls % 5 != 0;
        let rule = if allow {
            "profile.grant"
        } else {
            "profile.missing"
        };
        let decision = tracer.emit(NewEvent {
            kind: if allow { "policy.decision" } else { "policy.denied" }.into(),
            actor_id: agent.clone(),
            thread_id: session.clone(),
            parent_event_id: None,
            caused_by: vec![],
            payload: json!({
                "boundary": "tool", "cap": cap, "allow": allow, "rule": rule,
                "reason": if allow { "granted by the profile" } else { "the profile lacks the permission" },
                "agentId": agent, "sessionId": session, "profile": "builder.readWrite",
                "package": package, "requiredPermissions": ["scene.write"], "tick": calls,
                "quota": null, "budget": {"calls": calls, "cpuMs": 0.25},
            }),
        });
        if allow {
            tracer.emit(NewEvent {
                kind: "skill.executed".into(),
                actor_id: agent,
                thread_id: session,
                parent_event_id: None,
                caused_by: vec![decision],
                payload: json!({"skill": cap, "ok": true, "fuelUsed": 1200 + calls % 300, "durationUs": 40}),
            });
        }
        if calls % 1024 == 0 {
            tracer.flush()?;
        }
    }
    tracer.flush()?;
    Ok(calls)
}
