//! `cargo bench -p limina --bench sync` (or `cargo xtask bench -- --bench sync`): the shared
//! world as its clients see it.
//!
//! - **Sync latency** over real WebSocket connections to the release binary: client A moves an
//!   entity; each of N subscribers (1, 10, 50) times the `state/delta` it receives against the
//!   moment A received its reply (and against A's send). Baseline in the same run: a `ping`
//!   round trip on the same transport.
//! - **World tick** in process, the engine's per-tick work: a physics step with 256 dynamic
//!   bodies, 200 walking agents and 2,000 entities, then the change set sync reads; with a
//!   client's call between ticks. Baseline in the same run: the tick of an empty world.

mod spawn;

use limina::world::{ApproachTarget, BodyKind, EntitySpec, Shape, World, WorldSettings};
use serde_json::{Value, json};
use std::net::TcpStream;
use std::sync::mpsc::channel;
use std::time::Instant;
use tokio_tungstenite::tungstenite::{self, Message, WebSocket, stream::MaybeTlsStream};

const MOVES: usize = 2_000;
const TICKS: usize = 600;

type Ws = WebSocket<MaybeTlsStream<TcpStream>>;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p) as usize]
}

fn summary(mut xs: Vec<f64>) -> (f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    (
        percentile(&xs, 0.5),
        percentile(&xs, 0.95),
        percentile(&xs, 0.99),
    )
}

/// The release binary serving WebSocket; returns it and its `ws://` URL.
fn start() -> (spawn::Spawned, String) {
    let args = [
        "--mcp-ws",
        "--port",
        "0",
        "--manual-clock",
        "--log-level",
        "info",
    ];
    let host = spawn::limina(&args, Some("ws://"));
    let url = format!("ws://{}", host.address.as_deref().unwrap());
    (host, url)
}

fn connect(url: &str, profile: &str) -> Ws {
    let (mut ws, _) = tungstenite::connect(url).unwrap();
    if let MaybeTlsStream::Plain(s) = ws.get_ref() {
        s.set_nodelay(true).unwrap();
    }
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "profile": profile}});
    ws.send(Message::Text(init.to_string().into())).unwrap();
    read_json(&mut ws);
    ws
}

fn read_json(ws: &mut Ws) -> Value {
    loop {
        if let Message::Text(t) = ws.read().unwrap() {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// (reply→delta, send→delta) latencies in µs over all subscribers, and the ping round trip.
fn sync_latency(subscribers: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (_host, url) = start();
    let mut a = connect(&url, "builder.readWrite");
    let create = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "scene.createEntity", "arguments": {}}});
    a.send(Message::Text(create.to_string().into())).unwrap();
    let made = read_json(&mut a);
    let entity = made["result"]["structuredContent"]["entity"]
        .as_str()
        .unwrap()
        .to_string();

    let (tx, rx) = channel::<(usize, Instant)>();
    let mut readers = Vec::new();
    for _ in 0..subscribers {
        let mut ws = connect(&url, "system.readonly");
        let sub = json!({"jsonrpc": "2.0", "id": 1, "method": "state/subscribe", "params": {}});
        ws.send(Message::Text(sub.to_string().into())).unwrap();
        read_json(&mut ws); // snapshot
        read_json(&mut ws); // reply
        let tx = tx.clone();
        readers.push(std::thread::spawn(move || {
            let mut seen = 0;
            while seen < MOVES {
                let m = read_json(&mut ws);
                if m["method"] == "state/delta" {
                    let i = m["params"]["changes"][0]["pos"][0].as_f64().unwrap() as usize;
                    let _ = tx.send((i, Instant::now()));
                    seen += 1;
                }
            }
        }));
    }
    drop(tx);
    let mut replied = vec![Instant::now(); MOVES];
    let mut sent = vec![Instant::now(); MOVES];
    let mut pings = Vec::with_capacity(MOVES);
    for i in 0..MOVES {
        let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
        let t = Instant::now();
        a.send(Message::Text(ping.into())).unwrap();
        read_json(&mut a);
        pings.push(t.elapsed().as_secs_f64() * 1e6);

        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "three.setTransform", "arguments": {"entity": entity, "position": [i, 0, 0]}}});
        sent[i] = Instant::now();
        a.send(Message::Text(call.to_string().into())).unwrap();
        read_json(&mut a);
        replied[i] = Instant::now();
    }
    let mut from_reply = Vec::new();
    let mut from_send = Vec::new();
    for (i, at) in rx {
        from_reply.push(at.saturating_duration_since(replied[i]).as_secs_f64() * 1e6);
        from_send.push(at.duration_since(sent[i]).as_secs_f64() * 1e6);
    }
    for r in readers {
        r.join().unwrap();
    }
    (from_reply, from_send, pings)
}

