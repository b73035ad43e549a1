//! `cargo xtask hot-functions`: writes `host/build/hot-functions.txt`, the functions a release
//! host executes while it starts and answers a round of calls, in the order they first run.
//! The release link packs them together (`host/build/layout.rs`), so the pages of the binary a
//! running host keeps resident are mostly ones it uses.
//!
//! The host runs under valgrind's `lackey` tool, which reports every instruction executed;
//! needs `valgrind` and `nm` (Debian: `apt install valgrind binutils`). Valgrind cannot give
//! the pooled instance slots their 2 TiB of address space, so that run allocates instances one
//! by one: the pool's few functions are missing from the list and stay where the linker puts
//! them. Run it again when the call path changes much; a stale list costs memory, not
//! correctness.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};

use anyhow::{Context, Result, bail};
use limina_guest_build::{process, repo, toolchain};

use crate::layout;

/// Calls of the traced run, after `initialize` and `tools/list`: the stdio bench's call first,
/// then a world change, the built-ins a client asks most, and the bench's call again.
const CALLS: &[(&str, &str, usize)] = &[
    ("scene.queryEntities", "{}", 30),
    ("scene.createEntity", r#"{"position":[1,0,0]}"#, 5),
    ("trace.tail", r#"{"limit":5}"#, 3),
    ("skills.list", "{}", 2),
    ("audit.query", r#"{"limit":5}"#, 2),
    ("scene.queryEntities", "{}", 10),
];

/// Instructions are told apart at this granularity (bytes): functions start 16-byte aligned,
/// so no line holds two.
const LINE: u64 = 16;

pub fn run(args: &[String]) -> Result<ExitCode> {
    if !args.is_empty() {
        bail!("hot-functions takes no arguments");
    }
    for tool in ["valgrind", "nm"] {
        if Command::new(tool).arg("--version").output().is_err() {
            bail!("`{tool}` is needed (Debian: apt install valgrind binutils)");
        }
    }
    repo::build_all(&layout::repo(), &toolchain::guest_toolchain()?)?;
    let mut build = layout::host_cargo();
    build.args(["build", "--release", "-p", "limina", "--bin", "limina"]);
    process::run_quietly(&mut build)?;
    let exe = layout::target_dir().join("release").join("limina");

    let scratch = std::env::temp_dir().join(format!("limina-hot-functions-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let result = trace(&exe, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    let (touched, base) = result?;

    let functions = functions_in_order(&exe, &touched, base)?;
    let out = layout::repo_root().join("host/build/hot-functions.txt");
    let mut text = String::from(
        "# Functions a release host runs while it starts and answers a round of calls, in the\n\
         # order they first run. Written by `cargo xtask hot-functions`; read by the release link\n\
         # (host/build/layout.rs).\n",
    );
    for name in &functions {
        text.push_str(name);
        text.push('\n');
    }
    std::fs::write(&out, text).with_context(|| format!("writing {}", out.display()))?;
    eprintln!(
        "xtask: {} functions written to {}",
        functions.len(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs the host under valgrind once to fill its compiled cache, then again under lackey;
/// returns the addresses of the instructions the second run ran, in the order first run, and
/// where the binary was loaded. The traced start must read the cache, as a usual start does,
/// not compile — and the cache must be made under valgrind too, whose CPU has other features
/// than the machine's (the compiled code is kept per CPU feature set).
fn trace(exe: &Path, scratch: &Path) -> Result<(Vec<u64>, u64)> {
    let config = scratch.join("host.toml");
    // Under valgrind a call takes ~100 times as long (an instance's first call, seconds): no
    // call of the run may be cut for time.
    std::fs::write(
        &config,
        "[limits]\nengineCallMs = 600000\ntimeoutMs = 600000\n\n[packages.scene]\ntimeoutMs = 600000\n",
    )?;
    let under_valgrind = |options: &[&str], traces: &str| {
        let mut command = Command::new("valgrind");
        command
            .args(options)
            .arg(exe)
            .args([
                "--mcp-stdio",
                "--profile",
                "builder.readWrite",
                "--log-level",
                "error",
            ])
            .arg("--config")
            .arg(&config)
            .arg("--cache-dir")
            .arg(scratch.join("cache"))
            .arg("--trace-dir")
            .arg(scratch.join(traces));
        command
    };
    eprintln!("xtask: compiling the core under valgrind for its cache (minutes)…");
    let mut warm = Session::start(under_valgrind(&["--tool=none"], "warm"), Stdio::null())?;
    warm.initialize()?;
    warm.workload()?;
    warm.finish()?;

    eprintln!("xtask: tracing a start and a round of calls under lackey (minutes)…");
    // lackey's report goes to stderr, with the host's log (errors only).
    let traced = under_valgrind(
        &["--tool=lackey", "--trace-mem=yes", "--log-fd=2"],
        "traced",
    );
    let mut session = Session::start(traced, Stdio::piped())?;
    let stderr = session.child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || first_touches(stderr));
    session.initialize()?;
    let base = load_address(session.child.id(), exe)?;
    session.workload()?;
    session.finish()?;
    let touched = reader.join().expect("the lackey reader does not panic")?;
    Ok((touched, base))
}

/// A host spoken to over stdio, one request and its reply at a time.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(mut command: Command, stderr: Stdio) -> Result<Session> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .with_context(|| format!("starting {}", process::describe(&command)))?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Ok(Session {
            child,
            stdin,
            stdout,
            next_id: 0,
        })
    }

    fn send(&mut self, line: &str) -> Result<()> {
        let stdin = self.stdin.as_mut().expect("open until finish");
        writeln!(stdin, "{line}")?;
        stdin.flush()?;
        Ok(())
    }

    /// Sends a request and returns its reply line; a JSON-RPC or tool error fails the run.
    fn request(&mut self, method: &str, params: &str) -> Result<String> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#
        ))?;
        let mut reply = String::new();
        if self.stdout.read_line(&mut reply)? == 0 {
            bail!("the host closed stdout before answering {method}");
        }
        if reply.contains(r#""error":{"#) || reply.contains(r#""isError":true"#) {
            bail!("{method} {params} failed: {reply}");
        }
        Ok(reply)
    }

    fn initialize(&mut self) -> Result<()> {
        self.request(
            "initialize",
            r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hot-functions","version":"0"}}"#,
        )?;
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
    }

    /// `tools/list` and `CALLS`, on an initialized session.
    fn workload(&mut self) -> Result<()> {
        self.request("tools/list", "{}")?;
        for (name, arguments, times) in CALLS {
            for _ in 0..*times {
                self.request(
                    "tools/call",
                    &format!(r#"{{"name":"{name}","arguments":{arguments}}}"#),
                )?;
            }
        }
        Ok(())
    }

    /// Closes stdin (the host stops as it does at the end of a session) and waits for it.
    fn finish(mut self) -> Result<()> {
        drop(self.stdin.take());
        let status = self.child.wait()?;
        if !status.success() {
            bail!("the host exited with {status}");
        }
        Ok(())
    }
}

/// The instruction addresses lackey reports (`I  <hex>,<len>` lines), each `LINE` once, in the
/// order first run. Other lines (data accesses, valgrind's own, the host's log) are skipped.
fn first_touches(stderr: impl std::io::Read) -> Result<Vec<u64>> {
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    let mut lines = BufReader::with_capacity(1 << 20, stderr);
    let mut line = Vec::new();
    while lines.read_until(b'\n', &mut line)? != 0 {
        if let Some(rest) = line.strip_prefix(b"I  ") {
            let hex = rest.split(|b| *b == b',').next().unwrap_or_default();
            if let Some(address) = std::str::from_utf8(hex)
                .ok()
                .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
                && seen.insert(address / LINE)
            {
                order.push(address);
            }
        }
        line.clear();
    }
    Ok(order)
}

/// Where the kernel (here: valgrind) mapped `exe` in process `pid`: the start of its first
/// mapping less that mapping's file offset.
fn load_address(pid: u32, exe: &Path) -> Result<u64> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
    let exe = exe.canonicalize()?;
    for line in maps.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() > 5 && Path::new(fields[5]) == exe {
            let start = fields[0].split('-').next().unwrap_or_default();
            let start = u64::from_str_radix(start, 16)?;
            let offset = u64::from_str_radix(fields[2], 16)?;
            return Ok(start - offset);
        }
    }
    bail!("{} is not mapped in process {pid}", exe.display())
}

