//! Transports: how bytes become messages and back. stdio (its input read by the engine
//! thread itself, its output queued without waiting), WebSocket and Streamable HTTP (tokio
//! tasks per connection), the listener and Origin guard the socket transports share, and the
//! network edge (`edge/`: who may connect, how many, and how much they may send).
//!
//! A transport talks to the rest of the house only through the engine's inbox: it opens a
//! connection with an [`Inbound::Open`](crate::mcp::engine::Inbound) carrying its outbox and
//! its cancellation flags, hands over each message it reads, raises a cancellation flag the
//! moment `notifications/cancelled` arrives, and writes what the engine queues on its outbox.
//! It never calls the dispatcher or the registry. The framing it checks (JSON-RPC, the
//! revisions' headers) comes from `wire/`.

mod bearer;
pub mod edge;
pub mod front;
mod guard;
pub mod http;
pub mod joined;
mod listener;
pub mod stdio;
pub(crate) mod stdout;
pub mod ws;

pub use guard::Guard;
pub use listener::Listen;
