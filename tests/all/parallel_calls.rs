//! Calls one client sends together that cannot touch the world run together: each is decided
//! on the engine in arrival order, then runs on its own worker, and its reply goes out when it
//! finishes. The evidence is the order of the replies: three naps sent longest first come back
//! shortest first, which one-after-another could never give. Over stdio, WebSocket and HTTP.
//! And a session sending many at once still cannot spend past its budget: each call's most
//! possible cost is held back when it is decided and settled when it completes.
//! History reads leave the engine too, except a `trace.tail` page the in-memory window holds,
//! which costs less answered where it is.

use crate::http_client::HttpHost;
use crate::support::{
    Client, admitted_builder, empty_registry, error_of, guest_packages, package_dir, repo,
};
use crate::ws_client::WsHost;
use limina::call::CallControl;
use limina::registry::Invocation;
use serde_json::{Value, json};
use std::sync::Mutex;
use std::time::Duration;

/// The naps sent together, longest first. A nap's instance is made on the engine as its call
/// is decided, so the 200 ms gaps leave room for that (well over any instantiation's time),
/// and the longest ends 400 ms inside the package's 1 s deadline even on a loaded machine.
const NAPS: [f64; 3] = [0.6, 0.4, 0.2];

/// A packages folder with the Python guest `sleepy` (`sleepy.nap` sleeps in WASI), as shipped:
/// no capability and no state, so its calls run off the engine.
fn sleepy() -> tempfile::TempDir {
    package_dir(
        &repo().join("tests/guests-python/sleepy"),
        &repo().join("target/components/sleepy.wasm"),
    )
}

fn nap(id: u64, seconds: f64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "sleepy.nap", "arguments": {"seconds": seconds}}})
}

/// The ids the naps were sent under, in the order their replies must come back.
fn shortest_first() -> Vec<u64> {
    (0..NAPS.len() as u64).rev().map(|i| 100 + i).collect()
}

fn assert_napped(reply: &Value) {
    assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
    let slept = reply["result"]["structuredContent"]["slept"]
        .as_f64()
        .unwrap_or_else(|| panic!("no `slept` in {reply}"));
    assert!(slept >= 0.19, "{reply}");
}

/// A stdio host with the sleepy package, sent the three naps at once.
fn stdio_napper(packages: &tempfile::TempDir) -> Client {
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", packages.path().to_str().unwrap()],
    );
    for (i, seconds) in NAPS.iter().enumerate() {
        c.send_line(&nap(100 + i as u64, *seconds).to_string());
    }
    c
}

/// The naps' reply ids, in the order they came (notifications skipped).
fn stdio_nap_replies(c: &mut Client) -> Vec<u64> {
    let mut order = Vec::new();
    while order.len() < NAPS.len() {
        let message = c.read();
        if let Some(id) = message.get("id").and_then(Value::as_u64) {
            assert_napped(&message);
            order.push(id);
        }
    }
    order
}

#[test]
fn three_off_engine_calls_sent_together_over_stdio_come_back_as_each_finishes() {
    let packages = sleepy();
    let mut c = stdio_napper(&packages);
    let order = stdio_nap_replies(&mut c);
    assert_eq!(order, shortest_first(), "the naps ran one after another");
    // The connection serves on afterwards.
    assert!(c.request("ping", json!({})).get("result").is_some());
}

#[test]
fn a_client_that_closes_stdin_after_its_calls_still_gets_every_reply() {
    let packages = sleepy();
    let mut c = stdio_napper(&packages);
    c.close_input();
    let mut answered = stdio_nap_replies(&mut c);
    answered.sort();
    assert_eq!(answered, vec![100, 101, 102]);
    assert_eq!(
        c.close(),
        Some(0),
        "the host exits cleanly once all are answered"
    );
}

#[test]
fn three_off_engine_calls_sent_together_over_websocket_come_back_as_each_finishes() {
    let packages = sleepy();
    let host = WsHost::start(&[
        "--profile",
        "builder.readWrite",
        "--packages",
        packages.path().to_str().unwrap(),
    ]);
    let mut c = host.client("builder.readWrite", "napper");
    for (i, seconds) in NAPS.iter().enumerate() {
        c.send(&nap(100 + i as u64, *seconds));
    }
    let mut order = Vec::new();
    while order.len() < NAPS.len() {
        let message = c
            .read_for(Duration::from_secs(10))
            .expect("every nap is answered");
        if let Some(id) = message.get("id").and_then(Value::as_u64) {
            assert_napped(&message);
            order.push(id);
        }
    }
    assert_eq!(order, shortest_first(), "the naps ran one after another");
}

#[test]
fn three_off_engine_calls_posted_together_in_one_http_session_come_back_as_each_finishes() {
    let packages = sleepy();
    let host = HttpHost::start(&[
        "--profile",
        "builder.readWrite",
        "--packages",
        packages.path().to_str().unwrap(),
    ]);
    let session = host.session("builder.readWrite");
    let order = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for (i, seconds) in NAPS.iter().enumerate() {
            let (host, session, order) = (&host, &session, &order);
            s.spawn(move || {
                let reply = host
                    .post(Some(session), &nap(100 + i as u64, *seconds))
                    .json();
                assert_napped(&reply);
                order.lock().unwrap().push(reply["id"].as_u64().unwrap());
            });
        }
    });
    assert_eq!(
        order.into_inner().unwrap(),
        shortest_first(),
        "the naps ran one after another"
    );
}

