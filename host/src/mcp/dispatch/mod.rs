//! The dispatcher: one message in, at most one reply out, the same for every transport.
//! [`Server`](server::Server) holds the registry and the protocol layer's own state (stateless
//! identities, approval questions, tasks, the sync index, deferred replies); a
//! [`Connection`](server::Connection) holds what one client is owed (its session once bound at
//! `initialize`, its subscription, its cancellation flags); a `Request` (`request.rs`) holds
//! what one request carries — its id, revision, who it runs as, its cancellation flag, its
//! progress token and how its reply is shaped — built once in `Server::handle` and passed down.
//!
//! - `server`: the dispatcher's state, how a message is read and how a request ends (reply,
//!   detached to a worker, or kept open); `methods`: the method table, `initialize`,
//!   `tools/list` and `tools/call`; `answer`: results on their way to the reply; `stateless`
//!   serves 2026-07-28 requests without a session; `session` binds one at `initialize`.
//! - `tools`, `call_result`: tool listings and call results written straight to their reply.
//! - `resources`, `prompts`: resources (reads and subscriptions), prompts and completion.
//! - `tasks`, `approval`, `sync` (with `aoi`), `reload`, `deferred`, `observe`: tasks, the
//!   approval gate, state sync, hot reload, replies that wait for the batch's write, and what
//!   telemetry is told.
//!
//! Called by the engine loop only; it uses the registry below it, the engine's shared pieces
//! (`engine::{outbox, cancel, clock, inbox}`), the network edge's grants, and `wire/` for every
//! shape it puts on the wire. It never touches a socket.

mod answer;
pub(crate) mod aoi;
pub(crate) mod approval;
pub(crate) mod call_result;
pub(crate) mod deferred;
mod methods;
mod observe;
mod prompts;
mod reload;
mod request;
pub(crate) mod resources;
pub(crate) mod server;
pub(crate) mod session;
mod stateless;
pub(crate) mod sync;
mod tasks;
#[cfg(test)]
pub(crate) mod test_server;
mod tools;
