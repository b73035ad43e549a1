//! The control socket, served: other `limina` processes on this machine join the world
//! through it (`crate::join` says how). A relayed client is a connection like a WebSocket
//! one — its own session, cancellation board and bounded outbox — whose messages arrive as
//! frames on a Unix socket instead of WebSocket text frames; one that sends faster than it
//! reads is held back, as stdio is, not refused (`make_room`). A
//! `limina status` connection is answered with what the engine says and closed.
//!
//! A connection: the peer's uid checked (`SO_PEERCRED`), the joining side's hello read and
//! its version checked, then the engine asked for its status — so a welcome proves the engine
//! is alive, and a stuck one is seen by the joining side as a welcome that never comes.

use crate::join::frame::{self, Kind};
use crate::join::handshake::{self, Hello, Purpose, Welcome};
use crate::join::settings::Settings;
use crate::join::{peer, socket};
use crate::limits::{
    JOIN_READ_BYTES, JOIN_WELCOME_MS, MAX_IN_FLIGHT_PER_CONNECTION, OUTBOX_CAPACITY,
};
use crate::mcp::engine::cancel::{CancelBoard, cancelled_request};
use crate::mcp::engine::inbox::{EngineHandle, EngineStatus, Inbound, PeerId, next_peer_id};
use crate::mcp::engine::outbox::{self, Frame, Lane};
use crate::mcp::transport::edge::Grant;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::Notify;

/// How long a connecting process may take to send its hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
/// How often the control socket looks whether the host has started draining.
const DRAIN_LOOK: Duration = Duration::from_millis(10);
/// How often a joined process's presence looks whether this host's engine has stopped.
const WATCH_LOOK: Duration = Duration::from_millis(250);
/// The longest hello line read.
const MAX_HELLO_BYTES: u64 = 64 << 10;

/// What the served control socket needs to know about its host.
pub struct ControlConfig {
    /// The bound socket (the caller keeps its [`socket::Bound`], whose file goes with it).
    pub listener: std::os::unix::net::UnixListener,
    /// The configuration serving every client, told to each joining process.
    pub settings: Settings,
    /// The host's other transports (`{"kind", "address"}`), for the status.
    pub transports: Vec<Value>,
    /// The profiles the host's configuration defines: a joined stdio client may take any of
    /// them (the user who started it chose, as over stdio), its process's `--profile` first.
    pub profiles: Vec<String>,
    /// The trace folder it serves.
    pub trace_dir: std::path::PathBuf,
}

/// A joined process's connections, for the status.
#[derive(Clone)]
struct Joined {
    pid: u32,
    transport: String,
}

struct Control {
    config: ControlConfig,
    started: Instant,
    lane: Arc<Lane>,
    joined: Mutex<HashMap<PeerId, Joined>>,
    /// Turns true once the host starts draining (a termination signal).
    draining: tokio::sync::watch::Receiver<bool>,
}

/// Serves the control socket on a thread of its own.
pub fn start(config: ControlConfig, engine: EngineHandle) -> std::io::Result<()> {
    config.listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (drain_started, draining) = tokio::sync::watch::channel(false);
    let control = Arc::new(Control {
        config,
        started: Instant::now(),
        lane: Lane::new(),
        joined: Mutex::default(),
        draining,
    });
    let watched = engine.clone();
    std::thread::Builder::new()
        .name("limina-control".into())
        .spawn(move || {
            runtime.block_on(async move {
                tokio::spawn(control.lane.clone().serve());
                tokio::spawn(async move {
                    let mut look = tokio::time::interval(DRAIN_LOOK);
                    while !watched.draining() {
                        look.tick().await;
                    }
                    let _ = drain_started.send(true);
                });
                let listener = match control
                    .config
                    .listener
                    .try_clone()
                    .and_then(tokio::net::UnixListener::from_std)
                {
                    Ok(listener) => listener,
                    Err(e) => {
                        crate::log::error(&format!("the control socket failed: {e}"));
                        return;
                    }
                };
                loop {
                    match listener.accept().await {
                        Ok((stream, _)) => {
                            tokio::spawn(connection(stream, control.clone(), engine.clone()));
                        }
                        Err(e) => {
                            crate::log::warn(&format!(
                                "accepting on the control socket failed: {e}"
                            ));
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                    }
                }
            })
        })?;
    Ok(())
}

/// Writes one handshake line and, for a refusal, logs why.
async fn answer(writer: &mut OwnedWriteHalf, welcome: &Welcome) {
    let _ = writer.write_all(&handshake::line(welcome)).await;
    let _ = writer.flush().await;
}

async fn connection(stream: UnixStream, control: Arc<Control>, engine: EngineHandle) {
    let checked = peer::same_user(&stream);
    let (reader, mut writer) = stream.into_split();
    let credentials = match checked {
        Ok(c) => c,
        Err(refusal) => {
            crate::log::warn(&refusal);
            answer(&mut writer, &Welcome::refuse(refusal)).await;
            return;
        }
    };
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    let read = tokio::time::timeout(
        HELLO_TIMEOUT,
        (&mut reader)
            .take(MAX_HELLO_BYTES)
            .read_until(b'\n', &mut line),
    )
    .await;
    if !matches!(read, Ok(Ok(n)) if n > 0) {
        crate::log::debug("a control-socket connection sent no hello");
        return;
    }
    let hello = match handshake::read_hello(line.trim_ascii_end()) {
        Ok(hello) => hello,
        Err(refusal) => {
            crate::log::warn(&format!(
                "refused a joining process (pid {}): {refusal}",
                credentials.pid
            ));
            answer(&mut writer, &Welcome::refuse(refusal)).await;
            return;
        }
    };
    match hello.purpose {
        Purpose::Status => {
            let Some(status) = ask_status(&engine).await else {
                return;
            };
            let doc = control.status_document(status);
            answer(&mut writer, &Welcome::accept(None, Some(doc))).await;
        }
        Purpose::Client => client(hello, credentials.pid, reader, writer, control, engine).await,
        Purpose::Watch => watch(hello, credentials.pid, reader, writer, control, engine).await,
    }
}

/// Asks the engine what it serves; `None` when it has stopped or does not answer in time.
async fn ask_status(engine: &EngineHandle) -> Option<EngineStatus> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let sent = engine.send(Inbound::Status {
        reply: Box::new(move |status| {
            let _ = tx.send(status);
        }),
    });
    if !sent {
        return None;
    }
    tokio::time::timeout(Duration::from_millis(JOIN_WELCOME_MS), rx)
        .await
        .ok()?
        .ok()
}

