//! The engine loop: the [`Engine`] that owns the [`Server`] and its peers, waits on stdin, the
//! wake-up fd and stdout, hands each message to the dispatcher and queues what comes back
//! (the room's doc, `engine/mod.rs`, says how a message travels).

use super::cancel::CancelBoard;
use super::drain::{self, Drain, Stopped};
use super::inbox::{EngineHandle, EngineStatus, Inbound, Notify, PeerId, Wake};
use super::outbox::{Lanes, Outbox, Sent, frame};
use super::relayed::{RelayIn, RelayOut, RelayOuts};
use super::spin::Pace;
use super::state_waits::{Released, StateWaits};
use super::turns::{Place, Turns};
use super::vitals::Vitals;
use super::workers::Workers;
use crate::limits::{
    DETACHED_WORKERS_MIN, ENGINE_BATCH_US, MAX_PARALLEL_CALLS, MAX_STALL_MS,
    MAX_STDOUT_BACKLOG_BYTES, OUTBOX_CAPACITY, RING_AFTER_MESSAGES, RING_AFTER_US,
    STDIO_FLUSH_AFTER_US, STDIO_FLUSH_BYTES, STDOUT_DRAIN_MS,
};
use crate::mcp::dispatch::deferred::Deferred;
use crate::mcp::dispatch::server::{Connection, Handled, PendingReply, Server};
use crate::mcp::dispatch::sync::{Deltas, WorldUpdate};
use crate::mcp::transport::stdio::StdioInput;
use crate::mcp::transport::stdout::StdoutQueue;
use crate::registry::RanCall;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod relay_io;

/// Threads that run calls which cannot touch the world: one per core, and at least
/// `DETACHED_WORKERS_MIN` (a call that waits — a WASI sleep, a slow server — holds a worker
/// without using a core).
fn detached_workers(cores: usize) -> usize {
    cores.max(DETACHED_WORKERS_MIN)
}

/// The cores this process may run on (its affinity and cgroup quota): read once at start, for
/// the workers and for each connection's [`Pace`] (each reading opens the cgroup files).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How long the engine sleeps when nothing is due (it still looks for hot reloads).
const IDLE_POLL: Duration = Duration::from_millis(100);

/// A connected client.
struct Peer {
    conn: Connection,
    outbox: Outbox,
    in_flight: Arc<AtomicUsize>,
    /// Its calls running off the engine, by ticket. Once `MAX_PARALLEL_CALLS` run, its other
    /// messages wait in `backlog`, in order.
    running: HashMap<u64, PendingReply>,
    /// The ticket of a running call its later messages wait for (one that changes what they
    /// may call: `DetachedCall::keeps_order`).
    fence: Option<u64>,
    next_ticket: u64,
    backlog: VecDeque<String>,
    /// It went away while calls of its ran: released once they complete.
    closing: bool,
    /// The newest state ticket its messages wait for (`state_waits.rs`).
    gate: u64,
    /// Its place in the turns its messages take (`turns.rs`).
    place: Place,
    /// How soon it calls again after a reply (`spin.rs`).
    pace: Pace,
    /// Its socket, read by the engine (a joined process's client, `relayed.rs`).
    input: Option<Arc<Mutex<RelayIn>>>,
}

impl Peer {
    fn new(conn: Connection, outbox: Outbox, in_flight: Arc<AtomicUsize>, cores: usize) -> Peer {
        Peer {
            conn,
            outbox,
            in_flight,
            running: HashMap::new(),
            fence: None,
            next_ticket: 0,
            backlog: VecDeque::new(),
            closing: false,
            gate: 0,
            place: Place::default(),
            pace: Pace::for_cores(cores),
            input: None,
        }
    }

    /// Whether its next message must wait: as many of its calls run off the engine as may,
    /// or one that its later messages wait for.
    fn full(&self) -> bool {
        self.running.len() >= MAX_PARALLEL_CALLS || self.fence.is_some()
    }
}

/// The engine loop's state.
pub struct Engine {
    server: Server,
    /// Hashed by `foldhash` (looked up several times per message).
    peers: HashMap<PeerId, Peer, foldhash::fast::RandomState>,
    inbox: Receiver<Inbound>,
    handle: EngineHandle,
    stdio: Option<StdioSide>,
    workers: Workers,
    /// `[trace] fsync = "always"`: messages wait here until the batch's events are synced.
    /// Also, whatever the setting, the replies of reads whose events wait for the batch's
    /// write (`dispatch/deferred.rs`), and every message after them (order is kept).
    holding: bool,
    held: Vec<Held>,
    /// The bytes of the read replies held, for [`Engine::stdio_flush_due`].
    held_bytes: usize,
    /// The drain a termination signal started, while it runs (`drain.rs`).
    draining: Option<Drain>,
    /// How long a drain lets calls in flight finish (`--drain-ms`).
    drain_period: Duration,
    /// Tasks handed to workers whose calls have not come back.
    tasks_running: usize,
    /// Why the loop ends, once it does.
    stopped: Option<Stopped>,
    /// The socket listeners' lanes, rung once a batch of messages is queued (`outbox.rs`).
    lanes: Lanes,
    /// Socket messages queued since the last ring.
    unrung: Unsent,
    /// Messages queued for joined clients since their sockets were last written
    /// (`relay_io.rs`).
    unwritten: Unsent,
    /// How long to look for the next message before sleeping, for the connections answered
    /// since the engine last went idle ([`Engine::wait_ready`]).
    look: Duration,
    /// The cores this process may run on (for each connection's [`Pace`]).
    cores: usize,
    /// When the batch's messages were last let go ([`Engine::flush`]).
    flushed_at: Instant,
    /// Messages waiting for their state to be durable.
    state_waits: StateWaits<(Out, Kind)>,
    /// The state ticket each reply not yet queued tells of, by connection and request id.
    owing: HashMap<(PeerId, String), u64>,
    /// The connections with messages waiting, in the order they take turns.
    turns: Turns,
    /// Joined processes' clients, whose sockets the engine reads and writes (`relayed.rs`).
    relayed: Vec<PeerId>,
    /// Their outgoing sides, written at each ring.
    relay_outs: RelayOuts,
    /// Released ones whose last replies the socket has not taken yet, and since when.
    leaving: Vec<(Arc<Mutex<RelayOut>>, Instant)>,
    /// What the engine polls: the wake fd, stdin, stdout, then `polled`'s sockets.
    pollfds: Vec<libc::pollfd>,
    polled: Vec<relay_io::Polled>,
}

