//! The end of a call that may have reached outside: its outbound requests are closed, traced
//! (`net.request`, or `security.permission.denied` naming the rule for a refusal, caused by the
//! call) and totalled for the session's `budget.net`; and any secret value the guest echoed is
//! taken out of what it says back — log lines, error messages, trace events, output.

use super::bindings::SkillError;
use super::instance::{ActiveCall, CallFailure, CallOutcome, GuestState};
use crate::net::Reach;
use crate::net::{NetCall, NetUsage};
use serde_json::json;

impl GuestState {
    /// `text` without the secret values of the call in progress.
    pub(super) fn redacted(&self, text: String) -> String {
        match self.call.as_ref().and_then(|c| c.info.reach.as_ref()) {
            Some(reach) if !reach.redact.is_empty() => reach.redact(&text).into_owned(),
            _ => text,
        }
    }

    /// JSON `text` without the secret values of the call in progress, however its strings
    /// are escaped.
    pub(super) fn redacted_json(&self, text: String) -> String {
        match self.call.as_ref().and_then(|c| c.info.reach.as_ref()) {
            Some(reach) if !reach.redact.is_empty() => reach.redact_json(&text).into_owned(),
            _ => text,
        }
    }
}

/// Closes the call's requests (a body left unread can no longer be read), traces each one and
/// returns what they cost.
pub(super) fn close_requests(active: &mut ActiveCall, package: &str, net: NetCall) -> NetUsage {
    for record in &net.records {
        record.close();
        let info = &active.info;
        let (kind, payload) = match record.refusal() {
            None => ("net.request", record.request_payload(package, &info.skill)),
            Some((rule, reason)) => (
                "security.permission.denied",
                json!({
                    "boundary": "net",
                    "skill": info.skill,
                    "package": package,
                    "rule": rule,
                    "reason": reason,
                    "missing": (rule == "profile.denied").then_some("net.outbound"),
                    "method": record.method,
                    "scheme": record.scheme,
                    "host": record.host,
                    "port": record.port,
                    "path": record.path,
                    "agentId": info.agent_id,
                    "sessionId": info.session_id,
                }),
            ),
        };
        let payload = match &info.reach {
            Some(reach) if !reach.redact.is_empty() => {
                serde_json::from_str(&reach.redact(&payload.to_string())).unwrap_or(payload)
            }
            _ => payload,
        };
        if let Some((rule, _)) = record.refusal() {
            crate::log::debug(&format!(
                "[{package}] refused {} {}://{}:{}{} ({rule})",
                record.method, record.scheme, record.host, record.port, record.path
            ));
        }
        active.emit(kind, payload);
    }
    NetUsage::of(&net.records)
}

/// What a guest call answers with, so secret values can be taken out of it.
pub trait Answer {
    fn redact(&mut self, reach: &Reach);
}

impl Answer for String {
    fn redact(&mut self, reach: &Reach) {
        // An answer is JSON text: read as its readers will read it.
        if let std::borrow::Cow::Owned(clean) = reach.redact_json(self) {
            *self = clean;
        }
    }
}

impl Answer for super::GuestOutput {
    fn redact(&mut self, reach: &Reach) {
        use crate::call::{Content, ContentBody};
        self.structured.redact(reach);
        // Text a person or model reads; the bytes of a picture or a sound are not searched.
        let clean = |text: &mut String| *text = reach.redact(text).into_owned();
        for block in &mut self.content {
            match block {
                Content::Text(text)
                | Content::Embedded {
                    body: ContentBody::Text(text),
                    ..
                } => clean(text),
                Content::ResourceLink {
                    description: Some(text),
                    ..
                } => clean(text),
                _ => {}
            }
        }
    }
}

impl Answer for Option<super::ReadContents> {
    fn redact(&mut self, reach: &Reach) {
        if let Some(super::ReadContents {
            body: crate::call::ContentBody::Text(text),
            ..
        }) = self
        {
            *text = reach.redact(text).into_owned();
        }
    }
}

impl Answer for Vec<super::PromptLine> {
    fn redact(&mut self, reach: &Reach) {
        use crate::call::{Content, ContentBody};
        for line in self {
            if let Content::Text(text)
            | Content::Embedded {
                body: ContentBody::Text(text),
                ..
            } = &mut line.content
            {
                *text = reach.redact(text).into_owned();
            }
        }
    }
}

impl Answer for Option<String> {
    fn redact(&mut self, reach: &Reach) {
        if let Some(text) = self {
            text.redact(reach);
        }
    }
}

/// Takes secret values out of the guest's output, error messages and log lines.
pub(super) fn redact_outcome<T: Answer>(reach: &Reach, outcome: &mut CallOutcome<T>) {
    if reach.redact.is_empty() {
        return;
    }
    for line in &mut outcome.logs {
        line.message = reach.redact(&line.message).into_owned();
    }
    match &mut outcome.result {
        Ok(Ok(answer)) => answer.redact(reach),
        Ok(Err(e)) => {
            let text = match e {
                SkillError::InvalidInput(m)
                | SkillError::Forbidden(m)
                | SkillError::HandlerError(m)
                | SkillError::CapacityExceeded(m)
                | SkillError::NotFound(m) => m,
            };
            *text = reach.redact(text).into_owned();
        }
        Err(CallFailure::Trap(m)) => *m = reach.redact(m).into_owned(),
        _ => {}
    }
}
