//! Measured latency per skill, latency tiers and calibration (issue 12): `_meta.latency` in
//! tools/list, tiers cut listings to a session's budget, and calibration measures skills on a
//! scratch world before their first real call.

use crate::discovery::{all_tools, config_file, dice_packages, names, set};
use crate::support::{Client, error_of, guest_packages};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::Duration;

fn latency_of(c: &mut Client, name: &str) -> Value {
    let tools = all_tools(c);
    let tool = tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not listed"));
    tool["_meta"]["latency"].clone()
}

#[test]
fn tools_list_and_skills_describe_report_each_skills_measured_latency() {
    let mut c = Client::session("builder.readWrite", &[]);
    let untouched = latency_of(&mut c, "scene.destroyEntity");
    assert_eq!(
        untouched,
        json!({"p50Ms": null, "p99Ms": null, "cpuP50Ms": null, "samples": 0, "errorRate": 0.0, "tier": "fast", "source": "none"})
    );
    for _ in 0..12 {
        c.call_ok("scene.queryEntities", json!({}));
    }
    let measured = latency_of(&mut c, "scene.queryEntities");
    assert_eq!(measured["samples"], 12, "{measured}");
    assert_eq!(measured["source"], "measured", "{measured}");
    assert_eq!(measured["errorRate"], 0.0, "{measured}");
    assert_eq!(measured["tier"], "fast", "{measured}");
    let (p50, p99) = (
        measured["p50Ms"].as_f64().unwrap(),
        measured["p99Ms"].as_f64().unwrap(),
    );
    assert!(p50 > 0.0 && p99 >= p50 && p99 < 1000.0, "{measured}");
    assert!(
        measured["cpuP50Ms"].as_f64().is_some_and(|c| c > 0.0),
        "a guest burns fuel: {measured}"
    );
    let described = c.call_ok("skills.describe", json!({"name": "scene.queryEntities"}));
    assert_eq!(described["latency"]["samples"], 12, "{described}");
    assert_eq!(described["latency"]["tier"], "fast");
    // A refused call never reached the skill, so it is not a sample.
    let (code, _) = error_of(&c.call("scene.queryEntities", json!({"radius": -1})));
    assert_eq!(code, "invalid_input");
    assert_eq!(latency_of(&mut c, "scene.queryEntities")["samples"], 12);
    // Host built-ins are measured too, with no guest CPU.
    let step = latency_of(&mut c, "skills.describe");
    assert_eq!(step["samples"], 1, "{step}");
    assert_eq!(step["cpuP50Ms"], 0.0, "{step}");
}

#[test]
fn a_skill_failing_over_thirty_percent_of_its_calls_is_shown_one_tier_slower() {
    let packages = guest_packages(&["crasher"]);
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", packages.path().to_str().unwrap()],
    );
    for _ in 0..10 {
        let (code, _) = error_of(&c.call("crasher.buildThenPanic", json!({})));
        assert_eq!(code, "handler_error");
    }
    let latency = latency_of(&mut c, "crasher.buildThenPanic");
    assert_eq!(latency["errorRate"], 1.0, "{latency}");
    assert_eq!(latency["samples"], 10, "{latency}");
    assert_eq!(
        latency["tier"], "standard",
        "fast by time, one slower for failing: {latency}"
    );
}

#[test]
fn a_declared_latency_stands_in_until_enough_calls_are_measured() {
    let dice = dice_packages("[latency]\np50_ms = 800\nmax_ms = 2000\n");
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", dice.path().to_str().unwrap()],
    );
    let declared = latency_of(&mut c, "dice.roll");
    assert_eq!(declared["source"], "declared", "{declared}");
    assert_eq!(
        (declared["p50Ms"].clone(), declared["p99Ms"].clone()),
        (json!(800.0), json!(2000.0))
    );
    assert_eq!(declared["tier"], "standard", "{declared}");
    let found = c.call_ok("skills.search", json!({"query": "roll dice"}));
    assert_eq!(found["results"][0]["tier"], "standard", "{found}");
    for _ in 0..10 {
        c.call_ok("dice.roll", json!({"expression": "2d6"}));
    }
    let measured = latency_of(&mut c, "dice.roll");
    assert_eq!(measured["source"], "measured", "{measured}");
    assert_eq!(measured["tier"], "fast", "{measured}");
}

