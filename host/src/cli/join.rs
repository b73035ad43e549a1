//! A `limina` whose trace folder another live host serves: it joins that host
//! (`limina::join`), relaying its own stdio client, and serving its own `--mcp-ws`/`--mcp-http`
//! listeners in front of that host (`limina::mcp::transport::front`); when that host ends it
//! either takes the world over — the trace folder's lock decides which joined process does —
//! or joins the one that did. Its clients keep their sessions throughout, and its listeners
//! keep listening.

use crate::Cli;
use crate::cli::serve;
use anyhow::{Context, Result, bail};
use limina::join::handshake::{self, Hello, Purpose, Welcome};
use limina::join::holder::{self, Holder};
use limina::join::relay::{Ended, Relay};
use limina::join::settings::Settings;
use limina::join::socket::{self, Answer, ConnectError};
use limina::limits::{JOIN_TAKEOVER_MS, JOIN_WELCOME_MS};
use limina::mcp::engine::Stopped;
use limina::mcp::{EngineHandle, Inbound};
use std::io::{BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The engine this process serves, once it has taken the world over (signals stop it).
type Serving = Arc<Mutex<Option<EngineHandle>>>;

/// How often a process waiting for the world to be served again looks.
const RETRY: Duration = Duration::from_millis(10);

/// Joins the host serving `trace_dir` and relays this process's stdio client to it until the
/// client ends (without one, until a signal), serving its own listeners in front of it, and
/// taking over whenever the serving host ends.
pub fn run(cli: &Cli, trace_dir: PathBuf, holder: Option<u32>) -> Result<ExitCode> {
    refuse_flags(cli, &trace_dir, holder)?;
    let serving: Serving = Arc::default();
    limina::telemetry::signals::hold().context("holding termination signals")?;
    let on_signal = serving.clone();
    limina::telemetry::signals::stop_on(move |signal| {
        let engine = on_signal.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match engine {
            // Serving: drain and stop cleanly (the world's last checkpoint); the host exits
            // after, as a serving host does.
            Some(engine) => {
                engine.send(Inbound::Stop { signal });
            }
            // Only relaying: nothing of the world is here; its server carries on.
            None => std::process::exit(0),
        }
    })
    .context("waiting for termination signals")?;
    // After the signals are held: the listeners' threads hold them too.
    let fronted = if cli.mcp_ws || cli.mcp_http {
        Some(serve::front_listeners(cli, &trace_dir)?)
    } else {
        None
    };
    let presence = Presence::new(cli, fronted);
    let mine = serve::settings(cli);
    let mut relay = Relay::new();
    let mut told = false;
    std::thread::scope(|scope| -> Result<ExitCode> {
        let mut host: Option<std::thread::ScopedJoinHandle<'_, Result<Stopped>>> = None;
        loop {
            let (mut stream, welcome, early) =
                reach(&presence, &trace_dir, &serving, scope, &mut host)?;
            let server = welcome.pid;
            if !told {
                told = true;
                say_differences(&mine, welcome.settings.as_ref(), server);
            }
            if server != std::process::id() {
                limina::log::info(&format!(
                    "joined the limina host serving {} (pid {server}, limina {}): this process relays its {} to it",
                    trace_dir.display(),
                    welcome.version,
                    if cli.mcp_stdio {
                        "stdio client"
                    } else {
                        "listeners' clients"
                    }
                ));
            }
            if !cli.mcp_stdio {
                // Nothing to relay here (each listener's client has a connection of its own):
                // only learn when the host ends.
                watch(&mut stream);
                if server == std::process::id() {
                    return finish(&serving, host.take());
                }
                limina::log::warn(&format!(
                    "the limina host serving {} (pid {server}) ended; the world is served again by whichever joined process takes the trace folder's lock",
                    trace_dir.display()
                ));
                continue;
            }
            relay
                .resume_on(&mut stream)
                .context("resuming the session")?;
            match relay.serve(&mut stream, &early).context("relaying stdio")? {
                Ended::ClientDone => return finish(&serving, host.take()),
                // This process's own engine stopped (a signal): it exits as the signal says.
                Ended::ServerGone if server == std::process::id() => {
                    return finish(&serving, host.take());
                }
                Ended::ServerGone => {
                    let lost = relay.answer_in_flight(server)?;
                    limina::log::warn(&format!(
                        "the limina host serving {} (pid {server}) ended{}; the world is served again by whichever joined process takes the trace folder's lock",
                        trace_dir.display(),
                        if lost > 0 {
                            format!(
                                " with {lost} requests of this client unanswered (each answered with an error saying it may or may not have run)"
                            )
                        } else {
                            String::new()
                        }
                    ));
                }
            }
        }
    })
}

/// Flags a joining process cannot honour.
fn refuse_flags(cli: &Cli, trace_dir: &Path, holder: Option<u32>) -> Result<()> {
    let by = holder.map_or("another limina host".to_string(), |p| {
        format!("limina pid {p}")
    });
    if cli.fresh_world {
        bail!(
            "--fresh-world: the world in {} is served by {by}, and other clients are acting in it; starting it empty would empty everyone's world. Stop every limina serving that folder first (`limina status` shows them), or pass another --trace-dir for a world of your own",
            trace_dir.display()
        );
    }
    Ok(())
}

/// How this process presents itself to the serving host.
struct Presence<'a> {
    cli: &'a Cli,
    /// Its own listeners' transports, when it serves any.
    fronted: Option<Vec<serde_json::Value>>,
}

