//! `limina --mcp-stdio`: newline-delimited JSON-RPC on stdin/stdout. Replies are buffered and
//! flushed when no more input is waiting, so pipelined clients get batched writes and
//! request/response clients get each reply at once. While stdin is idle the server still
//! swaps in hot-reloaded packages and tells the client (`tools/list_changed`).

use super::jsonrpc;
use super::{Connection, Server};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::os::fd::{AsRawFd, RawFd};

/// How often an idle server looks for reloads.
const IDLE_POLL_MS: i32 = 100;

/// Serves one client over the given streams until input ends.
pub fn serve<R: Read + AsRawFd, W: Write>(
    server: &mut Server,
    input: R,
    output: W,
) -> io::Result<()> {
    let fd = input.as_raw_fd();
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut writer = BufWriter::with_capacity(1 << 16, output);
    let mut conn = Connection::default();
    let mut line = Vec::new();
    loop {
        if reader.buffer().is_empty() {
            server.flush();
            writer.flush()?;
            // Nothing buffered: wait for input, doing idle work meanwhile.
            while !readable(fd, IDLE_POLL_MS)? {
                server.idle();
                write_all(&mut writer, server.notifications(&mut conn))?;
                writer.flush()?;
            }
        }
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let reply = match std::str::from_utf8(&line) {
            Ok(text) if text.trim().is_empty() => None,
            Ok(text) => server.handle(&mut conn, text.trim()),
            Err(_) => Some(jsonrpc::error(
                serde_json::Value::Null,
                jsonrpc::PARSE_ERROR,
                "Parse error: the message is not valid UTF-8",
                None,
            )),
        };
        write_all(&mut writer, server.notifications(&mut conn))?;
        write_all(&mut writer, reply)?;
    }
    server.flush();
    writer.flush()?;
    server.disconnect(&mut conn);
    Ok(())
}

fn write_all<W: Write>(
    writer: &mut W,
    messages: impl IntoIterator<Item = serde_json::Value>,
) -> io::Result<()> {
    for message in messages {
        serde_json::to_writer(&mut *writer, &message)?;
        writer.write_all(b"\n")?;
    }
    Ok(())
}

/// Whether `fd` has input (or end of input) within `timeout_ms`.
fn readable(fd: RawFd, timeout_ms: i32) -> io::Result<bool> {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd for the duration of the call.
    let n = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
    match n {
        -1 => {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(e)
            }
        }
        0 => Ok(false),
        _ => Ok(true),
    }
}
