//! Policy decisions as trace events: allow is `policy.decision`, deny `policy.denied`, and a
//! missing permission also `security.permission.denied`.

use super::Caller;
use crate::policy::{QuotaSnapshot, Verdict};
use crate::realm::Realm;
use crate::trace::NewEvent;
use serde::Serialize;
use serde_json::{Value, json};

/// The ids of the events a decision produced; `id` is the decision itself.
pub(super) struct Recorded {
    pub id: String,
    pub events: Vec<String>,
}

/// Where a decision was made and about what.
pub(super) struct Crossing<'a> {
    /// `registry`, `session`, `package`, `host-import`.
    pub boundary: &'a str,
    /// The capability: a skill name, or a package name for admissions.
    pub cap: &'a str,
    pub package: Option<&'a str>,
    pub required: Vec<&'static str>,
}

/// Writes the decision (and the permission denial, if any) into the trace.
pub(super) fn record(
    realm: &mut Realm,
    caller: &Caller,
    crossing: Crossing<'_>,
    verdict: &Verdict,
) -> Recorded {
    record_caused(realm, caller, crossing, verdict, None)
}

/// As `record`, with the decision caused by an earlier event (e.g. `package.installed`).
pub(super) fn record_caused(
    realm: &mut Realm,
    caller: &Caller,
    crossing: Crossing<'_>,
    verdict: &Verdict,
    cause: Option<&str>,
) -> Recorded {
    record_full(realm, caller, crossing, verdict, cause, None)
}

/// As `record`, for a call an `[[approve]]` rule held: the decision names the answer and who
/// gave it (`approval {outcome, answeredBy, detail}`).
pub(super) fn record_call(
    realm: &mut Realm,
    caller: &Caller,
    crossing: Crossing<'_>,
    verdict: &Verdict,
    approval: Option<&crate::policy::Approval>,
) -> Recorded {
    record_full(realm, caller, crossing, verdict, None, approval)
}

fn record_full(
    realm: &mut Realm,
    caller: &Caller,
    crossing: Crossing<'_>,
    verdict: &Verdict,
    cause: Option<&str>,
    approval: Option<&crate::policy::Approval>,
) -> Recorded {
    let tick = realm.world.tick();
    let kind = if verdict.allow {
        "policy.decision"
    } else {
        "policy.denied"
    };
    let payload = DecisionPayload {
        agent_id: &caller.agent_id,
        allow: verdict.allow,
        approval: approval.map(|approval| ApprovalPayload {
            answered_by: &approval.answered_by,
            detail: &approval.detail,
            outcome: match approval.outcome {
                crate::policy::Outcome::Accepted => "accepted",
                crate::policy::Outcome::Declined => "declined",
                crate::policy::Outcome::Unavailable => "unavailable",
            },
        }),
        boundary: crossing.boundary,
        budget: &verdict.budget,
        cap: crossing.cap,
        package: crossing.package,
        profile: &caller.profile,
        quota: &verdict.quota,
        reason: &verdict.reason,
        required_permissions: &crossing.required,
        rule: verdict.rule,
        session_id: &caller.session_id,
        tick,
    };
    let id = realm.tracer.emit(NewEvent {
        kind,
        actor_id: caller.agent_id.as_str(),
        thread_id: caller.session_id.as_str(),
        parent_event_id: cause,
        caused_by: cause.into_iter().collect(),
        payload,
    });
    let mut events = vec![id.clone()];
    if let Some(missing) = verdict.missing {
        let denied = NewEvent {
            kind: "security.permission.denied".into(),
            actor_id: caller.agent_id.clone(),
            thread_id: caller.session_id.clone(),
            parent_event_id: Some(id.clone()),
            caused_by: vec![id.clone()],
            payload: json!({"skill": crossing.cap, "missing": missing.as_str(), "agentId": caller.agent_id, "boundary": crossing.boundary}),
        };
        events.push(realm.tracer.emit(denied));
    }
    Recorded { id, events }
}