impl<'a> Presence<'a> {
    fn new(cli: &'a Cli, fronted: Option<Vec<serde_json::Value>>) -> Presence<'a> {
        Presence { cli, fronted }
    }

    /// Its hello: its stdio client's connection, or (serving only network clients) its
    /// presence, named by its listeners' addresses.
    fn hello(&self) -> Hello {
        if self.cli.mcp_stdio {
            let mut hello = Hello::new(Purpose::Client);
            hello.transport = Some("stdio".into());
            hello.profile = Some(self.cli.profile.clone());
            return hello;
        }
        let mut hello = Hello::new(Purpose::Watch);
        let addresses: Vec<&str> = self
            .fronted
            .iter()
            .flatten()
            .filter_map(|t| t["address"].as_str())
            .collect();
        hello.transport = Some(addresses.join(", "));
        hello
    }
}

/// Waits until the serving host closes the connection (it ended).
fn watch(stream: &mut UnixStream) {
    let mut sink = [0u8; 64];
    loop {
        match std::io::Read::read(stream, &mut sink) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// Connects and shakes hands with whoever serves the folder, waiting while it starts or
/// while the world is taken over, and taking it over itself when the lock is free.
fn reach<'scope>(
    presence: &'scope Presence<'scope>,
    trace_dir: &Path,
    serving: &Serving,
    scope: &'scope std::thread::Scope<'scope, '_>,
    host: &mut Option<std::thread::ScopedJoinHandle<'scope, Result<Stopped>>>,
) -> Result<(UnixStream, Welcome, Vec<u8>)> {
    let deadline = Instant::now() + Duration::from_millis(JOIN_TAKEOVER_MS);
    let mut waiting_on = None;
    loop {
        match socket::connect(trace_dir) {
            Ok(stream) => match shake_hands(stream, &presence.hello()) {
                Ok(Some(joined)) => return Ok(joined),
                // The host is ending (its engine stopped): the lock frees in a moment.
                Ok(None) => {}
                Err(e) => return Err(e),
            },
            Err(ConnectError::Missing | ConnectError::Stale) => {}
            Err(e @ ConnectError::OtherUser { .. }) => {
                bail!("{}: {e}", socket::path(trace_dir).display())
            }
            Err(ConnectError::Io(e)) => {
                return Err(e).with_context(|| {
                    format!("connecting to {}", socket::path(trace_dir).display())
                });
            }
        }
        match holder::probe(trace_dir).context("reading the trace folder's lock")? {
            Holder::Free if host.is_none() => {
                if let Some(started) = take_over(presence, serving, scope)? {
                    *host = Some(started);
                }
                continue;
            }
            Holder::Free => {}
            Holder::Held(held) => waiting_on = held.pid,
        }
        if Instant::now() >= deadline {
            let who = waiting_on.map_or("a process".to_string(), |p| format!("process {p}"));
            bail!(
                "the trace folder {} is held by {who}, which has served no control socket for {} s: it is stuck or is not a limina that other processes can join; `limina status --trace-dir {}` tells more",
                trace_dir.display(),
                JOIN_TAKEOVER_MS / 1000,
                trace_dir.display()
            );
        }
        std::thread::sleep(RETRY);
    }
}

/// Sends the hello and reads the welcome (and whatever came after it). `None` when the
/// connection closed before a welcome (a host that is ending); an error when the host
/// refused, or is stuck.
fn shake_hands(
    mut stream: UnixStream,
    hello: &Hello,
) -> Result<Option<(UnixStream, Welcome, Vec<u8>)>> {
    if stream.write_all(&handshake::line(&hello)).is_err() {
        return Ok(None);
    }
    stream.set_read_timeout(Some(Duration::from_millis(JOIN_WELCOME_MS)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let line = match socket::read_answer(&mut reader, &stream) {
        Answer::Line(line) => line,
        Answer::Stuck(pid) => {
            let who = pid.map_or("the serving host".to_string(), |p| {
                format!("the serving host (pid {p})")
            });
            limina::log::error(&format!(
                "{who} holds the world's trace folder but has not answered on its control socket for {} s: it is stuck. It is not replaced while it holds the lock; end it (kill {}) and another limina takes the world over",
                JOIN_WELCOME_MS / 1000,
                pid.map_or("<pid>".to_string(), |p| p.to_string())
            ));
            bail!("{who} is stuck: it holds the trace folder but does not answer");
        }
        Answer::Ended | Answer::Failed(_) => return Ok(None),
    };
    let early = reader.buffer().to_vec();
    stream.set_read_timeout(None)?;
    let welcome = handshake::read_welcome(line.trim_ascii_end()).map_err(anyhow::Error::msg)?;
    Ok(Some((stream, welcome, early)))
}

/// Starts serving the world in this process, on a thread of its own, if the lock is still
/// free; `None` when another process took it first. This process's own listeners keep
/// serving, in front of it as they were in front of the host before.
fn take_over<'scope>(
    presence: &'scope Presence<'scope>,
    serving: &Serving,
    scope: &'scope std::thread::Scope<'scope, '_>,
) -> Result<Option<std::thread::ScopedJoinHandle<'scope, Result<Stopped>>>> {
    let started = Instant::now();
    let cli = presence.cli;
    let fronted = presence.fronted.clone();
    let (ready, readied) = std::sync::mpsc::channel();
    let slot = serving.clone();
    let failed = ready.clone();
    let thread = std::thread::Builder::new()
        .name("limina-host".into())
        .spawn_scoped(scope, move || {
            let result = serve::run_host(cli, false, fronted, move |engine: EngineHandle| {
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(engine);
                let _ = ready.send(Ok(()));
            });
            if let Err(e) = &result {
                let _ = failed.send(Err(format!("{e:#}")));
            }
            result
        })
        .context("starting the thread that serves the world")?;
    match readied.recv() {
        Ok(Ok(())) => {
            limina::log::info(&format!(
                "took the world over: this process serves it now (ready in {:.0} ms)",
                started.elapsed().as_secs_f64() * 1000.0
            ));
            Ok(Some(thread))
        }
        Ok(Err(_)) | Err(_) => match thread.join() {
            Ok(Err(e)) if e.downcast_ref::<limina::trace::FolderInUse>().is_some() => Ok(None),
            Ok(Err(e)) => Err(e.context("taking the world over")),
            Ok(Ok(_)) => bail!("the host stopped as it started"),
            Err(_) => bail!("the thread serving the world panicked"),
        },
    }
}

/// The client is done: a world this process serves is stopped cleanly (its last checkpoint)
/// and handed to whoever joined it.
fn finish(
    serving: &Serving,
    host: Option<std::thread::ScopedJoinHandle<'_, Result<Stopped>>>,
) -> Result<ExitCode> {
    let Some(host) = host else {
        return Ok(ExitCode::SUCCESS);
    };
    if let Some(engine) = serving.lock().unwrap_or_else(|e| e.into_inner()).take() {
        engine.send(Inbound::Finish);
    }
    match host.join() {
        Ok(Ok(_)) => Ok(ExitCode::SUCCESS),
        Ok(Err(e)) => Err(e),
        Err(_) => bail!("the thread serving the world panicked"),
    }
}

/// Says once, on stderr, how this process's flags differ from the configuration serving it.
fn say_differences(mine: &Settings, server: Option<&Settings>, pid: u32) {
    let Some(server) = server else { return };
    let differences = Settings::differences(mine, server);
    if differences.is_empty() {
        return;
    }
    let mut text = format!(
        "this process joined the world served by limina pid {pid}, whose configuration serves every client; it differs from this process's flags:"
    );
    for line in differences {
        text.push_str("\n  - ");
        text.push_str(&line);
    }
    limina::log::warn(&text);
}