/// stdin (read by the engine thread) and stdout (queued by it, and by a call's progress
/// reports, whole messages at a time under the lock; written without waiting).
struct StdioSide {
    input: Arc<Mutex<StdioInput>>,
    output: Arc<Mutex<StdoutQueue>>,
}

impl StdioSide {
    fn output(&self) -> std::sync::MutexGuard<'_, StdoutQueue> {
        self.output.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A message waiting for the batch's events ([`Engine::flush`]).
struct Held {
    peer: PeerId,
    message: Out,
    kind: Kind,
    /// A read's reply, which becomes a refusal when its events could not be written.
    deferred: Option<Deferred>,
}

/// The stdio connection's id.
const STDIO: PeerId = 0;

/// Messages queued and not yet let go: how many, and since when.
#[derive(Default)]
struct Unsent {
    count: usize,
    since: Option<Instant>,
}

impl Unsent {
    fn note(&mut self) {
        self.count += 1;
        self.since.get_or_insert_with(Instant::now);
    }

    /// Whether `after` messages are queued or the first has waited `RING_AFTER_US`.
    fn due(&self, after: usize) -> bool {
        self.count >= after
            || self
                .since
                .is_some_and(|t| t.elapsed() >= Duration::from_micros(RING_AFTER_US))
    }

    /// Whether any were queued; none are after.
    fn take(&mut self) -> bool {
        std::mem::take(self).count > 0
    }
}

impl Engine {
    /// An engine over `server`; `stdio` serves stdin/stdout as one more connection.
    pub fn new(server: Server, stdio: bool) -> io::Result<Engine> {
        let (tx, inbox) = channel();
        let handle = EngineHandle {
            tx,
            wake: Arc::new(Wake::new()?),
            trace_health: server.registry().realm().tracer.health(),
            vitals: Arc::new(Vitals::new()),
        };
        let cores = cores();
        let class = server.registry().ceilings().worker_scheduling;
        let workers = Workers::start(detached_workers(cores), handle.clone(), class)?;
        let holding = server.replies_wait_for_sync();
        let mut server = server;
        server.defer_reads();
        let mut engine = Engine {
            server,
            peers: HashMap::default(),
            inbox,
            handle,
            stdio: None,
            workers,
            holding,
            held: Vec::new(),
            held_bytes: 0,
            draining: None,
            drain_period: Duration::from_millis(crate::limits::DEFAULT_DRAIN_MS),
            tasks_running: 0,
            stopped: None,
            lanes: Lanes::default(),
            unrung: Unsent::default(),
            unwritten: Unsent::default(),
            look: Duration::ZERO,
            cores,
            flushed_at: Instant::now(),
            state_waits: StateWaits::default(),
            owing: HashMap::new(),
            turns: Turns::default(),
            relayed: Vec::new(),
            relay_outs: RelayOuts::default(),
            leaving: Vec::new(),
            pollfds: Vec::new(),
            polled: Vec::new(),
        };
        // State is made durable by a writer thread, many calls' at once; it wakes the engine
        // when some is (`state_waits.rs`).
        let wake = engine.handle.wake.clone();
        engine.server.group_state_commits(move || wake.signal());
        // A third-party call may hold the engine for its whole slice: the replies queued
        // before it (another client's ping answered in the same batch) leave first, instead
        // of waiting for the batch's ring after the slice.
        let lanes = engine.lanes.clone();
        let relay_outs = engine.relay_outs.clone();
        engine.server.before_engine_slice(move || {
            lanes.ring();
            relay_outs.write();
        });
        if stdio {
            let input = Arc::new(Mutex::new(StdioInput::new(libc::STDIN_FILENO)));
            let cancels = Arc::new(CancelBoard::with_watch(Some(StdioInput::cancel_watch(
                &input,
            ))));
            StdioInput::set_board(&input, &cancels);
            let output = Arc::new(Mutex::new(StdoutQueue::stdout()));
            let progress_out = output.clone();
            let wake = engine.handle.wake.clone();
            let notify: Notify = Arc::new(move |message: Value| {
                let mut line = serde_json::to_vec(&message).expect("a Value serializes");
                line.push(b'\n');
                let mut out = progress_out.lock().unwrap_or_else(|e| e.into_inner());
                out.push(&line);
                // What stdout does not take now the engine writes once it can (a failure
                // shows at its next write).
                if !matches!(out.write_some(), Ok(()) if out.backlog() == 0) {
                    wake.signal();
                }
            });
            let mut conn = Connection::new(cancels, Some(notify));
            conn.transport = crate::telemetry::NetworkTransport::Pipe;
            engine.peers.insert(
                STDIO,
                Peer::new(conn, Outbox::Stdio(Vec::new()), Arc::default(), cores),
            );
            engine.stdio = Some(StdioSide { input, output });
        }
        Ok(engine)
    }

