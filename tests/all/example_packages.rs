//! The example packages in C (`terrain`), Zig (`names`) and JavaScript (`npc`): their own
//! native tests pass through `limina pkg test`, and their components, built from source by
//! `cargo xtask build-guests`, answer over MCP; `npc` also serves a page and a prompt through
//! the JavaScript SDK. (Python's `rules` is in `python_package` and `rules_offers`.)

use crate::support::{Client, error_of, limina_ok, package_dir, package_host, repo};
use serde_json::{Value, json};

fn host(name: &str) -> (tempfile::TempDir, Client) {
    let dir = repo().join("packages").join(name);
    package_host(&dir, &dir.join(format!("{name}.wasm")))
}

fn pkg_test(name: &str) {
    let dir = repo().join("packages").join(name);
    let text = limina_ok(&["pkg", "test", dir.to_str().unwrap()]);
    assert!(text.contains("tests passed"), "{text}");
}

#[test]
fn the_example_packages_pass_their_own_native_tests() {
    for name in ["terrain", "names", "npc"] {
        pkg_test(name);
    }
}

#[test]
fn terrain_heights_are_deterministic_and_scatter_stays_in_its_area() {
    let (_dir, mut c) = host("terrain");
    let at = json!({"x": 12.5, "z": -3.0, "seed": 7});
    let a = c.call_ok("terrain.height", at.clone());
    let b = c.call_ok("terrain.height", at);
    assert_eq!(a, b, "same input, same height");
    let other = c.call_ok("terrain.height", json!({"x": 12.5, "z": -3.0, "seed": 8}));
    assert_ne!(a["height"], other["height"], "the seed matters");
    assert!(a["height"].as_f64().unwrap().abs() <= 20.0, "{a}");

    let area = json!({"minX": 0, "minZ": 0, "maxX": 100, "maxZ": 50});
    let out = c.call_ok(
        "terrain.scatter",
        json!({"seed": 3, "count": 40, "area": area, "minSpacing": 2}),
    );
    let points = out["points"].as_array().unwrap();
    assert_eq!(points.len() as u64, out["placed"].as_u64().unwrap());
    assert!(!points.is_empty() && points.len() <= 40, "{out}");
    for p in points {
        let (x, z) = (p["x"].as_f64().unwrap(), p["z"].as_f64().unwrap());
        assert!(
            (0.0..=100.0).contains(&x) && (0.0..=50.0).contains(&z),
            "{p}"
        );
    }

    let (code, message) = error_of(&c.call(
        "terrain.scatter",
        json!({"seed": 3, "count": 4, "area": {"minX": 5, "minZ": 0, "maxX": 5, "maxZ": 1}}),
    ));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("maxX"), "{message}");
}

#[test]
fn names_are_deterministic_per_seed_and_follow_the_request() {
    let (_dir, mut c) = host("names");
    let ask = json!({"seed": 7, "count": 6, "style": "dwarvish"});
    let a = c.call_ok("names.generate", ask.clone());
    assert_eq!(a, c.call_ok("names.generate", ask));
    let names: Vec<&str> = a["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6, "{a}");
    assert_eq!(a["style"], "dwarvish");
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "no duplicates: {a}");
    assert!(
        names
            .iter()
            .all(|n| n.chars().next().unwrap().is_uppercase()),
        "{a}"
    );
    let place = c.call_ok("names.place", json!({"seed": 7, "kind": "river"}));
    assert_eq!(place["kind"], "river");
    assert!(!place["name"].as_str().unwrap().is_empty());

    let (code, message) = error_of(&c.call("names.generate", json!({"seed": 7, "count": 51})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("count"), "{message}");
}

#[test]
fn npc_lines_follow_what_the_caller_perceives() {
    let (_dir, mut c) = host("npc");
    // No body in the world yet: the NPC speaks to no one.
    let alone: Value = c.call_ok("npc.greet", json!({"npc": {"name": "Mira"}}));
    assert_eq!(alone["addressed"], Value::Null, "{alone}");
    assert!(!alone["line"].as_str().unwrap().is_empty());
    let mood = c.call_ok("npc.mood", json!({}));
    assert_eq!(mood["mood"], "absent", "{mood}");

    let (code, message) = error_of(&c.call("npc.greet", json!({"npc": {"name": "  "}})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("name"), "{message}");
}

#[test]
fn npc_is_refused_perception_under_a_profile_without_agent_read() {
    let dir = repo().join("packages/npc");
    let packages = package_dir(&dir, &dir.join("npc.wasm"));
    let config = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        config.path(),
        "[profiles.reader]\npermissions = [\"scene.read\"]\n",
    )
    .unwrap();
    let mut c = Client::session(
        "reader",
        &[
            "--packages",
            packages.path().to_str().unwrap(),
            "--config",
            config.path().to_str().unwrap(),
        ],
    );
    let (code, message) = error_of(&c.call("npc.mood", json!({})));
    assert_eq!(code, "forbidden");
    assert!(message.contains("agent.read"), "{message}");
}

#[test]
fn npc_serves_a_page_and_a_prompt_through_the_javascript_sdk() {
    let (_dir, mut c) = host("npc");
    let hash = c.call_ok("world.hash", json!({}));
    let read = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/npc/personalities"}),
    );
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "text/markdown", "{read}");
    let page = contents["text"].as_str().unwrap();
    assert!(page.starts_with("# NPC personalities\n"), "{page}");
    assert!(page.contains("| shy | 2 agents | 3 m |"), "{page}");
    let missing = c.request("resources/read", json!({"uri": "limina://pkg/npc/moods"}));
    assert_eq!(missing["error"]["code"], -32002, "{missing}");

    let got = c.request(
        "prompts/get",
        json!({"name": "npc.playScene", "arguments": {"name": "Mira", "personality": "gruff"}}),
    );
    let message = &got["result"]["messages"][0];
    assert_eq!(message["role"], "user", "{got}");
    assert!(
        message["content"]["text"]
            .as_str()
            .unwrap()
            .starts_with("You are Mira, a gruff NPC."),
        "{got}"
    );
    let bad = c.request(
        "prompts/get",
        json!({"name": "npc.playScene", "arguments": {"name": "Mira", "personality": "sly"}}),
    );
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("`personality` must be one of friendly, gruff, shy, formal, not `sly`"),
        "{bad}"
    );
    let done = c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "npc.playScene"}, "argument": {"name": "personality", "value": "f"}}),
    );
    assert_eq!(
        done["result"]["completion"]["values"],
        json!(["friendly", "formal"]),
        "{done}"
    );
    assert_eq!(c.call_ok("world.hash", json!({})), hash);
}
