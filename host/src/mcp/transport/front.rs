//! A joined process's own network listener: `--mcp-ws` or `--mcp-http` on a trace folder
//! another host serves. The listener is this process's, run by the same WebSocket and HTTP
//! transports a serving host runs, handed a forwarding [`EngineHandle`] instead of an engine:
//! each client it opens becomes one control-socket connection to the serving host (its own
//! session on the one world), its messages frames on it, the frames back its replies.
//!
//! Admission happens here, at this process's edge, with the same code a serving host uses
//! (Origin check, gate, meter, `--auth-token-file`, `[[network.tokens]]`, `[identity]`), and
//! only its decision — the profiles and agent a client may take, and which setting decided —
//! crosses the control socket in the hello. Why here: the token stays in the process it was
//! sent to (a network secret does not travel further than it must); the identity provider is
//! asked by the process that holds the request, so a refused or flooding client costs the
//! serving engine nothing; and the peer on the control socket is this user's own process
//! (`SO_PEERCRED`), which could already join over stdio with no ceiling at all, so trusting its
//! decision gives it nothing it did not have. The serving host still checks that every profile
//! a decision names is one its configuration defines, and serves a network client with no
//! decision not at all. A token this edge refuses is traced in the world's trace all the same
//! (`session.admission.denied`, as the serving host traces its own): the reason and the agent
//! a verified token named cross, in a hello of its own, never the token.
//!
//! When the serving host ends, each client's connection waits for the next one (whichever
//! process takes the world over — perhaps this one, see `cli/join.rs`), answers the requests
//! it had in flight with an error saying they may or may not have run, and recreates the
//! client's session there with the same ids (`crate::join::resume`), as a stdio relay does.

use crate::join::frame::{self, Kind};
use crate::join::handshake::{self, Admitted, Hello, Purpose, Refused, Welcome};
use crate::join::relay::Ended;
use crate::join::resume::{FromServer, Resume, unanswered};
use crate::join::socket::{self, ConnectError};
use crate::limits::{JOIN_READ_BYTES, JOIN_TAKEOVER_MS, JOIN_WELCOME_MS};
use crate::mcp::engine::inbox::{EngineHandle, Forwarding, Inbound, PeerId};
use crate::mcp::engine::outbox::{Frame, Outbox, Sent};
use crate::mcp::transport::edge::{Grant, Ticket};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// How often a client whose host ended looks for the next one.
const RETRY: Duration = Duration::from_millis(10);
/// How often a client whose outbox is full is looked at for room again.
const HELD_LOOK: Duration = Duration::from_millis(2);
/// How often the forwarder's loop beats when nothing arrives (its `/healthz`).
const BEAT: Duration = Duration::from_millis(500);

/// Starts forwarding to the host serving `trace_dir`: the handle to give this process's
/// listeners.
pub fn start(trace_dir: PathBuf) -> std::io::Result<EngineHandle> {
    let (handle, forwarding) = EngineHandle::forwarding()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let spawner = runtime.handle().clone();
    std::thread::Builder::new()
        .name("limina-front-io".into())
        .spawn(move || runtime.block_on(std::future::pending::<()>()))?;
    std::thread::Builder::new()
        .name("limina-front".into())
        .spawn(move || forward(forwarding, spawner, trace_dir))?;
    Ok(handle)
}

