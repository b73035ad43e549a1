//! Policy decisions read back for `audit.query`: counted and listed from the index up to the
//! newest event it holds, and from the segments and the window after that.

use super::{DecisionQuery, DecisionSummary, Event, Tracer};
use anyhow::Result;
use std::collections::VecDeque;
use std::ops::ControlFlow;

impl Tracer {
    /// The summary of every decision matching `q` and the newest `q.limit` of them, oldest
    /// first.
    pub fn decisions(&mut self, q: &DecisionQuery) -> Result<(DecisionSummary, Vec<Event>)> {
        let (mut summary, events, upto) = match self.index() {
            Some(index) => index.decisions(q)?,
            None => Default::default(),
        };
        let mut events: VecDeque<Event> = events.into();
        self.each_after(upto, &mut |e| {
            if q.matches(e) {
                let p = &e.payload;
                let text = |k: &str| p[k].as_str().unwrap_or("");
                let allow = p["allow"].as_bool().unwrap_or(false);
                summary.add(allow, text("cap"), text("rule"), text("package"), 1);
                events.push_back(e.clone());
                if events.len() > q.limit {
                    events.pop_front();
                }
            }
            ControlFlow::Continue(())
        })?;
        Ok((summary, events.into()))
    }
}
