//! Cancellation per connection: the flags of requests in flight, by request id. A transport
//! raises a flag the moment `notifications/cancelled` arrives — before the engine reaches it
//! in order — so a running guest stops at once and a queued request never starts.

use crate::call::Cancel;
use crate::limits::MAX_PENDING_CANCELS;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The method's name, searched for with memchr's vectorized finder before anything is parsed.
static METHOD: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new("notifications/cancelled"));

/// The request a raw message cancels, when it is a `notifications/cancelled`: how every
/// transport spots one as it arrives (a byte search first, so other messages are not parsed).
pub fn cancelled_request(text: &[u8]) -> Option<Value> {
    METHOD.find(text)?;
    let message: Value = serde_json::from_slice(text).ok()?;
    if message.get("method").and_then(Value::as_str) != Some("notifications/cancelled") {
        return None;
    }
    message.pointer("/params/requestId").cloned()
}

/// The requests cancelled among newline-separated messages read ahead: one search over all of
/// them, and only a line holding the method's name is cut out and read.
pub fn cancelled_requests(lines: &[u8]) -> Vec<Value> {
    let mut ids = Vec::new();
    let mut at = 0;
    while let Some(hit) = METHOD.find(&lines[at..]) {
        let hit = at + hit;
        let start = memchr::memrchr(b'\n', &lines[..hit]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &lines[hit..]).map_or(lines.len(), |i| hit + i);
        ids.extend(cancelled_request(&lines[start..end]));
        at = end;
    }
    ids
}

/// A watcher run on each cancellation check (see [`Cancel`]).
pub type Watch = Arc<dyn Fn() + Send + Sync>;

/// One connection's cancellable requests.
#[derive(Default)]
pub struct CancelBoard {
    flags: Mutex<HashMap<String, Entry, foldhash::fast::RandomState>>,
    watch: Option<Watch>,
}

struct Entry {
    flag: Arc<AtomicBool>,
    /// Started by the engine (else only cancelled ahead of time).
    running: bool,
}

/// `f` given the key of request `id`: its JSON text, so `1` and `"1"` stay apart. Written into
/// a buffer kept per thread, so a lookup allocates nothing (two keys made per call before).
fn with_key<R>(id: &Value, f: impl FnOnce(&str) -> R) -> R {
    thread_local! {
        static KEY: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    KEY.with_borrow_mut(|key| {
        key.clear();
        serde_json::to_writer(&mut *key, id).expect("a Value serializes");
        f(std::str::from_utf8(key).expect("serde_json writes UTF-8"))
    })
}

impl CancelBoard {
    /// A board whose cancels run `watch` at each check.
    pub fn with_watch(watch: Option<Watch>) -> Self {
        CancelBoard {
            flags: Mutex::default(),
            watch,
        }
    }

    /// Cancels request `id`: a running one stops, a queued one will not start.
    pub fn cancel(&self, id: &Value) {
        let mut flags = self.flags.lock().unwrap_or_else(|e| e.into_inner());
        with_key(id, |key| {
            if let Some(entry) = flags.get(key) {
                entry.flag.store(true, Ordering::Release);
                return;
            }
            // Cancels of ids that never arrive must not pile up.
            if flags.len() >= MAX_PENDING_CANCELS {
                flags.retain(|_, e| e.running);
            }
            flags.insert(
                key.to_string(),
                Entry {
                    flag: Arc::new(AtomicBool::new(true)),
                    running: false,
                },
            );
        })
    }

    /// Starts request `id`; `None` when it was cancelled before it started.
    pub fn start(&self, id: &Value) -> Option<Cancel> {
        let mut flags = self.flags.lock().unwrap_or_else(|e| e.into_inner());
        let flag = with_key(id, |key| {
            if flags.remove(key).is_some() {
                return None;
            }
            let flag = Arc::new(AtomicBool::new(false));
            flags.insert(
                key.to_string(),
                Entry {
                    flag: flag.clone(),
                    running: true,
                },
            );
            Some(flag)
        })?;
        Some(Cancel::new(flag, self.watch.clone()))
    }

    /// Ends request `id`; true when it was cancelled while it ran.
    pub fn finish(&self, id: &Value) -> bool {
        let mut flags = self.flags.lock().unwrap_or_else(|e| e.into_inner());
        with_key(id, |key| flags.remove(key)).is_some_and(|e| e.flag.load(Ordering::Acquire))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_cancelled_notification_names_a_request() {
        let cancel =
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
        assert_eq!(cancelled_request(cancel), Some(json!(7)));
        // The words in another message, or a request id under another method, cancel nothing.
        let echo = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"requestId":7,"arguments":{"text":"notifications/cancelled"}}}"#;
        assert_eq!(cancelled_request(echo), None);
        assert_eq!(cancelled_request(b"notifications/cancelled {"), None);
    }

    #[test]
    fn cancels_among_lines_read_ahead_are_all_found() {
        let cancel = |id: u32| {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id}}}}}"
            )
        };
        let echo = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"a":"notifications/cancelled","b":"notifications/cancelled"}}}"#;
        let lines = [cancel(7).as_str(), echo, "{}", cancel(9).as_str()].join("\n");
        assert_eq!(cancelled_requests(lines.as_bytes()), [json!(7), json!(9)]);
        assert_eq!(cancelled_requests(echo.as_bytes()), Vec::<Value>::new());
        assert_eq!(cancelled_requests(b""), Vec::<Value>::new());
    }

    #[test]
    fn a_cancel_before_the_start_keeps_the_request_from_running() {
        let board = CancelBoard::default();
        board.cancel(&json!(7));
        assert!(board.start(&json!(7)).is_none());
        assert!(board.start(&json!(7)).is_some(), "only once");
    }

    #[test]
    fn a_cancel_while_running_raises_the_flag_and_is_reported_at_the_end() {
        let board = CancelBoard::default();
        let cancel = board.start(&json!("a")).unwrap();
        assert!(!cancel.is_cancelled());
        board.cancel(&json!("a"));
        assert!(cancel.is_cancelled());
        assert!(board.finish(&json!("a")));
        let again = board.start(&json!("a")).unwrap();
        assert!(!board.finish(&json!("a")) && !again.is_cancelled());
    }

    #[test]
    fn a_number_and_a_string_of_the_same_digits_are_different_requests() {
        let board = CancelBoard::default();
        let number = board.start(&json!(1)).unwrap();
        board.cancel(&json!("1"));
        assert!(!number.is_cancelled());
        assert!(
            board.start(&json!("1")).is_none(),
            "the string id was cancelled ahead"
        );
        assert!(!board.finish(&json!(1)));
        board.cancel(&json!(1));
        assert!(
            !number.is_cancelled(),
            "finished: a late cancel reaches nothing"
        );
    }

    #[test]
    fn stray_cancels_stay_bounded() {
        let board = CancelBoard::default();
        for i in 0..(MAX_PENDING_CANCELS * 3) {
            board.cancel(&json!(i));
        }
        assert!(board.flags.lock().unwrap().len() <= MAX_PENDING_CANCELS);
    }
}