/// An NPC capped at `fast` with a 3-tool allow-list, beside packages where `dice` declares
/// itself slow (p50 800 ms: `standard`).
const NPC: &str = r#"
[profiles.npc]
permissions = ["scene.read"]
tools = ["dice.roll", "scene.queryEntities", "skills.list"]
maxLatencyTier = "fast"
"#;

const SLOW_DICE: &str = "[latency]\np50_ms = 800\nmax_ms = 2000\n";

fn initialize(c: &mut Client, params: Value) -> Value {
    let mut p = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}});
    p.as_object_mut()
        .unwrap()
        .extend(params.as_object().unwrap().clone());
    c.request("initialize", p)
}

fn listed(c: &mut Client) -> BTreeSet<String> {
    all_tools(c)
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_npc_capped_at_fast_sees_exactly_its_allow_listed_tools_that_fit() {
    let dice = dice_packages(SLOW_DICE);
    let cfg = config_file(NPC);
    let mut c = Client::spawn(&[
        "--config",
        cfg.path().to_str().unwrap(),
        "--packages",
        dice.path().to_str().unwrap(),
    ]);
    let refused = initialize(&mut c, json!({"profile": "npc", "latencyTier": "deep"}));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "`latencyTier`: profile `npc` allows at most the `fast` latency tier, not `deep`"
    );
    let bad = initialize(&mut c, json!({"profile": "npc", "latencyTier": "instant"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown latency tier `instant`")
    );
    // Nothing was bound by the refusals.
    let early = c.request(
        "tools/call",
        json!({"name": "skills.list", "arguments": {}}),
    );
    assert_eq!(early["error"]["code"], -32001, "{early}");

    let ok = initialize(&mut c, json!({"profile": "npc", "agentId": "npc"}));
    assert_eq!(ok["result"]["session"]["latencyTier"], "fast", "{ok}");
    assert_eq!(listed(&mut c), set(&["scene.queryEntities", "skills.list"]));
    let skills = c.call_ok("skills.list", json!({}));
    assert_eq!(
        names(&skills["tools"]),
        set(&["scene.queryEntities", "skills.list"])
    );
    // Hidden by its tier only: by default a call by name still runs.
    let rolled = c.call_ok("dice.roll", json!({"expression": "1d6"}));
    assert!(rolled["total"].as_i64().is_some(), "{rolled}");
}

#[test]
fn tier_enforcement_refuse_refuses_a_call_beyond_the_session_tier_and_changes_nothing() {
    let dice = dice_packages(SLOW_DICE);
    let cfg = config_file(&format!("[latency]\ntierEnforcement = \"refuse\"\n{NPC}"));
    let args = [
        "--config",
        cfg.path().to_str().unwrap(),
        "--packages",
        dice.path().to_str().unwrap(),
    ];
    let mut c = Client::session("npc", &args);
    let (code, message) = error_of(&c.call("dice.roll", json!({"expression": "1d6"})));
    assert_eq!(code, "forbidden");
    assert_eq!(
        message,
        "`dice.roll` is in the `standard` latency tier, slower than this session's `fast`; choose a faster skill (skills.search shows tiers) or change the tier with skills.setLatencyTier"
    );
    c.rebind("builder.readWrite", "builder");
    let described = c.call_ok("skills.describe", json!({"name": "dice.roll"}));
    assert_eq!(
        described["latency"]["samples"], 0,
        "the refused call never ran: {described}"
    );
    let usage = c.call_ok(
        "audit.query",
        json!({"decision": "deny", "rule": "latency.tier"}),
    );
    assert_eq!(usage["summary"]["denied"], 1, "{usage}");
}

#[test]
fn a_session_changes_its_tier_with_skills_set_latency_tier_and_hears_list_changed() {
    let dice = dice_packages(SLOW_DICE);
    let cfg = config_file(
        "[profiles.listener]\npermissions = []\ntools = [\"skills.*\"]\nmaxLatencyTier = \"fast\"\n",
    );
    let args = [
        "--config",
        cfg.path().to_str().unwrap(),
        "--packages",
        dice.path().to_str().unwrap(),
    ];
    let mut c = Client::session("builder.readWrite", &args);
    assert!(listed(&mut c).contains("dice.roll"), "deep by default");
    c.notifications.clear();
    let set_fast = c.call_ok("skills.setLatencyTier", json!({"tier": "fast"}));
    assert_eq!(set_fast, json!({"tier": "fast", "maxTier": "deep"}));
    assert!(
        c.wait_notification("notifications/tools/list_changed", Duration::from_secs(5))
            .is_some(),
        "the listing changed"
    );
    let fast = listed(&mut c);
    assert!(
        !fast.contains("dice.roll") && !fast.contains("dice.rollTable"),
        "{fast:?}"
    );
    assert!(fast.contains("scene.createEntity"), "{fast:?}");
    let found = c.call_ok("skills.search", json!({"query": "roll dice"}));
    assert!(!names(&found["results"]).contains("dice.roll"), "{found}");
    c.call_ok("skills.setLatencyTier", json!({"tier": "standard"}));
    assert!(listed(&mut c).contains("dice.roll"));
    let (code, message) = error_of(&c.call("skills.setLatencyTier", json!({"tier": "instant"})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("`tier`"), "{message}");

    // Within a ceiling only.
    c.rebind("listener", "listener");
    let (code, message) = error_of(&c.call("skills.setLatencyTier", json!({"tier": "standard"})));
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "forbidden",
            "profile `listener` allows at most the `fast` latency tier, not `standard`"
        )
    );
    let unchanged = c.call_ok("skills.setLatencyTier", json!({"tier": "fast"}));
    assert_eq!(unchanged, json!({"tier": "fast", "maxTier": "fast"}));
}

#[test]
fn a_skill_changing_tier_announces_list_changed_and_enters_a_fast_listing() {
    let dice = dice_packages(SLOW_DICE);
    let args = ["--packages", dice.path().to_str().unwrap()];
    let mut c = Client::session("builder.readWrite", &args);
    // At `fast`, the dice declared slow are not shown.
    c.call_ok("skills.setLatencyTier", json!({"tier": "fast"}));
    assert!(!listed(&mut c).contains("dice.roll"));
    c.call_ok("skills.setLatencyTier", json!({"tier": "deep"}));
    for _ in 0..9 {
        c.call_ok("dice.roll", json!({"expression": "1d6"}));
    }
    c.notifications.clear();
    // The tenth measured call replaces the declared 800 ms with a fast p50.
    c.call_ok("dice.roll", json!({"expression": "1d6"}));
    assert!(
        c.wait_notification("notifications/tools/list_changed", Duration::from_secs(5))
            .is_some(),
        "a tier change is announced"
    );
    c.call_ok("skills.setLatencyTier", json!({"tier": "fast"}));
    assert!(listed(&mut c).contains("dice.roll"), "now fast");
}

#[test]
fn calibration_measures_package_skills_on_a_scratch_world_and_never_the_live_one() {
    let dice = dice_packages("");
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", dice.path().to_str().unwrap()],
    );
    c.call_ok(
        "scene.createEntity",
        json!({"position": [1, 2, 3], "dynamic": true}),
    );
    c.call_ok("world.step", json!({"ticks": 3}));
    let before = c.call_ok("inspector.snapshot", json!({}));
    let executed_before = c.call_ok(
        "trace.tail",
        json!({"type": "skill.executed", "limit": 1000}),
    );

    let calibrated = c.call_ok("skills.calibrate", json!({}));
    let rows = calibrated["calibrated"].as_array().unwrap();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} was not calibrated: {calibrated}"))
    };
    for name in [
        "dice.roll",
        "dice.rollTable",
        "scene.createEntity",
        "physics.applyImpulse",
    ] {
        assert_eq!(row(name)["runs"], 10, "{calibrated}");
        assert!(row(name)["p50Ms"].as_f64().is_some(), "{calibrated}");
    }
    assert_eq!(
        row("scene.createEntity")["failed"],
        0,
        "defaults suffice: {calibrated}"
    );
    // `ui.label` needs an anchor no schema default describes: left out, and said so.
    let skipped = calibrated["skipped"].as_array().unwrap();
    assert!(skipped.contains(&json!("ui.label")), "{calibrated}");
    assert!(
        skipped
            .iter()
            .all(|s| !rows.iter().any(|r| &r["name"] == s))
    );
    assert!(
        rows.iter()
            .all(|r| !r["name"].as_str().unwrap().starts_with("skills.")),
        "built-ins are not run"
    );
    let latency = latency_of(&mut c, "dice.roll");
    assert_eq!(
        (latency["samples"].clone(), latency["source"].clone()),
        (json!(10), json!("measured"))
    );

    // The live world did not move: same tick, same entities, and the trace holds no call the
    // calibration made.
    let after = c.call_ok("inspector.snapshot", json!({}));
    assert_eq!(after["world"]["tick"], before["world"]["tick"]);
    assert_eq!(after["page"]["totalEntities"], 1);
    assert_eq!(after["entities"], before["entities"]);
    let executed_after = c.call_ok(
        "trace.tail",
        json!({"type": "skill.executed", "limit": 1000}),
    );
    let skills_of = |v: &Value| -> Vec<String> {
        v["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["payload"]["skill"].as_str().unwrap().to_string())
            .collect()
    };
    let mut expected = skills_of(&executed_before);
    expected.extend(["trace.tail", "skills.calibrate", "inspector.snapshot"].map(String::from));
    assert_eq!(skills_of(&executed_after), expected);
}

