//! `limina --mcp-stdio`: newline-delimited JSON-RPC on stdin/stdout. Replies are buffered and
//! flushed when no more input is waiting, so pipelined clients get batched writes and
//! request/response clients get each reply at once.

use super::jsonrpc;
use super::{Connection, Server};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};

/// Serves one client over the given streams until input ends.
pub fn serve<R: Read, W: Write>(server: &mut Server, input: R, output: W) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut writer = BufWriter::with_capacity(1 << 16, output);
    let mut conn = Connection::default();
    let mut line = Vec::new();
    loop {
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
        if let Some(reply) = reply {
            serde_json::to_writer(&mut writer, &reply)?;
            writer.write_all(b"\n")?;
        }
        if reader.buffer().is_empty() {
            server.flush();
            writer.flush()?;
        }
    }
    server.flush();
    writer.flush()?;
    server.disconnect(&mut conn);
    Ok(())
}
