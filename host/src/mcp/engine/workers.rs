//! Worker threads for detached calls (see `registry/detached.rs`): each keeps a scratch realm
//! (an empty world, an in-memory trace) to lend the guests it runs, and hands every finished
//! call back to the engine through its channel.

use super::inbox::{EngineHandle, Inbound, PeerId};
use crate::ceilings::WorkerScheduling;
use crate::realm::{Realm, Rng};
use crate::registry::DetachedCall;
use crate::trace::Tracer;
use crate::world::{World, WorldSettings};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

/// Threads running detached calls.
pub struct Workers {
    jobs: Sender<(Owner, Box<DetachedCall>)>,
    engine: EngineHandle,
    /// Calls queued for the workers or running on them (not calls waiting on an upstream).
    busy: Arc<AtomicUsize>,
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
    /// Starts `count` workers in the scheduling class `class` that report to `engine`.
    pub fn start(
        count: usize,
        engine: EngineHandle,
        class: WorkerScheduling,
    ) -> std::io::Result<Workers> {
        let (jobs, rx) = channel();
        let rx = Arc::new(Mutex::new(rx));
        let busy = Arc::new(AtomicUsize::new(0));
        for n in 0..count.max(1) {
            let (rx, engine, busy) = (rx.clone(), engine.clone(), busy.clone());
            std::thread::Builder::new()
                .name(format!("limina-worker-{n}"))
                .spawn(move || work(&rx, &engine, &busy, class))?;
        }
        Ok(Workers { jobs, engine, busy })
    }

    /// Whether a call is queued for the workers or running on them.
    pub fn busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed) > 0
    }

    /// Queues `call` for `peer`, under `ticket`; a call that waits on another server (an
    /// upstream's tool, a registry's package) gets a thread of its own.
    pub fn submit(&self, peer: PeerId, ticket: u64, call: Box<DetachedCall>) {
        self.queue(Owner::Peer(peer, ticket), call);
    }

    /// Queues a task's `call`.
    pub fn submit_task(&self, task: String, call: Box<DetachedCall>) {
        self.queue(Owner::Task(task), call);
    }

    fn queue(&self, owner: Owner, call: Box<DetachedCall>) {
        if call.waits_elsewhere() {
            let engine = self.engine.clone();
            let spawned = std::thread::Builder::new()
                .name("limina-waiting-call".into())
                .spawn(move || {
                    let ran = call.run_waiting();
                    engine.send(owner.done(ran));
                });
            if let Err(e) = spawned {
                crate::log::error(&format!(
                    "cannot start a thread for a call that waits on another server: {e}"
                ));
            }
            return;
        }
        self.busy.fetch_add(1, Ordering::Relaxed);
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

/// Puts the calling thread in `class`. The default, the idle scheduling class (`SCHED_IDLE`):
/// a detached call (a picture being drawn, a package computing) runs on whatever core the
/// engine and the transports leave, and they take a core back the moment they wake. At nice
/// 10 the engine, having woken a worker, was often preempted by it and then waited for the
/// next scheduler tick (4 ms at 250 Hz) — another client's ping tail. A call so starved is
/// still cut: off the engine its deadline counts the time its thread ran, up to a wall-clock
/// cap (`Clock::Worker`, `registry/detached.rs`). `normal` leaves the thread as it was born:
/// for a machine busy with other work, where idle-class calls would run late.
fn enter(class: WorkerScheduling) {
    if class == WorkerScheduling::Normal {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: pid 0 names the calling thread (Linux keeps a policy per thread), and
        // `param` is a valid sched_param for the call.
        let status = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
        if status != 0 {
            crate::log::warn(&format!(
                "a worker thread could not enter the idle scheduling class ({}); calls off \
                 the engine compete with it for the cores",
                std::io::Error::last_os_error()
            ));
        }
    }
}

fn work(
    rx: &Mutex<Receiver<(Owner, Box<DetachedCall>)>>,
    engine: &EngineHandle,
    busy: &AtomicUsize,
    class: WorkerScheduling,
) {
    enter(class);
    let mut scratch = scratch_realm();
    loop {
        let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
        let Ok((owner, call)) = job else { return };
        let (back, ran) = call.run(scratch);
        busy.fetch_sub(1, Ordering::Relaxed);
        scratch = back;
        if !engine.send(owner.done(ran)) {
            return;
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// This thread's scheduling policy.
    fn policy() -> i32 {
        // SAFETY: pid 0 names the calling thread.
        unsafe { libc::sched_getscheduler(0) }
    }

    #[test]
    fn a_worker_enters_its_class_and_no_other_thread_does() {
        let mine = policy();
        for (class, want) in [
            (WorkerScheduling::Idle, libc::SCHED_IDLE),
            (WorkerScheduling::Normal, libc::SCHED_OTHER),
        ] {
            let (before, after) = std::thread::spawn(move || {
                let before = policy();
                enter(class);
                (before, policy())
            })
            .join()
            .unwrap();
            assert_eq!(before, libc::SCHED_OTHER);
            assert_eq!(after, want, "{class:?}");
        }
        assert_eq!(policy(), mine, "the calling thread kept its class");
    }
}
