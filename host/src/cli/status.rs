//! `limina status`: who serves a trace folder (pid, version, uptime, transports), the joined
//! processes and every session, the world's entities and tick, and the trace's and
//! checkpoints' sizes — as text, or as JSON with `--json`.

use anyhow::{Context, Result};
use limina::join::handshake::{self, Hello, Purpose};
use limina::join::holder::{self, Holder};
use limina::join::socket::{self, Answer, ConnectError};
use limina::limits::JOIN_WELCOME_MS;
use serde_json::{Value, json};
use std::io::{BufReader, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// The exit code when nobody serves the folder (as `systemctl status` does for a stopped unit).
const NOT_SERVED: u8 = 3;

/// Prints the status of the world kept in `trace_dir`.
pub fn run(trace_dir: &Path, as_json: bool) -> Result<ExitCode> {
    let (mut status, served) = ask(trace_dir)?;
    status["traceDir"] = json!(trace_dir.display().to_string());
    status["disk"] = limina::join::status::disk(trace_dir);
    if as_json {
        println!("{}", serde_json::to_string_pretty(&status)?);
    } else {
        print!("{}", limina::join::status::render(&status));
        if let Some(note) = status["note"].as_str() {
            println!("{note}");
        }
    }
    Ok(if served {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NOT_SERVED)
    })
}

/// The serving host's answer, or what the folder says when nobody answers; whether it is
/// served.
fn ask(trace_dir: &Path) -> Result<(Value, bool)> {
    let unserved = |note: Option<String>| {
        let mut doc = json!({"serving": null});
        if let Some(note) = note {
            doc["note"] = json!(note);
        }
        doc
    };
    let stream = match socket::connect(trace_dir) {
        Ok(stream) => stream,
        Err(ConnectError::Missing | ConnectError::Stale) => {
            let note = match holder::probe(trace_dir).context("reading the trace folder's lock")? {
                Holder::Free => None,
                Holder::Held(held) => Some(format!(
                    "the trace folder is locked by {}{} but no control socket answers: it is starting, runs on another machine, or is a limina without one",
                    held.pid
                        .map_or("a process".to_string(), |p| format!("process {p}")),
                    held.host.map_or(String::new(), |h| format!(" on host {h}")),
                )),
            };
            return Ok((unserved(note), false));
        }
        Err(e) => anyhow::bail!("{}: {e}", socket::path(trace_dir).display()),
    };
    let mut stream = stream;
    stream.write_all(&handshake::line(&Hello::new(Purpose::Status)))?;
    stream.set_read_timeout(Some(Duration::from_millis(JOIN_WELCOME_MS)))?;
    let line = match socket::read_answer(&mut BufReader::new(&stream), &stream) {
        Answer::Line(line) => line,
        Answer::Ended => return Ok((unserved(Some("the serving host is ending".into())), false)),
        Answer::Stuck(pid) => anyhow::bail!(
            "the host serving {} ({}) has not answered for {} s: it is stuck (alive, holding the lock, not answering)",
            trace_dir.display(),
            pid.map_or("pid unknown".to_string(), |p| format!("pid {p}")),
            JOIN_WELCOME_MS / 1000
        ),
        Answer::Failed(e) => return Err(e).context("reading the serving host's answer"),
    };
    let welcome = handshake::read_welcome(line.trim_ascii_end()).map_err(anyhow::Error::msg)?;
    Ok((welcome.status.unwrap_or_else(|| json!({})), true))
}
