//! One world, several processes: a `limina` that finds its trace folder held by a live host
//! joins that host instead of failing, and takes the world over when that host ends.
//!
//! How it fits together:
//! - The serving host (the one holding the trace folder's lock) listens on a Unix domain
//!   socket in the trace folder ([`socket`]: `control.sock`, mode 0600, a stale one left by a
//!   crash replaced). Each connection starts with a versioned handshake of one JSON line each
//!   way ([`handshake`]); the server checks the peer's uid with `SO_PEERCRED` ([`peer`]) and
//!   refuses any other user. A connection is either a client's (then MCP messages flow both
//!   ways as length-prefixed [`frame`]s, each relayed client being one connection on the
//!   server, with its own session and outbox like a WebSocket one) or a `limina status`
//!   question ([`status`]).
//! - A joined process relays its own stdio client over such a connection ([`relay`]) on one
//!   thread: no thread hop per message, each direction written in batches. It watches what
//!   its client's session needs to be recreated ([`resume`]) and which requests are still
//!   unanswered.
//! - When the server ends (its client closed stdin, a signal, kill -9), each joined process
//!   sees its connection close. It answers the calls that were in flight with an error saying
//!   they may or may not have run, then either takes the trace folder's lock (the lock decides:
//!   never two writers; see [`holder`]), restores the world and serves, or joins the one that
//!   did; either way its client's session is recreated with the same ids.
//! - The serving host's configuration serves everyone: a joining process whose own flags
//!   differ says so once on stderr ([`settings`]).

pub mod frame;
pub mod handshake;
pub mod holder;
pub mod peer;
pub mod relay;
pub mod resume;
pub mod settings;
pub mod socket;
pub mod status;
