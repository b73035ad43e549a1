//! What the benches that drive the release binary share: starting it with its own trace
//! folder and, for socket transports, reading the address it logs.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// `limina <args> --trace-dir <fresh>` with piped stdin and stdout. When `address` is given
/// (`ws://`, `http://`), waits for the log line naming it and returns what follows it.
#[allow(dead_code)] // not every bench that includes this module uses both
pub fn limina(args: &[&str], address: Option<&str>) -> (Child, Option<String>, tempfile::TempDir) {
    limina_at(env!("CARGO_BIN_EXE_limina"), args, address)
}

/// [`limina`] with another build of the binary, e.g. a baseline to compare against.
#[allow(dead_code)] // not every bench that includes this module uses both
pub fn limina_at(
    binary: &str,
    args: &[&str],
    address: Option<&str>,
) -> (Child, Option<String>, tempfile::TempDir) {
    let traces = tempfile::tempdir().unwrap();
    let mut child = Command::new(binary)
        .args(args)
        .arg("--trace-dir")
        .arg(traces.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if address.is_some() {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .spawn()
        .expect("spawning limina");
    let found = address.map(|prefix| {
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let found = loop {
            let line = lines.next().expect("the host logs its address").unwrap();
            if let Some(at) = line.find(prefix) {
                break line[at + prefix.len()..].trim().to_string();
            }
        };
        // Keep draining the log so the host never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        found
    });
    (child, found, traces)
}

/// Resident memory of process `pid`, in KiB (0 when it cannot be read).
#[allow(dead_code)] // not every bench that includes this module measures memory
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
