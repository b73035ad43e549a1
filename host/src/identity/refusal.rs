//! Why a bearer token was not accepted, in the words a client and an operator need: the HTTP
//! status (RFC 6750 §3.1: 401 for a missing or invalid token, 403 for one without the scope
//! needed; 503 when the provider cannot be reached to check it), a short code for logs and the
//! trace, a reason naming what to change, and the `WWW-Authenticate` challenge pointing at the
//! protected resource metadata (RFC 9728 §5.1). No reason ever repeats the token.

use super::jws::printable;
use crate::limits::IDENTITY_REFUSALS_PER_SECOND;

/// A refused token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No `Authorization: Bearer` header.
    Missing,
    /// The token is not one the host accepts (401, `invalid_token`).
    Invalid { code: &'static str, reason: String },
    /// A valid token without the scopes needed (403, `insufficient_scope`).
    Scope {
        needed: Vec<String>,
        reason: String,
        /// Who the token names (it was verified).
        subject: String,
    },
    /// The provider could not be reached to check the token (503): nothing is known about it.
    Unavailable { reason: String },
}

impl Refusal {
    /// An invalid token: `code` for logs, `reason` for the client.
    pub fn invalid(code: &'static str, reason: impl Into<String>) -> Refusal {
        Refusal::Invalid {
            code,
            reason: reason.into(),
        }
    }

    /// The HTTP status it is answered with.
    pub fn status(&self) -> u16 {
        match self {
            Refusal::Missing | Refusal::Invalid { .. } => 401,
            Refusal::Scope { .. } => 403,
            Refusal::Unavailable { .. } => 503,
        }
    }

    /// A short, stable code: `missing`, `insufficient_scope`, `unavailable`, or what was wrong
    /// with an invalid token (`expired`, `audience`, `signature`, …).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Missing => "missing",
            Refusal::Invalid { code, .. } => code,
            Refusal::Scope { .. } => "insufficient_scope",
            Refusal::Unavailable { .. } => "unavailable",
        }
    }

    /// What the client (and the log) is told.
    pub fn reason(&self) -> String {
        match self {
            Refusal::Missing => {
                "a bearer token is required: send `Authorization: Bearer <token>`".into()
            }
            Refusal::Invalid { reason, .. }
            | Refusal::Scope { reason, .. }
            | Refusal::Unavailable { reason } => reason.clone(),
        }
    }

    /// The subject of a verified token refused for its scope.
    pub fn subject(&self) -> Option<&str> {
        match self {
            Refusal::Scope { subject, .. } => Some(subject),
            _ => None,
        }
    }

    /// The `WWW-Authenticate` value: the metadata document's URL, the scopes a token needs
    /// (`required`, for a missing one), and for a bad token the error and its description.
    pub fn challenge(&self, metadata_url: &str, required: &[String]) -> String {
        let mut out = format!("Bearer resource_metadata=\"{metadata_url}\"");
        let mut scope = |scopes: &[String]| {
            if !scopes.is_empty() {
                out.push_str(&format!(", scope=\"{}\"", scopes.join(" ")));
            }
        };
        match self {
            Refusal::Missing | Refusal::Unavailable { .. } => scope(required),
            Refusal::Invalid { .. } => {}
            Refusal::Scope { needed, .. } => {
                scope(needed);
                out.push_str(", error=\"insufficient_scope\"");
            }
        }
        if let Refusal::Invalid { .. } = self {
            out.push_str(", error=\"invalid_token\"");
        }
        if !matches!(self, Refusal::Missing) {
            out.push_str(&format!(
                ", error_description=\"{}\"",
                description(&self.reason())
            ));
        }
        out
    }
}

/// `reason` as RFC 6750 allows an `error_description`: printable ASCII without `"` or `\`.
fn description(reason: &str) -> String {
    let text: String = reason
        .chars()
        .map(|c| match c {
            '`' => '\'',
            c if c.is_ascii_graphic() || c == ' ' => c,
            _ => ' ',
        })
        .filter(|c| *c != '"' && *c != '\\')
        .take(300)
        .collect();
    printable_tail(text)
}

