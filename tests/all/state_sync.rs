//! Shared delta frames over real WebSocket connections: subscribers whose areas admit the
//! same changes receive byte-identical `state/delta` frames (serialized once by the host);
//! a subscriber with another area, or asking for detail, still gets exactly its own.

use crate::ws_client::{WAIT, WsClient, WsHost, changed_ids, removed_ids};
use serde_json::{Value, json};
use std::time::Instant;
use tokio_tungstenite::tungstenite::{self, Message};

/// The next `state/delta` as the host sent it: its text, and the text parsed.
fn raw_delta(c: &mut WsClient) -> (String, Value) {
    let deadline = Instant::now() + WAIT;
    loop {
        assert!(Instant::now() < deadline, "no state/delta");
        match c.socket().read() {
            Ok(Message::Text(text)) => {
                let message: Value = serde_json::from_str(&text).unwrap();
                if message["method"] == "state/delta" {
                    return (text.to_string(), message);
                }
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => panic!("reading: {e}"),
        }
    }
}

fn create(c: &mut WsClient, position: [f64; 3]) -> String {
    let (out, _) = c.call_ok("scene.createEntity", json!({"position": position}));
    out["entity"].as_str().unwrap().to_string()
}

fn area(center: [f64; 3]) -> Option<Value> {
    Some(json!({"center": center, "radius": 10}))
}

#[test]
fn subscribers_with_the_same_area_get_byte_identical_deltas_and_other_areas_only_their_own() {
    let host = WsHost::start(&["--network-profile", "builder.readWrite"]);
    let mut builder = host.client("builder.readWrite", "builder");
    let here = create(&mut builder, [0.0, 0.0, 0.0]);
    let there = create(&mut builder, [100.0, 0.0, 0.0]);
    let mut twins: Vec<WsClient> = (0..2)
        .map(|i| {
            let mut c = host.client("system.readonly", &format!("twin{i}"));
            c.subscribe(area([0.0, 0.0, 0.0]));
            c
        })
        .collect();
    let mut far = host.client("system.readonly", "far");
    far.subscribe(area([100.0, 0.0, 0.0]));
    let mut detailed = host.client("system.readonly", "detailed");
    let id = detailed.send_request(
        "state/subscribe",
        json!({"aoi": {"center": [0, 0, 0], "radius": 10}, "detail": true}),
    );
    detailed.reply_to(id);

    let move_to = |builder: &mut WsClient, entity: &str, x: i32| {
        builder.call_ok(
            "three.setTransform",
            json!({"entity": entity, "position": [x, 0, 0]}),
        );
    };
    // `here` moves: the twins get the same bytes; the detailed view its own form.
    move_to(&mut builder, &here, 1);
    let (first, parsed) = raw_delta(&mut twins[0]);
    let (second, _) = raw_delta(&mut twins[1]);
    assert_eq!(first, second, "the twins' frames differ");
    assert_eq!(changed_ids(&parsed), [here.as_str()]);
    let (_, d) = raw_delta(&mut detailed);
    assert_eq!(changed_ids(&d), [here.as_str()]);
    assert!(d["params"]["changes"][0].get("shape").is_some(), "{d}");
    assert!(
        parsed["params"]["changes"][0].get("shape").is_none(),
        "detail leaked into a plain delta: {parsed}"
    );

    // `there` moves: only the far area hears, and its first delta holds nothing of `here`.
    move_to(&mut builder, &there, 101);
    let (_, d) = raw_delta(&mut far);
    assert_eq!(changed_ids(&d), [there.as_str()]);
    assert!(removed_ids(&d).is_empty());

    // `here` moves again: the twins' next delta is this one, nothing of `there` before it.
    move_to(&mut builder, &here, 2);
    for twin in &mut twins {
        let (_, d) = raw_delta(twin);
        assert_eq!(changed_ids(&d), [here.as_str()], "{d}");
        assert_eq!(d["params"]["changes"][0]["pos"][0], 2.0);
    }
}

#[test]
fn many_subscribers_each_get_every_delta_in_order_and_a_filtered_one_only_its_own() {
    let host = WsHost::start(&["--network-profile", "builder.readWrite"]);
    let mut builder = host.client("builder.readWrite", "builder");
    let mover = create(&mut builder, [0.0, 0.0, 0.0]);
    let far_entity = create(&mut builder, [500.0, 0.0, 0.0]);
    // More subscribers than one writer thread's share, all owed the same bytes.
    let mut all: Vec<WsClient> = (0..40)
        .map(|i| {
            let mut c = host.client("system.readonly", &format!("watcher{i}"));
            c.subscribe(None);
            c
        })
        .collect();
    let mut far = host.client("system.readonly", "far");
    far.subscribe(area([500.0, 0.0, 0.0]));
    let moves = 30;
    // Pipelined: the deltas of several moves may be queued to one socket at one ring.
    let ids: Vec<u64> = (1..=moves)
        .map(|x| {
            builder.send_request(
                "tools/call",
                json!({"name": "three.setTransform", "arguments": {"entity": mover, "position": [x, 0, 0]}}),
            )
        })
        .collect();
    for id in ids {
        assert_eq!(builder.reply_to(id)["result"]["isError"], false);
    }
    // The far area's own entity moves last: what `far` hears first is this, nothing before.
    builder.call_ok(
        "three.setTransform",
        json!({"entity": far_entity, "position": [501, 0, 0]}),
    );
    let mut first: Vec<String> = Vec::new();
    for (i, watcher) in all.iter_mut().enumerate() {
        for x in 1..=moves {
            let (text, d) = raw_delta(watcher);
            assert_eq!(changed_ids(&d), [mover.as_str()], "watcher {i}: {d}");
            assert_eq!(d["params"]["changes"][0]["pos"][0], x as f64, "watcher {i}");
            // Every subscriber got the very bytes the first one did.
            match first.get(x - 1) {
                Some(seen) => assert_eq!(seen, &text, "watcher {i}, move {x}"),
                None => first.push(text),
            }
        }
        let (_, d) = raw_delta(watcher);
        assert_eq!(changed_ids(&d), [far_entity.as_str()], "watcher {i}: {d}");
    }
    let (_, d) = raw_delta(&mut far);
    assert_eq!(changed_ids(&d), [far_entity.as_str()], "{d}");
    assert!(removed_ids(&d).is_empty(), "{d}");
}
