//! `cargo bench -p limina --bench instances`: how a call should get its guest instance,
//! measured for a Rust core guest (`scene.createEntity`), the Python example (`rules.get`) and
//! the JavaScript one (`npc.mood`). Per call, median of samples (µs), all in the same run:
//!
//! - **kept**: one instance kept across calls (the model before, one per session and package;
//!   now a warm instance serving its session's next call);
//! - **pre-made**: an instance made beforehand for each call (a per-package pool of instances
//!   reset between calls, refilled off the call path): the call alone is timed, on an instance
//!   nobody used;
//! - **fresh**: an instance made for the call and dropped after it, from the pool as the host
//!   configures it (copy-on-write images, dirty pages found by `PAGEMAP_SCAN` and reset in
//!   place), then the same with wasmtime's pool defaults (every page given back with
//!   `madvise`), without copy-on-write images, and without the pool (each memory mapped on its
//!   own);
//! - **instantiate**: making and dropping the instance alone, in the host's configuration.
//!
//! Needs the guests from `cargo xtask build-guests`.

use limina::files::FileAccess;
use limina::limits::PackageLimits;
use limina::packages::PackageSource;
use limina::policy::Permissions;
use limina::realm::Realm;
use limina::sandbox::{
    CallInfo, CompileCache, CompiledPackage, GuestInstance, Launch, PoolSettings, Sandbox,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "common.rs"]
mod common;

const SAMPLES: usize = 11;

/// A guest measured: (language, package folder, skill, input, calls per sample).
struct Guest {
    lang: &'static str,
    dir: PathBuf,
    skill: &'static str,
    input: &'static str,
    batch: usize,
}

fn guests() -> Vec<Guest> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    vec![
        Guest {
            lang: "Rust (core)",
            dir: root.join("target/core/scene"),
            skill: "scene.createEntity",
            input: r#"{"shape":"box","size":1.0,"color":16777215,"position":[1.0,2.0,3.0],"dynamic":false,"static":false,"friction":0.5,"restitution":0.0}"#,
            batch: 400,
        },
        Guest {
            lang: "JavaScript",
            dir: root.join("packages/npc"),
            skill: "npc.mood",
            input: "{}",
            batch: 40,
        },
        Guest {
            lang: "Python",
            dir: root.join("packages/rules"),
            skill: "rules.get",
            input: r#"{"id":"core.checks"}"#,
            batch: 40,
        },
    ]
}

fn info(skill: &str, limits: &PackageLimits) -> CallInfo {
    CallInfo {
        skill: skill.into(),
        agent_id: "bench".into(),
        session_id: "bench".into(),
        profile: "builder.readWrite".into(),
        invocation_id: "evt_bench".into(),
        grants: Permissions::all(),
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

/// A guest loaded into one sandbox.
struct Loaded<'a> {
    guest: &'a Guest,
    name: String,
    limits: PackageLimits,
    compiled: CompiledPackage,
}

impl Loaded<'_> {
    fn call(&self, instance: &mut GuestInstance, realm: Box<Realm>) -> Box<Realm> {
        let (back, outcome) = instance.invoke(
            realm,
            info(self.guest.skill, &self.limits),
            self.guest.input,
        );
        assert!(
            matches!(outcome.result, Ok(Ok(_))),
            "{} failed: {:?}",
            self.guest.skill,
            outcome.result
        );
        back
    }

    /// One call on an instance made for it (the host's path: `Launch`, one per call).
    fn fresh_call(&self, realm: Box<Realm>) -> Box<Realm> {
        let mut launch = Launch::new(
            self.compiled.clone(),
            &self.name,
            FileAccess::default(),
            None,
        );
        let (back, outcome) = launch.run(
            realm,
            info(self.guest.skill, &self.limits),
            |instance, realm, info| instance.invoke(realm, info, self.guest.input),
        );
        assert!(
            matches!(outcome.result, Ok(Ok(_))),
            "{} failed: {:?}",
            self.guest.skill,
            outcome.result
        );
        back
    }

    fn fresh(&self) -> f64 {
        let mut lent = Some(common::realm(usize::MAX));
        common::median_us(SAMPLES, self.guest.batch, || {
            lent = Some(self.fresh_call(lent.take().unwrap()));
        })
    }
}

