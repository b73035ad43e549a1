//! What the benches that drive the release binary share: a running host (its own trace folder
//! unless given one, stdin and stdout piped, killed when dropped), the address a socket
//! transport logs, and its resident memory.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A running `limina`.
#[allow(dead_code)] // benches on stdio alone never read `address`
pub struct Spawned {
    pub child: Child,
    /// Taken by benches that write from another thread, and put back.
    pub stdin: Option<ChildStdin>,
    pub stdout: BufReader<ChildStdout>,
    /// What follows the logged address prefix, when one was asked for.
    pub address: Option<String>,
    _traces: Option<tempfile::TempDir>,
}

/// `limina <args> --trace-dir <fresh>`. When `address` is given (`ws://`, `http://`), waits
/// for the log line naming it.
#[allow(dead_code)] // not every bench that includes this module uses every function
pub fn limina(args: &[&str], address: Option<&str>) -> Spawned {
    limina_at(env!("CARGO_BIN_EXE_limina"), args, None, address)
}

/// [`limina`] with another build of the binary (a baseline to compare against) and/or a
/// given trace folder.
#[allow(dead_code)] // not every bench that includes this module uses every function
pub fn limina_at(
    binary: &str,
    args: &[&str],
    trace_dir: Option<&Path>,
    address: Option<&str>,
) -> Spawned {
    let traces = trace_dir.is_none().then(|| tempfile::tempdir().unwrap());
    let dir = trace_dir.unwrap_or_else(|| traces.as_ref().unwrap().path());
    let mut child = Command::new(binary)
        .args(args)
        .arg("--trace-dir")
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if address.is_some() {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .spawn()
        .expect("spawning limina");
    let found = address.map(|prefix| addresses(&mut child, &[prefix]).remove(0));
    Spawned {
        stdin: child.stdin.take(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
        child,
        address: found,
        _traces: traces,
    }
}

/// `binary` (this build's `limina`, or a baseline's) serving several socket transports: waits for the log line naming each of
/// `prefixes` (in the order the host logs them) and returns what follows each.
#[allow(dead_code)] // not every bench that includes this module uses every function
pub fn limina_serving(binary: &str, args: &[&str], prefixes: &[&str]) -> (Spawned, Vec<String>) {
    let traces = tempfile::tempdir().unwrap();
    let mut child = Command::new(binary)
        .args(args)
        .arg("--trace-dir")
        .arg(traces.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning limina");
    let found = addresses(&mut child, prefixes);
    let spawned = Spawned {
        stdin: child.stdin.take(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
        child,
        address: found.first().cloned(),
        _traces: Some(traces),
    };
    (spawned, found)
}

/// Reads the child's log until a line names each prefix in turn, then keeps draining it (so
/// the host never blocks on a full pipe).
fn addresses(child: &mut Child, prefixes: &[&str]) -> Vec<String> {
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut found = Vec::new();
    for prefix in prefixes {
        found.push(loop {
            let line = lines.next().expect("the host logs its address").unwrap();
            if let Some(at) = line.find(prefix) {
                break line[at + prefix.len()..].trim().to_string();
            }
        });
    }
    std::thread::spawn(move || for _ in lines {});
    found
}

#[allow(dead_code)] // not every bench that includes this module uses every method
impl Spawned {
    /// Writes one line to stdin.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is here");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line on stdout, parsed.
    pub fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// Sends `message` and reads the next line.
    pub fn exchange(&mut self, message: &Value) -> Value {
        self.send(&message.to_string());
        self.recv()
    }

    /// Resident memory, in KiB (0 when it cannot be read).
    pub fn rss_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