/// Cuts a trailing partial word off a description cut at its length limit.
fn printable_tail(text: String) -> String {
    if text.len() < 300 {
        return text;
    }
    let cut = text.rfind(' ').unwrap_or(text.len());
    format!("{}...", &text[..cut])
}

/// `value` quoted for a reason: printable and short.
pub fn quoted(value: &str) -> String {
    format!("`{}`", printable(value))
}

/// How many refusals are written to the log and the trace: at most
/// [`IDENTITY_REFUSALS_PER_SECOND`] a second; the rest are counted and the count given with the
/// next one written, so a flood of bad tokens cannot flood either.
#[derive(Debug, Default)]
pub struct RefusalReports {
    window: std::sync::Mutex<(Option<std::time::Instant>, u32, u64)>,
}

impl RefusalReports {
    /// Whether this refusal is reported; `Some(n)`: yes, and `n` were left unreported before it.
    pub fn report(&self) -> Option<u64> {
        let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
        let (started, written, skipped) = &mut *w;
        let now = std::time::Instant::now();
        if started.is_none_or(|s| now.duration_since(s) >= std::time::Duration::from_secs(1)) {
            *started = Some(now);
            *written = 0;
        }
        if *written >= IDENTITY_REFUSALS_PER_SECOND {
            *skipped += 1;
            return None;
        }
        *written += 1;
        Some(std::mem::take(skipped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "https://mcp.example/.well-known/oauth-protected-resource/mcp";

    #[test]
    fn each_refusal_has_its_status_and_challenge() {
        let scopes = vec!["mcp:tools".to_string()];
        let missing = Refusal::Missing;
        assert_eq!(missing.status(), 401);
        assert_eq!(
            missing.challenge(URL, &scopes),
            format!("Bearer resource_metadata=\"{URL}\", scope=\"mcp:tools\"")
        );
        let expired = Refusal::invalid("expired", "the token expired at 12 (\"now\" is 40)");
        assert_eq!(expired.status(), 401);
        assert_eq!(
            expired.challenge(URL, &scopes),
            format!(
                "Bearer resource_metadata=\"{URL}\", error=\"invalid_token\", error_description=\"the token expired at 12 (now is 40)\""
            )
        );
        let scope = Refusal::Scope {
            needed: vec!["a".into(), "b".into()],
            reason: "the token lacks `a`".into(),
            subject: "alice".into(),
        };
        assert_eq!(scope.status(), 403);
        assert_eq!(scope.code(), "insufficient_scope");
        assert_eq!(scope.subject(), Some("alice"));
        assert_eq!(
            scope.challenge(URL, &scopes),
            format!(
                "Bearer resource_metadata=\"{URL}\", scope=\"a b\", error=\"insufficient_scope\", error_description=\"the token lacks 'a'\""
            )
        );
        let down = Refusal::Unavailable {
            reason: "the provider did not answer".into(),
        };
        assert_eq!(down.status(), 503);
        assert!(down.challenge(URL, &[]).contains("error_description"));
    }

    #[test]
    fn reports_are_capped_per_second_and_the_rest_counted() {
        let reports = RefusalReports::default();
        for _ in 0..IDENTITY_REFUSALS_PER_SECOND {
            assert_eq!(reports.report(), Some(0));
        }
        assert_eq!(reports.report(), None);
        assert_eq!(reports.report(), None);
        reports.window.lock().unwrap().0 =
            Some(std::time::Instant::now() - std::time::Duration::from_secs(2));
        assert_eq!(reports.report(), Some(2));
    }

    #[test]
    fn a_long_description_is_cut_at_a_word() {
        let long = Refusal::invalid("malformed", "word ".repeat(100));
        let challenge = long.challenge(URL, &[]);
        assert!(challenge.ends_with("word...\""), "{challenge}");
    }
}