/// A decision's payload, written straight to the trace on every call (no `Value` built, its
/// strings copied after one vectorized check instead of serde's escaping byte by byte).
struct DecisionPayload<'a> {
    agent_id: &'a str,
    allow: bool,
    /// Written only for a call an `[[approve]]` rule held.
    approval: Option<ApprovalPayload<'a>>,
    boundary: &'a str,
    budget: &'a Option<Value>,
    cap: &'a str,
    package: Option<&'a str>,
    profile: &'a str,
    quota: &'a Option<QuotaSnapshot>,
    reason: &'a str,
    required_permissions: &'a [&'static str],
    rule: &'a str,
    session_id: &'a str,
    tick: u64,
}

impl crate::trace::Payload for DecisionPayload<'_> {
    /// Members in code-point order of their names: the canonical form.
    fn write_json(&self, out: &mut Vec<u8>) {
        let mut w = crate::trace::JsonWriter::object(out);
        w.str("agentId", self.agent_id).bool("allow", self.allow);
        if let Some(approval) = &self.approval {
            w.value("approval", approval);
        }
        w.str("boundary", self.boundary)
            .value("budget", self.budget)
            .str("cap", self.cap)
            .opt_str("package", self.package)
            .str("profile", self.profile)
            .value("quota", self.quota)
            .str("reason", self.reason)
            .strs("requiredPermissions", self.required_permissions)
            .str("rule", self.rule)
            .str("sessionId", self.session_id)
            .u64("tick", self.tick)
            .end();
    }
}

/// How an `[[approve]]` rule's question was answered, in code-point order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApprovalPayload<'a> {
    answered_by: &'a Value,
    detail: &'a str,
    outcome: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Payload;

    fn written(payload: &DecisionPayload) -> String {
        let mut out = Vec::new();
        payload.write_json(&mut out);
        String::from_utf8(out).unwrap()
    }

    /// The hand-written payload is the canonical text of the same decision as plain JSON, with
    /// every optional part present or absent and strings that need escaping.
    #[test]
    fn a_decision_payload_is_written_as_its_canonical_json() {
        let budget = Some(json!({"cpuMsLeft": 12.5, "calls": {"left": 3}}));
        let quota = Some(QuotaSnapshot {
            key: "scene.*".into(),
            limit: 10,
            remaining: 9,
            used: 1,
            window_ms: 60_000,
        });
        let answered_by = json!({"agentId": "op", "via": "elicitation"});
        let required = ["scene.read", "scene.write"];
        let full = DecisionPayload {
            agent_id: "agent \"q\" é",
            allow: false,
            approval: Some(ApprovalPayload {
                answered_by: &answered_by,
                detail: "declined\nby op",
                outcome: "declined",
            }),
            boundary: "registry",
            budget: &budget,
            cap: "scene.createEntity",
            package: Some("scene"),
            profile: "builder.readWrite",
            quota: &quota,
            reason: "missing permission: `scene.write` \\ tab\t",
            required_permissions: &required,
            rule: "profile.denied",
            session_id: "s1",
            tick: u64::MAX,
        };
        let text = written(&full);
        let expected = json!({
            "agentId": "agent \"q\" é", "allow": false,
            "approval": {"answeredBy": answered_by, "detail": "declined\nby op", "outcome": "declined"},
            "boundary": "registry", "budget": budget, "cap": "scene.createEntity",
            "package": "scene", "profile": "builder.readWrite",
            "quota": {"key": "scene.*", "limit": 10, "remaining": 9, "used": 1, "windowMs": 60000},
            "reason": "missing permission: `scene.write` \\ tab\t",
            "requiredPermissions": ["scene.read", "scene.write"], "rule": "profile.denied",
            "sessionId": "s1", "tick": u64::MAX,
        });
        assert_eq!(text, crate::json::text(&expected));

        let bare = DecisionPayload {
            approval: None,
            budget: &None,
            package: None,
            quota: &None,
            required_permissions: &[],
            allow: true,
            tick: 0,
            ..full
        };
        let expected = json!({
            "agentId": "agent \"q\" é", "allow": true, "boundary": "registry", "budget": null,
            "cap": "scene.createEntity", "package": null, "profile": "builder.readWrite",
            "quota": null, "reason": "missing permission: `scene.write` \\ tab\t",
            "requiredPermissions": [], "rule": "profile.denied", "sessionId": "s1", "tick": 0,
        });
        assert_eq!(written(&bare), crate::json::text(&expected));
    }
}
