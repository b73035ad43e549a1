//! The world journal: one `world.journal` trace event per call that changed the world (and
//! per call that touched it and was rolled back), holding the call's operations with the
//! steps taken since the previous record. It rides the trace, so the trace's rules cover it:
//! written and flushed before the call's reply, chained, verified, kept by retention while a
//! checkpoint needs it. A restart applies the records after the newest checkpoint in order.

use super::ReplayCost;
use crate::trace::{Event, NewEvent, events_after};
use crate::world::{Op, World};
use anyhow::{Context, Result, bail};
use serde_json::json;
use std::path::Path;

/// The trace event type of a journal record.
pub const JOURNAL_EVENT: &str = "world.journal";
/// Bumped whenever [`Op`] changes shape; a record of another format is refused.
pub const JOURNAL_FORMAT: u64 = 1;

/// Who made the record: the call's agent, session and policy decision.
pub struct Author<'a> {
    pub agent_id: &'a str,
    pub session_id: &'a str,
    pub decision_id: &'a str,
}

/// The trace event recording `ops`, ending at `tick`.
pub fn record(ops: &[Op], tick: u64, author: Author<'_>) -> NewEvent {
    let bytes = postcard::to_allocvec(ops).expect("operations encode");
    NewEvent {
        kind: JOURNAL_EVENT.into(),
        actor_id: author.agent_id.into(),
        thread_id: author.session_id.into(),
        parent_event_id: Some(author.decision_id.into()),
        caused_by: vec![author.decision_id.into()],
        payload: json!({
            "format": JOURNAL_FORMAT,
            "tick": tick,
            "ops": ops.len(),
            "data": hex::encode(bytes),
        }),
    }
}

/// The trace event recording `ops` that no call made (the steps taken since the last record,
/// journaled before a checkpoint is taken so the journal misses nothing whatever becomes of
/// it), ending at `tick`.
pub fn host_record(ops: &[Op], tick: u64) -> NewEvent {
    let mut event = record(
        ops,
        tick,
        Author {
            agent_id: "host",
            session_id: "host",
            decision_id: "",
        },
    );
    event.parent_event_id = None;
    event.caused_by = Vec::new();
    event
}

/// The operations a journal event holds.
pub fn decode(event: &Event) -> Result<Vec<Op>> {
    let p = &event.payload;
    let format = p["format"].as_u64().unwrap_or(0);
    if format != JOURNAL_FORMAT {
        bail!(
            "world journal record {} has format {format}; this host reads format \
             {JOURNAL_FORMAT} (written by another limina version); start with --fresh-world \
             to begin an empty world",
            event.id
        );
    }
    let data = p["data"].as_str().map(hex::decode);
    let Some(Ok(bytes)) = data else {
        bail!("world journal record {} has no readable `data`", event.id);
    };
    postcard::from_bytes(&bytes)
        .with_context(|| format!("world journal record {} does not decode", event.id))
}

/// What applying the journal did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Replayed {
    pub records: u64,
    pub ops: u64,
    /// The newest trace event seen.
    pub last_seq: u64,
    /// The records counted as the running host counts them toward a checkpoint.
    pub cost: ReplayCost,
}

/// Applies to `world` every journal record in the trace folder `trace_dir` after event
/// `after`. Refuses when the trace no longer reaches back to `after + 1` (retention removed
/// records the world needs) — with a checkpoint that cannot happen, since checkpoints pin it.
pub fn replay(world: &mut World, trace_dir: &Path, after: u64) -> Result<Replayed> {
    // Decoded whole first: a record that does not decode leaves the world untouched.
    let mut records: Vec<Vec<Op>> = Vec::new();
    let seen = events_after(trace_dir, after, JOURNAL_EVENT, |event| {
        records.push(decode(&event)?);
        Ok(())
    })?;
    // A trace from before journals (or a first start) holds no records and needs none.
    let needed = after > 0 || !records.is_empty();
    if let Some(first) = seen.first_seq
        && first > after + 1
        && needed
    {
        bail!(
            "the trace in {} starts at event {first}, but the world needs its journal from \
             event {}: retention removed records the world was built from; start with \
             --fresh-world to begin an empty world",
            trace_dir.display(),
            after + 1
        );
    }
    let mut replayed = Replayed {
        last_seq: seen.last_seq,
        ..Replayed::default()
    };
    for ops in records {
        replayed.records += 1;
        replayed.ops += ops.len() as u64;
        replayed.cost.add_record(&ops, world.body_count());
        for op in ops {
            world.replay(op);
        }
    }
    Ok(replayed)
}
