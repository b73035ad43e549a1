//! Identity from an identity provider: the host as an OAuth 2.1 resource server (the MCP
//! authorization spec). A remote client discovers the provider from this server's protected
//! resource metadata, comes back with an access token for this server's canonical URI, and
//! the network edge asks [`Verifier::verify`] who it is.
//!
//! How a token travels: [`jws`] splits it and refuses `none`, HMAC and any algorithm off the
//! allow-list → [`provider`] holds the provider's keys ([`jwk`]; found by [`discovery`], fetched
//! by [`fetch`], again on an unknown `kid` at most once per interval) → the signature is
//! verified → [`claims`] checks issuer, audience (RFC 8707) and times → [`mapping`] turns the
//! claims into an agent and profiles under the host's ceiling. Opaque tokens go to the
//! provider's [`introspection`] endpoint instead. Anything refused is a [`Refusal`] with its
//! status, code, reason and challenge; [`metadata`] is the RFC 9728 document the challenge
//! points at. All fetching runs as tokio tasks at the edge, within a deadline; the engine never
//! waits on the provider.
//!
//! This room knows nothing of transports or the engine: the edge (`mcp::transport::edge`) calls it and
//! turns its answers into HTTP responses, log lines and trace events.

pub mod claims;
pub mod config;
pub mod discovery;
pub mod fetch;
pub mod introspection;
pub mod jwk;
pub mod jws;
pub mod mapping;
pub mod metadata;
pub mod provider;
pub mod refusal;
pub mod verifier;
#[cfg(test)]
mod verifier_tests;

pub use config::IdentityConfig;
pub use metadata::Metadata;
pub use refusal::{Refusal, RefusalReports};
pub use verifier::Verifier;

/// Who a verified token says its holder is, and what it may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The agent sessions run as (the agent claim, after the configured prefix).
    pub agent_id: String,
    /// Profiles it may take, within the host's ceiling; the first is its default.
    pub profiles: Vec<String>,
    /// The scopes the token carries.
    pub scopes: Vec<String>,
    /// The client the token was issued to, if it says.
    pub client_id: Option<String>,
    /// When the token expires (Unix seconds).
    pub expires_at: u64,
    /// What a client asking for more is told to change.
    pub setting: String,
}
