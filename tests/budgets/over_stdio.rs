//! Budgets and quotas exercised over the real `limina --mcp-stdio`.

use crate::support::{Client, error_of, guest_packages};
use serde_json::{Value, json};
use std::io::Write;
use std::time::Duration;

/// Writes a configuration file and returns it (kept alive by the caller).
fn config(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file
}

fn usage(c: &mut Client) -> Value {
    c.call_ok("audit.usage", json!({"sessionId": "budget-session"}))
}

fn session_with(config_path: &str, packages: Option<&str>) -> Client {
    let mut args = vec!["--config", config_path];
    if let Some(p) = packages {
        args.extend(["--packages", p]);
    }
    let mut c = Client::spawn(&args);
    let r = c.request(
        "initialize",
        json!({"profile": "builder.readWrite", "agentId": "budgeter", "sessionId": "budget-session"}),
    );
    assert!(r.get("result").is_some(), "{r}");
    c
}

fn budget_of(c: &mut Client) -> Value {
    let u = usage(c);
    u["budgets"][0]["budget"].clone()
}

#[test]
fn n_calls_are_allowed_and_the_next_is_denied_budget_calls() {
    let cfg = config("[budgets]\ncalls = 3\n");
    let mut c = session_with(cfg.path().to_str().unwrap(), None);
    for _ in 0..3 {
        c.call_ok("scene.queryEntities", json!({}));
    }
    let r = c.call("scene.createEntity", json!({}));
    let (code, message) = error_of(&r);
    assert_eq!(code, "forbidden");
    assert!(message.contains("call budget"), "{message}");
    // Built-ins cross the same pipeline, so the call budget holds them too.
    let r = c.request("callTool", json!({"name": "audit.usage", "input": {}}));
    assert_eq!(r["error"]["data"]["error"]["code"], "forbidden");
}

#[test]
fn a_busy_guest_spends_its_cpu_budget_by_fuel_and_is_then_denied_budget_cpu() {
    let pkgs = guest_packages(&["spin"]);
    let cfg = config("[budgets]\ncpuMs = 2\n");
    let mut c = session_with(
        cfg.path().to_str().unwrap(),
        Some(pkgs.path().to_str().unwrap()),
    );
    // The first call also pays the guest's one-time set-up; measure after it.
    c.call_ok("spin.ok", json!({}));
    let base = budget_of(&mut c)["cpuMs"]["used"].as_f64().unwrap();
    let spent = |c: &mut Client, iterations: u64| {
        c.call_ok("spin.burn", json!({ "iterations": iterations }));
        budget_of(c)["cpuMs"]["used"].as_f64().unwrap()
    };
    let after_one = spent(&mut c, 100_000);
    let after_two = spent(&mut c, 100_000);
    let after_four = spent(&mut c, 200_000);
    let (one, again, double) = (
        after_one - base,
        after_two - after_one,
        after_four - after_two,
    );
    // Fuel is deterministic: the same work costs the same, twice the work about twice as much.
    assert!(one > 0.0);
    assert!(
        (again - one).abs() < one * 0.01,
        "the same work cost {one} then {again}"
    );
    let ratio = double / one;
    assert!((1.9..2.1).contains(&ratio), "double work cost {ratio}x");
    // Spend the rest, then be denied.
    let mut denied = None;
    for _ in 0..200 {
        let r = c.call("spin.burn", json!({"iterations": 200_000}));
        if r["isError"] == true {
            denied = Some(r);
            break;
        }
    }
    let r = denied.expect("the CPU budget never ran out");
    let (code, message) = error_of(&r);
    if code == "capacity_exceeded" {
        // The last call was cut by the budget mid-way; the next is denied.
        assert!(message.contains("CPU budget"), "{message}");
        let (code, message) = error_of(&c.call("spin.ok", json!({})));
        assert_eq!(code, "forbidden");
        assert!(message.contains("CPU budget"), "{message}");
    } else {
        assert_eq!(code, "forbidden");
        assert!(message.contains("CPU budget"), "{message}");
    }
}

#[test]
fn a_call_cut_mid_way_by_the_cpu_budget_is_capacity_exceeded_and_charged() {
    let pkgs = guest_packages(&["spin"]);
    // 0.1 ms of fuel is less than the package's own cap, so the budget is what cuts the call.
    let cfg = config("[budgets]\ncpuMs = 0.1\n");
    let mut c = session_with(
        cfg.path().to_str().unwrap(),
        Some(pkgs.path().to_str().unwrap()),
    );
    let (code, message) = error_of(&c.call("spin.forever", json!({})));
    assert_eq!(code, "capacity_exceeded");
    assert!(message.contains("CPU budget"), "{message}");
    let spent = budget_of(&mut c);
    assert!(spent["cpuMs"]["used"].as_f64().unwrap() >= 0.1, "{spent}");
    let (code, _) = error_of(&c.call("spin.ok", json!({})));
    assert_eq!(code, "forbidden");
}

#[test]
fn memory_peak_is_tracked_and_a_memory_budget_is_enforced() {
    let pkgs = guest_packages(&["memhog"]);
    let cfg = config("[budgets]\nmemBytes = 3145728\n");
    let mut c = session_with(
        cfg.path().to_str().unwrap(),
        Some(pkgs.path().to_str().unwrap()),
    );
    c.call_ok("memhog.ok", json!({}));
    let peak = budget_of(&mut c)["memBytes"]["used"].as_u64().unwrap();
    assert!(peak > 0 && peak < 3145728, "peak {peak}");
    let (code, message) = error_of(&c.call("memhog.grow", json!({})));
    assert_eq!(code, "capacity_exceeded");
    assert!(message.contains("memory budget"), "{message}");
    let (code, message) = error_of(&c.call("memhog.ok", json!({})));
    assert_eq!(code, "forbidden");
    assert!(message.contains("memory budget"), "{message}");
}