    /// Where transports send what they read.
    pub fn handle(&self) -> EngineHandle {
        self.handle.clone()
    }

    /// Serves until stdin ends (with stdio), a [`Inbound::Stop`] arrives, or forever
    /// (sockets only); then the server shuts down (the world's last checkpoint). Returns the
    /// termination signal that stopped it, if one did.
    pub fn run(mut self) -> io::Result<Stopped> {
        loop {
            self.handle.vitals.beat();
            if let Some(drain) = &self.draining
                && self.stopped.is_none()
            {
                self.stopped = drain.check(self.in_flight(), Instant::now());
            }
            if self.stopped.is_some() {
                break;
            }
            if !self.serve_stdio_input()? && !self.serves_sockets() {
                self.stopped = Some(Stopped::Finished);
                break;
            }
            self.serve_relayed_input();
            self.settle_state(false);
            self.flush()?;
            // Messages still waiting for their turn: look for more input and go on at once.
            let timeout = match self.turns.is_empty() {
                true => self.poll_timeout(),
                false => Duration::ZERO,
            };
            // While stdio runs all the calls off the engine it may, its input waits in the pipe.
            let stdio_busy = self.peers.get(&STDIO).is_some_and(Peer::full);
            // stdout polled for room while replies wait; past `MAX_STDOUT_BACKLOG_BYTES` of
            // them unread, the client's input waits too.
            let (stdout, unread) = self.stdio.as_ref().map_or((None, false), |stdio| {
                let out = stdio.output();
                (out.poll_fd(), out.backlog() >= MAX_STDOUT_BACKLOG_BYTES)
            });
            // An ended stdin stays readable: poll it no more while its last calls finish.
            let stdin = self
                .stdio
                .as_ref()
                .filter(|s| {
                    !stdio_busy
                        && !unread
                        && !s.input.lock().unwrap_or_else(|e| e.into_inner()).ended()
                })
                .map(|_| libc::STDIN_FILENO);
            let ready = self.wait_ready(stdin, stdout, timeout)?;
            if ready.stdout
                && let Some(stdio) = &self.stdio
            {
                stdio.output().write_some()?;
            }
            if ready.stdin
                && let Some(stdio) = &self.stdio
            {
                stdio
                    .input
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .fill()?;
            }
            if ready.wake {
                self.handle.wake.clear();
            }
            if ready.relayed {
                self.relayed_ready();
            }
            while let Ok(message) = self.inbox.try_recv() {
                self.on_inbound(message);
            }
            self.serve_turns()?;
            self.ring();
            self.idle();
        }
        // stdin's end already flushed and released stdio (`serve_stdio_input`).
        self.settle_state(true);
        self.flush()?;
        if let Some(stdio) = &self.stdio {
            let drained = stdio
                .output()
                .drain(Duration::from_millis(STDOUT_DRAIN_MS))?;
            if !drained {
                crate::log::warn(&format!(
                    "the stdio client did not read its last replies within {STDOUT_DRAIN_MS} ms; \
                     they are dropped"
                ));
            }
        }
        self.server.shutdown();
        Ok(self.stopped.unwrap_or(Stopped::Finished))
    }

    /// Waits for input or a wake-up, looking without sleeping first for as long as the
    /// [`Pace`] of a client just answered says its next message takes: a thread that slept in
    /// `poll` on another core took longer to wake than a call takes. With nobody answered who
    /// calls straight back, it sleeps on its inputs at once.
    fn wait_ready(
        &mut self,
        stdin: Option<RawFd>,
        stdout: Option<RawFd>,
        timeout: Duration,
    ) -> io::Result<Ready> {
        let idle_since = Instant::now();
        // While workers draw or compute, a look that yields hands this core to an idle-class
        // worker, and the engine, left runnable, waits for the next scheduler tick (4 ms at
        // 250 Hz; `perf sched timehist`, 2026-11-28). Asleep in `poll`, it takes a core back
        // from a worker the moment input wakes it.
        let window = if self.workers.busy() {
            Duration::ZERO
        } else {
            self.look.min(timeout)
        };
        // Looked for once: a wait that has work waiting (no timeout) keeps it for the next.
        if !timeout.is_zero() {
            self.look = Duration::ZERO;
        }
        self.poll_set(stdin, stdout);
        if !window.is_zero() {
            let until = idle_since + window;
            loop {
                let ready = poll(&mut self.pollfds, Duration::ZERO)?;
                if ready.stdin || ready.wake || ready.stdout || ready.relayed {
                    return Ok(ready);
                }
                if Instant::now() >= until {
                    break;
                }
                // Whatever else is runnable on this core (the client, the indexer) goes first.
                std::thread::yield_now();
            }
        }
        poll(&mut self.pollfds, timeout)
    }

    /// Bytes of replies stdout has not taken yet.
    fn stdout_backlog(&self) -> usize {
        self.stdio
            .as_ref()
            .map_or(0, |stdio| stdio.output().backlog())
    }

    /// Whether the batch's stdio replies should go out before the batch ends.
    fn stdio_flush_due(&self) -> bool {
        let Some(Peer {
            outbox: Outbox::Stdio(queued),
            ..
        }) = self.peers.get(&STDIO)
        else {
            return false;
        };
        // Read replies held for the batch's write count as waiting too: otherwise a client
        // that keeps writing would get them only when it stops.
        queued.len() + self.held_bytes >= STDIO_FLUSH_BYTES
            || ((!queued.is_empty() || !self.held.is_empty())
                && self.flushed_at.elapsed() >= Duration::from_micros(STDIO_FLUSH_AFTER_US))
    }

    /// Whether any socket transport may still connect (the channel has senders besides ours).
    fn serves_sockets(&self) -> bool {
        self.handle.wake.listeners.load(Ordering::Relaxed) > 0
    }