/// Routes what the listeners hand over to each client's task.
fn forward(forwarding: Forwarding, spawner: tokio::runtime::Handle, trace_dir: PathBuf) {
    let trace_dir = Arc::new(trace_dir);
    let mut clients: HashMap<PeerId, UnboundedSender<String>> = HashMap::new();
    loop {
        forwarding.beat();
        match forwarding.inbox.recv_timeout(BEAT) {
            Ok(Inbound::Open {
                id,
                outbox,
                in_flight,
                transport_session,
                grant,
                ticket,
                ..
            }) => {
                let (up, messages) = unbounded_channel();
                clients.insert(id, up);
                let client = Client {
                    hello: hello(grant, transport_session),
                    outbox,
                    in_flight,
                    ticket,
                    resume: Mutex::default(),
                    trace_dir: trace_dir.clone(),
                };
                spawner.spawn(client.run(messages));
            }
            Ok(Inbound::Message { id, text }) => {
                if let Some(up) = clients.get(&id) {
                    let _ = up.send(text);
                }
            }
            // Its task ends when its channel does; the serving host then closes the session.
            Ok(Inbound::Close { id }) => {
                clients.remove(&id);
            }
            // A refusal at this edge was logged by the transport; the serving host traces it
            // in the world's trace, as it does its own edge's.
            Ok(Inbound::Refused { agent, reason }) => {
                let trace_dir = trace_dir.clone();
                spawner.spawn(async move { report(&trace_dir, agent, reason).await });
            }
            Ok(_) => {}
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// The hello of one network client: its transport and what this edge admitted it with.
fn hello(grant: Option<Grant>, session: Option<String>) -> Hello {
    let mut hello = Hello::new(Purpose::Client);
    // Only HTTP gives a connection a session id of its transport's own. (The kinds the
    // status names transports by.)
    hello.transport = Some(if session.is_some() { "http" } else { "ws" }.into());
    hello.admitted = grant.map(|g| Admitted {
        profiles: g.profiles,
        agent_id: g.agent_id,
        setting: g.setting,
    });
    hello.session = session;
    hello
}

/// One network client, relayed to whichever host serves the world.
struct Client {
    hello: Hello,
    outbox: Outbox,
    in_flight: Arc<AtomicUsize>,
    ticket: Option<Arc<Ticket>>,
    resume: Mutex<Resume>,
    trace_dir: Arc<PathBuf>,
}

impl Client {
    async fn run(mut self, mut messages: UnboundedReceiver<String>) {
        loop {
            let (stream, welcome, early) = match reach(&self.trace_dir, &self.hello).await {
                Ok(reached) => reached,
                Err(reason) => {
                    crate::log::warn(&format!("a network client cannot be served: {reason}"));
                    self.outbox.close(1011, &reason);
                    self.ring();
                    return;
                }
            };
            let server = welcome.pid;
            match self.serve(stream, &early, &mut messages).await {
                Ended::ClientDone => return,
                Ended::ServerGone => {
                    let resume = self.resume.get_mut().unwrap_or_else(|e| e.into_inner());
                    let agent = resume.agent().map(str::to_string);
                    for request in resume.take_in_flight() {
                        if let Some(line) = unanswered(&request, server, agent.as_deref()) {
                            self.send_client(line.trim_ascii_end());
                        }
                    }
                    self.ring();
                }
            }
        }
    }

    /// Relays between the client and one host's connection until either ends: the client's
    /// messages written and the host's read at once, so a host holding this client back (its
    /// socket unread) is still heard.
    async fn serve(
        &mut self,
        stream: UnixStream,
        early: &[u8],
        messages: &mut UnboundedReceiver<String>,
    ) -> Ended {
        let (mut from_server, mut to_server) = stream.into_split();
        let mut frames = frame::Reader::default();
        frames.space(early.len()).copy_from_slice(early);
        frames.filled(early.len(), early.len());
        let mut bytes = Vec::new();
        // The session again, with its ids, on a host that is not the one it was bound on.
        for message in self
            .resume
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .messages()
        {
            frame::push(&mut bytes, Kind::Message, message.as_bytes());
        }
        if !bytes.is_empty() && to_server.write_all(&bytes).await.is_err() {
            return Ended::ServerGone;
        }
        // The host drains: the client's further requests wait for the next one.
        let (hold, mut holding) = tokio::sync::watch::channel(false);
        let resume = &self.resume;
        let in_flight = &self.in_flight;
        let writing = async move {
            loop {
                if *holding.borrow_and_update() {
                    return std::future::pending::<Ended>().await;
                }
                let first = tokio::select! {
                    message = messages.recv() => message,
                    _ = holding.changed() => continue,
                };
                let Some(first) = first else {
                    return Ended::ClientDone;
                };
                bytes.clear();
                let mut next = Some(first);
                // Everything already waiting goes in the same write.
                while let Some(text) = next {
                    resume
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .client_sent(text.as_bytes());
                    in_flight.fetch_sub(1, Ordering::AcqRel);
                    frame::push(&mut bytes, Kind::Message, text.as_bytes());
                    next = messages.try_recv().ok();
                }
                if to_server.write_all(&bytes).await.is_err() {
                    return Ended::ServerGone;
                }
            }
        };
        let mut outlet = Outlet {
            outbox: &mut self.outbox,
            ticket: self.ticket.as_deref(),
            resume,
            hold,
            held: None,
        };
        let reading = async move {
            loop {
                match outlet.take_frames(&mut frames) {
                    Took::All => {}
                    Took::Gone => return Ended::ClientDone,
                    Took::Held => {
                        tokio::time::sleep(HELD_LOOK).await;
                        continue;
                    }
                }
                let n = from_server
                    .read(frames.space(JOIN_READ_BYTES))
                    .await
                    .unwrap_or(0);
                frames.filled(JOIN_READ_BYTES, n);
                if n == 0 {
                    outlet.take_frames(&mut frames);
                    return Ended::ServerGone;
                }
            }
        };
        tokio::select! {
            ended = writing => ended,
            ended = reading => ended,
        }
    }

    /// Queues one message for the client; false once it is gone.
    fn send_client(&mut self, payload: &[u8]) -> bool {
        send(&mut self.outbox, payload)
    }

    fn ring(&self) {
        ring(&self.outbox);
    }
}

/// The client's side of one host's connection: where the host's messages go.
struct Outlet<'a> {
    outbox: &'a mut Outbox,
    ticket: Option<&'a Ticket>,
    resume: &'a Mutex<Resume>,
    /// Told when the host drains.
    hold: tokio::sync::watch::Sender<bool>,
    /// A message the client's outbox had no room for: nothing more is read from the host
    /// until it has, so the host's side of the connection fills and the host deals with the
    /// slow client as with its own (a subscriber's deltas dropped and resynced later, a
    /// client that reads no replies closed), instead of this process cutting it off.
    held: Option<Frame>,
}

/// What became of the frames read so far.
enum Took {
    /// All passed on.
    All,
    /// The client is gone.
    Gone,
    /// The client's outbox is full: one message waits (`Outlet::held`).
    Held,
}

impl Outlet<'_> {
    /// Passes every complete frame on to the client, as far as its outbox has room.
    fn take_frames(&mut self, frames: &mut frame::Reader) -> Took {
        let mut any = false;
        if let Some(frame) = self.held.take() {
            if let Some(stop) = self.pass(frame) {
                return stop;
            }
            any = true;
        }
        while let Some(next) = frames.next_frame() {
            let (kind, payload) = match next {
                Ok(frame) => frame,
                Err(e) => {
                    crate::log::warn(&format!("the serving host sent {e}"));
                    break;
                }
            };
            match kind {
                Kind::Message => {
                    let mut resume = self.resume.lock().unwrap_or_else(|e| e.into_inner());
                    let bound = resume.agent().is_some();
                    if resume.server_sent(payload) == FromServer::Swallow {
                        continue;
                    }
                    if !bound
                        && resume.agent().is_some()
                        && let Some(ticket) = self.ticket
                    {
                        ticket.initialized();
                    }
                    drop(resume);
                    let Ok(text) = std::str::from_utf8(payload) else {
                        continue;
                    };
                    if let Some(stop) = self.pass(Frame::from(text.to_string())) {
                        return stop;
                    }
                    any = true;
                }
                Kind::Note => {
                    let note: serde_json::Value =
                        serde_json::from_slice(payload).unwrap_or_default();
                    if note["draining"] == true {
                        let _ = self.hold.send(true);
                    } else if let Some(reason) = note["closing"].as_str() {
                        crate::log::warn(&format!(
                            "the serving host closes a network client's connection: {reason}"
                        ));
                    }
                }
            }
        }
        if any {
            ring(self.outbox);
        }
        Took::All
    }

    /// Queues `frame` for the client; what stops the taking, if anything: the client gone, or
    /// its outbox full (the frame kept in `held`, the writer rung to drain what is queued).
    fn pass(&mut self, frame: Frame) -> Option<Took> {
        match self.outbox.push_frame(frame.clone()) {
            Sent::Queued => None,
            Sent::Gone => Some(Took::Gone),
            Sent::Full => {
                self.held = Some(frame);
                ring(self.outbox);
                Some(Took::Held)
            }
        }
    }
}

/// Queues one message for a client; false once it is gone.
fn send(outbox: &mut Outbox, payload: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(payload) else {
        return true;
    };
    match outbox.push_frame(Frame::from(text.to_string())) {
        Sent::Queued => true,
        Sent::Gone => false,
        Sent::Full => {
            outbox.close(
                1008,
                "the client does not read its replies: its queue of messages is full",
            );
            false
        }
    }
}

fn ring(outbox: &Outbox) {
    if let Some(lane) = outbox.lane() {
        lane.ring();
    }
}

/// Tells the host serving `trace_dir` of a client this edge refused (its own connection, as
/// `limina status` asks: refusals are few, capped per second where they are made).
async fn report(trace_dir: &Path, agent: Option<String>, reason: String) {
    let mut hello = Hello::new(Purpose::Refusal);
    hello.refusal = Some(Refused {
        agent_id: agent,
        reason,
    });
    let told = match socket::connect(trace_dir) {
        Ok(stream) => shake_hands(stream, &hello)
            .await
            .and_then(|reached| reached.ok_or_else(|| "the host is ending".to_string())),
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = told {
        crate::log::warn(&format!(
            "a refusal at this edge could not be traced in the world's trace: {e}"
        ));
    }
}

/// Connects and shakes hands with whoever serves `trace_dir`, waiting while the world is taken
/// over (up to `JOIN_TAKEOVER_MS`); why not, when it cannot.
async fn reach(trace_dir: &Path, hello: &Hello) -> Result<(UnixStream, Welcome, Vec<u8>), String> {
    let deadline = Instant::now() + Duration::from_millis(JOIN_TAKEOVER_MS);
    loop {
        match socket::connect(trace_dir) {
            Ok(stream) => {
                if let Some(reached) = shake_hands(stream, hello).await? {
                    return Ok(reached);
                }
            }
            Err(ConnectError::Missing | ConnectError::Stale) => {}
            Err(e) => return Err(format!("{}: {e}", socket::path(trace_dir).display())),
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "no limina host has served the world in {} for {} s",
                trace_dir.display(),
                JOIN_TAKEOVER_MS / 1000
            ));
        }
        tokio::time::sleep(RETRY).await;
    }
}

