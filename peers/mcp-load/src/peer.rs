//! One MCP server under load: a child process spoken to over its stdin and stdout, one JSON-RPC
//! message a line, and what the client reads about it from `/proc` (peak resident memory).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// How to start one kind of server and what to call on it.
#[derive(Clone, Debug)]
pub struct Kind {
    /// The name printed in the report.
    pub label: &'static str,
    /// The program and its arguments.
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Whether the server gets a fresh `--trace-dir` of its own (limina).
    pub trace_dir: bool,
    /// The `params` of the measured `tools/call`, as JSON text.
    pub call: String,
}

/// A started server.
pub struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    scratch: Option<PathBuf>,
    line: String,
}

/// The `initialize` request every server gets: a plain MCP client's, nothing host-specific.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp-load","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

impl Peer {
    /// Spawns the server, runs the MCP handshake and the first `tools/list`, and returns the
    /// server with the time from spawn to that answer.
    pub fn start(kind: &Kind) -> Result<(Peer, Duration), String> {
        let scratch = kind.trace_dir.then(scratch_dir).transpose()?;
        let mut command = Command::new(&kind.program);
        command.args(&kind.args);
        if let Some(dir) = &scratch {
            command.arg("--trace-dir").arg(dir);
        }
        let start = Instant::now();
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|err| {
                format!(
                    "{}: cannot start {}: {err}",
                    kind.label,
                    kind.program.display()
                )
            })?;
        let stdin = child.stdin.take();
        let stdout = BufReader::with_capacity(1 << 16, child.stdout.take().expect("piped stdout"));
        let mut peer = Peer {
            child,
            stdin,
            stdout,
            scratch,
            line: String::new(),
        };
        peer.send(INITIALIZE)?;
        peer.expect_result(0, kind.label, "initialize")?;
        peer.send(INITIALIZED)?;
        peer.send(TOOLS_LIST)?;
        peer.expect_result(1, kind.label, "tools/list")?;
        Ok((peer, start.elapsed()))
    }

    /// Writes one message and its newline.
    pub fn send(&mut self, line: &str) -> Result<(), String> {
        let stdin = self
            .stdin
            .as_mut()
            .expect("stdin is held between pipelined runs");
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .map_err(|err| format!("writing to the server: {err}"))
    }

    /// Reads one reply line and returns its id after checking it is a success.
    pub fn recv(&mut self, label: &str) -> Result<u64, String> {
        self.line.clear();
        let read = self
            .stdout
            .read_line(&mut self.line)
            .map_err(|err| format!("{label}: reading a reply: {err}"))?;
        if read == 0 {
            return Err(format!("{label}: the server closed its stdout"));
        }
        check_success(&self.line).map_err(|why| format!("{label}: {why}: {}", clip(&self.line)))
    }

    fn expect_result(&mut self, id: u64, label: &str, what: &str) -> Result<(), String> {
        let got = self.recv(label)?;
        if got != id {
            return Err(format!(
                "{label}: {what} was answered with id {got}, not {id}"
            ));
        }
        Ok(())
    }

    /// Lends stdin to a writer thread (pipelined runs); give it back with [`Peer::restore`].
    pub fn take_stdin(&mut self) -> ChildStdin {
        self.stdin.take().expect("stdin is held")
    }

    pub fn restore(&mut self, stdin: ChildStdin) {
        self.stdin = Some(stdin);
    }

    /// Peak resident memory so far (`VmHWM`), in KiB.
    pub fn peak_rss_kib(&self) -> Result<u64, String> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .map_err(|err| format!("reading /proc/{}/status: {err}", self.child.id()))?;
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .ok_or_else(|| "no VmHWM line in /proc/PID/status".to_string())
    }

    /// Closes stdin (end of session) and waits for the server to leave.
    pub fn stop(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        if self.stdin.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if let Some(dir) = &self.scratch {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The id of a reply that is a success: a `result` that is not a tool error.
pub fn check_success(line: &str) -> Result<u64, String> {
    if line.contains(r#""error":"#) {
        return Err("a JSON-RPC error".into());
    }
    if line.contains(r#""isError":true"#) {
        return Err("a tool error".into());
    }
    if !line.contains(r#""result":"#) {
        return Err("no result".into());
    }
    reply_id(line).ok_or_else(|| "no numeric id".into())
}

/// The numeric `id` of a JSON-RPC message, found without parsing the rest.
pub fn reply_id(line: &str) -> Option<u64> {
    let at = line.find(r#""id":"#)? + 5;
    let digits: &str = line[at..].trim_start();
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    digits[..end].parse().ok()
}

fn clip(line: &str) -> &str {
    let line = line.trim_end();
    match line.char_indices().nth(300) {
        Some((at, _)) => &line[..at],
        None => line,
    }
}

/// A fresh, empty folder under the system temp folder.
fn scratch_dir() -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "mcp-load-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|err| format!("creating {}: {err}", dir.display()))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_gives_its_id_and_errors_are_refused() {
        assert_eq!(
            check_success(r#"{"id":42,"jsonrpc":"2.0","result":{}}"#),
            Ok(42)
        );
        assert_eq!(
            check_success(r#"{"jsonrpc":"2.0","id": 7,"result":{"isError":false}}"#),
            Ok(7)
        );
        assert!(check_success(r#"{"id":1,"error":{"code":-32601}}"#).is_err());
        assert!(check_success(r#"{"id":1,"result":{"isError":true}}"#).is_err());
        assert!(check_success(r#"{"id":"x","result":{}}"#).is_err());
    }
}