impl Control {
    /// What `limina status` shows: the engine's sessions split into the host's own and each
    /// joined process's.
    fn status_document(&self, status: EngineStatus) -> Value {
        let joined = self
            .joined
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut own = Vec::new();
        // Each joined process's transports (a stdio client, its own listeners) and sessions.
        let mut by_pid: std::collections::BTreeMap<u32, (Vec<String>, Vec<Value>)> =
            Default::default();
        let me = std::process::id();
        for j in joined.values().filter(|j| j.pid != me) {
            let (transports, _) = by_pid.entry(j.pid).or_default();
            if !transports.contains(&j.transport) {
                transports.push(j.transport.clone());
                transports.sort();
            }
        }
        for (peer, session) in status.sessions {
            // A process that took the world over relays its own clients to itself.
            match joined.get(&peer).filter(|j| j.pid != me) {
                Some(j) => by_pid.entry(j.pid).or_default().1.push(session),
                None => own.push(session),
            }
        }
        let joined: Vec<Value> = by_pid
            .into_iter()
            .map(|(pid, (mut transports, sessions))| {
                // A listener's address (`ws://…`, its presence) says more than its clients' kind.
                let named = transports.clone();
                transports.retain(|t| !named.iter().any(|n| n.starts_with(&format!("{t}://"))));
                json!({"pid": pid, "transport": transports.join(", "), "sessions": sessions})
            })
            .collect();
        json!({
            "traceDir": self.config.trace_dir.display().to_string(),
            "serving": {
                "pid": std::process::id(),
                "version": handshake::VERSION,
                "uptimeSeconds": self.started.elapsed().as_secs_f64(),
                "transports": self.config.transports,
                "controlSocket": socket::path(&self.config.trace_dir).display().to_string(),
                "sessions": own,
            },
            "joined": joined,
            "world": {"entities": status.entities, "tick": status.tick},
        })
    }

    /// What a joined client may take: a stdio client gets its process's `--profile` when it
    /// names none and has no ceiling (the user who started it chose, as over stdio); a network
    /// client gets what its process's network edge admitted it with. Either way every profile
    /// named must be one the host's configuration defines.
    fn admit(&self, hello: &Hello) -> Result<(Option<String>, Option<Grant>), String> {
        let undefined = |asked: &str, by: &str| {
            format!(
                "{by} `{asked}` is not a profile the serving host's configuration defines ({}); pass one of those, or give this process its own --trace-dir to serve its own configuration",
                self.config.profiles.join(", ")
            )
        };
        let network = hello.transport.as_deref().is_some_and(|t| t != "stdio");
        match (&hello.admitted, network) {
            (Some(admitted), true) => {
                if let Some(asked) = admitted
                    .profiles
                    .iter()
                    .find(|p| !self.config.profiles.contains(p))
                {
                    return Err(undefined(asked, &admitted.setting));
                }
                let grant = Grant {
                    profiles: admitted.profiles.clone(),
                    agent_id: admitted.agent_id.clone(),
                    setting: admitted.setting.clone(),
                };
                Ok((None, Some(grant)))
            }
            // Fail closed: a network client with no admission would have no ceiling.
            (None, true) => Err(format!(
                "a {} client of a joining process came without its admission (its network edge's decision); this host serves no network client unadmitted",
                hello.transport.as_deref().unwrap_or("network")
            )),
            (Some(_), false) => Err(
                "a stdio client of a joining process came with a network admission; stdio clients have none"
                    .into(),
            ),
            (None, false) => match &hello.profile {
                Some(asked) if !self.config.profiles.contains(asked) => {
                    Err(undefined(asked, "--profile"))
                }
                other => Ok((other.clone(), None)),
            },
        }
    }
}

