//! `cargo bench -p limina --bench camera [-- draw] [-- ping]`: what a `camera.capture` costs
//! and whom it holds up.
//!
//! - `draw`: in process, a world of `CAMERA_ENTITIES` entities (2,000: boxes and spheres of
//!   several sizes and colours on a ground slab, a panel on every hundredth) seen whole from
//!   above at 640 × 480: the render snapshot (what the engine pays), the drawing, the PNG
//!   encoding and the three together; medians and p99 over `CAMERA_ROUNDS` (200), and the
//!   engine's share (the snapshot against the whole capture).
//!
//! - `ping`: a release host over WebSockets with the same scene; one client's pings alone,
//!   beside idle-class CPU burners (the control), while others call `camera.capture` back to
//!   back, and while they make cheap calls at the same rate; medians over rounds
//!   (`camera_ping.rs`).
//! - `guest`: where to draw. The renderer natively (the `camera` host import) against the same
//!   code built for wasm32 and run in wasmtime with the sandbox's fuel and epoch settings (a
//!   guest drawing for itself), on the same scene (`camera_scene.rs`); medians and the ratio.
//!
//! The goal (issue #44): a capture of 640 × 480 with 2,000 entities in ≤ 50 ms.

mod camera_guest;
mod camera_ping;
mod camera_scene;
#[allow(dead_code)] // the host, agents and pinger are used here, not the memory reading
#[path = "ws_agent.rs"]
mod ws_agent;

/// What `camera_scene.rs` names, as the host defines it.
mod world {
    pub use limina::world::{Drawn, Picture, RenderSnapshot, Shape, Shot};
}

use limina::realm::Rng;
use limina::world::{BodyKind, EntitySpec, Picture, Shape, Shot, World, WorldSettings};
use std::time::Instant;

pub fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Milliseconds, sorted.
pub struct Sample(Vec<f64>);

impl Sample {
    pub fn of(mut v: Vec<f64>) -> Sample {
        v.sort_by(f64::total_cmp);
        Sample(v)
    }
    pub fn quantile(&self, q: f64) -> f64 {
        self.0[((self.0.len() - 1) as f64 * q).round() as usize]
    }
    pub fn line(&self, what: &str) -> String {
        format!(
            "{what:<28} median {:>8.3} ms   p99 {:>8.3} ms",
            self.quantile(0.5),
            self.quantile(0.99)
        )
    }
}

/// `n` entities scattered over a 60 m square up to 6 m high, on a ground slab, with a label
/// over every hundredth.
pub fn scene(n: usize) -> World {
    let mut w = World::new(WorldSettings {
        max_entities: n + 1,
        tick_seconds: 1.0 / 60.0,
    });
    let mut rng = Rng::seeded(44);
    let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let colors = [0xd9_4040, 0x40_b060, 0x40_60d0, 0xe0_c030, 0xa0_a0a0];
    let spec = |shape, size, color, position| EntitySpec {
        shape,
        collider: None,
        size,
        color,
        position,
        body: BodyKind::None,
        friction: 0.5,
        restitution: 0.0,
    };
    w.create_entity(&spec(Shape::Box, 50.0, 0x70_7070, [0.0, -25.0, 0.0]))
        .unwrap();
    for i in 1..n {
        let shape = if i % 2 == 0 {
            Shape::Box
        } else {
            Shape::Sphere
        };
        let at = [unit() * 60.0 - 30.0, unit() * 6.0, unit() * 60.0 - 30.0];
        let size = 0.3 + unit() * 1.2;
        let id = w
            .create_entity(&spec(shape, size, colors[i % colors.len()], at))
            .unwrap();
        if i % 100 == 0 {
            let anchor = serde_json::json!({"anchor": {"kind": "world", "entity": id, "offset": [0.0, 1.0, 0.0]}, "text": "x"});
            w.create_panel("label", anchor, "bench").unwrap();
        }
    }
    w.take_changes();
    w
}

/// The whole scene from above and aside.
pub fn shot(width: u32, height: u32) -> Shot {
    Shot::new([45.0, 35.0, 45.0], [0.0, 0.0, 0.0], width, height)
}

fn draw() {
    let n = env("CAMERA_ENTITIES", 2_000);
    let rounds = env("CAMERA_ROUNDS", 200);
    let w = scene(n);
    let shot = shot(640, 480);
    let (mut snap, mut drawn, mut encoded, mut whole) = (vec![], vec![], vec![], vec![]);
    let mut facts = (0, 0, 0);
    for _ in 0..rounds {
        let t0 = Instant::now();
        let snapshot = w.render_snapshot();
        let t1 = Instant::now();
        let picture = Picture::take(&snapshot, &shot).unwrap();
        let t2 = Instant::now();
        let png = picture.png();
        let t3 = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1000.0;
        snap.push(ms(t0, t1));
        drawn.push(ms(t1, t2));
        encoded.push(ms(t2, t3));
        whole.push(ms(t0, t3));
        facts = (picture.entities_in_view, picture.anchors_marked, png.len());
    }
    let (snap, drawn, encoded, whole) = (
        Sample::of(snap),
        Sample::of(drawn),
        Sample::of(encoded),
        Sample::of(whole),
    );
    println!(
        "draw: {n} entities, 640 × 480, {rounds} rounds, load {}",
        ws_agent::load()
    );
    println!(
        "  {} in view, {} anchors marked, PNG {} bytes",
        facts.0, facts.1, facts.2
    );
    println!("  {}", snap.line("snapshot (on the engine)"));
    println!("  {}", drawn.line("drawing"));
    println!("  {}", encoded.line("PNG encoding"));
    println!("  {}", whole.line("capture in all"));
    println!(
        "  engine share: {:.4} of the capture (snapshot median / capture median); goal ≤ 50 ms: {}",
        snap.quantile(0.5) / whole.quantile(0.5),
        if whole.quantile(0.5) <= 50.0 {
            "met"
        } else {
            "NOT met"
        }
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let all = args.is_empty();
    if all || args.iter().any(|a| a == "draw") {
        draw();
    }
    if all || args.iter().any(|a| a == "guest") {
        camera_guest::run(
            env("CAMERA_ENTITIES", 2_000),
            env("CAMERA_GUEST_ROUNDS", 30),
        );
    }
    if all || args.iter().any(|a| a == "ping") {
        camera_ping::run();
    }
}
