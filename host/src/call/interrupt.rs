//! Stopping a guest at once: a call's wall-clock deadline and its cancellation, checked while
//! wasm runs (the engine's epoch ticks every `EPOCH_TICK_MS` and calls back into the store)
//! and while the guest waits in WASI (a sleep wakes early for either). So a guest looping,
//! or sleeping in `time.sleep`, is cut at its deadline, and `notifications/cancelled` stops
//! it within a couple of milliseconds.
//!
//! A call that holds the engine counts its deadline in the time it ran ([`Clock::Running`],
//! [`Clock::Slice`]): on a machine busy with other work the engine thread may wait for a core,
//! and cutting a guest for time the scheduler took from it would stop innocent calls and help
//! nobody. So does a call off the engine ([`Clock::Worker`]), whose worker runs in the idle
//! scheduling class and waits whenever the engine or a transport wants its core. Waits in the
//! host (a sleep, the network) still count in wall time, and a cap of [`RUNNING_CAP_FACTOR`]
//! times the deadline in wall time bounds whatever else keeps the thread off the CPU (a
//! blocking read) — for a call on the engine less the time its thread waited for a core
//! ([`RunQueue`]), for one off the engine with no such excuse, so a starved call ends.

use std::fmt;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A flag a transport raises to cancel a call, plus an optional watcher run on each check
/// (stdio's: it reads any waiting input so a cancellation sent behind the call is seen while
/// the call runs, on the same thread).
#[derive(Clone, Default)]
pub struct Cancel {
    flag: Arc<AtomicBool>,
    watch: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl fmt::Debug for Cancel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancel")
            .field("cancelled", &self.flag.load(Ordering::Relaxed))
            .finish()
    }
}

impl Cancel {
    /// A cancel over `flag`, running `watch` at each check.
    pub fn new(flag: Arc<AtomicBool>, watch: Option<Arc<dyn Fn() + Send + Sync>>) -> Self {
        Cancel { flag, watch }
    }

    /// Raises the flag.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Release);
    }

    /// Whether the call is cancelled (running the watcher first).
    pub fn is_cancelled(&self) -> bool {
        if let Some(watch) = &self.watch {
            watch();
        }
        self.flag.load(Ordering::Acquire)
    }
}

/// Why a guest was stopped from outside its own code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cut {
    /// The caller cancelled the call.
    Cancelled,
    /// The call's wall-clock deadline passed.
    Deadline { timeout_ms: u64 },
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cut::Cancelled => f.write_str("the call was cancelled"),
            Cut::Deadline { timeout_ms } => {
                write!(f, "the call ran past its {timeout_ms} ms deadline")
            }
        }
    }
}

impl std::error::Error for Cut {}

/// How a call's deadline is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// In wall time: an instance started outside any call.
    Wall,
    /// While wasm runs, in the CPU time of the thread running it, up to a wall-clock cap: a
    /// core package's call on the engine. The thread's CPU time is first read at the first
    /// epoch tick, so the many calls shorter than a tick never pay for reading it (a system
    /// call, about 0.8 µs here); the time before that tick counts as run.
    Running,
    /// As [`Clock::Slice`], for a guest call off the engine: its worker runs in the idle
    /// scheduling class and may wait for a core for as long as other threads want them — even
    /// before its first tick, so its CPU time is read at the start — and its cap excuses no
    /// such wait: a call starved that long is cut at [`RUNNING_CAP_FACTOR`] times its deadline
    /// in wall time, never left hanging.
    Worker,
    /// As [`Clock::Running`], with the thread's CPU time read at the start: a third-party
    /// call on the engine, whose deadline (`[limits] engineCallMs`, a few milliseconds) is
    /// short enough that a few milliseconds the scheduler took before the first tick would
    /// cut an innocent call. Such a call makes an instance anyway (tens of µs), so the read
    /// costs it little.
    Slice,
}

/// How many times its deadline a [`Clock::Running`] call may take in wall time, less the time
/// its thread waited for a core, when something keeps the thread off the CPU.
pub const RUNNING_CAP_FACTOR: u32 = 4;

