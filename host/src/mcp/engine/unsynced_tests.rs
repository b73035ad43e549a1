//! With `[trace] fsync = "always"`, a reply leaves only once its batch's events are synced.
//! When the sync fails, the call ran but is not acknowledged: its reply — a tool call's
//! written as a frame (`dispatch/call_result.rs`) as much as any other — becomes a `capacity_exceeded`
//! error naming the request, and the host refuses recorded calls until the trace can be
//! written again. Driven here through a real engine and a socket peer, the trace on a disk
//! whose syncs fail on demand.

use super::cancel::CancelBoard;
use super::inbox::{Inbound, next_peer_id};
use super::outbox::{Frame, Lane, socket};
use super::thread::Engine;
use crate::mcp::dispatch::server::Server;
use crate::mcp::transport::edge::Grant;
use crate::trace::disk::faulty::{Faults, FaultyDisk};
use crate::trace::{Durability, Fsync, Retention, Tracer};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A server whose trace, in `dir`, syncs every batch on a disk with `faults`, serving the
/// core packages built into this binary.
fn server(dir: &std::path::Path, faults: &Arc<Faults>) -> Server {
    let tracer = Tracer::open_on(
        dir,
        64,
        Retention::default(),
        Durability {
            fsync: Fsync::Always,
            ..Durability::default()
        },
        Arc::new(FaultyDisk(faults.clone())),
        false,
    )
    .unwrap();
    let mut server = crate::mcp::dispatch::test_server::server_over(tracer);
    for source in crate::packages::embedded::sources().unwrap() {
        server.registry_mut().load(source).unwrap();
    }
    server
}

/// A socket peer of a running engine: sends a message, waits for its reply.
struct Peer {
    id: u64,
    handle: super::inbox::EngineHandle,
    replies: super::outbox::Receiver,
    runtime: tokio::runtime::Runtime,
    /// Frames received and not yet asked for.
    waiting: Vec<Frame>,
}

impl Peer {
    fn open(handle: super::inbox::EngineHandle) -> Peer {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let lane = Lane::new();
        runtime.spawn(lane.clone().serve());
        let (outbox, _own, replies, _close) = socket(&lane, None);
        let id = next_peer_id();
        handle.send(Inbound::Open {
            id,
            outbox,
            cancels: Arc::new(CancelBoard::with_watch(None)),
            in_flight: Arc::new(AtomicUsize::new(0)),
            notify: Arc::new(|_| {}),
            transport_session: None,
            grant: Some(Grant {
                profiles: vec!["builder.readWrite".into()],
                agent_id: None,
                setting: "test".into(),
            }),
            default_profile: None,
            ticket: None,
            input: None,
        });
        Peer {
            id,
            handle,
            replies,
            runtime,
            waiting: Vec::new(),
        }
    }

    /// Sends request `id` and waits for the message answering it.
    fn ask(&mut self, id: u64, method: &str, params: Value) -> Value {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.handle.send(Inbound::Message {
            id: self.id,
            text: request.to_string(),
        });
        loop {
            let answered = self.waiting.iter().position(|frame| {
                let message: Value = serde_json::from_str(frame.as_str()).unwrap();
                message["id"] == json!(id)
            });
            if let Some(at) = answered {
                return serde_json::from_str(self.waiting.remove(at).as_str()).unwrap();
            }
            let received = self.runtime.block_on(async {
                tokio::time::timeout(
                    std::time::Duration::from_secs(30),
                    self.replies.recv_all(&mut self.waiting),
                )
                .await
            });
            assert_eq!(received, Ok(true), "no reply to request {id}");
        }
    }
}

#[test]
fn a_tool_call_whose_batch_could_not_be_synced_is_answered_with_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let faults = Faults::with_room(1 << 30);
    let engine = Engine::new(server(dir.path(), &faults), false).unwrap();
    let handle = engine.handle();
    let running = std::thread::spawn(move || engine.run());
    let mut peer = Peer::open(handle.clone());
    let init = peer.ask(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}),
    );
    assert!(init.get("result").is_some(), "{init}");
    let create =
        |n: i64| json!({"name": "scene.createEntity", "arguments": {"position": [n, 0, 0]}});

    let synced = peer.ask(2, "tools/call", create(1));
    assert_eq!(synced["result"]["isError"], json!(false), "{synced}");

    faults.fail_sync.store(true, Ordering::SeqCst);
    let unsynced = peer.ask(3, "tools/call", create(2));
    assert_eq!(unsynced["id"], json!(3), "{unsynced}");
    assert_eq!(unsynced["error"]["code"], json!(-32002), "{unsynced}");
    let message = unsynced["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("capacity_exceeded"), "{message}");
    assert!(message.contains("could not be synced"), "{message}");
    // The trace is in an outage now: the next call is refused before it runs.
    let refused = peer.ask(4, "tools/call", create(3));
    assert_eq!(refused["result"]["isError"], json!(true), "{refused}");
    assert!(
        refused.to_string().contains("capacity_exceeded"),
        "{refused}"
    );
    assert!(
        refused.to_string().contains("cannot be written"),
        "{refused}"
    );
    // What records nothing is still answered as it is.
    let ping = peer.ask(5, "ping", json!({}));
    assert_eq!(ping["result"], json!({}), "{ping}");

    // Once syncs work again, calls are acknowledged again.
    faults.fail_sync.store(false, Ordering::SeqCst);
    let mut tries = 0;
    let again = loop {
        let reply = peer.ask(10 + tries, "tools/call", create(4));
        if reply
            .get("result")
            .is_some_and(|r| r["isError"] == json!(false))
        {
            break reply;
        }
        tries += 1;
        assert!(tries < 100, "never acknowledged again: {reply}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(
        again["result"]["_meta"]["eventsEmitted"].is_array(),
        "{again}"
    );

    handle.send(Inbound::Stop { signal: 0 });
    running.join().unwrap().unwrap();
}
