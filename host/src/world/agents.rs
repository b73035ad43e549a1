//! Agents in the world: their bodies, movement toward targets, and what they said.

/// Agent state (filled in by the `agent` and `social` skills).
#[derive(Debug, Default)]
pub struct Agents {}