/// What the current call may not outlive.
#[derive(Clone, Debug)]
pub struct Interrupt {
    deadline: Instant,
    timeout_ms: u64,
    cancel: Cancel,
    /// For a [`Clock::Running`] call: the running thread's CPU clock and what was seen of it.
    running: Option<ThreadClocks>,
}

/// The running thread's clocks, and what a [`Clock::Running`] or [`Clock::Slice`] call's
/// checks saw of them.
#[derive(Clone, Debug)]
struct ThreadClocks {
    clock: ThreadClock,
    queue: Option<RunQueue>,
    seen: Arc<Seen>,
}

/// What a [`Clock::Running`] or [`Clock::Slice`] call's checks saw, shared by its clones.
#[derive(Debug, Default)]
struct Seen {
    /// A wait in the host was cut at the deadline: the call is cut for good, even though its
    /// thread hardly ran.
    waited_out: AtomicBool,
    /// At the first epoch tick (a slice's or a worker's: at the start): nanoseconds since the
    /// start, and the thread's CPU time then (0: no tick yet). See [`Clock::Running`] for why
    /// it waits for the tick.
    first_tick_ns: AtomicU64,
    cpu_at_first_tick_ns: AtomicU64,
    /// The thread's wait for a core then ([`NOT_READ`]: it could not be read, none is excused).
    queued_at_first_tick_ns: AtomicU64,
}

/// A wait for a core that could not be read.
const NOT_READ: u64 = u64::MAX;

impl Interrupt {
    /// A wall-clock deadline `timeout_ms` from now, and `cancel`.
    pub fn new(timeout_ms: u64, cancel: Cancel) -> Self {
        Interrupt::counted(timeout_ms, cancel, Clock::Wall)
    }

    /// A deadline of `timeout_ms` counted by `clock` from now (for [`Clock::Running`], in the
    /// time of the thread that makes it, which must be the one running the guest), and
    /// `cancel`.
    pub fn counted(timeout_ms: u64, cancel: Cancel, clock: Clock) -> Self {
        let running = match clock {
            Clock::Wall => None,
            Clock::Running => ThreadClock::current().map(|cpu| ThreadClocks {
                clock: cpu,
                queue: RunQueue::current(),
                seen: Arc::default(),
            }),
            Clock::Slice | Clock::Worker => ThreadClock::current().map(|cpu| {
                // A worker's waits for a core are not excused: without its run-queue account
                // its cap bounds a starved call.
                let queue = (clock == Clock::Slice).then(RunQueue::current).flatten();
                // The start stands for the first tick: nothing before it counts as run.
                let seen = Seen {
                    first_tick_ns: AtomicU64::new(1),
                    cpu_at_first_tick_ns: AtomicU64::new(cpu.now().as_nanos() as u64),
                    queued_at_first_tick_ns: AtomicU64::new(RunQueue::waited_ns(queue.as_ref())),
                    ..Seen::default()
                };
                ThreadClocks {
                    clock: cpu,
                    queue,
                    seen: Arc::new(seen),
                }
            }),
        };
        Interrupt {
            deadline: Instant::now() + Duration::from_millis(timeout_ms),
            timeout_ms,
            cancel,
            running,
        }
    }

    /// Whether the guest must stop now, and why, while it waits in the host (a sleep, the
    /// network): the deadline in wall time.
    pub fn check(&self) -> Option<Cut> {
        let cut = self.wall_check();
        if cut.is_some()
            && let Some(running) = &self.running
        {
            running.seen.waited_out.store(true, Ordering::Relaxed);
        }
        cut
    }

    fn wall_check(&self) -> Option<Cut> {
        if self.cancel.is_cancelled() {
            Some(Cut::Cancelled)
        } else if Instant::now() >= self.deadline {
            Some(self.cut())
        } else {
            None
        }
    }

    /// [`Interrupt::check_running`] from an epoch tick while the guest's code runs: the first
    /// one also notes the thread's CPU time.
    pub fn tick(&self) -> Option<Cut> {
        if let Some(ThreadClocks { clock, queue, seen }) = &self.running
            && seen.first_tick_ns.load(Ordering::Relaxed) == 0
        {
            let since = self.start().elapsed().as_nanos().max(1) as u64;
            let cpu = clock.now().as_nanos() as u64;
            let queued = RunQueue::waited_ns(queue.as_ref());
            seen.cpu_at_first_tick_ns.store(cpu, Ordering::Relaxed);
            seen.queued_at_first_tick_ns
                .store(queued, Ordering::Relaxed);
            seen.first_tick_ns.store(since, Ordering::Relaxed);
        }
        self.check_running()
    }