    /// Handles the complete lines stdin has buffered, each taking its turn among the other
    /// connections' messages (`turns.rs`): the next line is read once the one before had its
    /// turn. False once stdin has ended.
    fn serve_stdio_input(&mut self) -> io::Result<bool> {
        let Some(stdio) = &self.stdio else {
            return Ok(true);
        };
        let input = stdio.input.clone();
        while let Some(peer) = self.peers.get(&STDIO) {
            // While a call waits for a person, lines are read on: the answer may be among them.
            if peer.full() || (!peer.backlog.is_empty() && peer.conn.asking.is_none()) {
                break;
            }
            let line = input.lock().unwrap_or_else(|e| e.into_inner()).next_line();
            match line {
                Some(Ok(text)) => {
                    let peer = self.peers.get_mut(&STDIO).expect("stdio is connected");
                    // A connection whose call waits for a person still hears the answer.
                    if peer.conn.asking.is_some()
                        && crate::mcp::dispatch::approval::lets_through(&text)
                    {
                        self.on_message(STDIO, &text);
                        self.drain(STDIO);
                        continue;
                    }
                    peer.pace.arrived();
                    peer.backlog.push_back(text);
                    self.drain(STDIO);
                    self.serve_turns()?;
                }
                Some(Err(reply)) => self.send(STDIO, reply, Kind::Reply),
                None => break,
            }
        }
        let ended = input.lock().unwrap_or_else(|e| e.into_inner()).ended();
        // Calls still running (or waiting behind them) are answered before stdio goes: a
        // client that sends its calls and closes its end still gets every reply.
        let owed = self
            .peers
            .get(&STDIO)
            .is_some_and(|p| !p.running.is_empty() || !p.backlog.is_empty());
        if ended && owed {
            return Ok(true);
        }
        if ended {
            self.flush()?;
            // Released once the client has read every reply (stdout polled meanwhile).
            if self.stdout_backlog() > 0 {
                return Ok(true);
            }
            self.release(STDIO);
            self.stdio = None;
            return Ok(false);
        }
        Ok(true)
    }

    fn on_inbound(&mut self, message: Inbound) {
        match message {
            Inbound::Open {
                id,
                outbox,
                cancels,
                in_flight,
                notify,
                transport_session,
                grant,
                default_profile,
                ticket,
                input,
            } => {
                let mut conn = Connection::new(cancels, Some(notify));
                conn.transport_session = transport_session;
                conn.grant = grant;
                conn.default_profile = default_profile;
                conn.ticket = ticket;
                if let Some(lane) = outbox.lane() {
                    self.lanes.add(lane);
                }
                let mut peer = Peer::new(conn, outbox, in_flight, self.cores);
                if input.is_some() {
                    self.relayed.push(id);
                    if let Outbox::Relayed(out) = &peer.outbox {
                        self.relay_outs.add(out);
                    }
                    if self.draining.is_some() {
                        relay_io::tell_draining(&peer.outbox);
                    }
                }
                peer.input = input;
                self.peers.insert(id, peer);
            }
            Inbound::Message { id, text } => {
                let Some(peer) = self.peers.get_mut(&id) else {
                    return;
                };
                // A connection whose call waits for a person still hears the answer.
                if peer.conn.asking.is_some() && crate::mcp::dispatch::approval::lets_through(&text)
                {
                    peer.in_flight.fetch_sub(1, Ordering::AcqRel);
                    self.on_message(id, &text);
                    self.drain(id);
                    return;
                }
                // Behind its others, in order, for its turn (`serve_turns`).
                peer.pace.arrived();
                peer.backlog.push_back(text);
                self.drain(id);
            }
            // What it sent before it went is still handled (its calls running complete); a
            // call waiting for a person is withdrawn with it (`release`).
            Inbound::Close { id } => match self.peers.get_mut(&id) {
                Some(peer)
                    if !peer.running.is_empty()
                        || (peer.conn.asking.is_none() && !peer.backlog.is_empty()) =>
                {
                    peer.closing = true
                }
                Some(_) => self.release(id),
                None => {}
            },
            Inbound::Completed { id, ticket, ran } => self.on_completed(id, ticket, ran),
            Inbound::TaskDone { task, ran } => {
                self.tasks_running = self.tasks_running.saturating_sub(1);
                self.on_task_done(&task, ran)
            }
            Inbound::Stop { signal } => self.on_stop(signal),
            Inbound::Refused { agent, reason } => self
                .server
                .registry_mut()
                .refuse_admission(&serde_json::json!({ "agentId": agent }), &reason),
            // The client of a process that took the world over is done (`crate::join`).
            Inbound::Finish => {
                self.stopped.get_or_insert(Stopped::Finished);
            }
            Inbound::Status { reply } => reply(self.status()),
        }
    }

    /// What it serves: the world's size and every bound session.
    fn status(&self) -> EngineStatus {
        let world = &self.server.registry().realm().world;
        let mut sessions: Vec<(PeerId, Value)> = self
            .peers
            .iter()
            .filter_map(|(id, p)| Some((*id, p.conn.session.as_ref()?.describe())))
            .collect();
        sessions.sort_by_key(|(id, _)| *id);
        EngineStatus {
            entities: world.entity_count(),
            tick: world.tick(),
            sessions,
        }
    }

    /// Frees a connection's session and forgets it.
    fn release(&mut self, id: PeerId) {
        self.state_waits.forget(id);
        self.owing.retain(|(peer, _), _| *peer != id);
        if let Some(mut peer) = self.peers.remove(&id) {
            self.server.disconnect(&mut peer.conn);
            self.let_go(&peer.outbox);
            crate::log::debug(&format!("connection {id} closed; its session is released"));
        }
        // With nobody subscribed, the world's changes need not be kept (the next subscription
        // watches again).
        if !self.peers.values().any(|p| p.conn.subscription.is_some()) {
            self.server.sync_watch = None;
        }
    }

