//! `cargo bench -p limina --bench languages` (or `cargo xtask bench`): what a package costs in
//! each guest language — instantiating its precompiled component and one call on a kept
//! instance — for the example packages (Rust dice, C terrain, Zig names, JavaScript npc,
//! Python rules). Medians, with ratios against the Rust package measured in the same run.
//! Needs the example components from `cargo xtask build-guests`.

use limina::packages::PackageSource;
use limina::policy::Permissions;
use limina::sandbox::{CallInfo, CompileCache, Sandbox};
use std::path::Path;

const SAMPLES: usize = 9;

/// (language, package folder, skill, input).
const PACKAGES: &[(&str, &str, &str, &str)] = &[
    ("Rust", "dice", "dice.roll", r#"{"expression":"2d6+3"}"#),
    (
        "C",
        "terrain",
        "terrain.height",
        r#"{"x":1.5,"z":-2.0,"seed":7}"#,
    ),
    (
        "Zig",
        "names",
        "names.place",
        r#"{"seed":7,"kind":"river"}"#,
    ),
    ("JavaScript", "npc", "npc.mood", r#"{}"#),
    ("Python", "rules", "rules.get", r#"{"id":"core.checks"}"#),
];

#[path = "common.rs"]
mod common;

struct Row {
    lang: &'static str,
    package: &'static str,
    size_kib: usize,
    instantiate_us: f64,
    call_us: f64,
}

fn main() {
    let packages = Path::new(env!("CARGO_MANIFEST_DIR")).join("../packages");
    let sandbox = Sandbox::new(CompileCache::new(CompileCache::default_dir())).unwrap();
    let mut rows = Vec::new();
    for &(lang, name, skill, input) in PACKAGES {
        let source = match PackageSource::read(&packages.join(name)) {
            Ok(source) => source,
            Err(err) => {
                println!("{lang:<11} {name}: skipped ({err:#}); run `cargo xtask build-guests`");
                continue;
            }
        };
        let limits = source.manifest.limits;
        let compiled = sandbox.compile(&source.component, name).unwrap();
        let instantiate_us = common::median_us(SAMPLES, 20, || {
            compiled.instantiate(name, &limits).unwrap();
        });
        let mut instance = compiled.instantiate(name, &limits).unwrap();
        let mut lent = Some(common::realm(1000));
        let call_us = common::median_us(SAMPLES, 200, || {
            let info = CallInfo {
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
            };
            let (back, outcome) = instance.invoke(lent.take().unwrap(), info, input);
            assert!(
                matches!(outcome.result, Ok(Ok(_))),
                "{skill} failed: {:?}",
                outcome.result
            );
            lent = Some(back);
        });
        rows.push(Row {
            lang,
            package: name,
            size_kib: source.component.len().div_ceil(1024),
            instantiate_us,
            call_us,
        });
    }
    let Some(base) = rows
        .iter()
        .find(|r| r.lang == "Rust")
        .map(|r| (r.instantiate_us, r.call_us))
    else {
        println!("no Rust baseline: build the guests first (cargo xtask build-guests)");
        return;
    };
    println!(
        "per-language cost, median of {SAMPLES} samples (instantiate: batches of 20; call: batches of 200 on a kept instance)"
    );
    println!(
        "  {:<11} {:<8} {:>9}  {:>15} {:>9}  {:>12} {:>9}",
        "language", "package", "component", "instantiate µs", "vs Rust", "call µs", "vs Rust"
    );
    for r in &rows {
        println!(
            "  {:<11} {:<8} {:>6} KiB  {:>15.1} {:>8.1}x  {:>12.2} {:>8.1}x",
            r.lang,
            r.package,
            r.size_kib,
            r.instantiate_us,
            r.instantiate_us / base.0,
            r.call_us,
            r.call_us / base.1
        );
    }
}