/// A relayed client: opened on the engine, welcomed once the engine answers, then frames.
async fn client(
    hello: Hello,
    pid: u32,
    reader: BufReader<OwnedReadHalf>,
    mut writer: OwnedWriteHalf,
    control: Arc<Control>,
    engine: EngineHandle,
) {
    let (default_profile, grant) = match control.admit(&hello) {
        Ok(admitted) => admitted,
        Err(refusal) => {
            crate::log::warn(&format!("refused a joining process (pid {pid}): {refusal}"));
            answer(&mut writer, &Welcome::refuse(refusal)).await;
            return;
        }
    };
    let id = next_peer_id();
    let (outbox, own, queue, close) = outbox::socket(&control.lane);
    let cancels = Arc::new(CancelBoard::default());
    let in_flight = Arc::new(AtomicUsize::new(0));
    let progress = own.clone();
    let opened = engine.send(Inbound::Open {
        id,
        outbox,
        cancels: cancels.clone(),
        in_flight: in_flight.clone(),
        notify: Arc::new(move |message: Value| {
            let _ = progress.send_now(outbox::frame(&message));
        }),
        transport_session: hello.session.clone(),
        grant,
        default_profile,
        ticket: None,
    });
    // The welcome waits for the engine: a stuck one is never welcomed past.
    if !opened || ask_status(&engine).await.is_none() {
        return;
    }
    let transport = hello.transport.clone().unwrap_or_else(|| "stdio".into());
    control
        .joined
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id, Joined { pid, transport });
    crate::log::info(&format!(
        "limina pid {pid} (limina {}) joined: its client is connection {id}",
        hello.version
    ));
    answer(
        &mut writer,
        &Welcome::accept(Some(control.config.settings.clone()), None),
    )
    .await;

    let closing = close.clone();
    let mut drain = control.draining.clone();
    let drained = Arc::new(Notify::new());
    let sent = drained.clone();
    let writing = tokio::spawn(async move {
        let mut batch: Vec<Frame> = Vec::new();
        let mut bytes = Vec::new();
        let mut told_draining = false;
        loop {
            tokio::select! {
                biased;
                // A drain started: the joined process holds its client's further requests for
                // the host that takes the world over, instead of having them refused here.
                changed = drain.changed(), if !told_draining => {
                    // It only ever turns true, once; a closed channel means no drain to tell.
                    told_draining = true;
                    if changed.is_ok() && *drain.borrow_and_update() {
                        bytes.clear();
                        frame::push(&mut bytes, Kind::Note, json!({"draining": true}).to_string().as_bytes());
                        if writer.write_all(&bytes).await.is_err() {
                            break;
                        }
                    }
                }
                (_, reason) = closing.requested() => {
                    bytes.clear();
                    frame::push(&mut bytes, Kind::Note, json!({"closing": reason}).to_string().as_bytes());
                    let _ = writer.write_all(&bytes).await;
                    break;
                }
                more = queue.recv_all(&mut batch) => {
                    if !more {
                        break;
                    }
                    bytes.clear();
                    for message in batch.drain(..) {
                        frame::push(&mut bytes, Kind::Message, message.as_bytes());
                    }
                    if writer.write_all(&bytes).await.is_err() {
                        break;
                    }
                    sent.notify_one();
                }
            }
        }
        let _ = writer.shutdown().await;
    });
    let to = Handing {
        id,
        cancels: &cancels,
        in_flight: &in_flight,
        own: &own,
        close: &close,
        engine: &engine,
        drained: &drained,
    };
    read_frames(reader, to).await;
    drop(own);
    engine.send(Inbound::Close { id });
    let _ = writing.await;
    control
        .joined
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&id);
    crate::log::debug(&format!(
        "the joined client on connection {id} (pid {pid}) left"
    ));
}

