//! Worker threads for detached calls (see `registry/detached.rs`): each keeps a scratch realm
//! (an empty world, an in-memory trace) to lend the guests it runs, and hands every finished
//! call back to the engine through its channel.

use super::inbox::{EngineHandle, Inbound, PeerId};
#[cfg(target_os = "linux")]
use crate::limits::WORKER_NICE;
use crate::realm::{Realm, Rng};
use crate::registry::DetachedCall;
use crate::trace::Tracer;
use crate::world::{World, WorldSettings};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

/// Threads running detached calls.
pub struct Workers {
    jobs: Sender<(Owner, Box<DetachedCall>)>,
    engine: EngineHandle,
}

/// Whom a finished call goes back to.
pub enum Owner {
    /// The connection waiting for its reply, and the ticket its completion names.
    Peer(PeerId, u64),
    /// A task (its id).
    Task(String),
}

impl Owner {
    /// What tells the engine `ran` is done.
    fn done(self, ran: crate::registry::RanCall) -> Inbound {
        match self {
            Owner::Peer(id, ticket) => Inbound::Completed { id, ticket, ran },
            Owner::Task(task) => Inbound::TaskDone { task, ran },
        }
    }
}

impl Workers {
    /// Starts `count` workers that report to `engine`.
    pub fn start(count: usize, engine: EngineHandle) -> std::io::Result<Workers> {
        let (jobs, rx) = channel();
        let rx = Arc::new(Mutex::new(rx));
        for n in 0..count.max(1) {
            let (rx, engine) = (rx.clone(), engine.clone());
            std::thread::Builder::new()
                .name(format!("limina-worker-{n}"))
                .spawn(move || work(&rx, &engine))?;
        }
        Ok(Workers { jobs, engine })
    }

    /// Queues `call` for `peer`, under `ticket`; a call to an upstream server gets a thread of
    /// its own.
    pub fn submit(&self, peer: PeerId, ticket: u64, call: Box<DetachedCall>) {
        self.queue(Owner::Peer(peer, ticket), call);
    }

    /// Queues a task's `call`.
    pub fn submit_task(&self, task: String, call: Box<DetachedCall>) {
        self.queue(Owner::Task(task), call);
    }

    fn queue(&self, owner: Owner, call: Box<DetachedCall>) {
        if call.waits_on_upstream() {
            let engine = self.engine.clone();
            let spawned = std::thread::Builder::new()
                .name("limina-upstream-call".into())
                .spawn(move || {
                    let ran = call.run_upstream();
                    engine.send(owner.done(ran));
                });
            if let Err(e) = spawned {
                crate::log::error(&format!("cannot start a thread for an upstream call: {e}"));
            }
            return;
        }
        // The workers live as long as the engine that owns this sender.
        let _ = self.jobs.send((owner, call));
    }
}

/// The realm a detached call is handed: an empty world, an in-memory trace.
fn scratch_realm() -> Box<Realm> {
    Box::new(Realm {
        world: World::new(WorldSettings {
            max_entities: 0,
            tick_seconds: 1.0 / 60.0,
        }),
        tracer: Tracer::new(16),
        rng: Rng::seeded(0),
        // Packages holding a state grant never run here (see `crate::state`).
        state: crate::state::StateStore::unavailable(
            "a package's state is only reachable from calls that run on the engine",
        ),
    })
}

/// Lowers the calling thread's scheduling priority to `WORKER_NICE`: a detached call (a
/// picture being drawn, a package computing) yields a core to the engine and the transports
/// whenever they wake, instead of making every client's message wait for the scheduler.
fn yield_to_the_engine() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `gettid` has no preconditions; `setpriority` on this thread's id changes
        // only this thread (Linux keeps a nice value per thread).
        let status = unsafe {
            libc::setpriority(
                libc::PRIO_PROCESS,
                libc::gettid() as libc::id_t,
                WORKER_NICE,
            )
        };
        if status != 0 {
            crate::log::warn(&format!(
                "a worker thread could not lower its priority ({}); calls off the engine \
                 compete with it for the cores",
                std::io::Error::last_os_error()
            ));
        }
    }
}

fn work(rx: &Mutex<Receiver<(Owner, Box<DetachedCall>)>>, engine: &EngineHandle) {
    yield_to_the_engine();
    let mut scratch = scratch_realm();
    loop {
        let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
        let Ok((owner, call)) = job else { return };
        let (back, ran) = call.run(scratch);
        scratch = back;
        if !engine.send(owner.done(ran)) {
            return;
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// This thread's nice value.
    fn nice() -> i32 {
        // SAFETY: as in `yield_to_the_engine`.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) }
    }

    #[test]
    fn a_worker_lowers_its_own_priority_and_no_other_threads() {
        let mine = nice();
        let (before, after) = std::thread::spawn(|| {
            let before = nice();
            yield_to_the_engine();
            (before, nice())
        })
        .join()
        .unwrap();
        // Unprivileged, a thread already nicer than `WORKER_NICE` stays as it was.
        assert_eq!(after, WORKER_NICE.max(before));
        assert_eq!(nice(), mine, "the calling thread kept its priority");
    }
}
