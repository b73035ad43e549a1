//! The registry's side of a durable world (`persistence/`): each call's world operations
//! journaled as it ends, checkpoints on demand, on schedule and when a scene reload replaced
//! the world.

use super::{Caller, Registry};
use crate::persistence::journal::{self, Author};
use crate::persistence::writer::Outcome;
use crate::persistence::{Started, WorldStore};
use crate::realm::Realm;
use crate::trace::NewEvent;
use crate::world::Op;
use anyhow::Result;
use serde_json::Value;

impl Registry {
    /// Keeps the realm's world in `store` from now on: every change is journaled and
    /// checkpoints are written into the store's folder.
    pub fn keep_world(&mut self, mut store: WorldStore) -> Result<()> {
        store.adopt(self.realm_mut())?;
        self.world_store = Some(store);
        Ok(())
    }

    /// Whether the world is kept across restarts.
    pub fn keeps_world(&self) -> bool {
        self.world_store.is_some()
    }

    /// After a call ran (`kept`: it succeeded and its world transaction stays open until its
    /// events are written): its world operations, with the steps before it, as one
    /// `world.journal` event caused by its decision, before `skill.executed`. A call that
    /// replaced the world whole (a scene reload) is checkpointed instead.
    pub(super) fn journal_call(&mut self, caller: &Caller, decision_id: &str, kept: bool) {
        let outermost = self.outermost_call();
        let Some(store) = self.world_store.as_mut() else {
            return;
        };
        let realm = self
            .realm
            .as_deref_mut()
            .expect("the realm is home between calls");
        if let Some(ops) = realm.world.call_record(kept.then_some(Op::Commit)) {
            let tick = realm.world.tick();
            realm.tracer.emit(journal::record(
                &ops,
                tick,
                Author {
                    agent_id: &caller.agent_id,
                    session_id: &caller.session_id,
                    decision_id,
                },
            ));
            store.note_record(&ops, realm.world.body_count());
            self.journal_pending = true;
        }
        if outermost
            && store.replaced(realm)
            && let Err(e) = self.write_checkpoint("the world was replaced", true)
        {
            crate::log::error(&format!("{e:#}"));
        }
    }

    /// After the call's events were written (`written`) or not, and its world transaction
    /// closed: the journaled operations are forgotten only once their record is on disk.
    pub(super) fn settle_journal(&mut self, written: bool) {
        let journaled = std::mem::take(&mut self.journal_pending) && written;
        if let Some(realm) = self.realm.as_deref_mut() {
            realm.world.settle_ops(journaled);
        }
    }

    /// Writes a world checkpoint now, waiting for it, and traces `world.checkpointed`; `None`
    /// when the world is not kept. Those being written are waited for first (shutdown).
    pub fn checkpoint_world(&mut self, reason: &str) -> Result<Option<Value>> {
        self.write_checkpoint(reason, false)
    }

    /// Writes a checkpoint of a world that replaced the kept one whole (an empty world on
    /// purpose, a scene replayed at start): older checkpoints no longer lead to it.
    pub fn checkpoint_replaced_world(&mut self, reason: &str) -> Result<Option<Value>> {
        self.write_checkpoint(reason, true)
    }

    fn write_checkpoint(&mut self, reason: &str, replaced: bool) -> Result<Option<Value>> {
        let Some((store, realm)) = self.kept_world() else {
            return Ok(None);
        };
        let earlier = store.wait_all(realm);
        let summary = store.checkpoint(realm, reason, replaced);
        for done in earlier {
            self.traced_checkpoint(done);
        }
        if let Ok(summary) = &summary {
            self.trace_checkpointed(summary.clone());
        }
        summary.map(Some)
    }

    /// The store keeping the world and the realm whose world it keeps; `None` when the world
    /// is not kept.
    fn kept_world(&mut self) -> Option<(&mut WorldStore, &mut Realm)> {
        let store = self.world_store.as_mut()?;
        let realm = self
            .realm
            .as_deref_mut()
            .expect("the realm is home between calls");
        Some((store, realm))
    }

    /// Traces `world.checkpointed` for a checkpoint that was written, logs one that was not.
    fn traced_checkpoint(&mut self, done: Result<Value>) {
        match done {
            Ok(summary) => self.trace_checkpointed(summary),
            Err(e) => crate::log::error(&format!("the world checkpoint was not written: {e:#}")),
        }
    }

    fn trace_checkpointed(&mut self, summary: Value) {
        self.realm_mut().tracer.emit(NewEvent {
            kind: "world.checkpointed",
            actor_id: "host",
            thread_id: "host",
            parent_event_id: None,
            caused_by: Vec::new(),
            payload: summary,
        });
    }

    /// Starts a checkpoint for a `world.checkpoint` call run off the engine: the snapshot
    /// taken now, the outcome for [`Registry::finish_checkpoint`].
    pub(super) fn start_checkpoint_for_call(&mut self) -> Result<Option<Started>> {
        let Some((store, realm)) = self.kept_world() else {
            return Ok(None);
        };
        store.start_for_call(realm, "asked for", false).map(Some)
    }

    /// Ends a checkpoint started for a call with its writer's outcome, traced.
    pub(super) fn finish_checkpoint(&mut self, seq: u64, outcome: Outcome) -> Result<Value> {
        let (store, realm) = self
            .kept_world()
            .expect("a checkpoint was started, so the world is kept");
        let done = store.finish(realm, seq, outcome);
        if let Ok(summary) = &done {
            self.trace_checkpointed(summary.clone());
        }
        done
    }

    /// Waits for the checkpoints being written and finishes them, traced (what the next
    /// [`Registry::world_idle`] would do once they are written).
    pub fn wait_checkpoints(&mut self) {
        let (Some(store), Some(realm)) = (self.world_store.as_mut(), self.realm.as_deref_mut())
        else {
            return;
        };
        for done in store.wait_all(realm) {
            self.traced_checkpoint(done);
        }
    }

    /// Between messages: the checkpoints written since the last look finished and traced, and
    /// a new one started when the schedule says one is due — taken here, written off the
    /// engine.
    pub fn world_idle(&mut self) {
        let (Some(store), Some(realm)) = (self.world_store.as_mut(), self.realm.as_deref_mut())
        else {
            return;
        };
        // Trace retention waiting for a checkpoint to cut at lets the trace outgrow
        // `[trace] maxBytes` until one is written: then the engine waits for those in flight.
        let finished = match store.in_flight() > 0 && realm.tracer.pin_blocks_retention() {
            true => store.wait_all(realm),
            false => store.poll(realm),
        };
        let due = store.due(realm);
        for done in finished {
            self.traced_checkpoint(done);
        }
        if !due {
            return;
        }
        let (Some(store), Some(realm)) = (self.world_store.as_mut(), self.realm.as_deref_mut())
        else {
            return;
        };
        if let Err(e) = store.start(realm, "scheduled", false) {
            crate::log::error(&format!("{e:#}"));
        }
    }
}