/// A joined process's presence: welcomed once the engine answers, listed in the status, and
/// held until that process goes or this host's engine stops (the connection's end is how the
/// joined process learns its host ended).
async fn watch(
    hello: Hello,
    pid: u32,
    mut reader: BufReader<OwnedReadHalf>,
    mut writer: OwnedWriteHalf,
    control: Arc<Control>,
    engine: EngineHandle,
) {
    if ask_status(&engine).await.is_none() {
        return;
    }
    let id = next_peer_id();
    let transport = hello.transport.clone().unwrap_or_else(|| "network".into());
    control
        .joined
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id, Joined { pid, transport });
    crate::log::info(&format!(
        "limina pid {pid} (limina {}) joined with its own listener",
        hello.version
    ));
    answer(
        &mut writer,
        &Welcome::accept(Some(control.config.settings.clone()), None),
    )
    .await;
    let mut look = tokio::time::interval(WATCH_LOOK);
    let mut sink = [0u8; 64];
    loop {
        tokio::select! {
            read = reader.read(&mut sink) => {
                if !matches!(read, Ok(n) if n > 0) {
                    break;
                }
            }
            _ = look.tick() => {
                // A stopped engine takes no more messages: this host has ended.
                if !engine.send(Inbound::Status { reply: Box::new(|_| {}) }) {
                    break;
                }
            }
        }
    }
    let _ = writer.shutdown().await;
    control
        .joined
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&id);
}

/// Waits, before a request is handed over, while the connection has its fill: as many
/// requests waiting for the engine as any connection may, or replies queued and owed up to
/// half its outbox. A joined process is this user's own, relaying its client as stdio is
/// served, so one that sends faster than it reads is held back (this socket left unread, its
/// relay's writes wait) instead of having requests refused or being cut off as a WebSocket
/// client is. Cancellations, answers to the host's questions and notifications never wait (a
/// call waiting for an answer may be what holds the rest).
async fn make_room(text: &str, in_flight: &AtomicUsize, own: &outbox::Sender, drained: &Notify) {
    loop {
        let waiting = in_flight.load(Ordering::Acquire);
        if waiting < MAX_IN_FLIGHT_PER_CONNECTION && waiting + own.queued() < OUTBOX_CAPACITY / 2 {
            return;
        }
        let request = serde_json::from_str::<Value>(text)
            .is_ok_and(|m| m.get("method").is_some() && m.get("id").is_some());
        if !request || cancelled_request(text.as_bytes()).is_some() {
            return;
        }
        // Woken as the writer sends; the timeout covers the engine taking a request without
        // a reply (yet).
        let _ = tokio::time::timeout(Duration::from_millis(1), drained.notified()).await;
    }
}

/// Where a relayed client's messages go, and what is watched on the way.
struct Handing<'a> {
    id: PeerId,
    cancels: &'a CancelBoard,
    in_flight: &'a AtomicUsize,
    own: &'a outbox::Sender,
    close: &'a outbox::CloseSignal,
    engine: &'a EngineHandle,
    /// Woken when the connection's writer has sent.
    drained: &'a Notify,
}

/// Hands each message frame to the engine until the joined process closes its side.
async fn read_frames(reader: BufReader<OwnedReadHalf>, to: Handing<'_>) {
    let Handing {
        id,
        cancels,
        in_flight,
        own,
        close,
        engine,
        drained,
    } = to;
    let mut frames = frame::Reader::default();
    // What the hello's reader buffered past the hello is the first frames.
    let early = reader.buffer().to_vec();
    let space = frames.space(early.len());
    space.copy_from_slice(&early);
    frames.filled(early.len(), early.len());
    let mut reader = reader.into_inner();
    loop {
        while let Some(next) = frames.next_frame() {
            match next {
                Ok((Kind::Message, payload)) => {
                    let Ok(text) = std::str::from_utf8(payload) else {
                        close.close(1007, "a message is not valid UTF-8");
                        return;
                    };
                    make_room(text, in_flight, own, drained).await;
                    if !hand_over(text, id, cancels, in_flight, engine) {
                        close.close(1001, "the host is shutting down");
                        return;
                    }
                }
                Ok((Kind::Note, _)) => {}
                Err(e) => {
                    close.close(1008, &e.to_string());
                    return;
                }
            }
        }
        let space = frames.space(JOIN_READ_BYTES);
        let n = reader.read(space).await.unwrap_or(0);
        frames.filled(JOIN_READ_BYTES, n);
        if n == 0 {
            return;
        }
    }
}

/// One message: a cancellation takes effect at once; the rest goes to the engine in order.
/// False once the engine has stopped.
fn hand_over(
    text: &str,
    id: PeerId,
    cancels: &CancelBoard,
    in_flight: &AtomicUsize,
    engine: &EngineHandle,
) -> bool {
    if let Some(request) = cancelled_request(text.as_bytes()) {
        cancels.cancel(&request);
    }
    in_flight.fetch_add(1, Ordering::AcqRel);
    engine.send(Inbound::Message {
        id,
        text: text.to_string(),
    })
}
