//! Which calls leave the engine (`detached.rs`), and what each carries away: a guest that
//! cannot touch the world (or sees it only as a picture), a built-in that reads the history
//! only, a checkpoint being written, an upstream's tool, a registry package being fetched.

use super::builtins::Builtin;
use super::detached::Work;
use super::hooks::covers;
use super::pipeline::Decided;
use super::{Caller, Handler, Registry};
use crate::call::Failure;
use serde_json::Value;

impl Registry {
    /// Whether calls of `name` run off the engine (so they may run as tasks while their
    /// client goes on): a guest skill whose package declares no capability and holds no
    /// state, a built-in that only reads the history, `package.load`; and that no hook wraps.
    pub fn runs_off_engine(&self, name: &str) -> bool {
        self.detachable(name)
    }

    /// A call of a detachable skill that is cheaper answered where it is (see
    /// [`answers_on_engine`](super::builtins::Builtin::answers_on_engine)).
    pub(super) fn answers_on_engine(&self, name: &str, input: &Value) -> bool {
        matches!(
            self.skills.get(name).map(|s| s.handler),
            Some(Handler::Builtin(builtin)) if builtin.answers_on_engine(self, input)
        )
    }

    pub(super) fn detachable(&self, name: &str) -> bool {
        let Some(skill) = self.skills.get(name) else {
            return false;
        };
        let away = match skill.handler {
            // State commits and rolls back with the world, on the engine (`crate::state`).
            Handler::Guest(package) => {
                let manifest = &self.packages[package].manifest;
                let blind = manifest.capabilities.iter().next().is_none()
                    && manifest.grants.state.is_none();
                // Or it sees the world only as a picture, drawn from a snapshot (`viewing.rs`).
                blind || self.views_only(package)
            }
            Handler::Builtin(builtin) => {
                builtin.reads_history_only()
                    || (builtin == Builtin::WorldCheckpoint && self.keeps_world())
                    || builtin == Builtin::PackageLoad
            }
            // It cannot touch the world: it only talks to another server.
            Handler::Upstream(_) => true,
        };
        away && !self.host_hooks.iter().any(|h| covers(&h.skills, name))
            && !self
                .packages
                .iter()
                .any(|p| p.hooks.iter().any(|h| covers(&h.skills, name)))
    }

    pub(super) fn detach(
        &mut self,
        caller: &Caller,
        name: &str,
        decided: Decided,
    ) -> Result<(Decided, Work), Failure> {
        let work = match decided.handler {
            Handler::Guest(package) => {
                let mut prep =
                    self.prepare_guest(caller, package, name, &decided.decision_id, None)?;
                // Off the engine nobody waits for it: its package's own deadline holds,
                // counted in the time its worker ran (up to a wall-clock cap), since workers
                // run in the idle class and may wait while the engine and others use the
                // cores (`mcp/engine/workers.rs`).
                prep.info.timeout_ms = self.packages[package].limits.timeout_ms;
                prep.info.clock = crate::call::Clock::Worker;
                prep.slot.deadline_by_engine = false;
                prep.info.view = self.view_for(package);
                Work::Guest {
                    prep,
                    text: crate::json::text(&decided.input),
                    seed: self.realm_mut().rng.next_u64(),
                }
            }
            Handler::Builtin(Builtin::WorldCheckpoint) => match self.start_checkpoint_for_call() {
                Ok(Some(started)) => Work::Checkpoint(started),
                Ok(None) => unreachable!("detached only while the world is kept"),
                Err(e) => return Err(super::builtins::checkpoint_failure(&e)),
            },
            Handler::Builtin(Builtin::PackageLoad) => Work::Fetch(Some(Box::new(
                super::builtins::fetch_for(self, caller, &decided.input)?,
            ))),
            Handler::Builtin(builtin) => Work::History(Some(builtin.job(self, &decided.input))),
            Handler::Upstream(index) => Work::Upstream {
                upstream: self.upstreams[index].clone(),
                input: decided.input.clone(),
                control: self.control.clone(),
            },
        };
        Ok((decided, work))
    }
}
