//! Data-driven hostile guests written as WebAssembly text. Each folder under
//! `tests/sandbox_escape/cases/` holds `guest.wat` (made into a component by `wat_guest`),
//! an optional `world.wit`, and `case.toml`: what the guest does, what the case proves, the
//! package limits, and the expected outcome — refused `at = "load"` with a reason that `says`
//! the listed words, failing `at = "call"` with `code` and a message that `says` them, or
//! succeeding `at = "call-ok"` with what it logged reaching the client bounded.
//!
//! Every case also checks that the host keeps serving, that the world is unchanged, that the
//! session's budget spent nothing (load) or only what the call used (call), and that the trace
//! says what happened.

use crate::support::{Client, error_of, repo};
use crate::wat_guest;
use serde_json::{Value, json};
use std::path::PathBuf;

fn cases_dir() -> PathBuf {
    repo().join("tests/sandbox_escape/cases")
}

fn strings(v: Option<&toml::Value>) -> Vec<String> {
    v.and_then(toml::Value::as_array)
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

/// Everything a reader can see of the world.
fn world(c: &mut Client) -> Value {
    let s = c.call_ok("inspector.snapshot", json!({"limit": 500}));
    json!({"world": s["world"], "entities": s["entities"], "agents": s["agents"]})
}

fn tail(c: &mut Client, kind: &str) -> Vec<Value> {
    c.call_ok("trace.tail", json!({"type": kind, "limit": 1000}))["events"]
        .as_array()
        .unwrap()
        .clone()
}

/// CPU milliseconds the test's session has been charged.
fn cpu_spent(c: &mut Client) -> f64 {
    let usage = c.call_ok("audit.usage", json!({"sessionId": "victim"}));
    usage["budgets"][0]["budget"]["cpuMs"]["used"]
        .as_f64()
        .unwrap_or_else(|| panic!("no CPU budget in {usage}"))
}

/// Runs the case in `cases/<name>`.
fn run(name: &str) {
    let dir = cases_dir().join(name);
    let case: toml::Table = std::fs::read_to_string(dir.join("case.toml"))
        .unwrap()
        .parse()
        .unwrap_or_else(|e| panic!("{name}/case.toml: {e}"));
    for key in ["does", "proves"] {
        assert!(
            case.get(key).and_then(toml::Value::as_str).is_some(),
            "{name}: `{key}`"
        );
    }
    let pad = match case.get("pad").and_then(toml::Value::as_str) {
        None => 0,
        Some("over-size-cap") => limina::limits::MAX_COMPONENT_BYTES + 1,
        Some(other) => panic!("{name}: unknown pad `{other}`"),
    };
    let component = wat_guest::component(&dir, pad);

    let packages = tempfile::tempdir().unwrap();
    let pkg = packages.path().join(wat_guest::PACKAGE);
    std::fs::create_dir_all(&pkg).unwrap();
    let mut manifest = toml::Table::new();
    manifest.insert("name".into(), wat_guest::PACKAGE.into());
    manifest.insert("version".into(), "0.1.0".into());
    manifest.insert("component".into(), "hostile.wasm".into());
    manifest.insert("capabilities".into(), toml::Value::Array(vec![]));
    if let Some(limits) = case.get("limits") {
        manifest.insert("limits".into(), limits.clone());
    }
    std::fs::write(pkg.join("limina.toml"), manifest.to_string()).unwrap();
    std::fs::write(pkg.join("hostile.wasm"), component).unwrap();
    let config = packages.path().join("host.toml");
    std::fs::write(&config, "[budgets]\ncalls = 1000\ncpuMs = 60000\n").unwrap();

    let mut c = Client::spawn(&[
        "--packages",
        packages.path().to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    let reply = c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "profile": "builder.readWrite", "agentId": "victim", "sessionId": "victim"}),
    );
    assert!(reply.get("result").is_some(), "{name}: initialize: {reply}");
    c.call_ok(
        "scene.createEntity",
        json!({"position": [1, 2, 3], "dynamic": true}),
    );
    c.call_ok("world.step", json!({"ticks": 2}));
    let before = world(&mut c);
    let spent_before = cpu_spent(&mut c);

    let expect = case["expect"].as_table().expect("an [expect] table");
    let says = strings(expect.get("says"));
    match expect["at"].as_str().unwrap() {
        "load" => {
            let rejected = tail(&mut c, "package.load.rejected");
            let ours = rejected
                .iter()
                .find(|e| e["payload"]["package"] == wat_guest::PACKAGE)
                .unwrap_or_else(|| panic!("{name}: not refused at load; rejected: {rejected:?}"));
            let reason = ours["payload"]["reason"].as_str().unwrap();
            for word in &says {
                assert!(
                    reason.contains(word.as_str()),
                    "{name}: `{word}` not in: {reason}"
                );
            }
            assert!(
                tail(&mut c, "package.loaded")
                    .iter()
                    .all(|e| e["payload"]["package"] != wat_guest::PACKAGE),
                "{name}: loaded anyway"
            );
            let listed = c.request("tools/list", json!({}));
            assert!(
                listed["result"]["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|t| t["name"] != "hostile.run"),
                "{name}: the refused skill is offered"
            );
            assert_eq!(
                cpu_spent(&mut c),
                spent_before,
                "{name}: nothing was charged to the session"
            );
        }
        "call" => {
            let want = expect["code"].as_str().unwrap();
            // Twice: the second call runs on a fresh instance and fails the same way.
            for attempt in 1..=2 {
                let (code, message) = error_of(&c.call("hostile.run", json!({})));
                assert_eq!(code, want, "{name} (call {attempt}): {message}");
                for word in &says {
                    assert!(
                        message.contains(word.as_str()),
                        "{name} (call {attempt}): `{word}` not in: {message}"
                    );
                }
            }
            let decided = tail(&mut c, "policy.decision");
            assert_eq!(
                decided
                    .iter()
                    .filter(|e| e["payload"]["cap"] == "hostile.run")
                    .count(),
                2,
                "{name}: both calls were decided and traced"
            );
            assert!(
                tail(&mut c, "skill.executed")
                    .iter()
                    .all(|e| e["payload"]["skill"] != "hostile.run"),
                "{name}: a failed call was recorded as executed"
            );
            let spent = cpu_spent(&mut c);
            assert!(
                spent >= spent_before && spent < 60_000.0,
                "{name}: the calls were charged what they used, within the budget: {spent_before} → {spent}"
            );
        }
        "call-ok" => {
            // Succeeds, and what it logged reaches the client bounded.
            c.call_ok("hostile.run", json!({}));
            c.call_ok("scene.queryEntities", json!({}));
            let lines: Vec<String> = c
                .notifications
                .iter()
                .filter(|n| {
                    n["method"] == "notifications/message" && n["params"]["logger"] == "hostile"
                })
                .map(|n| n["params"]["data"].as_str().unwrap().to_string())
                .collect();
            let cap = limina::limits::MAX_GUEST_LOG_LINES_PER_CALL;
            assert!(
                !lines.is_empty() && lines.len() <= cap,
                "{name}: {} log lines reached the client (at most {cap})",
                lines.len()
            );
            assert!(
                lines
                    .iter()
                    .all(|l| l.chars().count() <= limina::limits::MAX_GUEST_LOG_LINE_CHARS)
            );
            for word in &says {
                assert!(
                    lines.iter().any(|l| l.contains(word.as_str())),
                    "{name}: `{word}` in no log line"
                );
            }
        }
        other => panic!("{name}: unknown stage `{other}`"),
    }
    assert_eq!(world(&mut c), before, "{name}: the world changed");
    let next = c.call_ok("scene.createEntity", json!({}))["entity"].clone();
    assert_eq!(
        next, "ent_2",
        "{name}: the host keeps serving the same world"
    );
}

macro_rules! cases {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                run(stringify!($name));
            }
        )*

        /// Every case folder has a test, and every test a folder.
        #[test]
        fn every_case_folder_is_run() {
            let mut listed = vec![$(stringify!($name)),*];
            listed.sort();
            let mut folders: Vec<String> = std::fs::read_dir(cases_dir())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| cases_dir().join(n).is_dir())
                .collect();
            folders.sort();
            assert_eq!(folders, listed);
        }
    };
}

cases!(
    component_over_the_size_cap,
    data_segment_bomb,
    data_segment_past_the_end_of_memory,
    deeply_nested_json_output,
    describe_pointer_out_of_bounds,
    describe_strings_not_utf8,
    host_import_arguments_out_of_bounds,
    imports_wasi_http,
    imports_wasi_sockets_beyond_the_provided,
    initial_memory_beyond_the_limit,
    initial_table_beyond_the_limit,
    invalid_error_discriminant,
    memory64,
    multi_megabyte_describe,
    output_length_past_the_end_of_memory,
    post_return_traps,
    realloc_out_of_bounds,
    result_pointer_out_of_bounds,
    shadowing_a_core_skill,
    shared_memory,
    start_function_loops,
    stderr_flood,
    table_growth_past_the_limit,
    thousands_of_skills,
    unaligned_result_pointer,
);
