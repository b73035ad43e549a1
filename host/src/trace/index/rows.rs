//! What the indexer writes for each event, within one open transaction: its row, its links
//! and, for a policy decision, the decision's row (each with its key's id, `keys.rs`), several
//! rows per statement.

use super::keys::Keys;
use super::line::Line;
use super::names::Names;
use crate::trace::seq_of_id;
use rusqlite::{Connection, params_from_iter};

/// Rows written by one statement: a statement's fixed cost (its run, halt and reset) is then
/// paid once per this many rows. In a bench of the indexer's inserts, a fifth less time than
/// one statement per row.
const CHUNK: usize = 16;

/// One table's rows waiting for a full chunk, `W` columns each, for the statement `head`
/// (`INSERT ... VALUES ` without the rows).
struct Pending<const W: usize> {
    /// The statements for one row and for a full chunk.
    one_sql: String,
    chunk_sql: String,
    values: Vec<i64>,
}

impl<const W: usize> Pending<W> {
    fn new(head: &'static str) -> Self {
        Pending {
            one_sql: rows_sql(head, W, 1),
            chunk_sql: rows_sql(head, W, CHUNK),
            values: Vec::with_capacity(W * CHUNK),
        }
    }

    fn push(&mut self, conn: &Connection, row: [i64; W]) -> rusqlite::Result<()> {
        self.values.extend(row);
        if self.values.len() == W * CHUNK {
            conn.prepare_cached(&self.chunk_sql)?
                .execute(params_from_iter(self.values.drain(..)))?;
        }
        Ok(())
    }

    /// Writes what is left, one row per statement (so only two statements per table are
    /// ever prepared).
    fn write(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        if self.values.is_empty() {
            return Ok(());
        }
        let mut one = conn.prepare_cached(&self.one_sql)?;
        for row in self.values.chunks(W) {
            one.execute(params_from_iter(row))?;
        }
        self.values.clear();
        Ok(())
    }
}

/// `head` followed by `rows` groups of `width` parameters.
fn rows_sql(head: &str, width: usize, rows: usize) -> String {
    let group = format!("({})", vec!["?"; width].join(","));
    format!("{head}{}", vec![group; rows].join(","))
}

/// The rows of one transaction, written a chunk at a time; [`Rows::write`] writes the rest
/// before the transaction commits.
pub(super) struct Rows {
    events: Pending<5>,
    links: Pending<2>,
    decisions: Pending<2>,
}

impl Rows {
    pub fn new() -> Rows {
        Rows {
            events: Pending::new("INSERT OR IGNORE INTO events (seq, seg, off, len, key) VALUES "),
            links: Pending::new("INSERT OR IGNORE INTO links (parent, child) VALUES "),
            decisions: Pending::new("INSERT OR IGNORE INTO decisions (seq, key) VALUES "),
        }
    }

    /// Records the event `line` of sequence number `seq`, found at `len` bytes from `off` in
    /// the segment starting at `seg`, its texts as ids from `names`; its decision, if any, is
    /// counted in `keys`. The caller gives each sequence number once: counts are not checked
    /// against the rows written.
    pub fn record(
        &mut self,
        conn: &Connection,
        seq: u64,
        (seg, off, len): (u64, u64, u64),
        line: &Line,
        names: &mut Names,
        keys: &mut Keys,
    ) -> rusqlite::Result<()> {
        let seq_i = seq as i64;
        let (kind, actor) = (names.id(conn, &line.kind)?, names.id(conn, &line.actor_id)?);
        let key = keys.event(conn, (kind, actor))?;
        self.events
            .push(conn, [seq_i, seg as i64, off as i64, len as i64, key])?;
        // An event's parent is usually also its first cause: one link, one insert.
        let parents = line.parent_event_id.iter().chain(line.caused_by.iter());
        let mut linked: Option<u64> = None;
        for parent in parents {
            if let Some(p) = seq_of_id(parent)
                && linked != Some(p)
            {
                self.links.push(conn, [p as i64, seq_i])?;
                linked = Some(p);
            }
        }
        if super::is_decision_kind(&line.kind) {
            let d = &line.payload;
            let mut id =
                |v: &Option<std::borrow::Cow<str>>| names.id(conn, v.as_deref().unwrap_or(""));
            let key = (
                d.allow.unwrap_or(false),
                id(&d.cap)?,
                id(&d.rule)?,
                id(&d.agent_id)?,
                id(&d.session_id)?,
                id(&d.package)?,
            );
            let key = keys.decision(conn, key)?;
            self.decisions.push(conn, [seq_i, key])?;
        }
        Ok(())
    }

    /// Writes the rows still waiting for a full chunk.
    pub fn write(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        self.events.write(conn)?;
        self.links.write(conn)?;
        self.decisions.write(conn)
    }

    /// Forgets rows of a transaction that was rolled back.
    pub fn clear(&mut self) {
        self.events.values.clear();
        self.links.values.clear();
        self.decisions.values.clear();
    }
}
