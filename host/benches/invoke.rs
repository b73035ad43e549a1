//! `cargo bench -p limina` (or `cargo xtask bench`): what a `scene.createEntity` costs as a
//! WASM component against the same world operation done natively, and a fresh instance per
//! call (what the host does) against one instance kept across calls. Prints medians and ratios
//! measured in the same run; needs the core components from `cargo xtask build-guests`. The
//! `instances` bench compares the ways of getting an instance in more detail.

use limina::grants::credentials;
use limina::limits::{FUEL_PER_MS, PackageLimits};
use limina::packages::PackageSource;
use limina::policy::TierThresholds;
use limina::policy::{Permissions, PolicyConfig, Profiles};
use limina::realm::Realm;
use limina::registry::{Caller, LatencyWindow, Registry};
use limina::sandbox::{CallInfo, CompileCache, CompiledPackage, Sandbox};
use limina::world::{BodyKind, EntitySpec, Shape};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

const SAMPLES: usize = 15;
const BATCH: usize = 500;

#[path = "common.rs"]
mod common;

fn realm() -> Box<Realm> {
    common::realm(usize::MAX)
}

/// Median over samples of the mean time per operation in a batch, in microseconds.
fn measure(op: impl FnMut()) -> f64 {
    common::median_us(SAMPLES, BATCH, op)
}

fn info(grants: Permissions, limits: &PackageLimits) -> CallInfo {
    CallInfo {
        skill: "scene.createEntity".into(),
        agent_id: "bench".into(),
        session_id: "bench".into(),
        profile: "builder.readWrite".into(),
        invocation_id: "evt_bench".into(),
        grants,
        fuel: limits.fuel_per_call,
        memory_limit_bytes: limits.memory_bytes,
        timeout_ms: limits.timeout_ms,
        clock: limina::call::Clock::Wall,
        tick: 0,
        cancel: Default::default(),
        progress: None,
        state_quota: None,
        reach: None,
        view: None,
    }
}

/// Fuel burned per millisecond by a busy guest loop (`spin.burn`), the figure behind
/// `limits::FUEL_PER_MS`.
fn fuel_per_ms(sandbox: &Sandbox) -> Option<f64> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/components/spin.wasm");
    let bytes = std::fs::read(path).ok()?;
    let compiled = sandbox.compile(&bytes, "spin").unwrap();
    let limits = PackageLimits {
        fuel_per_call: 1_000_000_000,
        ..PackageLimits::default()
    };
    let mut instance = compiled.instantiate("spin", &limits).unwrap();
    let mut lent = Some(realm());
    let input = r#"{"iterations":2000000}"#;
    let mut run = || {
        let mut call = info(Permissions::NONE, &limits);
        call.skill = "spin.burn".into();
        let start = Instant::now();
        let (back, outcome) = instance.invoke(lent.take().unwrap(), call, input);
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        assert!(matches!(outcome.result, Ok(Ok(_))));
        lent = Some(back);
        outcome.fuel_used as f64 / ms
    };
    run();
    let mut rates: Vec<f64> = (0..SAMPLES).map(|_| run()).collect();
    rates.sort_by(f64::total_cmp);
    Some(rates[SAMPLES / 2])
}

/// A result of about 1 KB as a package returns one: a short text and a few entities.
fn one_kb_result() -> serde_json::Value {
    let entities: Vec<serde_json::Value> = (0..7)
        .map(|i| {
            json!({
                "id": format!("ent_{}", 40 + i),
                "name": format!("crate number {i} by the north wall"),
                "position": [i as f64 * 1.5, 0.5, -2.25],
                "color": 16711680 + i,
                "tags": ["wood", "movable"],
            })
        })
        .collect();
    let result = json!({
        "content": [{"type": "text", "text": "Found seven crates near the north wall; the nearest is 1.5 m away."}],
        "entities": entities,
        "truncated": false,
    });
    assert!(
        (950..1100).contains(&result.to_string().len()),
        "{}",
        result.to_string().len()
    );
    result
}

