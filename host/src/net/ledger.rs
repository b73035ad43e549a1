//! What each outbound request of a call did, shared between the guest's thread (which
//! checks and refuses) and the runtime (which connects, counts and ends), and read once when
//! the call ends to trace and charge it.

use serde_json::{Value, json};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One request, from its check to its end.
#[derive(Debug)]
pub struct Record {
    pub method: String,
    pub scheme: String,
    pub host: String,
    pub port: u16,
    /// The path, without its query.
    pub path: String,
    started: Instant,
    status: AtomicU16,
    bytes_in: AtomicU64,
    bytes_out: AtomicU64,
    /// Whether a connection was opened (only then is the request charged).
    connected: AtomicBool,
    /// Set when the call ended: later reads of its body fail.
    closed: AtomicBool,
    state: Mutex<RecordState>,
}

#[derive(Debug, Default)]
struct RecordState {
    refused: Option<(&'static str, String)>,
    error: Option<String>,
    ended_ms: Option<f64>,
    address: Option<IpAddr>,
}

impl Record {
    pub fn new(method: &str, scheme: &str, host: &str, port: u16, path: &str) -> Arc<Record> {
        Arc::new(Record {
            method: method.to_string(),
            scheme: scheme.to_string(),
            host: host.to_string(),
            port,
            path: path.to_string(),
            started: Instant::now(),
            status: AtomicU16::new(0),
            bytes_in: AtomicU64::new(0),
            bytes_out: AtomicU64::new(0),
            connected: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            state: Mutex::default(),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, RecordState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The host refused it under `rule`; nothing was sent.
    pub fn refuse(&self, rule: &'static str, reason: String) {
        self.state().refused = Some((rule, reason));
    }

    pub fn refusal(&self) -> Option<(&'static str, String)> {
        self.state().refused.clone()
    }

    pub fn connected_to(&self, ip: IpAddr) {
        self.connected.store(true, Ordering::Release);
        self.state().address = Some(ip);
    }

    pub fn set_status(&self, status: u16) {
        self.status.store(status, Ordering::Release);
    }

    pub fn add_in(&self, n: u64) {
        self.bytes_in.fetch_add(n, Ordering::AcqRel);
    }

    pub fn add_out(&self, n: u64) {
        self.bytes_out.fetch_add(n, Ordering::AcqRel);
    }

    pub fn bytes_in(&self) -> u64 {
        self.bytes_in.load(Ordering::Acquire)
    }

    pub fn bytes_out(&self) -> u64 {
        self.bytes_out.load(Ordering::Acquire)
    }

    /// It failed (the first failure is kept).
    pub fn fail(&self, error: String) {
        let mut s = self.state();
        s.error.get_or_insert(error);
        s.ended_ms.get_or_insert(ms_since(self.started));
    }

    /// Its response body was read to the end.
    pub fn finish(&self) {
        self.state().ended_ms.get_or_insert(ms_since(self.started));
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Ends it with the call: its body can no longer be read.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.state().ended_ms.get_or_insert(ms_since(self.started));
    }

    /// Whether it opened a connection (and so is charged).
    pub fn was_sent(&self) -> bool {
        self.connected.load(Ordering::Acquire)
    }

    /// The `net.request` payload: no query, header values or bodies.
    pub fn request_payload(&self, package: &str, skill: &str) -> Value {
        let s = self.state();
        let status = self.status.load(Ordering::Acquire);
        json!({
            "package": package,
            "skill": skill,
            "method": self.method,
            "scheme": self.scheme,
            "host": self.host,
            "port": self.port,
            "path": self.path,
            "address": s.address.map(|a| a.to_string()),
            "status": (status != 0).then_some(status),
            "bytesIn": self.bytes_in(),
            "bytesOut": self.bytes_out(),
            "ms": s.ended_ms.map(|ms| (ms * 1000.0).round() / 1000.0),
            "error": s.error,
        })
    }
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// A call's requests, in the order the guest made them.
pub type Ledger = Arc<Mutex<Vec<Arc<Record>>>>;

/// What a call's requests cost, for the session's `budget.net`, and why any were refused.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NetUsage {
    /// Requests that opened a connection.
    pub requests: u64,
    /// Bytes of request and response bodies.
    pub bytes: u64,
    /// `(rule, reason)` of each refusal, in order.
    pub refusals: Vec<(&'static str, String)>,
}

impl NetUsage {
    /// Totals over a call's records.
    pub fn of(records: &[Arc<Record>]) -> NetUsage {
        let mut usage = NetUsage::default();
        for r in records {
            if let Some(refusal) = r.refusal() {
                usage.refusals.push(refusal);
            }
            if r.was_sent() {
                usage.requests += 1;
                usage.bytes += r.bytes_in() + r.bytes_out();
            }
        }
        usage
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_counts_only_requests_that_connected_and_lists_refusals() {
        let sent = Record::new("GET", "http", "127.0.0.1", 8080, "/v1/x");
        sent.connected_to("127.0.0.1".parse().unwrap());
        sent.set_status(200);
        sent.add_in(120);
        sent.add_out(3);
        sent.finish();
        let refused = Record::new("GET", "http", "evil.test", 80, "/");
        refused.refuse("net.grant", "no grant".into());
        let usage = NetUsage::of(&[sent.clone(), refused]);
        assert_eq!(usage.requests, 1);
        assert_eq!(usage.bytes, 123);
        assert_eq!(usage.refusals, [("net.grant", "no grant".to_string())]);
        let p = sent.request_payload("weather", "weather.now");
        assert_eq!(p["status"], 200);
        assert_eq!(p["path"], "/v1/x");
        assert_eq!(p["bytesIn"], 120);
        assert!(p["ms"].as_f64().is_some());
        assert!(!sent.is_closed());
        sent.close();
        assert!(sent.is_closed());
    }
}
