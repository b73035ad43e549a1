//! WASI preview 2 for guests that other languages' toolchains build (componentize-py, C
//! through wasi-libc, …): every interface is linked, nothing is granted but the package's
//! volumes (`crate::files`, guarded by `wasi_files.rs`). No other directories, no environment
//! variables, no arguments, stdin closed, sockets refused; the
//! wall and monotonic clocks and randomness work. What the guest writes to stdout and stderr
//! is captured and handed out after each call as log lines, on the host's stderr and to the
//! calling client.
//!
//! Rust guests import no WASI, so their stores never make a WASI context: it is made on the
//! guest's first WASI call and then kept for the life of the instance.

use super::instance::GuestState;
use super::wasi_sleep::GuestClock;
use crate::files::FileAccess;
use crate::limits::{
    MAX_GUEST_LOG_LINE_CHARS, MAX_GUEST_LOG_LINES_PER_CALL, MAX_GUEST_STDIO_BYTES,
};
use crate::log::{Level, LogLine};
use anyhow::Result;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use wasmtime::component::{Linker, ResourceTable};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::bindings::sync::LinkOptions;
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

/// Links every WASI preview 2 interface (synchronous bindings). What a guest may actually do
/// through them is decided by the context [`GuestWasi::new`] builds.
pub(super) fn add_to_linker(linker: &mut Linker<GuestState>) -> Result<()> {
    wasmtime_wasi::p2::add_to_linker_with_options_sync(linker, &LinkOptions::default())?;
    super::wasi_sleep::shadow_clock_subscriptions(linker)?;
    super::wasi_env::shadow_environment(linker)?;
    super::wasi_files::shadow_files(linker)
}

/// Adds `wasi:http` (types and the outgoing handler) for packages with network grants; every
/// request goes through [`crate::net::outgoing`].
pub(super) fn add_http_to_linker(linker: &mut Linker<GuestState>) -> Result<()> {
    wasmtime_wasi_http::p2::add_only_http_to_linker_sync(linker).map_err(anyhow::Error::from)
}

impl GuestState {
    /// The guest's monotonic clock (making its WASI context if it has none yet).
    pub(super) fn guest_clock(&mut self) -> GuestClock {
        self.wasi_parts();
        self.wasi.as_ref().expect("made just now").clock
    }

    /// The WASI context and resource table (making them on first use, with the instance's
    /// volumes mounted).
    pub(super) fn wasi_parts(&mut self) -> (&mut WasiCtx, &mut ResourceTable) {
        parts(&mut self.wasi, &self.files.access)
    }
}

/// The context and table of `wasi`, made with `files`' volumes if there is none yet (apart
/// from [`GuestState`], so its other fields stay free to borrow).
pub(super) fn parts<'a>(
    wasi: &'a mut Option<Box<GuestWasi>>,
    files: &FileAccess,
) -> (&'a mut WasiCtx, &'a mut ResourceTable) {
    let wasi = wasi.get_or_insert_with(|| Box::new(GuestWasi::new(files)));
    (&mut wasi.ctx, &mut wasi.table)
}

/// One instance's WASI state: the context that grants nothing, its resource table, and the
/// captured output streams.
pub(super) struct GuestWasi {
    ctx: WasiCtx,
    table: ResourceTable,
    http: wasmtime_wasi_http::WasiHttpCtx,
    stdout: CapturedOutput,
    stderr: CapturedOutput,
    clock: GuestClock,
}

impl GuestWasi {
    /// A context with the instance's volumes and nothing else: no other directories, no
    /// environment, arguments or network, stdin closed, and stdout and stderr captured.
    fn new(files: &FileAccess) -> Self {
        let stdout = CapturedOutput::default();
        let stderr = CapturedOutput::default();
        let clock = GuestClock {
            base: std::time::Instant::now(),
        };
        let mut builder = WasiCtxBuilder::new();
        // File operations run on the calling thread (the engine's or a worker's): there is no
        // async runtime to hand them to, and a call's deadline bounds them like any other.
        builder.allow_blocking_current_thread(true);
        for mount in &files.mounts {
            let perms = if mount.writable {
                FsPerms::ReadWrite
            } else {
                FsPerms::ReadOnly
            };
            if let Err(e) = builder.preopened_dir(&mount.dir, format!("/{}", mount.volume), perms) {
                crate::log::write(
                    Level::Warn,
                    &format!(
                        "volume `{}` ({}) could not be opened and is not mounted: {e:#}",
                        mount.volume,
                        mount.dir.display()
                    ),
                );
            }
        }
        let ctx = builder
            .monotonic_clock(clock)
            .stdout(stdout.clone())
            .stderr(stderr.clone())
            // Creating a socket fails outright; every address would be refused anyway (the
            // default address check denies all), and name lookups are off.
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .build();
        GuestWasi {
            ctx,
            table: ResourceTable::new(),
            http: wasmtime_wasi_http::WasiHttpCtx::new(),
            stdout,
            stderr,
            clock,
        }
    }

