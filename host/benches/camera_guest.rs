//! The `guest` part of `cargo bench -p limina --bench camera`: the same renderer drawing the
//! same scene natively (as the `camera` host import does) and compiled to wasm32 run in
//! wasmtime with the sandbox's settings (fuel metering and epoch interruption on), as it would
//! if a guest drew the picture itself. Needs the wasm32 target of the toolchain that runs
//! the bench (rustup's, as `cargo xtask setup` finds it).

use super::Sample;
use crate::world::{Picture, RenderSnapshot};
use std::path::Path;
use std::process::Command;
use std::time::Instant;
use wasmtime::{Config, Engine, Instance, Module, Store};

/// Builds `camera_wasm/` for wasm32 into the target folder; the module's path.
fn build() -> std::path::PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = here.join("../target/camera-wasm");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--quiet",
            "--release",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .arg("--manifest-path")
        .arg(here.join("benches/camera_wasm/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .expect("running cargo for the wasm32 renderer");
    assert!(status.success(), "building benches/camera_wasm for wasm32");
    target.join("wasm32-unknown-unknown/release/camera_wasm.wasm")
}

pub fn run(n: usize, rounds: usize) {
    let (width, height) = (640, 480);
    let wasm = build();
    let mut config = Config::new();
    config.consume_fuel(true);
    config.epoch_interruption(true);
    let engine = Engine::new(&config).unwrap();
    let module = Module::from_file(&engine, &wasm).unwrap();
    let mut store = Store::new(&engine, ());
    store.set_epoch_deadline(u64::MAX / 2);
    store.set_fuel(u64::MAX / 2).unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let draw = instance
        .get_typed_func::<(u32, u32, u32), u32>(&mut store, "draw")
        .unwrap();
    let snapshot: RenderSnapshot = super::camera_scene::snapshot(n);
    let shot = super::camera_scene::shot(width, height);
    let (mut native, mut guest) = (vec![], vec![]);
    let (mut native_png, mut guest_png, mut fuel) = (0, 0, 0);
    for _ in 0..rounds {
        // The guest builds its snapshot itself (about 2% of its time at 2,000 entities), so
        // the native side pays for a copy of it too.
        let t0 = Instant::now();
        let copy = snapshot.clone();
        let picture = Picture::take(&copy, &shot).unwrap();
        native_png = picture.png().len();
        let t1 = Instant::now();
        let before = store.get_fuel().unwrap();
        guest_png = draw.call(&mut store, (n as u32, width, height)).unwrap() as usize;
        let t2 = Instant::now();
        fuel = before - store.get_fuel().unwrap();
        native.push((t1 - t0).as_secs_f64() * 1000.0);
        guest.push((t2 - t1).as_secs_f64() * 1000.0);
    }
    let (native, guest) = (Sample::of(native), Sample::of(guest));
    println!(
        "guest: {n} entities, {width} × {height}, {rounds} rounds each, load {}",
        super::ws_agent::load()
    );
    println!(
        "  PNG {native_png} bytes natively, {guest_png} in wasm; {fuel} fuel a picture in wasm"
    );
    println!("  {}", native.line("native (host import)"));
    println!("  {}", guest.line("wasm32 (in a guest)"));
    println!(
        "  wasm / native: {:.2}x (medians)",
        guest.quantile(0.5) / native.quantile(0.5)
    );
}