/// `[budgets] cpuMs = 1` over stdio, with the `spin` guest (0.29 ms of fuel a call).
fn budgeted() -> (tempfile::TempDir, tempfile::NamedTempFile, Client) {
    let packages = guest_packages(&["spin"]);
    let config = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(config.path(), "[budgets]\ncpuMs = 1\n").unwrap();
    let mut c = Client::spawn(&[
        "--config",
        config.path().to_str().unwrap(),
        "--packages",
        packages.path().to_str().unwrap(),
    ]);
    let r = c.request(
        "initialize",
        json!({"profile": "builder.readWrite", "agentId": "spender", "sessionId": "spender"}),
    );
    assert!(r.get("result").is_some(), "{r}");
    (packages, config, c)
}

#[test]
fn a_session_sending_many_calls_at_once_cannot_spend_past_its_cpu_budget() {
    let (_packages, _config, mut c) = budgeted();
    // Forty calls that each burn all the fuel they are given, written before any reply is read:
    // past the parallel limit some wait, the rest are decided while others still run.
    let count = 40;
    for i in 0..count {
        c.send_line(
            &json!({"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call",
                    "params": {"name": "spin.forever", "arguments": {}}})
            .to_string(),
        );
    }
    let mut codes = Vec::new();
    while codes.len() < count {
        let message = c.read();
        if message.get("id").is_none() {
            continue;
        }
        let (code, text) = error_of(&message["result"]);
        assert!(
            text.contains("CPU budget") || text.contains("fuel"),
            "{text}"
        );
        codes.push(code);
    }
    assert!(
        codes.iter().any(|code| code == "forbidden"),
        "some were denied: {codes:?}"
    );
    // Settled: every hold is given back, and the session spent exactly its budget, no more.
    let usage = c.call_ok("audit.usage", json!({"sessionId": "spender"}));
    let cpu = &usage["budgets"][0]["budget"]["cpuMs"];
    let used = cpu["used"].as_f64().unwrap();
    assert!(used <= 1.0 + 1e-9, "overspent: {usage}");
    assert!(
        used >= 1.0 - 1e-6,
        "the budget's last sliver went to the last call: {usage}"
    );
    let (code, message) = error_of(&c.call("spin.ok", json!({})));
    assert_eq!(code, "forbidden");
    assert!(
        message.contains("CPU budget spent") && !message.contains("held by calls"),
        "no call holds any of it any more: {message}"
    );
}

/// A reader following the trace asks for what came since its last page: the window holds it,
/// and the engine answers at once with the page the whole history gives. A page from the
/// start of a long history, or one that would parse many events, still runs on a worker.
#[test]
fn a_tail_page_the_window_holds_is_answered_on_the_engine_and_others_leave_it() {
    let mut registry = empty_registry(None);
    let caller = admitted_builder(&mut registry);
    // Two events a call: more than `TAIL_ON_ENGINE_EVENTS` in all.
    for _ in 0..40 {
        let listed = registry.invoke(&caller, "skills.list", json!({"limit": 1}));
        assert!(listed.success, "{:?}", listed.error);
    }
    let newest = registry.realm().tracer.count() as i64;
    let mut tail = |input: Value| {
        registry.invoke_or_detach(&caller, "trace.tail", input, CallControl::default())
    };
    let Invocation::Done(following) = tail(json!({"afterSeq": newest - 3})) else {
        panic!("a page of the newest events left the engine");
    };
    assert!(following.success, "{:?}", following.error);
    let page = following.result.unwrap();
    let seqs: Vec<i64> = page["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| limina::trace::seq_of_id(e["id"].as_str().unwrap()).unwrap() as i64)
        .collect();
    // The three newest before it, and its own decision.
    assert_eq!(
        seqs,
        (newest - 2..=newest + 1).collect::<Vec<_>>(),
        "{page}"
    );
    assert_eq!(page["nextAfterSeq"], Value::Null);
    // From the start: more than the engine parses for one page.
    assert!(matches!(
        tail(json!({"afterSeq": -1, "limit": 100})),
        Invocation::Detached(_)
    ));
    assert!(matches!(
        tail(json!({"afterSeq": newest - 3, "type": "policy.decision", "limit": 500})),
        Invocation::Done(_)
    ));
    // A bad input is refused the same on the engine as off it, naming the field.
    let Invocation::Done(refused) = tail(json!({"afterSeq": newest, "limit": "all"})) else {
        panic!("a bad input with a recent cursor left the engine");
    };
    let failure = refused.error.unwrap();
    assert_eq!(failure.code, limina::call::ErrorCode::InvalidInput);
    assert!(failure.message.contains("limit"), "{}", failure.message);
}