    /// A detached call came back: its reply, then the messages that waited for room.
    fn on_completed(&mut self, id: PeerId, ticket: u64, ran: RanCall) {
        let Some(peer) = self.peers.get_mut(&id) else {
            return;
        };
        let pending = peer
            .running
            .remove(&ticket)
            .expect("a completed call was pending");
        if peer.fence == Some(ticket) {
            peer.fence = None;
        }
        let reply = match self.server.complete(&mut peer.conn, ran, pending) {
            Handled::Reply(reply) => reply.map(Out::Value),
            Handled::Framed(frame) => Some(Out::Frame(frame)),
            Handled::Detached(..) => unreachable!("a completed call is not detached again"),
        };
        self.answer(id, reply, None);
        self.drain(id);
    }

    /// A task's call came back: its result kept, and the `tasks/result` requests waiting
    /// for it answered.
    fn on_task_done(&mut self, task: &str, ran: RanCall) {
        self.server.complete_task(task, ran);
        let ids: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| !p.conn.awaiting_tasks.is_empty())
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let peer = self.peers.get_mut(&id).expect("listed above");
            for reply in self.server.task_replies(&mut peer.conn) {
                self.send(id, reply, Kind::Reply);
            }
        }
    }

    /// After anything that may let a connection's waiting messages go on (one arrived, a
    /// call of its came back, a person answered): it takes a turn when it may; a connection
    /// that went away is released once nothing of its is left.
    fn drain(&mut self, id: PeerId) {
        let Some(peer) = self.peers.get_mut(&id) else {
            return;
        };
        let blocked = peer.full() || peer.conn.asking.is_some();
        if !blocked && !peer.backlog.is_empty() {
            self.turns.ready(id, &mut peer.place);
        } else if peer.closing && peer.running.is_empty() && (blocked || peer.backlog.is_empty()) {
            self.release(id);
        }
    }

    /// Handles the waiting messages one per turn, the connection that used the engine least
    /// going first (`turns.rs`), until none waits or `ENGINE_BATCH_US` have passed (then the
    /// batch's replies go out and the loop comes straight back).
    fn serve_turns(&mut self) -> io::Result<()> {
        let started = Instant::now();
        while let Some(id) = self.turns.next() {
            let Some(peer) = self.peers.get_mut(&id) else {
                continue;
            };
            if peer.full() || peer.conn.asking.is_some() {
                Turns::skipped(&mut peer.place);
                continue;
            }
            let Some(text) = peer.backlog.pop_front() else {
                Turns::skipped(&mut peer.place);
                continue;
            };
            if id != STDIO {
                peer.in_flight.fetch_sub(1, Ordering::AcqRel);
            }
            let turn = Instant::now();
            self.on_message(id, &text);
            if let Some(peer) = self.peers.get_mut(&id) {
                Turns::took(&mut peer.place, turn.elapsed());
            }
            self.drain(id);
            // What arrived meanwhile takes its turn in this batch.
            while let Ok(message) = self.inbox.try_recv() {
                self.on_inbound(message);
            }
            self.ring_if_due();
            if self.stdio_flush_due() {
                self.flush()?;
            }
            if started.elapsed() >= Duration::from_micros(ENGINE_BATCH_US) {
                break;
            }
        }
        Ok(())
    }

    /// One message from `id`: world time first, then the message, its notifications and
    /// reply, then the deltas it caused.
    fn on_message(&mut self, id: PeerId, text: &str) {
        if self.draining.is_some()
            && let Some(refusal) = drain::refusal(text)
        {
            self.send(id, refusal, Kind::Reply);
            return;
        }
        self.step_clock();
        let Some(peer) = self.peers.get_mut(&id) else {
            return;
        };
        let handled = self.server.handle(&mut peer.conn, text);
        self.take(id, handled);
    }

    /// What handling gave: a reply to send, or a call to hand a worker.
    fn take(&mut self, id: PeerId, handled: Handled) {
        let deferred = self.server.take_deferred();
        let Some(peer) = self.peers.get_mut(&id) else {
            return;
        };
        for (task, call) in peer.conn.task_jobs.drain(..) {
            self.tasks_running += 1;
            self.workers.submit_task(task, call);
        }
        let reply = match handled {
            Handled::Reply(reply) => reply.map(Out::Value),
            Handled::Framed(frame) => Some(Out::Frame(frame)),
            Handled::Detached(call, pending) => {
                crate::log::debug(&format!("{} runs off the engine", call.skill()));
                let ticket = peer.next_ticket;
                peer.next_ticket += 1;
                peer.running.insert(ticket, *pending);
                if call.keeps_order() {
                    peer.fence = Some(ticket);
                }
                self.workers.submit(id, ticket, call);
                None
            }
        };
        self.answer(id, reply, deferred);
    }

    /// Sends `id` what it is owed (notifications first), then everyone the deltas its call
    /// caused; a read's reply `deferred` waits for the batch's write.
    fn answer(&mut self, id: PeerId, reply: Option<Out>, deferred: Option<Deferred>) {
        let owed = self.server.take_state_owed();
        let Some(peer) = self.peers.get_mut(&id) else {
            return;
        };
        // What it wrote to state (or read of what is being written) is durable before its
        // reply leaves, and before anything after it to this connection.
        if let Some(ticket) = owed {
            peer.gate = peer.gate.max(ticket);
            self.look = self.look.max(peer.pace.waiting());
            // Its reply tells of that state: should it be lost, the reply says so.
            if let Some(request) = reply.as_ref().and_then(request_of) {
                self.owing.insert((id, request.to_string()), ticket);
            }
        }
        let notes = self.server.notifications(&mut peer.conn);
        let caused_by = std::mem::take(&mut peer.conn.last_events);
        for note in notes {
            self.send(id, note, Kind::Notification);
        }
        match (reply, deferred) {
            (Some(reply), Some(deferred)) => {
                // Serialized now, while it is in the cache, and not kept as a tree until the
                // batch ends (holding the trees made serializing them a fifth of the engine).
                let text = match reply {
                    Out::Value(reply) => frame(&reply),
                    Out::Frame(text) => text,
                };
                self.held_bytes += text.len();
                self.held.push(Held {
                    peer: id,
                    message: Out::Frame(text),
                    kind: Kind::Reply,
                    deferred: Some(deferred),
                });
            }
            (Some(reply), None) => self.send(id, reply, Kind::Reply),
            (None, _) => {}
        }
        self.publish(&caused_by);
    }

    /// Steps the world as real time says and publishes what moved.
    fn step_clock(&mut self) {
        self.server.advance_clock();
        self.publish(&[]);
    }

    /// Refuses the calls whose wait for a person's answer is over.
    fn expire_approvals(&mut self) {
        let now = Instant::now();
        let due: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| Server::asking_deadline(&p.conn).is_some_and(|d| d <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            let peer = self.peers.get_mut(&id).expect("listed above");
            if let Some(handled) = self.server.expire_asking(&mut peer.conn) {
                self.take(id, handled);
                self.drain(id);
            }
        }
    }

    /// Reloads, clock, deltas, and what idle connections are owed (`tools/list_changed`).
    fn idle(&mut self) {
        self.expire_approvals();
        let generation = self.server.registry().generation();
        self.server.idle();
        self.publish(&[]);
        let changed = generation != self.server.registry().generation();
        let behind = |p: &Peer| {
            p.conn
                .subscription
                .as_ref()
                .is_some_and(|s| s.behind_since.is_some())
        };
        // Most wake-ups change nothing and find no subscriber behind: nothing to walk.
        if !changed && !self.peers.values().any(behind) {
            return;
        }
        let ids: Vec<PeerId> = self.peers.keys().copied().collect();
        for id in ids {
            if changed && let Some(peer) = self.peers.get_mut(&id) {
                for note in self.server.notifications(&mut peer.conn) {
                    self.send(id, note, Kind::Notification);
                }
            }
            self.catch_up(id);
        }
    }

    /// Sends every subscriber what the world's latest changes owe it: each distinct delta
    /// serialized once, its frame shared by the subscribers owed it.
    fn publish(&mut self, caused_by: &[String]) {
        let update = self.server.take_world_update();
        self.publish_resources(update.as_ref());
        let Some(update) = update else {
            return;
        };
        let mut deltas = Deltas::new(&update, caused_by);
        let ids: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| p.conn.subscription.is_some())
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let peer = self.peers.get_mut(&id).expect("listed above");
            let subscription = peer.conn.subscription.as_mut().expect("filtered");
            if subscription.behind_since.is_some() {
                // It gets a fresh snapshot once it has room; nothing to add meanwhile.
                continue;
            }
            if let Some(delta) = self.server.delta_frame(subscription, &mut deltas) {
                self.send(id, Out::Frame(delta), Kind::Delta);
            }
        }
    }

    /// Tells resource watchers what the world's latest changes (if any) touched: each
    /// subscribed resource at most once per tick, and list changes.
    fn publish_resources(&mut self, update: Option<&WorldUpdate>) {
        if !self.server.resources_watched() {
            return;
        }
        let touched = self.server.resource_update(update);
        let ids: Vec<PeerId> = self.peers.keys().copied().collect();
        for id in ids {
            let peer = self.peers.get_mut(&id).expect("listed above");
            for note in self.server.resource_notes(&mut peer.conn, &touched) {
                self.send(id, note, Kind::Notification);
            }
        }
    }

    /// A subscriber that fell behind: a fresh snapshot once half its outbox is free again,
    /// or a disconnect when it has been stuck for too long.
    fn catch_up(&mut self, id: PeerId) {
        let Some(peer) = self.peers.get_mut(&id) else {
            return;
        };
        let Some(subscription) = peer.conn.subscription.as_mut() else {
            return;
        };
        let Some(since) = subscription.behind_since else {
            return;
        };
        if peer.outbox.room() >= OUTBOX_CAPACITY / 2 {
            subscription.behind_since = None;
            let mut snapshot = self.server.snapshot(subscription);
            snapshot["params"]["resync"] = Value::Bool(true);
            self.send(id, snapshot, Kind::Notification);
        } else if since.elapsed() > Duration::from_millis(MAX_STALL_MS) {
            peer.outbox.close(
                1008,
                &format!("the client has not read its messages for {MAX_STALL_MS} ms; reconnect and subscribe again"),
            );
        }
    }

    /// Queues `message` for `id` — with `[trace] fsync = "always"`, once the batch's events
    /// are synced ([`Engine::flush`]).
    fn send(&mut self, id: PeerId, message: impl Into<Out>, kind: Kind) {
        let message = message.into();
        if self.holding || !self.held.is_empty() {
            self.held.push(Held {
                peer: id,
                message,
                kind,
                deferred: None,
            });
            return;
        }
        self.deliver(id, message, kind);
    }

    /// Lets the held messages go once their events are written (and, with `fsync =
    /// "always"`, synced). A read whose events could not be written gets the refusal
    /// instead of its reply. When the sync failed they are not acknowledged: a reply becomes
    /// an error saying so, the rest is dropped.
    fn release_held(&mut self, durable: bool) {
        let (refused, failure) = self.server.take_refused();
        self.held_bytes = 0;
        for held in std::mem::take(&mut self.held) {
            let Held {
                peer: id,
                message,
                kind,
                deferred,
            } = held;
            if let Some(deferred) = deferred.as_ref().filter(|d| refused.contains(&d.ticket())) {
                self.deliver(id, Out::Value(deferred.refused(&failure)), kind);
                continue;
            }
            if durable || !self.holding {
                self.deliver(id, message, kind);
                continue;
            }
            let request = match (&deferred, &message) {
                (Some(deferred), _) => Some(deferred.id().clone()),
                (None, Out::Value(message)) => message.get("id").cloned(),
                // A tool call's reply goes out already written (`dispatch/call_result.rs`).
                (None, Out::Frame(frame)) => reply_id(frame),
            };
            if let (Kind::Reply, Some(request)) = (kind, request) {
                let error = crate::mcp::wire::jsonrpc::error(
                    request,
                    -32002,
                    "capacity_exceeded: the call ran but the trace could not be synced, so it is \
                     not acknowledged and its effects may not survive a power loss; the host \
                     refuses recorded calls until the trace can be written again",
                    None,
                );
                self.deliver(id, Out::Value(error), kind);
            }
        }
    }

    /// Queues `message` for `id` now, or once the state its connection waits for is durable.
    fn deliver(&mut self, id: PeerId, message: Out, kind: Kind) {
        let gate = self.peers.get(&id).map_or(0, |p| p.gate);
        let own = match kind {
            Kind::Reply if !self.owing.is_empty() => request_of(&message)
                .and_then(|request| self.owing.remove(&(id, request.to_string())))
                .unwrap_or(0),
            _ => 0,
        };
        if let Some(released) = self.state_waits.hold(id, gate, own, (message, kind)) {
            self.send_settled(released);
        }
    }

    /// Lets go the messages whose state the writer has settled since the last look (`wait`:
    /// all of it, waiting — at shutdown). A reply whose state could not be saved becomes an
    /// error saying so; the notifications behind it go as they are.
    fn settle_state(&mut self, wait: bool) {
        let reports = self.server.settle_state(wait);
        if reports.is_empty() {
            return;
        }
        for released in self.state_waits.settle(reports) {
            self.send_settled(released);
        }
        self.ring();
    }

    /// Queues a message that waited for its state: as it is, or — the state its call wrote
    /// or read could not be saved — a reply turned into an error saying so.
    fn send_settled(&mut self, released: Released<(Out, Kind)>) {
        let (message, kind) = released.message;
        let Some(cause) = released.failed else {
            self.push_out(released.peer, message, kind);
            return;
        };
        let message = match request_of(&message) {
            Some(request) => Out::Value(crate::mcp::wire::jsonrpc::error(
                request,
                -32002,
                &format!(
                    "capacity_exceeded: {cause}. The call ran and is in the trace, and its \
                     world changes were kept, but the state it wrote or read was not saved, \
                     so it is not acknowledged; state writes are refused for a moment, then \
                     tried again"
                ),
                None,
            )),
            None => message,
        };
        self.push_out(released.peer, message, kind);
    }

    /// Queues `message` for `id`. A full outbox drops a delta (the subscriber resyncs later)
    /// and disconnects a client that is not reading its replies.
    fn push_out(&mut self, id: PeerId, message: Out, kind: Kind) {
        let Some(peer) = self.peers.get_mut(&id) else {
            return;
        };
        let sent = match message {
            Out::Value(message) => peer.outbox.push(&message),
            Out::Frame(frame) => peer.outbox.push_frame(frame),
        };
        if sent == Sent::Queued {
            // Its reply leaves now (a reply held for its state or the batch's write leaves
            // once that is done): its next call may come about a round trip from here.
            if kind == Kind::Reply {
                self.look = self.look.max(peer.pace.answered());
            }
            if peer.outbox.lane().is_some() {
                self.unrung.note();
            } else if matches!(peer.outbox, Outbox::Relayed(_)) {
                self.unwritten.note();
            }
        }
        match sent {
            Sent::Queued | Sent::Gone => {}
            Sent::Full => match kind {
                Kind::Delta => {
                    if let Some(s) = peer.conn.subscription.as_mut() {
                        s.behind_since.get_or_insert_with(Instant::now);
                    }
                }
                Kind::Reply | Kind::Notification => peer.outbox.close(
                    1008,
                    &format!(
                        "the client is not reading: {OUTBOX_CAPACITY} messages are waiting for it"
                    ),
                ),
            },
        }
    }

    /// Writes the trace's unwritten events (synced as `[trace] fsync` says), then lets the
    /// batch's messages go: held ones to their outboxes, stdio's to stdout.
    fn flush(&mut self) -> io::Result<()> {
        self.flushed_at = Instant::now();
        self.ring();
        let durable = self.server.flush();
        if !self.held.is_empty() {
            self.release_held(durable);
            self.ring();
        } else {
            // Deferred calls cancelled before their reply: nothing to refuse.
            let _ = self.server.take_refused();
        }
        let Some(stdio) = &self.stdio else {
            return Ok(());
        };
        let mut out = stdio.output();
        if let Some(Peer {
            outbox: Outbox::Stdio(queued),
            ..
        }) = self.peers.get_mut(&STDIO)
        {
            out.take(queued);
        }
        out.write_some()
    }

    /// Wakes the writers of every socket message queued since the last ring: one wake-up per
    /// listener for the lot.
    fn ring(&mut self) {
        self.write_relayed();
        if self.unrung.take() {
            self.lanes.ring();
        }
    }

    /// Rings while more messages wait, once enough are queued or the first has waited long
    /// enough (`RING_AFTER_MESSAGES`, `RING_AFTER_US`); the batch's end rings the rest.
    fn ring_if_due(&mut self) {
        if self.unrung.due(RING_AFTER_MESSAGES) {
            self.ring();
        }
        self.write_relayed_if_due();
    }

    /// Until the next world step when someone watches the world; else the idle period.
    fn poll_timeout(&self) -> Duration {
        // Also when a resource update waits for the next tick.
        let watched = self
            .peers
            .values()
            .any(|p| p.conn.subscription.is_some() || p.conn.resources.owes());
        let timeout = match self.server.until_next_step() {
            Some(next) if watched => next.min(IDLE_POLL),
            _ => IDLE_POLL,
        };
        // A call waiting for a person is refused as soon as its deadline passes, and a drain
        // ends at its deadline.
        let now = Instant::now();
        let timeout = self.draining.map_or(timeout, |d| {
            timeout.min(d.deadline.saturating_duration_since(now))
        });
        self.peers
            .values()
            .filter_map(|p| Server::asking_deadline(&p.conn))
            .map(|d| d.saturating_duration_since(now))
            .fold(timeout, Duration::min)
    }

    /// How long a drain lets calls in flight finish (`--drain-ms`).
    pub fn set_drain_period(&mut self, period: Duration) {
        self.drain_period = period;
    }

    /// A termination signal: the first starts a drain, the next cuts it short.
    fn on_stop(&mut self, signal: i32) {
        let in_flight = self.in_flight();
        match &self.draining {
            None => {
                crate::log::info(&format!(
                    "stopping: admitting no new calls; {in_flight} calls in flight get up to {} ms \
                     (--drain-ms; a second signal cuts this short)",
                    self.drain_period.as_millis()
                ));
                self.handle.vitals.drain();
                self.draining = Some(Drain::new(signal, self.drain_period));
                for id in &self.relayed {
                    if let Some(peer) = self.peers.get(id) {
                        relay_io::tell_draining(&peer.outbox);
                    }
                }
            }
            Some(drain) if self.stopped.is_none() => self.stopped = Some(drain.cut(in_flight)),
            Some(_) => {}
        }
    }

    /// Calls still in flight: off the engine, as tasks, or waiting for a person's answer.
    fn in_flight(&self) -> usize {
        let peers: usize = self
            .peers
            .values()
            .map(|p| p.running.len() + usize::from(p.conn.asking.is_some()))
            .sum();
        peers + self.tasks_running
    }

    /// Registers a socket transport (so the engine keeps running after stdin ends).
    pub fn add_listener(&self) {
        self.handle.wake.listeners.fetch_add(1, Ordering::Relaxed);
    }
}

