//! Policy decisions read back for `audit.query`: counted and listed from the index up to the
//! newest event it holds, and from the window after that.

use super::{DecisionQuery, DecisionSummary, Event, Tracer};
use anyhow::Result;

impl Tracer {
    /// The summary of every decision matching `q` and the newest `q.limit` of them, oldest
    /// first.
    pub fn decisions(&mut self, q: &DecisionQuery) -> Result<(DecisionSummary, Vec<Event>)> {
        let (mut summary, mut events, upto) = match self.index()? {
            Some(index) => index.decisions(q)?,
            None => Default::default(),
        };
        for e in &self.window {
            if e.seq().is_some_and(|s| s > upto) && q.matches(e) {
                let p = &e.payload;
                let text = |k: &str| p[k].as_str().unwrap_or("");
                let allow = p["allow"].as_bool().unwrap_or(false);
                summary.add(allow, text("cap"), text("rule"), text("package"), 1);
                events.push(e.clone());
            }
        }
        let skip = events.len().saturating_sub(q.limit);
        events.drain(..skip);
        Ok((summary, events))
    }
}