/// The functions of `exe` (by their symbol names, as the linker knows them) holding the
/// addresses touched, each once, in the order first touched.
fn functions_in_order(exe: &Path, touched: &[u64], base: u64) -> Result<Vec<String>> {
    let listing = process::output_text(
        Command::new("nm")
            .args(["--defined-only", "--print-size"])
            .arg(exe),
    )?;
    let mut symbols: Vec<(u64, u64, &str)> = listing
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [address, size, kind, name] = fields[..] else {
                return None;
            };
            let code = matches!(kind, "t" | "T" | "w" | "W");
            let address = u64::from_str_radix(address, 16).ok()?;
            let size = u64::from_str_radix(size, 16).ok()?;
            (code && size > 0).then_some((address, size, name))
        })
        .collect();
    symbols.sort();
    let mut named = HashSet::new();
    let mut order = Vec::new();
    for &address in touched {
        let Some(at) = address.checked_sub(base) else {
            continue;
        };
        let index = symbols.partition_point(|(start, _, _)| *start <= at);
        let Some(&(start, size, name)) = index.checked_sub(1).map(|i| &symbols[i]) else {
            continue;
        };
        if at < start + size && named.insert(name) {
            order.push(name.to_string());
        }
    }
    if order.is_empty() {
        bail!("no function of {} was seen running", exe.display());
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_touches_keep_each_instruction_line_once_in_order_and_skip_the_rest() {
        let report = "==12== Lackey, an example Valgrind tool\n\
                      I  04011a0,3\n \
                      L 1ffefff8a0,8\n\
                      I  04011a4,4\n\
                      limina error: a log line of the host\n\
                      I  0401200,2\n \
                      S 1ffefff898,8\n\
                      I  04011a8,1\n\
                      I  04011b0,5\n";
        let touched = first_touches(report.as_bytes()).unwrap();
        // 0x4011a4 and 0x4011a8 share the 16-byte line of 0x4011a0.
        assert_eq!(touched, vec![0x4011a0, 0x401200, 0x4011b0]);
    }
}