/// A message to queue: built for one connection, or a frame shared by several (a delta).
enum Out {
    Value(Value),
    Frame(super::outbox::Frame),
}

impl From<Value> for Out {
    fn from(message: Value) -> Out {
        Out::Value(message)
    }
}

/// What kind of message is queued (decides what a full outbox means).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Reply,
    Notification,
    Delta,
}

#[derive(Default)]
struct Ready {
    stdin: bool,
    wake: bool,
    /// stdout has room (or the client is gone) for the replies waiting.
    stdout: bool,
    /// A joined client's socket has input or room (`Engine::relayed_ready` looks which).
    relayed: bool,
}

/// Waits until one of `fds` is ready (the wake fd, stdin, stdout, then joined clients'
/// sockets: `Engine::poll_set`) or `timeout` passes. A negative fd is skipped by `poll`.
fn poll(fds: &mut [libc::pollfd], timeout: Duration) -> io::Result<Ready> {
    for fd in fds.iter_mut() {
        fd.revents = 0;
    }
    let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: valid pollfds for the duration of the call.
    let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
    if n < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(Ready::default());
        }
        return Err(e);
    }
    Ok(Ready {
        wake: fds[0].revents != 0,
        stdin: fds[1].revents != 0,
        stdout: fds[2].revents != 0,
        relayed: fds[3..].iter().any(|fd| fd.revents != 0),
    })
}