    /// Takes what the guest wrote since the last drain: each line goes to the host log, and
    /// (within the per-call bound) into `lines` for the caller. stdout lines are `info`,
    /// stderr lines `warn`.
    pub(super) fn drain(&self, package: &str, lines: &mut Vec<LogLine>, redact: &[String]) {
        for (stream, level) in [(&self.stdout, Level::Info), (&self.stderr, Level::Warn)] {
            let (bytes, dropped) = stream.take();
            let text = String::from_utf8_lossy(&bytes);
            let text = crate::grants::secrets::redact(&text, redact);
            let mut emit = |message: String| {
                crate::log::write(level, &format!("[{package}] {message}"));
                if lines.len() < MAX_GUEST_LOG_LINES_PER_CALL {
                    lines.push(LogLine {
                        level,
                        logger: package.to_string(),
                        message,
                    });
                }
            };
            for line in text.lines() {
                if !line.trim().is_empty() {
                    emit(line.chars().take(MAX_GUEST_LOG_LINE_CHARS).collect());
                }
            }
            if dropped > 0 {
                emit(format!(
                    "… {dropped} more bytes of output in this call were dropped (at most \
                     {MAX_GUEST_STDIO_BYTES} are kept per stream)"
                ));
            }
        }
    }
}

impl WasiView for GuestState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        let (ctx, table) = self.wasi_parts();
        WasiCtxView { ctx, table }
    }
}

impl wasmtime_wasi_http::WasiHttpView for GuestState {
    fn http(&mut self) -> wasmtime_wasi_http::WasiHttpCtxView<'_> {
        let wasi = self
            .wasi
            .get_or_insert_with(|| Box::new(GuestWasi::new(&self.files.access)));
        wasmtime_wasi_http::WasiHttpCtxView {
            ctx: &mut wasi.http,
            table: &mut wasi.table,
            hooks: &mut self.net,
        }
    }
}

/// A stdout or stderr that keeps what the guest writes, up to [`MAX_GUEST_STDIO_BYTES`]
/// between drains; the rest is counted and dropped (a chatty guest is not trapped).
#[derive(Clone, Default)]
struct CapturedOutput(Arc<Mutex<Captured>>);

#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    dropped: usize,
}

impl CapturedOutput {
    /// Keeps what fits, counts the rest.
    fn append(&self, data: &[u8]) {
        let mut captured = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let room = MAX_GUEST_STDIO_BYTES.saturating_sub(captured.bytes.len());
        let kept = data.len().min(room);
        captured.bytes.extend_from_slice(&data[..kept]);
        captured.dropped += data.len() - kept;
    }

    /// The bytes kept and the count dropped since the last take.
    fn take(&self) -> (Vec<u8>, usize) {
        let mut captured = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let dropped = std::mem::take(&mut captured.dropped);
        (std::mem::take(&mut captured.bytes), dropped)
    }
}

impl IsTerminal for CapturedOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CapturedOutput {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for CapturedOutput {
    async fn ready(&mut self) {}
}

impl OutputStream for CapturedOutput {
    fn write(&mut self, bytes: bytes::Bytes) -> StreamResult<()> {
        self.append(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        // Always ready: what does not fit is dropped, not refused.
        Ok(MAX_GUEST_STDIO_BYTES)
    }
}

impl tokio::io::AsyncWrite for CapturedOutput {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.append(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_refuses_sockets_and_holds_no_environment_arguments_or_directories() {
        use wasmtime_wasi::p2::bindings::cli::environment::Host as _;
        use wasmtime_wasi::p2::bindings::filesystem::preopens::Host as _;
        use wasmtime_wasi::p2::bindings::sockets::network::IpAddressFamily;
        use wasmtime_wasi::p2::bindings::sockets::tcp_create_socket::Host as _;
        use wasmtime_wasi::p2::bindings::sync::sockets::udp_create_socket::Host as _;

        let mut wasi = GuestWasi::new(&FileAccess::default());
        let GuestWasi { ctx, table, .. } = &mut wasi;
        let mut sockets = wasmtime_wasi::sockets::WasiSocketsCtxView {
            ctx: ctx.sockets(),
            table,
        };
        for family in [IpAddressFamily::Ipv4, IpAddressFamily::Ipv6] {
            assert!(sockets.create_tcp_socket(family).is_err(), "tcp {family:?}");
            assert!(sockets.create_udp_socket(family).is_err(), "udp {family:?}");
        }
        let mut cli = wasmtime_wasi::cli::WasiCliCtxView {
            ctx: ctx.cli(),
            table,
        };
        assert!(cli.get_environment().unwrap().is_empty());
        assert!(cli.get_arguments().unwrap().is_empty());
        assert_eq!(cli.initial_cwd().unwrap(), None);
        let mut fs = wasmtime_wasi::filesystem::WasiFilesystemCtxView {
            ctx: ctx.filesystem(),
            table,
        };
        assert!(fs.get_directories().unwrap().is_empty());
    }

    #[test]
    fn captured_output_keeps_lines_up_to_the_bound_and_counts_the_rest() {
        let wasi = GuestWasi::new(&FileAccess::default());
        wasi.stdout.append(b"first\nsecond\n\n");
        wasi.stderr.append(b"oops");
        let mut lines = Vec::new();
        wasi.drain("demo", &mut lines, &[]);
        let got: Vec<_> = lines
            .iter()
            .map(|l| (l.level, l.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (Level::Info, "first"),
                (Level::Info, "second"),
                (Level::Warn, "oops")
            ]
        );
        assert!(lines.iter().all(|l| l.logger == "demo"));

        wasi.stdout.append(&vec![b'x'; MAX_GUEST_STDIO_BYTES + 10]);
        let mut lines = Vec::new();
        wasi.drain("demo", &mut lines, &[]);
        assert_eq!(lines.len(), 2);
        assert!(lines[1].message.contains("10 more bytes"), "{lines:?}");
        let mut again = Vec::new();
        wasi.drain("demo", &mut again, &[]);
        assert!(again.is_empty(), "a drain empties the streams");
    }
}