    /// Whether the guest must stop now, and why, while its code runs: for a
    /// [`Clock::Running`] call, past the wall-clock deadline only once its thread has run that
    /// long too (or the cap has passed).
    pub fn check_running(&self) -> Option<Cut> {
        let cut = self.wall_check()?;
        let Some(ThreadClocks { clock, queue, seen }) = &self.running else {
            return Some(cut);
        };
        if cut == Cut::Cancelled || seen.waited_out.load(Ordering::Relaxed) {
            return Some(cut);
        }
        let timeout = Duration::from_millis(self.timeout_ms);
        let first_tick = seen.first_tick_ns.load(Ordering::Relaxed);
        // No tick seen: count it all as run.
        let ran = if first_tick == 0 {
            self.start().elapsed()
        } else {
            let cpu_then = seen.cpu_at_first_tick_ns.load(Ordering::Relaxed);
            Duration::from_nanos(first_tick)
                + clock.now().saturating_sub(Duration::from_nanos(cpu_then))
        };
        if ran >= timeout {
            return Some(cut);
        }
        let cap = timeout * RUNNING_CAP_FACTOR;
        let elapsed = self.start().elapsed();
        if elapsed < cap {
            return None;
        }
        // Past the cap in wall time: read (only now) how long the thread waited for a core
        // since its first tick, and excuse that.
        let queued_then = seen.queued_at_first_tick_ns.load(Ordering::Relaxed);
        let queued = match (first_tick, queued_then, RunQueue::waited_ns(queue.as_ref())) {
            (0, ..) | (_, NOT_READ, _) | (_, _, NOT_READ) => Duration::ZERO,
            (_, then, now) => Duration::from_nanos(now.saturating_sub(then)),
        };
        (elapsed.saturating_sub(queued) >= cap).then_some(cut)
    }

    /// When the call started.
    fn start(&self) -> Instant {
        self.deadline - Duration::from_millis(self.timeout_ms)
    }

    fn cut(&self) -> Cut {
        Cut::Deadline {
            timeout_ms: self.timeout_ms,
        }
    }

    /// The deadline.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }
}

/// CPU time the calling thread has used (zero where it cannot be read): what host work done
/// for a guest on its own thread costs (`camera.capture`'s drawing), charged beside its fuel.
pub fn thread_cpu_time() -> Duration {
    ThreadClock(libc::CLOCK_THREAD_CPUTIME_ID).now()
}

/// How long one thread has waited for a core (runnable, but another thread had the CPU):
/// the second field of its `/proc/thread-self/schedstat`, opened once per thread and read with
/// one `pread` (about 0.9 µs here), readable from any thread.
#[derive(Clone, Debug)]
struct RunQueue(Arc<File>);

impl RunQueue {
    /// The calling thread's (`None` where the kernel keeps no such account).
    fn current() -> Option<RunQueue> {
        thread_local! {
            static OWN: Option<RunQueue> = File::open("/proc/thread-self/schedstat")
                .ok()
                .map(|file| RunQueue(Arc::new(file)));
        }
        OWN.with(Clone::clone)
    }

    /// Nanoseconds `queue`'s thread has waited for a core ([`NOT_READ`] when unknown).
    fn waited_ns(queue: Option<&RunQueue>) -> u64 {
        let Some(RunQueue(file)) = queue else {
            return NOT_READ;
        };
        let mut buf = [0u8; 96];
        let Ok(n) = file.read_at(&mut buf, 0) else {
            return NOT_READ;
        };
        std::str::from_utf8(&buf[..n])
            .ok()
            .and_then(|text| text.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(NOT_READ)
    }
}

/// One thread's CPU clock, readable from any thread.
#[derive(Clone, Copy, Debug)]
struct ThreadClock(libc::clockid_t);

impl ThreadClock {
    /// The calling thread's clock (`None` where the platform has none: the call then counts
    /// in wall time).
    fn current() -> Option<ThreadClock> {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: `pthread_self` is always a valid thread handle, and `clock` is a valid place
        // for the answer.
        let status = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
        (status == 0).then_some(ThreadClock(clock))
    }

