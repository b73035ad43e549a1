//! What a socket transport does with a bearer token the edge refused: the answer (401 for a
//! missing or invalid token, 403 for one without the scope needed, 503 when the identity
//! provider cannot be reached to check it) with its `WWW-Authenticate` challenge, a log line
//! saying why, and a `session.admission.denied` event in the trace — both capped per second
//! (`IDENTITY_REFUSALS_PER_SECOND`), so a flood of bad tokens cannot flood either. The token
//! itself is never repeated anywhere.

use super::edge::{Admission, Transport};
use crate::identity::Refusal;
use crate::mcp::engine::inbox::{EngineHandle, Inbound};
use hyper::StatusCode;
use hyper::header::HeaderValue;

/// A refusal as a transport answers it.
pub(super) struct Answer {
    pub status: StatusCode,
    /// `WWW-Authenticate`.
    pub challenge: HeaderValue,
    /// What the client is told.
    pub message: String,
}

/// Reports `refusal` (log, trace) and says how to answer it.
pub(super) fn refused(
    admission: &Admission,
    engine: &EngineHandle,
    transport: Transport,
    refusal: &Refusal,
) -> Answer {
    let status = StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::UNAUTHORIZED);
    let reason = format!(
        "{} {}: {}",
        status.as_u16(),
        refusal.code(),
        refusal.reason()
    );
    if let Some(unreported) = admission.report() {
        let also = if unreported > 0 {
            format!(" ({unreported} more refusals before it were not logged)")
        } else {
            String::new()
        };
        let line = format!(
            "refused a {} client's bearer token: {reason}{also}",
            transport.name()
        );
        if refusal.status() == 503 {
            crate::log::warn(&line);
        } else {
            crate::log::info(&line);
        }
        engine.send(Inbound::Refused {
            agent: refusal.subject().map(str::to_string),
            reason: format!("{} {reason}", transport.name()),
        });
    }
    let challenge = HeaderValue::from_str(&admission.challenge(refusal))
        .unwrap_or_else(|_| HeaderValue::from_static("Bearer"));
    Answer {
        status,
        challenge,
        message: refusal.reason(),
    }
}