fn spec(position: [f64; 3], body: BodyKind) -> EntitySpec {
    EntitySpec {
        shape: Shape::Box,
        collider: None,
        size: 0.5,
        color: 0,
        position,
        body,
        friction: 0.5,
        restitution: 0.1,
    }
}

/// Per-tick µs of step + change set, with one client call between ticks.
fn ticks(busy: bool) -> Vec<f64> {
    let mut world = World::new(WorldSettings {
        max_entities: 10_000,
        tick_seconds: 1.0 / 60.0,
    });
    if busy {
        world
            .create_entity(&EntitySpec {
                size: 50.0,
                ..spec([0.0, -25.0, 0.0], BodyKind::Fixed)
            })
            .unwrap();
        for i in 0..256 {
            let (x, z) = ((i % 16) as f64 * 1.2 - 9.0, (i / 16) as f64 * 1.2 - 9.0);
            world
                .create_entity(&spec([x, 2.0 + (i % 3) as f64, z], BodyKind::Dynamic))
                .unwrap();
        }
        for i in 0..200 {
            let id = world
                .create_entity(&spec([i as f64, 0.5, 40.0], BodyKind::None))
                .unwrap();
            world.add_tag(&id, &limina::world::body_tag(&format!("npc{i}")));
            world
                .approach(
                    &format!("npc{i}"),
                    ApproachTarget::Point([i as f64, 0.5, -40.0]),
                    None,
                )
                .unwrap();
        }
        while world.entity_count() < 2_000 {
            let n = world.entity_count() as f64;
            world
                .create_entity(&spec([n % 100.0, 0.0, 100.0 + n / 100.0], BodyKind::None))
                .unwrap();
        }
    }
    world.take_changes();
    let mut out = Vec::with_capacity(TICKS);
    for i in 0..TICKS {
        if busy {
            // A client's call between ticks.
            world.begin();
            let id = world
                .create_entity(&spec([i as f64, 0.0, -100.0], BodyKind::None))
                .unwrap();
            world.commit();
            world.destroy_entity(&id);
        }
        let t = Instant::now();
        world.step();
        let changes = world.take_changes();
        std::hint::black_box(&changes);
        out.push(t.elapsed().as_secs_f64() * 1e6);
    }
    out
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!("sync latency over WebSocket ({MOVES} moves; µs; ping = round trip baseline):");
    println!(
        "{:>12} {:>28} {:>28} {:>20} {:>10}",
        "subscribers",
        "reply→delta p50/p95/p99",
        "send→delta p50/p95/p99",
        "ping p50/p95/p99",
        "p95/ping"
    );
    for n in [1, 10, 50] {
        let (reply, send, ping) = sync_latency(n);
        let (r50, r95, r99) = summary(reply);
        let (s50, s95, s99) = summary(send);
        let (p50, p95, p99) = summary(ping);
        println!(
            "{n:>12} {:>28} {:>28} {:>20} {:>9.2}x",
            format!("{r50:.0}/{r95:.0}/{r99:.0}"),
            format!("{s50:.0}/{s95:.0}/{s99:.0}"),
            format!("{p50:.0}/{p95:.0}/{p99:.0}"),
            s95 / p50
        );
    }
    let (e50, e95, _) = summary(ticks(false));
    let (t50, t95, t99) = summary(ticks(true));
    println!("world tick ({TICKS} ticks; µs; step + change set, a call between ticks):");
    println!("  empty world            p50 {e50:.1}  p95 {e95:.1}");
    println!(
        "  256 bodies, 200 agents, 2,000 entities  p50 {t50:.1}  p95 {t95:.1}  p99 {t99:.1}  ({:.1}x empty p50)",
        t50 / e50.max(0.001)
    );
}