    /// CPU time the thread has used (zero if the clock cannot be read, which never cuts
    /// early: the wall-clock cap still holds).
    fn now(&self) -> Duration {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid timespec to fill.
        if unsafe { libc::clock_gettime(self.0, &mut ts) } != 0 {
            return Duration::ZERO;
        }
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancel_is_seen_and_the_watcher_runs_on_each_check() {
        let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = runs.clone();
        let flag = Arc::new(AtomicBool::new(false));
        let cancel = Cancel::new(
            flag.clone(),
            Some(Arc::new(move || {
                seen.fetch_add(1, Ordering::Relaxed);
            })),
        );
        let interrupt = Interrupt::new(60_000, cancel.clone());
        assert_eq!(interrupt.check(), None);
        cancel.cancel();
        assert_eq!(interrupt.check(), Some(Cut::Cancelled));
        assert_eq!(runs.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_passed_deadline_cuts() {
        let interrupt = Interrupt::new(0, Cancel::default());
        assert_eq!(interrupt.check(), Some(Cut::Deadline { timeout_ms: 0 }));
        assert_eq!(
            interrupt.check_running(),
            Some(Cut::Deadline { timeout_ms: 0 })
        );
    }

    /// A thread that did not run (here: asleep, as a thread waiting for a core would be) is
    /// not cut at the wall-clock deadline while its code runs, only at the cap; a wait in the
    /// host is cut at the deadline.
    #[test]
    fn a_running_deadline_excuses_time_the_thread_did_not_run_up_to_the_cap() {
        let interrupt = Interrupt::counted(20, Cancel::default(), Clock::Running);
        assert_eq!(interrupt.tick(), None);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(interrupt.tick(), None);
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(
            interrupt.check_running(),
            Some(Cut::Deadline { timeout_ms: 20 })
        );
    }

    /// A wait in the host is cut at the wall-clock deadline, and the call with it.
    #[test]
    fn a_wait_cut_at_the_deadline_cuts_the_running_call() {
        let interrupt = Interrupt::counted(20, Cancel::default(), Clock::Running);
        assert_eq!(interrupt.tick(), None);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(interrupt.check_running(), None);
        let waiting = interrupt.clone();
        assert_eq!(waiting.check(), Some(Cut::Deadline { timeout_ms: 20 }));
        assert_eq!(
            interrupt.check_running(),
            Some(Cut::Deadline { timeout_ms: 20 })
        );
    }

    /// A thread that ran its deadline's worth is cut as soon as the wall-clock deadline passed.
    #[test]
    fn a_running_deadline_cuts_a_thread_that_ran_that_long() {
        let interrupt = Interrupt::counted(20, Cancel::default(), Clock::Running);
        let start = Instant::now();
        while interrupt.tick().is_none() {
            assert!(start.elapsed() < Duration::from_secs(5), "never cut");
        }
        let ran = start.elapsed();
        assert!(ran >= Duration::from_millis(20), "{ran:?}");
    }

    /// A slice's deadline, and a worker's, counts from the start in the thread's CPU time: a
    /// thread that did not run before its first tick (asleep here, as one waiting for a core
    /// would be) is not cut at the wall-clock deadline, only at the cap.
    #[test]
    fn a_slice_or_worker_excuses_time_the_thread_did_not_run_even_before_its_first_tick() {
        for clock in [Clock::Slice, Clock::Worker] {
            let interrupt = Interrupt::counted(20, Cancel::default(), clock);
            std::thread::sleep(Duration::from_millis(30));
            assert_eq!(interrupt.tick(), None, "{clock:?}");
            assert_eq!(interrupt.check_running(), None, "{clock:?}");
            std::thread::sleep(Duration::from_millis(60));
            assert_eq!(
                interrupt.check_running(),
                Some(Cut::Deadline { timeout_ms: 20 }),
                "{clock:?}"
            );
        }
        // Running is cut once the thread ran its deadline's worth.
        let interrupt = Interrupt::counted(20, Cancel::default(), Clock::Slice);
        let start = Instant::now();
        while interrupt.tick().is_none() {
            assert!(start.elapsed() < Duration::from_secs(5), "never cut");
        }
        assert!(start.elapsed() >= Duration::from_millis(20));
    }

    /// A thread kept waiting for a core past the cap (here: an idle-class thread sharing its
    /// core with a busy one, as the engine thread does on a loaded machine) is not cut for the
    /// wait: a 5 ms slice lived through 60 ms of it, running a fraction of a millisecond.
    #[test]
    fn a_slice_excuses_the_time_its_thread_waited_for_a_core_past_the_cap() {
        let (cut, queued, after) = starved(Clock::Slice);
        assert!(
            queued > 20_000_000,
            "the thread waited only {queued} ns for its core"
        );
        assert_eq!(cut, None, "cut after {after:?}");
    }

    /// A call off the engine starved as long (its worker is idle-class on a busy core) is cut
    /// at the cap: a 5 ms call within 60 ms, although it ran a fraction of a millisecond.
    #[test]
    fn a_worker_call_starved_past_the_cap_is_cut() {
        let (cut, queued, after) = starved(Clock::Worker);
        assert!(
            queued > 20_000_000,
            "the thread waited only {queued} ns for its core"
        );
        assert_eq!(cut, Some(Cut::Deadline { timeout_ms: 5 }));
        assert!(after >= Duration::from_millis(20), "cut after {after:?}");
    }

    /// A 5 ms call by `clock` on an idle-class thread sharing its core with a busy one, ticked
    /// for up to 60 ms: its cut, the nanoseconds it waited for the core, and when it ended.
    fn starved(clock: Clock) -> (Option<Cut>, u64, Duration) {
        // On a thread of its own: the test harness may run tests on its main thread.
        std::thread::spawn(move || {
            // SAFETY: plain queries and settings of the calling thread.
            let cpu = unsafe { libc::sched_getcpu() };
            let pin = move || {
                // SAFETY: `set` is a valid CPU set for the calling thread.
                unsafe {
                    let mut set: libc::cpu_set_t = std::mem::zeroed();
                    libc::CPU_SET(cpu as usize, &mut set);
                    assert_eq!(libc::sched_setaffinity(0, size_of_val(&set), &set), 0);
                }
            };
            pin();
            let stop = Arc::new(AtomicBool::new(false));
            let busy = stop.clone();
            let hog = std::thread::spawn(move || {
                pin();
                while !busy.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
            // SAFETY: `param` is valid; SCHED_IDLE needs no privilege for the caller itself.
            unsafe {
                let param = libc::sched_param { sched_priority: 0 };
                assert_eq!(libc::sched_setscheduler(0, libc::SCHED_IDLE, &param), 0);
            }
            let queue = RunQueue::current().expect("the kernel keeps a run-queue account");
            let queued_before = RunQueue::waited_ns(Some(&queue));
            let interrupt = Interrupt::counted(5, Cancel::default(), clock);
            let start = Instant::now();
            let mut cut = None;
            while cut.is_none() && start.elapsed() < Duration::from_millis(60) {
                cut = interrupt.tick();
            }
            // A starved thread may not run again until past the 60 ms: one look after them.
            if cut.is_none() {
                cut = interrupt.tick();
            }
            let after = start.elapsed();
            let queued = RunQueue::waited_ns(Some(&queue)) - queued_before;
            stop.store(true, Ordering::Relaxed);
            hog.join().unwrap();
            (cut, queued, after)
        })
        .join()
        .unwrap()
    }

    /// Without a tick seen (a call that never ran wasm past its start), all the time counts.
    #[test]
    fn without_a_tick_all_the_time_counts_as_run() {
        let interrupt = Interrupt::counted(20, Cancel::default(), Clock::Running);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(
            interrupt.check_running(),
            Some(Cut::Deadline { timeout_ms: 20 })
        );
    }

    #[test]
    fn a_cancel_cuts_a_running_call_at_once() {
        let cancel = Cancel::default();
        let interrupt = Interrupt::counted(60_000, cancel.clone(), Clock::Running);
        cancel.cancel();
        assert_eq!(interrupt.check_running(), Some(Cut::Cancelled));
    }
}
