//! What one call's guest may reach outside the world: its package's declared grants, what the
//! host gives that package now, the resolver outbound names go through, what the session's
//! network budget has left, and the secret values to take out of whatever the guest says.
//! Built per call (cheaply: shared parts are `Arc`s) only for packages that declare grants.

use super::Resolver;
use crate::grants::{Grants, HostGrants};
use std::sync::Arc;

/// A call's reach outside the world.
#[derive(Clone)]
pub struct Reach {
    pub package: Arc<str>,
    /// The manifest's `[grants]`.
    pub declared: Arc<Grants>,
    /// What the host's configuration gives, now.
    pub host: Arc<HostGrants>,
    pub resolver: Arc<dyn Resolver>,
    /// The roots `https` requests trust.
    pub tls: super::TlsRoots,
    /// Requests and bytes the session may still send (`None`: unbounded).
    pub net_left: (Option<u64>, Option<u64>),
    /// Secret values never to pass on (see [`crate::grants::secrets::redact`]).
    pub redact: Arc<Vec<String>>,
}

impl Reach {
    /// `text` without any secret value the package could see.
    pub fn redact<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        crate::grants::secrets::redact(text, &self.redact)
    }

    /// A guest's JSON answer without any secret value, however its strings are escaped.
    pub fn redact_json<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        crate::grants::secrets::redact_json(text, &self.redact)
    }
}
