//! The registry's side of a durable world (`persistence/`): each call's world operations
//! journaled as it ends, checkpoints on demand, on schedule and when a scene reload replaced
//! the world.

use super::{Caller, Registry};
use crate::persistence::WorldStore;
use crate::persistence::journal::{self, Author};
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

    /// Writes a world checkpoint now and traces `world.checkpointed`; `None` when the world
    /// is not kept.
    pub fn checkpoint_world(&mut self, reason: &str) -> Result<Option<Value>> {
        self.write_checkpoint(reason, false)
    }

    /// Writes a checkpoint of a world that replaced the kept one whole (an empty world on
    /// purpose, a scene replayed at start): older checkpoints no longer lead to it.
    pub fn checkpoint_replaced_world(&mut self, reason: &str) -> Result<Option<Value>> {
        self.write_checkpoint(reason, true)
    }

    fn write_checkpoint(&mut self, reason: &str, replaced: bool) -> Result<Option<Value>> {
        let Some(store) = self.world_store.as_mut() else {
            return Ok(None);
        };
        let realm = self
            .realm
            .as_deref_mut()
            .expect("the realm is home between calls");
        let summary = store.checkpoint(realm, reason, replaced)?;
        realm.tracer.emit(NewEvent {
            kind: "world.checkpointed",
            actor_id: "host",
            thread_id: "host",
            parent_event_id: None,
            caused_by: Vec::new(),
            payload: summary.clone(),
        });
        Ok(Some(summary))
    }

    /// Between messages: a checkpoint when the schedule says one is due.
    pub fn world_idle(&mut self) {
        let due = match (&self.world_store, self.realm.as_deref()) {
            (Some(store), Some(realm)) => store.due(realm),
            _ => false,
        };
        if due && let Err(e) = self.checkpoint_world("scheduled") {
            crate::log::error(&format!("{e:#}"));
        }
    }
}
