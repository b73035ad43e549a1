//! Policy decisions as trace events: allow is `policy.decision`, deny `policy.denied`, and a
//! missing permission also `security.permission.denied`.

use super::Caller;
use crate::policy::Verdict;
use crate::realm::Realm;
use crate::trace::NewEvent;
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
    let new = |kind: &str, payload: Value| NewEvent {
        kind: kind.into(),
        actor_id: caller.agent_id.clone(),
        thread_id: caller.session_id.clone(),
        parent_event_id: cause.map(String::from),
        caused_by: cause.map(String::from).into_iter().collect(),
        payload,
    };
    let kind = if verdict.allow {
        "policy.decision"
    } else {
        "policy.denied"
    };
    let mut payload = json!({
            "boundary": crossing.boundary,
            "cap": crossing.cap,
            "allow": verdict.allow,
            "rule": verdict.rule,
            "reason": verdict.reason,
            "agentId": caller.agent_id,
            "sessionId": caller.session_id,
            "profile": caller.profile,
            "package": crossing.package,
            "requiredPermissions": crossing.required,
            "tick": tick,
            "quota": verdict.quota,
            "budget": verdict.budget,
    });
    if let Some(approval) = approval {
        payload["approval"] = json!({
            "outcome": match approval.outcome {
                crate::policy::Outcome::Accepted => "accepted",
                crate::policy::Outcome::Declined => "declined",
                crate::policy::Outcome::Unavailable => "unavailable",
            },
            "answeredBy": approval.answered_by,
            "detail": approval.detail,
        });
    }
    let id = realm.tracer.emit(new(kind, payload));
    let mut events = vec![id.clone()];
    if let Some(missing) = verdict.missing {
        let mut denied = new(
            "security.permission.denied",
            json!({"skill": crossing.cap, "missing": missing.as_str(), "agentId": caller.agent_id, "boundary": crossing.boundary}),
        );
        denied.parent_event_id = Some(id.clone());
        denied.caused_by = vec![id.clone()];
        events.push(realm.tracer.emit(denied));
    }
    Recorded { id, events }
}