/// The request a serialized reply answers (`None` for a notification or a delta). Read only
/// when a batch could not be synced, to turn its replies into errors.
/// The request a reply answers, if `message` is one.
fn request_of(message: &Out) -> Option<Value> {
    match message {
        Out::Value(message) => message.get("id").cloned(),
        Out::Frame(frame) => reply_id(frame),
    }
}

fn reply_id(frame: &str) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Reply {
        id: Option<Value>,
        method: Option<serde::de::IgnoredAny>,
    }
    let reply: Reply = serde_json::from_str(frame).ok()?;
    reply.method.is_none().then_some(reply.id).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A reply written as a frame still names its request when its batch could not be synced
    /// (it becomes an error); notifications and deltas name none.
    #[test]
    fn a_framed_reply_names_its_request_and_a_notification_none() {
        let response = crate::registry::Response::of(
            Ok(json!({"id": "not the request's", "method": "neither"})),
            std::time::Instant::now(),
            vec!["evt_a".into()],
        );
        let result = crate::mcp::dispatch::call_result::CallResult::from(response);
        for id in [json!(7), json!("r-1")] {
            assert_eq!(
                reply_id(&result.reply_in(&id, crate::mcp::wire::Revision::Classic)),
                Some(id)
            );
        }
        let note = crate::json::text(
            &json!({"jsonrpc": "2.0", "method": "notifications/state/delta", "params": {"id": 3}}),
        );
        assert_eq!(reply_id(&note), None);
        assert_eq!(reply_id("not json"), None);
    }
}
