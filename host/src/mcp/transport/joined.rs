//! The control socket, served: other `limina` processes on this machine join the world
//! through it (`crate::join` says how). A relayed client is a connection like a WebSocket
//! one — its own session, cancellation board and bounded outbox — whose messages arrive as
//! frames on a Unix socket instead of WebSocket text frames. Once welcomed, its socket is
//! the engine's: the engine thread reads its frames and writes its replies itself, as it does
//! stdio's lines (`engine/relayed.rs`), so a call crosses no thread of this socket's; one that
//! sends faster than it reads is held back, as stdio is, not refused. A `limina status`
//! connection is answered with what the engine says and closed.
//!
//! A connection: the peer's uid checked (`SO_PEERCRED`), the joining side's hello read and
//! its version checked, then the engine asked for its status — so a welcome proves the engine
//! is alive, and a stuck one is seen by the joining side as a welcome that never comes.

use crate::join::handshake::{self, Hello, Purpose, Welcome};
use crate::join::settings::Settings;
use crate::join::{peer, socket};
use crate::limits::JOIN_WELCOME_MS;
use crate::mcp::engine::inbox::{EngineHandle, EngineStatus, Inbound, PeerId, next_peer_id};
use crate::mcp::engine::outbox::Outbox;
use crate::mcp::engine::relayed::{RelayIn, RelayOut};
use crate::mcp::transport::edge::Grant;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

/// How long a connecting process may take to send its hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
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
    joined: Mutex<HashMap<PeerId, Joined>>,
}

/// Serves the control socket on a thread of its own.
pub fn start(config: ControlConfig, engine: EngineHandle) -> std::io::Result<()> {
    config.listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let control = Arc::new(Control {
        config,
        started: Instant::now(),
        joined: Mutex::default(),
    });
    std::thread::Builder::new()
        .name("limina-control".into())
        .spawn(move || {
            runtime.block_on(async move {
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
        Purpose::Refusal => refusal(hello, credentials.pid, writer, engine).await,
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

/// Who is joining, for [`welcome`]: its hello, its pid, and the transport it is listed
/// under when its hello names none.
struct Joining<'a> {
    hello: &'a Hello,
    pid: u32,
    transport: &'static str,
}

/// A joined process's connection, listed for `limina status` while this lives.
struct Listed {
    control: Arc<Control>,
    id: PeerId,
}

impl Drop for Listed {
    fn drop(&mut self) {
        self.control
            .joined
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.id);
    }
}

/// Welcomes a joined process's connection (a relayed client, or its presence) once the engine
/// answers — a stuck engine is never welcomed past — with the configuration serving everyone,
/// listed for the status under a fresh connection number; `None` when the engine does not
/// answer.
async fn welcome(
    control: &Arc<Control>,
    engine: &EngineHandle,
    writer: &mut OwnedWriteHalf,
    joining: Joining<'_>,
) -> Option<Listed> {
    ask_status(engine).await?;
    let id = next_peer_id();
    let transport = joining
        .hello
        .transport
        .clone()
        .unwrap_or_else(|| joining.transport.into());
    control
        .joined
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(
            id,
            Joined {
                pid: joining.pid,
                transport,
            },
        );
    let listed = Listed {
        control: control.clone(),
        id,
    };
    answer(
        writer,
        &Welcome::accept(Some(control.config.settings.clone()), None),
    )
    .await;
    Some(listed)
}

/// A relayed client: welcomed once the engine answers, then handed to the engine, which
/// reads and writes its socket itself (`engine/relayed.rs`); this task only waits for the
/// engine to let it go, for the status.
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
    // The welcome goes out before the engine has the socket, so it comes before any reply.
    let joining = Joining {
        hello: &hello,
        pid,
        transport: "stdio",
    };
    let Some(listed) = welcome(&control, &engine, &mut writer, joining).await else {
        return;
    };
    let id = listed.id;
    crate::log::info(&format!(
        "limina pid {pid} (limina {}) joined: its client is connection {id}",
        hello.version
    ));
    // What the hello's reader buffered past the hello is the first frames.
    let early = reader.buffer().to_vec();
    // Out of this thread's reactor: only the engine reads and writes it from now on.
    let socket = match reader
        .into_inner()
        .reunite(writer)
        .map_err(|e| e.to_string())
        .and_then(|stream| stream.into_std().map_err(|e| e.to_string()))
    {
        Ok(stream) => Arc::new(std::os::fd::OwnedFd::from(stream)),
        Err(e) => {
            crate::log::warn(&format!("a joined client's connection failed: {e}"));
            return;
        }
    };
    let (released, let_go) = tokio::sync::oneshot::channel();
    let input = RelayIn::new(socket.clone(), &early, released);
    let output = RelayOut::new(socket);
    let opened = engine.send(Inbound::Open {
        id,
        outbox: Outbox::Relayed(output.clone()),
        cancels: RelayIn::board(&input),
        in_flight: Arc::default(),
        notify: RelayOut::notifier(&output, &engine),
        transport_session: hello.session.clone(),
        grant,
        default_profile,
        ticket: None,
        input: Some(input),
    });
    drop(output);
    if opened {
        // Dropped by the engine with the connection.
        let _ = let_go.await;
    }
    drop(listed);
    crate::log::debug(&format!(
        "the joined client on connection {id} (pid {pid}) left"
    ));
}

/// The longest refusal reason traced for a joined process's edge.
const MAX_REFUSAL_CHARS: usize = 1024;

/// A client a joined process's own network edge refused: traced here, in the world's trace,
/// as the serving host traces its own edge's refusals (`session.admission.denied`), naming the
/// process whose listener refused it.
async fn refusal(hello: Hello, pid: u32, mut writer: OwnedWriteHalf, engine: EngineHandle) {
    let Some(refused) = hello.refusal else {
        let why = "a refusal report without its refusal".to_string();
        crate::log::warn(&format!("refused a joining process (pid {pid}): {why}"));
        answer(&mut writer, &Welcome::refuse(why)).await;
        return;
    };
    let reason: String = refused.reason.chars().take(MAX_REFUSAL_CHARS).collect();
    let traced = engine.send(Inbound::Refused {
        agent: refused.agent_id,
        reason: format!("{reason} (at the listener of joined process pid {pid})"),
    });
    if traced {
        answer(&mut writer, &Welcome::accept(None, None)).await;
    }
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
    let joining = Joining {
        hello: &hello,
        pid,
        transport: "network",
    };
    let Some(_listed) = welcome(&control, &engine, &mut writer, joining).await else {
        return;
    };
    crate::log::info(&format!(
        "limina pid {pid} (limina {}) joined with its own listener",
        hello.version
    ));
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
}