fn load<'a>(sandbox: &Sandbox, guest: &'a Guest) -> Option<Loaded<'a>> {
    let source = match PackageSource::read(&guest.dir) {
        Ok(source) => source,
        Err(e) => {
            println!(
                "{}: skipped ({e:#}); run `cargo xtask build-guests`",
                guest.lang
            );
            return None;
        }
    };
    let name = source.manifest.name.clone();
    let compiled = sandbox.compile(&source.component, &name).unwrap();
    Some(Loaded {
        guest,
        name,
        limits: source.manifest.limits,
        compiled,
    })
}

/// What one guest measured, µs per call.
#[derive(Default)]
struct Row {
    kept: f64,
    premade: f64,
    fresh: f64,
    instantiate: f64,
    defaults: f64,
    no_cow: f64,
    no_pool: f64,
    start_fuel: u64,
    parts: (usize, usize, usize),
}

/// Core instances, defined memories and defined tables the component instantiates: what one
/// instance takes from the pool.
fn parts(component: &[u8]) -> (usize, usize, usize) {
    use wasmtime::wasmparser::{Instance, Parser, Payload};
    let (mut modules, mut instances, mut memories, mut tables) = (Vec::new(), 0, 0, 0);
    let mut depth = 0usize;
    let mut current = (0usize, 0usize);
    for payload in Parser::new(0).parse_all(component) {
        match payload.unwrap() {
            Payload::ModuleSection { .. } => {
                depth += 1;
                current = (0, 0);
            }
            Payload::MemorySection(s) if depth > 0 => current.0 += s.count() as usize,
            Payload::TableSection(s) if depth > 0 => current.1 += s.count() as usize,
            Payload::End(_) if depth > 0 => {
                depth -= 1;
                modules.push(current);
            }
            Payload::InstanceSection(s) => {
                for instance in s {
                    if let Instance::Instantiate { module_index, .. } = instance.unwrap() {
                        let (m, t) = modules[module_index as usize];
                        instances += 1;
                        memories += m;
                        tables += t;
                    }
                }
            }
            _ => {}
        }
    }
    (instances, memories, tables)
}

fn measure_host(guests: &[Guest], rows: &mut [Row]) {
    let sandbox = Sandbox::new(CompileCache::new(CompileCache::default_dir())).unwrap();
    for (guest, row) in guests.iter().zip(rows.iter_mut()) {
        let Some(loaded) = load(&sandbox, guest) else {
            continue;
        };
        let source = PackageSource::read(&guest.dir).unwrap();
        row.parts = parts(&source.component);

        // Kept: one instance for every call.
        let mut instance = loaded
            .compiled
            .instantiate(&loaded.name, &loaded.limits)
            .unwrap();
        let mut lent = Some(common::realm(usize::MAX));
        row.kept = common::median_us(SAMPLES, guest.batch, || {
            lent = Some(loaded.call(&mut instance, lent.take().unwrap()));
        });
        drop(instance);

        // Pre-made: the instances are made before the clock starts and dropped after it (at
        // most what the pool holds at once).
        let call_info = info(guest.skill, &loaded.limits);
        let premade = guest.batch.min(200);
        let mut samples = Vec::new();
        for sample in 0..=SAMPLES {
            let mut made: Vec<GuestInstance> = (0..premade)
                .map(|_| {
                    loaded
                        .compiled
                        .instantiate_for(&loaded.name, FileAccess::default(), &call_info, None)
                        .unwrap()
                })
                .collect();
            let started = Instant::now();
            for instance in &mut made {
                lent = Some(loaded.call(instance, lent.take().unwrap()));
            }
            let us = started.elapsed().as_secs_f64() * 1e6 / premade as f64;
            drop(made);
            if sample > 0 {
                samples.push(us);
            }
        }
        samples.sort_by(f64::total_cmp);
        row.premade = samples[SAMPLES / 2];

        row.fresh = loaded.fresh();
        row.instantiate = common::median_us(SAMPLES, guest.batch, || {
            drop(
                loaded
                    .compiled
                    .instantiate_for(&loaded.name, FileAccess::default(), &call_info, None)
                    .unwrap(),
            );
        });
        // Fuel a fresh instance burns before its call (start functions): charged to the call.
        let mut launch = Launch::new(
            loaded.compiled.clone(),
            &loaded.name,
            FileAccess::default(),
            None,
        );
        let (_, with_start) = launch.run(
            common::realm(usize::MAX),
            call_info.clone(),
            |i, r, info| i.invoke(r, info, guest.input),
        );
        let mut kept = loaded
            .compiled
            .instantiate(&loaded.name, &loaded.limits)
            .unwrap();
        let realm = loaded.call(&mut kept, common::realm(usize::MAX));
        let (_, without) = kept.invoke(realm, call_info, guest.input);
        row.start_fuel = with_start.fuel_used.saturating_sub(without.fuel_used);
    }
}

