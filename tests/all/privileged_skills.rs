//! The privileged system skills: `dev.reload` needs `scene.write` for every target, a scene
//! reload replays the file on the host's own authority into a fresh world and swaps it in
//! only whole, a `data` reload applies the whole configuration or none of it, and the host's
//! own identity cannot be claimed by a client.

use crate::support::{Client, error_of};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Binds this connection as `session` of `agent` under `profile`.
fn bind(c: &mut Client, profile: &str, agent: &str, session: &str) {
    let reply = c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}, "profile": profile, "agentId": agent, "sessionId": session}),
    );
    assert!(reply.get("result").is_some(), "initialize failed: {reply}");
    c.notify("notifications/initialized", json!({}));
}

/// Everything a reader can see of the world: every entity with its transform, tags and
/// body, lighting, agents and the tick.
fn world(c: &mut Client) -> Value {
    let s = c.call_ok("inspector.snapshot", json!({"limit": 500}));
    json!({"world": s["world"], "entities": s["entities"], "agents": s["agents"]})
}

/// The budget snapshot of `session`, as `audit.usage` reports it.
fn budget(c: &mut Client, session: &str) -> Value {
    let usage = c.call_ok("audit.usage", json!({"sessionId": session}));
    usage["budgets"][0]["budget"].clone()
}

fn entity_ids(c: &mut Client) -> Vec<String> {
    c.call_ok("scene.queryEntities", json!({}))["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entity"].as_str().unwrap().to_string())
        .collect()
}

fn events(c: &mut Client, kind: &str) -> Vec<Value> {
    c.call_ok("trace.tail", json!({"type": kind}))["events"]
        .as_array()
        .unwrap()
        .clone()
}

/// A folder holding `scene.jsonl` with `lines` and `limina.toml` with `config`.
fn files(lines: &[Value], config: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("scene.jsonl");
    write_scene(&scene, lines);
    let config_path = dir.path().join("limina.toml");
    std::fs::write(&config_path, config).unwrap();
    (dir, scene, config_path)
}

fn write_scene(path: &Path, lines: &[Value]) {
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(path, text.join("\n") + "\n").unwrap();
}

fn create_at(x: i64) -> Value {
    json!({"skill": "scene.createEntity", "input": {"position": [x, 0, 0], "dynamic": true}})
}

const BUDGETED: &str = "[budgets]\ncalls = 1000\ncpuMs = 100000\n";