#[test]
fn a_quota_denies_inside_its_window_and_allows_after_it() {
    let cfg = config("[[quotas]]\ncap = \"scene.create*\"\nlimit = 2\nwindowMs = 400\n");
    let mut c = session_with(cfg.path().to_str().unwrap(), None);
    c.call_ok("scene.createEntity", json!({}));
    c.call_ok("scene.createEntity", json!({}));
    let (code, message) = error_of(&c.call("scene.createEntity", json!({})));
    assert_eq!(code, "forbidden");
    assert!(message.contains("quota"), "{message}");
    c.call_ok("scene.queryEntities", json!({}));
    std::thread::sleep(Duration::from_millis(500));
    c.call_ok("scene.createEntity", json!({}));
    let all = c.call_ok("scene.queryEntities", json!({}));
    assert_eq!(all["entities"].as_array().unwrap().len(), 3);
}

#[test]
fn max_sessions_refuses_a_session_over_the_real_transport() {
    let cfg = config("maxSessions = 0\n");
    let mut c = Client::spawn(&["--config", cfg.path().to_str().unwrap()]);
    let r = c.request("initialize", json!({"profile": "builder.readWrite"}));
    assert_eq!(r["error"]["code"], -32001, "{r}");
    let msg = r["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("quota.exceeded") && msg.contains("at most 0"),
        "{msg}"
    );
    let r = c.request(
        "tools/call",
        json!({"name": "scene.queryEntities", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32001);
}

#[test]
fn denied_calls_consume_nothing_and_audit_usage_counts_exactly() {
    let cfg = config(
        "[budgets]\ncalls = 100\n\n[profiles.reader]\npermissions = [\"scene.read\"]\ntools = [\"scene.*\", \"audit.*\"]\n",
    );
    let mut c = Client::spawn(&["--config", cfg.path().to_str().unwrap()]);
    c.request(
        "initialize",
        json!({"profile": "reader", "sessionId": "budget-session", "agentId": "r"}),
    );
    c.call_ok("scene.queryEntities", json!({}));
    for _ in 0..3 {
        let (code, message) = error_of(&c.call("scene.createEntity", json!({})));
        assert_eq!(code, "forbidden");
        assert_eq!(message, "missing permission: scene.write");
    }
    let (code, message) = error_of(&c.call("skills.list", json!({})));
    assert_eq!(code, "forbidden");
    assert!(
        message.contains("does not allow the tool `skills.list`"),
        "{message}"
    );
    let u = usage(&mut c);
    let rows = u["perSessionCap"].as_array().unwrap();
    let count = |cap: &str| {
        rows.iter()
            .find(|r| r["cap"] == cap)
            .map(|r| (r["allowed"].clone(), r["denied"].clone()))
    };
    assert_eq!(count("scene.queryEntities"), Some((json!(1), json!(0))));
    assert_eq!(count("scene.createEntity"), Some((json!(0), json!(3))));
    assert_eq!(count("skills.list"), Some((json!(0), json!(1))));
    // Only the allowed calls were counted against the budget: queryEntities and this audit call.
    assert_eq!(u["budgets"][0]["budget"]["calls"]["used"], 2, "{u}");
    assert_eq!(
        c.call_ok("scene.queryEntities", json!({}))["entities"],
        json!([])
    );
}

#[test]
fn audit_explain_finds_the_decision_for_an_allowed_and_a_denied_call() {
    let mut c = Client::session("player.limited", &[]);
    let ok = c.call("scene.queryEntities", json!({}));
    let executed = ok["_meta"]["eventsEmitted"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let e = c.call_ok("audit.explain", json!({"eventId": executed}));
    assert_eq!(e["found"], true);
    assert_eq!(e["eventType"], "skill.executed");
    assert_eq!(e["decision"]["allow"], true);
    assert_eq!(e["decision"]["rule"], "profile.grant");
    assert_eq!(e["decision"]["context"]["cap"], "scene.queryEntities");
    assert_eq!(e["provenance"]["agentId"], "tester");
    assert_eq!(e["provenance"]["profile"], "player.limited");
    assert_eq!(
        e["causalTrace"]["parents"][0]["id"],
        e["decision"]["eventId"]
    );

    let denied = c.call("scene.createEntity", json!({}));
    let ids = denied["_meta"]["eventsEmitted"].as_array().unwrap().clone();
    assert_eq!(
        ids.len(),
        2,
        "policy.denied and security.permission.denied: {denied}"
    );
    let e = c.call_ok("audit.explain", json!({"eventId": ids[1]}));
    assert_eq!(e["eventType"], "security.permission.denied");
    assert_eq!(e["decision"]["allow"], false);
    assert_eq!(e["decision"]["rule"], "profile.denied");
    assert_eq!(e["decision"]["eventId"], ids[0]);
    assert_eq!(
        e["decision"]["context"]["requiredPermissions"],
        json!(["scene.write"])
    );

    let q = c.call_ok("audit.query", json!({"decision": "deny"}));
    assert_eq!(q["summary"]["denied"], 1);
    assert_eq!(q["summary"]["byRule"]["profile.denied"], 1);
    assert_eq!(q["decisions"][0]["cap"], "scene.createEntity");
    let missing = c.call_ok(
        "audit.explain",
        json!({"eventId": "evt_nobody_000000000001_0000000000000000"}),
    );
    assert_eq!(missing["found"], false);
}