fn main() {
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/core/scene");
    let source =
        PackageSource::read(&core).expect("build the guests first: cargo xtask build-guests");
    let limits = source.manifest.limits;
    let grants = Permissions::all();
    let input = json!({"shape":"box","size":1.0,"color":16777215,"position":[1.0,2.0,3.0],"dynamic":false,"static":false,"friction":0.5,"restitution":0.0}).to_string();

    // Native: the world operation alone.
    let mut world = realm();
    let spec = EntitySpec {
        shape: Shape::Box,
        collider: None,
        size: 1.0,
        color: 0xffffff,
        position: [1.0, 2.0, 3.0],
        body: BodyKind::None,
        friction: 0.5,
        restitution: 0.0,
    };
    let native = measure(|| {
        world.world.begin();
        world.world.create_entity(&spec).unwrap();
        world.world.commit();
    });

    let sandbox = Sandbox::new(CompileCache::new(CompileCache::default_dir())).unwrap();
    let compiled: CompiledPackage = sandbox.compile(&source.component, "scene").unwrap();

    // WASM, instance kept across calls.
    let mut instance = compiled.instantiate("scene", &limits).unwrap();
    let mut lent = Some(realm());
    let kept = measure(|| {
        let (back, outcome) = instance.invoke(lent.take().unwrap(), info(grants, &limits), &input);
        assert!(matches!(outcome.result, Ok(Ok(_))));
        lent = Some(back);
    });

    // WASM, a fresh instance for every call.
    let mut lent = Some(realm());
    let fresh = measure(|| {
        let mut instance = compiled.instantiate("scene", &limits).unwrap();
        let (back, outcome) = instance.invoke(lent.take().unwrap(), info(grants, &limits), &input);
        assert!(matches!(outcome.result, Ok(Ok(_))));
        lent = Some(back);
    });

    // The whole pipeline: resolve, validate with defaults, policy, trace, WASM handler (in an
    // instance made for the call).
    let mut registry = Registry::new(
        Sandbox::new(CompileCache::new(CompileCache::default_dir())).unwrap(),
        PolicyConfig::default(),
        *realm(),
    );
    registry.load(PackageSource::read(&core).unwrap()).unwrap();
    let caller = Caller {
        agent_id: "bench".into(),
        session_id: "bench".into(),
        profile: "builder.readWrite".into(),
        permissions: Profiles::default()
            .get("builder.readWrite")
            .unwrap()
            .permissions,
    };
    let pipeline = measure(|| {
        let r = registry.invoke(
            &caller,
            "scene.createEntity",
            json!({"position": [1, 2, 3]}),
        );
        assert!(r.success);
    });

    // What the always-on latency statistics add to each call: one record into the skill's
    // window and the tier check that follows it.
    let mut window = LatencyWindow::default();
    let thresholds = TierThresholds::default();
    let mut i = 0u32;
    let statistics = measure(|| {
        i = i.wrapping_add(1);
        window.record(
            0.02 + (i % 7) as f64 * 0.001,
            0.01,
            i.is_multiple_of(13),
            &thresholds,
        );
        std::hint::black_box(window.tier(None, &thresholds));
    });

    // What scanning a result for credentials adds to a call (`[outbound] scanResults`,
    // on by default): a 1 KB result of a package, as its raw text (the one pass most results
    // end at) and walked string by string (an upstream's result, or one holding a start).
    let result = one_kb_result();
    let raw = result.to_string();
    let scan_raw = measure(|| {
        std::hint::black_box(credentials::may_hold(std::hint::black_box(&raw)));
    });
    let mut walked = result.clone();
    let scan_walk = measure(|| {
        std::hint::black_box(credentials::find_in_value(std::hint::black_box(
            &mut walked,
        )));
    });
    // And redacting one granted secret (with its encodings) from the same text.
    let secret_values = limina::grants::secrets::encodings(b"t0ken-0f-the-fetcher")
        .into_iter()
        .chain(["t0ken-0f-the-fetcher".to_string()])
        .collect::<Vec<_>>();
    let redact = measure(|| {
        std::hint::black_box(limina::grants::secrets::redact(
            std::hint::black_box(&raw),
            &secret_values,
        ));
    });

    let fuel_per_ms = fuel_per_ms(&sandbox);

    println!("scene.createEntity, median of {SAMPLES} samples x {BATCH} calls (µs per call)");
    println!("  native world op               {native:>9.2}   1.00x");
    println!(
        "  wasm, kept instance           {kept:>9.2}   {:.2}x native",
        kept / native
    );
    println!(
        "  wasm, fresh instance per call {fresh:>9.2}   {:.2}x native, {:.2}x kept",
        fresh / native,
        fresh / kept
    );
    println!(
        "  full pipeline                 {pipeline:>9.2}   {:.2}x native, {:.2}x wasm fresh",
        pipeline / native,
        pipeline / fresh
    );
    println!(
        "  latency statistics per call   {statistics:>9.3}   {:.2}% of the full pipeline",
        statistics / pipeline * 100.0
    );
    println!(
        "credential scan of a {} byte result: raw text {scan_raw:.3} µs ({:.2}% of the full pipeline), walked {scan_walk:.3} µs ({:.2}%)",
        raw.len(),
        scan_raw / pipeline * 100.0,
        scan_walk / pipeline * 100.0
    );
    println!(
        "redacting one secret and its {} encodings from it: {redact:.3} µs ({:.2}% of the full pipeline)",
        secret_values.len() - 1,
        redact / pipeline * 100.0
    );
    match fuel_per_ms {
        Some(f) => println!(
            "fuel per ms of guest CPU (busy loop, median of {SAMPLES}): {f:.0} (limits::FUEL_PER_MS = {FUEL_PER_MS})"
        ),
        None => println!("fuel per ms: skipped (tests/guests not built)"),
    }
}