#[test]
fn after_calibration_a_slow_skill_drops_out_of_a_fast_listing() {
    // Tiers tight enough that any measured guest call is slower than `fast`.
    let cfg = config_file(&format!(
        "[latency]\nfastMs = 0.0001\nstandardMs = 10000\n{NPC}"
    ));
    let dice = dice_packages("");
    let args = [
        "--config",
        cfg.path().to_str().unwrap(),
        "--packages",
        dice.path().to_str().unwrap(),
    ];
    let mut c = Client::session("npc", &args);
    assert!(
        listed(&mut c).contains("dice.roll"),
        "unmeasured, it is listed"
    );
    let (code, message) = error_of(&c.call("skills.calibrate", json!({})));
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("forbidden", "missing permission: scene.write")
    );
    c.rebind("builder.readWrite", "operator");
    let calibrated = c.call_ok("skills.calibrate", json!({"runs": 10}));
    let roll = calibrated["calibrated"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "dice.roll")
        .unwrap()
        .clone();
    assert_eq!(roll["tier"], "standard", "{roll}");
    c.rebind("npc", "npc");
    // Both guest skills it may call were measured slower than `fast`.
    assert_eq!(listed(&mut c), set(&["skills.list"]));
}

#[test]
fn limina_calibrate_keeps_tiers_that_a_host_started_later_lists_before_any_call() {
    let cfg = config_file(&format!(
        "[latency]\nfastMs = 0.0001\nstandardMs = 10000\n{NPC}"
    ));
    let dice = dice_packages("");
    let cache = tempfile::tempdir().unwrap();
    let compiled = cache.path().join("compiled");
    let common = [
        "--config",
        cfg.path().to_str().unwrap(),
        "--packages",
        dice.path().to_str().unwrap(),
        "--cache-dir",
        compiled.to_str().unwrap(),
    ];
    let out = crate::support::limina_ok(&[&common[..], &["calibrate", "--runs", "10"]].concat());
    let roll = out
        .lines()
        .find(|l| l.starts_with("dice.roll "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(roll.trim_end().ends_with("standard"), "{roll}");
    let kept = cache.path().join("calibration.json");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&kept).unwrap()).unwrap();
    assert_eq!(
        saved["skills"]["dice.roll"]["calls"]
            .as_array()
            .unwrap()
            .len(),
        10
    );

    // A host started later knows the tier before dice.roll's first call.
    let mut c = Client::session("npc", &common);
    assert!(
        !listed(&mut c).contains("dice.roll"),
        "measured slower than fast"
    );
    c.rebind("builder.readWrite", "operator");
    assert_eq!(latency_of(&mut c, "dice.roll")["samples"], 10);
}
