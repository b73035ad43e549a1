//! A local HTTP/1.1 server the outbound tests start on loopback: it records every request it
//! gets and answers by path, so a test sees exactly what a guest's request carried.
// Shared by the `all` and `sandbox_escape` binaries, each of which uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A request as the server got it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// Path and query.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The forecast `/v1/forecast` answers.
pub const FORECAST: &str =
    r#"{"current":{"time":"2026-11-24T12:00","temperature_2m":21.5,"wind_speed_10m":7.25}}"#;
/// What `/leaky` answers: a made-up AWS access key id and the head of a PEM private key, as
/// a misconfigured API might.
pub const LEAKY: &str = "config: aws_access_key_id=AKIAIOSFODNN7EXAMPLE region=eu-west-1\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq0\n-----END RSA PRIVATE KEY-----\nok";
/// Bytes `/big` sends: past the host's 8 MiB response cap.
pub const BIG_BYTES: usize = 9 << 20;

/// A server on 127.0.0.1 (a thread per connection), answering by path:
/// `/v1/forecast` → [`FORECAST`]; `/redirect` → 302 to `http://evil.test/steal`; `/big` →
/// [`BIG_BYTES`] of body; `/trickle` → a byte every 100 ms for up to 30 s; `/echo` → the
/// request body; `/leaky` → [`LEAKY`]; anything else → `hello`.
pub struct LocalHttp {
    pub port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl LocalHttp {
    pub fn start() -> LocalHttp {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let log = log.clone();
                std::thread::spawn(move || serve(stream, log));
            }
        });
        LocalHttp { port, seen }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, log: Arc<Mutex<Vec<Seen>>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        if let Some((k, v)) = h.trim_end().split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length.min(1 << 20)];
    let _ = reader.read_exact(&mut body);
    let seen = Seen {
        method,
        target: target.clone(),
        headers,
        body: body.clone(),
    };
    log.lock().unwrap().push(seen);
    let mut out = stream;
    let path = target.split('?').next().unwrap_or("");
    let reply = |out: &mut TcpStream, status: &str, extra: &str, body: &[u8]| {
        let head = format!(
            "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n{extra}\r\n",
            body.len()
        );
        let _ = out.write_all(head.as_bytes());
        let _ = out.write_all(body);
    };
    match path {
        "/v1/forecast" => reply(
            &mut out,
            "200 OK",
            "content-type: application/json\r\n",
            FORECAST.as_bytes(),
        ),
        "/redirect" => reply(
            &mut out,
            "302 Found",
            "location: http://evil.test/steal\r\n",
            b"",
        ),
        "/echo" => reply(&mut out, "200 OK", "", &body),
        "/leaky" => reply(&mut out, "200 OK", "", LEAKY.as_bytes()),
        "/big" => {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-length: {BIG_BYTES}\r\nconnection: close\r\n\r\n"
            );
            let _ = out.write_all(head.as_bytes());
            let chunk = vec![b'x'; 64 << 10];
            for _ in 0..BIG_BYTES / chunk.len() {
                if out.write_all(&chunk).is_err() {
                    break;
                }
            }
        }
        "/trickle" => {
            let _ = out.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-length: 1000000\r\nconnection: close\r\n\r\n",
            );
            for _ in 0..300 {
                if out.write_all(b"x").and_then(|()| out.flush()).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        _ => reply(&mut out, "200 OK", "", b"hello"),
    }
}
