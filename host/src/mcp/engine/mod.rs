//! The engine: the one thread that owns the registry, world, policy and trace (through the
//! dispatcher's `Server`) and applies every connection's messages in arrival order.
//!
//! How a message travels:
//! - **stdio** — the engine thread reads stdin itself (`poll` on stdin and a wake-up fd), so a
//!   stdio message reaches the dispatcher with no thread hop; replies are buffered and flushed
//!   when no more input is waiting, or mid-batch once `STDIO_FLUSH_BYTES` or
//!   `STDIO_FLUSH_AFTER_US` is reached. stdout is written without waiting (`transport/stdout.rs`): what
//!   the client does not read yet stays queued and the engine polls stdout for room, so a
//!   stdio client that stops reading stalls nobody else. While a guest call runs, each epoch
//!   tick (2 ms) looks at stdin for a `notifications/cancelled` aimed at it, on the same
//!   thread.
//! - **WebSocket** — a tokio task per connection reads text frames, raises cancellation flags
//!   at once, refuses floods past its in-flight cap, and hands each message to the engine over
//!   a channel (waking it through the eventfd). The engine handles it, then queues the reply and
//!   notifications on that connection's bounded outbox, drained to the socket by its writer task.
//! - **A joined process's client** (`crate::join`) — once the control socket has welcomed it,
//!   its socket is the engine's: polled beside stdin, its frames cut into messages and its
//!   replies written by the engine thread itself (`relayed.rs`), so a relayed call costs no
//!   thread hop on this side.
//! - **Calls that cannot touch the world** (their package imports nothing that reaches the world
//!   or the trace) are decided on the engine — resolve, validate, policy, traced in arrival
//!   order — then run on a worker thread; the engine serves everyone else meanwhile and
//!   completes the call (charge, output check, `skill.executed`) when it comes back. The
//!   connection's later messages are handled at once, so several of its detached calls run
//!   together and each reply goes out as its call finishes: the budget stays exact because a
//!   detached call's most possible cost is held back when it is decided and settled when it
//!   completes (see `registry/detached.rs`). World calls run on the engine. Past
//!   `MAX_PARALLEL_CALLS` detached calls in flight, a connection's messages wait, in order.
//! - **Turns** — each connection's messages are handled in its order, and connections take
//!   turns by the engine time they used, cheapest first (`turns.rs`): a client pipelining
//!   calls, or calling a package that runs to the engine's deadline, waits behind everyone
//!   else after each of its calls, so another client waits for one call at most.
//! - **Durable state** — a call's state changes are synced by the state writer thread, many
//!   calls' at once, while the engine goes on; the call's reply (and what follows it to the
//!   same connection) leaves once they are durable, or as an error if they could not be saved
//!   (`state_waits.rs`, `crate::state`). A world checkpoint is a snapshot the engine takes by
//!   forking; it is written off the engine (`persistence/writer.rs`).
//! - After every message and every clock step the engine takes the world's change set and
//!   queues each subscriber its `state/delta`, filtered by its area of interest; `causedBy`
//!   names the events of the call that made the change.
//!
//! Bounded everywhere: a subscriber whose outbox is full misses deltas and gets a fresh
//! `state/snapshot` once it has room again (or is disconnected after `MAX_STALL_MS`); a
//! client whose replies cannot be queued is disconnected with a close reason.
//!
//! The room's files, and who may use them:
//! - `inbox`, `outbox`, `cancel`, `clock`, `vitals`: what crosses between a transport, the
//!   dispatcher and the loop — the messages a transport hands over ([`Inbound`]) through an
//!   [`EngineHandle`], a connection's way out, its cancellation flags, the world clock, and
//!   the loop's pulse and whether it drains (read by `/healthz` and `/readyz` through the
//!   handle). Transports and the dispatcher use these and nothing else of the engine.
//! - `drain` (stopping for an orchestrator: admit nothing new, let calls in flight end,
//!   checkpoint): kept by the loop.
//! - `thread` (the loop), `turns` (whose message is next), `state_waits` (replies waiting for
//!   their state), `workers` (threads for detached calls), `spin` (how long to look for the
//!   next message before sleeping): above the dispatcher and the transports; the loop
//!   reads stdin itself (`transport/stdio.rs`) and calls the dispatcher (`dispatch/`).

pub(crate) mod cancel;
pub(crate) mod clock;
mod drain;
pub(crate) mod inbox;
pub(crate) mod outbox;
pub(crate) mod relayed;
mod spin;
mod state_waits;
mod thread;
mod turns;
#[cfg(test)]
mod unsynced_tests;
pub(crate) mod vitals;
mod workers;

pub use drain::Stopped;
pub use inbox::{EngineHandle, EngineStatus, Inbound, Notify, PeerId, next_peer_id};
pub use thread::Engine;
pub use vitals::Vitals;
