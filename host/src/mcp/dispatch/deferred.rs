//! Replies that wait for their call's events. A read the registry let leave its events for the
//! batch's write (`registry/deferral.rs`) is answered only once that write is done: the engine
//! holds its reply, and at the batch's end sends it — or, when the write failed, the refusal
//! the call would have got had its own write failed. Only requests in the 2025 shapes
//! (`tools/call`, `callTool`) are deferred, and none while telemetry reports each request's
//! outcome as it ends.

use super::answer::{limina_result, mcp_result};
use super::server::{CallShape, Server};
use crate::call::Failure;
use crate::mcp::wire::jsonrpc::reply;
use crate::registry::Response;
use serde_json::Value;

/// Whether and what the server defers.
#[derive(Default)]
pub(in crate::mcp) struct Deferring {
    /// The engine holds replies until the batch is written (`Server::defer_reads`).
    on: bool,
    /// The request being handled may be deferred.
    request: bool,
    /// The reply just made, held until the batch is written.
    taken: Option<Deferred>,
}

/// A reply held for its call's events: what its refusal needs.
pub struct Deferred {
    ticket: u64,
    id: Value,
    shape: CallShape,
}

impl Deferred {
    /// The request's id.
    pub fn id(&self) -> &Value {
        &self.id
    }

    /// The reply the call gets when its events could not be written.
    pub fn refused(&self, failure: &Failure) -> Value {
        let response = Response::of(Err(failure.clone()), std::time::Instant::now(), Vec::new());
        let outcome = match self.shape {
            CallShape::Mcp => Ok(mcp_result(response)),
            CallShape::Limina => limina_result(response),
        };
        reply(self.id.clone(), outcome)
    }

    pub fn ticket(&self) -> u64 {
        self.ticket
    }
}

impl Server {
    /// Lets reads leave their events for the batch's write; the caller (the engine) holds the
    /// replies [`Server::take_deferred`] names until [`Server::flush`].
    pub fn defer_reads(&mut self) {
        self.deferring.on = true;
    }

    /// The reply just made waits for the batch's write.
    pub fn take_deferred(&mut self) -> Option<Deferred> {
        self.deferring.taken.take()
    }

    /// The held replies whose calls' events could not be written, and their refusal.
    pub fn take_refused(&mut self) -> (Vec<u64>, Failure) {
        self.registry_mut().take_refused()
    }

    /// Before a request is dispatched: whether its call may be deferred.
    pub(in crate::mcp) fn open_deferring(&mut self, modern: bool) {
        self.deferring.request = self.deferring.on && !modern && self.telemetry_off();
    }

    /// Asks the registry to defer the call about to run when the request may be.
    pub(in crate::mcp) fn allow_deferral(&mut self) {
        let allowed = self.deferring.request;
        self.registry_mut().allow_deferral(allowed);
    }

    /// After the request was dispatched: the ticket of its call, if deferred, with what its
    /// refusal needs. Asking is used up either way.
    pub(in crate::mcp) fn close_deferring(
        &mut self,
        id: &Value,
        shape: CallShape,
    ) -> Option<Deferred> {
        self.deferring.request = false;
        let registry = self.registry_mut();
        registry.allow_deferral(false);
        registry.take_deferred().map(|ticket| Deferred {
            ticket,
            id: id.clone(),
            shape,
        })
    }

    /// The reply `handled` holds waits for the batch's write.
    pub(in crate::mcp) fn hold(&mut self, deferred: Option<Deferred>) {
        self.deferring.taken = deferred;
    }
}