/// Fresh instances per call under `settings`, for every guest; `pick` says where the figure goes.
fn measure_variant(
    guests: &[Guest],
    rows: &mut [Row],
    settings: PoolSettings,
    pick: fn(&mut Row) -> &mut f64,
) {
    let sandbox =
        Sandbox::with_pool(CompileCache::new(CompileCache::default_dir()), settings).unwrap();
    for (guest, row) in guests.iter().zip(rows.iter_mut()) {
        if let Some(loaded) = load(&sandbox, guest) {
            *pick(row) = loaded.fresh();
        }
    }
}

fn main() {
    // `cargo bench --bench instances -- python`: only the guests whose language says so.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(|a| a.to_lowercase())
        .collect();
    let guests: Vec<Guest> = guests()
        .into_iter()
        .filter(|g| only.is_empty() || only.iter().any(|o| g.lang.to_lowercase().contains(o)))
        .collect();
    // `-- --profile rust`: only fresh calls in the host's pool, for five seconds (to look at
    // under `perf record`).
    if std::env::args().any(|a| a == "--profile") {
        let sandbox = Sandbox::new(CompileCache::new(CompileCache::default_dir())).unwrap();
        for guest in &guests {
            let Some(loaded) = load(&sandbox, guest) else {
                continue;
            };
            let mut realm = common::realm(usize::MAX);
            let (started, mut calls) = (Instant::now(), 0u64);
            while started.elapsed().as_secs() < 5 {
                realm = loaded.fresh_call(realm);
                calls += 1;
            }
            let mut launch = Launch::new(
                loaded.compiled.clone(),
                &loaded.name,
                FileAccess::default(),
                None,
            );
            let (_, outcome) = launch.run(
                realm,
                info(guest.skill, &loaded.limits),
                |instance, realm, info| instance.invoke(realm, info, guest.input),
            );
            println!(
                "{}: {calls} fresh calls in 5 s; a call's peak memory {} bytes",
                guest.lang, outcome.peak_memory_bytes
            );
        }
        return;
    }
    let mut rows: Vec<Row> = guests.iter().map(|_| Row::default()).collect();
    measure_host(&guests, &mut rows);
    let host = PoolSettings::default();
    measure_variant(
        &guests,
        &mut rows,
        PoolSettings {
            keep_resident_bytes: 0,
            pagemap_scan: false,
            ..host
        },
        |r| &mut r.defaults,
    );
    measure_variant(
        &guests,
        &mut rows,
        PoolSettings {
            copy_on_write: false,
            ..host
        },
        |r| &mut r.no_cow,
    );
    measure_variant(
        &guests,
        &mut rows,
        PoolSettings {
            pooled: false,
            ..host
        },
        |r| &mut r.no_pool,
    );

    println!(
        "µs per call, median of {SAMPLES} samples; ratios against the kept instance of the same guest"
    );
    let ratio = |v: f64, base: f64| format!("{v:>9.2} {:>6.2}x", v / base);
    for (guest, r) in guests.iter().zip(&rows) {
        if r.kept == 0.0 {
            continue;
        }
        let (instances, memories, tables) = r.parts;
        println!(
            "{} `{}` ({instances} core instances, {memories} memories, {tables} tables; start-up burns {} fuel)",
            guest.lang, guest.skill, r.start_fuel
        );
        println!(
            "  kept (warm) instance            {}",
            ratio(r.kept, r.kept)
        );
        println!(
            "  pre-made instance (call only)   {}",
            ratio(r.premade, r.kept)
        );
        println!(
            "  fresh, host's pool              {}",
            ratio(r.fresh, r.kept)
        );
        println!(
            "  fresh, wasmtime pool defaults   {}",
            ratio(r.defaults, r.kept)
        );
        println!(
            "  fresh, no copy-on-write         {}",
            ratio(r.no_cow, r.kept)
        );
        println!(
            "  fresh, no pool                  {}",
            ratio(r.no_pool, r.kept)
        );
        println!(
            "  instantiate + drop, host's pool {}",
            ratio(r.instantiate, r.kept)
        );
    }
}
