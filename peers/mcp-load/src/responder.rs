//! The do-nothing responder: the cost of a stdio JSON-RPC round trip with no server behind it.
//! It answers every request line with one canned result carrying the request's id (and
//! notifications with nothing), so it shows how fast the pipes and this client go at all.

use std::io::{BufRead, BufReader, BufWriter, Write};

use crate::peer::reply_id;

/// The one result every request gets: enough for `initialize`, `tools/list` and `tools/call`.
const RESULT: &str = r#"{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"},"tools":[],"content":[{"type":"text","text":"ok"}],"isError":false}"#;

/// Serves stdin until it closes. Replies are written through a buffer that is flushed whenever
/// no more input is already waiting, so sequential callers are answered at once and pipelined
/// ones in large writes.
pub fn serve() -> std::io::Result<()> {
    let stdin = std::io::stdin().lock();
    let mut reader = BufReader::with_capacity(1 << 16, stdin);
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return out.flush();
        }
        if let Some(id) = reply_id(&line) {
            write!(out, r#"{{"jsonrpc":"2.0","id":{id},"result":{RESULT}}}"#)?;
            out.write_all(b"\n")?;
        }
        if reader.buffer().is_empty() {
            out.flush()?;
        }
    }
}