#[test]
fn a_read_only_session_cannot_reload_anything_and_the_world_and_its_budget_are_unchanged() {
    let (_dir, scene, config) = files(&[create_at(1), create_at(2)], BUDGETED);
    let mut c = Client::session(
        "builder.readWrite",
        &[
            "--scene",
            scene.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
    );
    c.call_ok("scene.createEntity", json!({"position": [9, 0, 0]}));
    bind(&mut c, "system.readonly", "reader", "reader-session");
    let before = world(&mut c);
    assert_eq!(before["entities"].as_array().unwrap().len(), 3);
    let spent = budget(&mut c, "reader-session");
    for input in [
        json!({"target": "scene"}),
        json!({"target": "scene", "name": "scene.jsonl"}),
        json!({"target": "data"}),
        json!({"target": "package", "name": "scene"}),
        json!({"target": "skill", "name": "scene.createEntity"}),
    ] {
        let (code, message) = error_of(&c.call("dev.reload", input.clone()));
        assert_eq!(code, "forbidden", "{input}");
        assert_eq!(message, "missing permission: scene.write", "{input}");
    }
    assert_eq!(world(&mut c), before, "the world is untouched");
    let after = budget(&mut c, "reader-session");
    assert_eq!(
        after["calls"]["used"],
        spent["calls"]["used"].as_u64().unwrap() + 2,
        "only the two reads between were counted: {spent} → {after}"
    );
    assert_eq!(after["cpuMs"], spent["cpuMs"], "no CPU was charged");
    let denied = events(&mut c, "security.permission.denied");
    assert_eq!(denied.len(), 5, "every refusal is traced");
    assert!(
        denied
            .iter()
            .all(|e| e["payload"]["skill"] == "dev.reload" && e["actorId"] == "reader")
    );
    assert!(events(&mut c, "dev.scene.reload.completed").is_empty());
    assert!(events(&mut c, "dev.data.reload.completed").is_empty());
}

#[test]
fn a_scene_with_a_bad_line_fails_naming_the_line_and_the_world_is_unchanged() {
    let (_dir, scene, _) = files(&[create_at(1), create_at(2)], "");
    let mut c = Client::session("builder.readWrite", &["--scene", scene.to_str().unwrap()]);
    c.call_ok("scene.createEntity", json!({"position": [9, 0, 0]}));
    c.call_ok("world.step", json!({"ticks": 3}));
    let before = world(&mut c);
    let cases: [(Vec<Value>, &str, &str); 4] = [
        (
            vec![
                create_at(5),
                create_at(6),
                json!({"skill": "scene.createEntity", "input": {"size": 0}}),
            ],
            "scene.jsonl:3",
            "invalid_input",
        ),
        (
            vec![create_at(5), json!({"skill": "no.suchSkill"})],
            "scene.jsonl:2",
            "not_found",
        ),
        (
            vec![create_at(5), json!({"input": {}})],
            "scene.jsonl:2",
            "needs a `skill` name",
        ),
        (
            vec![create_at(5), json!("not a call")],
            "scene.jsonl:2",
            "skill",
        ),
    ];
    for (lines, at, why) in cases {
        write_scene(&scene, &lines);
        let r = c.call_ok("dev.reload", json!({"target": "scene"}));
        assert_eq!(r["ok"], false, "{r}");
        let reason = r["reason"].as_str().unwrap();
        assert!(
            reason.contains(at) && reason.contains(why),
            "expected {at} and {why} in: {reason}"
        );
        assert_eq!(world(&mut c), before, "{at} {why}: the world is untouched");
    }
    std::fs::write(&scene, "{\"skill\": \"scene.createEntity\"}\n{nope\n").unwrap();
    let r = c.call_ok("dev.reload", json!({"target": "scene"}));
    let reason = r["reason"].as_str().unwrap();
    assert!(reason.contains("scene.jsonl:2: not JSON"), "{reason}");
    assert_eq!(world(&mut c), before);
    // Still the old world: its next entity continues the old numbering.
    let next = c.call_ok("scene.createEntity", json!({}))["entity"].clone();
    assert_eq!(next, "ent_4");
    let failed = events(&mut c, "dev.scene.reload.failed");
    assert_eq!(failed.len(), 5, "every failure is traced");
    assert!(
        failed[0]["payload"]["reason"]
            .as_str()
            .unwrap()
            .contains("scene.jsonl:3")
    );
}

#[test]
fn a_scene_reload_runs_on_the_hosts_authority_and_spends_nothing_of_the_callers_budget() {
    // A stagehand may rewrite the scene but not tag entities; the scene file (written by the
    // operator) tags one, and the budget allows fewer calls than the scene has lines.
    let mut lines: Vec<Value> = (1..=6).map(create_at).collect();
    lines.push(
        json!({"skill": "ecs.addComponent", "input": {"entity": "ent_1", "component": "prop"}}),
    );
    let (_dir, scene, config) = files(
        &lines,
        "[profiles.stagehand]\npermissions = [\"scene.read\", \"scene.write\", \"ecs.read\", \"physics.read\", \"agent.read\"]\n\n[budgets]\ncalls = 6\n",
    );
    let mut c = Client::session(
        "stagehand",
        &[
            "--scene",
            scene.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
    );
    let denied = c.call(
        "ecs.addComponent",
        json!({"entity": "ent_2", "component": "prop"}),
    );
    assert_eq!(error_of(&denied).1, "missing permission: ecs.modify");
    c.call_ok("scene.createEntity", json!({}));
    let r = c.call_ok("dev.reload", json!({"target": "scene"}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        entity_ids(&mut c),
        (1..=6).map(|n| format!("ent_{n}")).collect::<Vec<_>>(),
        "the replayed world replaced the old one"
    );
    let tagged = c.call_ok("scene.queryEntities", json!({"tag": "prop"}))["entities"].clone();
    assert_eq!(tagged[0]["entity"], "ent_1", "{tagged}");
    let done = events(&mut c, "dev.scene.reload.completed");
    assert_eq!(done.len(), 1);
    let executed = events(&mut c, "skill.executed");
    let replayed: Vec<&Value> = executed
        .iter()
        .filter(|e| e["payload"]["skill"] == "ecs.addComponent")
        .collect();
    assert_eq!(replayed.len(), 2, "at start-up and on reload: {replayed:?}");
    assert!(replayed.iter().all(|e| e["actorId"] == "host"));
    // Six calls of the stagehand's own; the fourteen replayed ones were not counted.
    let (code, message) = error_of(&c.call("scene.queryEntities", json!({})));
    assert_eq!(code, "forbidden", "the 7th call of a 6-call budget");
    assert!(message.contains("budget"), "{message}");
}

#[test]
fn a_bad_configuration_is_refused_whole_and_the_old_one_stays_in_force() {
    let (_dir, _, config) = files(
        &[],
        "[[quotas]]\ncap = \"scene.createEntity\"\nlimit = 0\nwindowMs = 60000\n",
    );
    let mut c = Client::session("builder.readWrite", &["--config", config.to_str().unwrap()]);
    let quota_denied = |c: &mut Client| {
        let (code, message) = error_of(&c.call("scene.createEntity", json!({})));
        assert_eq!(code, "forbidden");
        assert!(message.contains("quota"), "{message}");
    };
    quota_denied(&mut c);
    // Valid up to its last table: the quota lifted and a new one on queries would apply,
    // but a package limit further down is out of range, so none of it does.
    std::fs::write(
        &config,
        "[[quotas]]\ncap = \"scene.queryEntities\"\nlimit = 0\nwindowMs = 60000\n\n[profiles.scout]\npermissions = [\"scene.read\"]\n\n[packages.scene]\nfuelPerCall = -5\n",
    )
    .unwrap();
    let r = c.call_ok("dev.reload", json!({"target": "data"}));
    assert_eq!(r["ok"], false, "{r}");
    let reason = r["reason"].as_str().unwrap();
    assert!(
        reason.contains(":9:") && reason.contains("fuelPerCall"),
        "{reason}"
    );
    quota_denied(&mut c);
    c.call_ok("scene.queryEntities", json!({}));
    let reply = c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "profile": "scout"}),
    );
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("scout"),
        "the new profile did not arrive: {reply}"
    );
    let failed = events(&mut c, "dev.data.reload.failed");
    assert_eq!(failed.len(), 1);
}

#[test]
fn a_client_cannot_claim_the_hosts_identity() {
    let mut c = Client::spawn(&[]);
    for key in ["agentId", "sessionId"] {
        let reply = c.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "profile": "builder.readWrite", key: "host"}),
        );
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert!(
            message.contains(key) && message.contains("reserved"),
            "{message}"
        );
    }
    bind(&mut c, "builder.readWrite", "hostess", "hosted");
    assert_eq!(entity_ids(&mut c), Vec::<String>::new());
}