/// The hello and the welcome (and what came after it); `None` when the host closed before
/// welcoming (it is ending).
async fn shake_hands(
    stream: std::os::unix::net::UnixStream,
    hello: &Hello,
) -> Result<Option<(UnixStream, Welcome, Vec<u8>)>, String> {
    let stream = stream
        .set_nonblocking(true)
        .and_then(|()| UnixStream::from_std(stream))
        .map_err(|e| format!("the control socket: {e}"))?;
    let mut reader = BufReader::new(stream);
    if reader
        .get_mut()
        .write_all(&handshake::line(hello))
        .await
        .is_err()
    {
        return Ok(None);
    }
    let mut line = Vec::new();
    let wait = Duration::from_millis(JOIN_WELCOME_MS);
    match tokio::time::timeout(wait, reader.read_until(b'\n', &mut line)).await {
        Ok(Ok(0)) | Ok(Err(_)) => return Ok(None),
        Ok(Ok(_)) => {}
        Err(_) => {
            return Err(format!(
                "the host serving this world holds its trace folder but has not answered on its control socket for {} s: it is stuck",
                JOIN_WELCOME_MS / 1000
            ));
        }
    }
    let early = reader.buffer().to_vec();
    let welcome = handshake::read_welcome(line.trim_ascii_end())?;
    Ok(Some((reader.into_inner(), welcome, early)))
}
