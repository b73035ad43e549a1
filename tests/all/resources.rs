//! The world as MCP resources, the host's prompts and completion: with the official Python
//! SDK 2.3 and TypeScript client 2.4 on both revisions (list, read, subscribe, unsubscribe,
//! prompts with arguments, completion), MCP Inspector's CLI, and every refusal over the wire
//! with its code and message, the world unchanged.

use crate::support::{Client, repo};
use serde_json::{Value, json};

/// A scene file of `n` boxes in a row (`ent_1` … `ent_n`): more than one listing page.
fn row_of_boxes(n: usize) -> tempfile::NamedTempFile {
    let mut scene = String::new();
    for i in 0..n {
        let line = json!({"skill": "scene.createEntity", "input": {"color": 0x3366ff, "position": [i as f64, 0.5, 0.0]}});
        scene.push_str(&format!("{line}\n"));
    }
    let file = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    std::fs::write(file.path(), scene).unwrap();
    file
}

const SCOUT: &str = "[profiles.scout]\npermissions = [\"scene.read\"]\ntools = [\"scene.*\", \"resource.world\", \"world.hash\"]\n";

fn code_and_message(reply: &Value) -> (i64, String) {
    let e = &reply["error"];
    let code = e["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {reply}"));
    (code, e["message"].as_str().unwrap().to_string())
}

fn modern(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    params
}

#[test]
fn every_refusal_has_its_code_and_message_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limina.toml");
    std::fs::write(&config, SCOUT).unwrap();
    let scene = row_of_boxes(3);
    let args = [
        "--config",
        config.to_str().unwrap(),
        "--scene",
        scene.path().to_str().unwrap(),
    ];
    let mut builder = Client::session("builder.readWrite", &args);
    let hash = builder.call_ok("world.hash", json!({}));

    // A 2025-11-25 builder session: missing things and bad parameters.
    for (method, params, code, says) in [
        (
            "resources/read",
            json!({"uri": "limina://entity/ent_9"}),
            -32002,
            "limina://entity/ent_9",
        ),
        (
            "resources/read",
            json!({"uri": "file:///etc/passwd"}),
            -32002,
            "file:///etc/passwd",
        ),
        ("resources/read", json!({"uri": 7}), -32602, "`uri`"),
        // An entity has one URI: another spelling of its number names nothing (a
        // subscription to it would never hear the entity change).
        (
            "resources/read",
            json!({"uri": "limina://entity/ent_01"}),
            -32002,
            "limina://entity/ent_01",
        ),
        (
            "resources/subscribe",
            json!({"uri": "limina://entity/ent_+1"}),
            -32002,
            "limina://entity/ent_+1",
        ),
        (
            "resources/subscribe",
            json!({"uri": "limina://entity/ent_9"}),
            -32002,
            "limina://entity/ent_9",
        ),
        (
            "resources/unsubscribe",
            json!({"uri": "limina://world"}),
            -32602,
            "not subscribed",
        ),
        (
            "resources/list",
            json!({"cursor": "entity:x:y"}),
            -32602,
            "invalid cursor",
        ),
        (
            "resources/templates/list",
            json!({"cursor": "2"}),
            -32602,
            "single page",
        ),
        (
            "prompts/get",
            json!({"name": "build-scene", "arguments": {}}),
            -32602,
            "`description`",
        ),
        (
            "prompts/get",
            json!({"name": "inspect-entity", "arguments": {"entity": "ent_9"}}),
            -32602,
            "`entity`",
        ),
        (
            "prompts/get",
            json!({"name": "inspect-entity", "arguments": {"entity": "ent_01"}}),
            -32602,
            "`entity`",
        ),
        ("prompts/get", json!({"name": "summon"}), -32602, "`summon`"),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "limina://entity/{id}"}, "argument": {"name": "entity", "value": ""}}),
            -32602,
            "`entity`",
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "summon"}, "argument": {"name": "x", "value": ""}}),
            -32602,
            "`summon`",
        ),
    ] {
        let reply = builder.request(method, params.clone());
        let (got, message) = code_and_message(&reply);
        assert_eq!(got, code, "{method} {params}: {reply}");
        assert!(message.contains(says), "{method} {params}: {message}");
    }
    let missing = builder.request("resources/read", json!({"uri": "limina://entity/ent_9"}));
    assert_eq!(missing["error"]["data"]["uri"], "limina://entity/ent_9");
    // The same read in 2026-07-28 is -32602, as that revision says.
    let stateless = builder.request(
        "resources/read",
        modern(json!({"uri": "limina://entity/ent_9"})),
    );
    assert_eq!(code_and_message(&stateless).0, -32602, "{stateless}");
    let removed = builder.request(
        "resources/subscribe",
        modern(json!({"uri": "limina://world"})),
    );
    let (code, message) = code_and_message(&removed);
    assert_eq!(code, -32601);
    assert!(message.contains("subscriptions/listen"), "{message}");

    // A scout may read the world's summaries only: the rest is hidden and refused.
    // (The same host: the connection rebound as another agent under the scout profile.)
    let mut scout = builder;
    scout.rebind("scout", "scout");
    let listed = scout.request("resources/list", json!({}));
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["limina://world", "limina://world/scene"], "{listed}");
    let templates = scout.request("resources/templates/list", json!({}));
    assert_eq!(templates["result"]["resourceTemplates"], json!([]));
    assert_eq!(
        scout.request("prompts/list", json!({}))["result"]["prompts"],
        json!([])
    );
    for (method, params, says) in [
        (
            "resources/read",
            json!({"uri": "limina://entity/ent_1"}),
            "resource.entity",
        ),
        (
            "resources/read",
            json!({"uri": "limina://agents"}),
            "agent.read",
        ),
        (
            "resources/subscribe",
            json!({"uri": "limina://entity/ent_1"}),
            "resource.entity",
        ),
        (
            "prompts/get",
            json!({"name": "inspect-entity", "arguments": {"entity": "ent_1"}}),
            "prompt.inspect-entity",
        ),
    ] {
        let reply = scout.request(method, params.clone());
        let (code, message) = code_and_message(&reply);
        assert_eq!(code, -32001, "{method} {params}: {reply}");
        assert!(
            message.starts_with("forbidden: ") && message.contains(says),
            "{method}: {message}"
        );
    }
    let hidden = scout.request(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "limina://entity/{id}"}, "argument": {"name": "id", "value": ""}}),
    );
    assert_eq!(
        hidden["result"]["completion"]["values"],
        json!([]),
        "{hidden}"
    );
    let world = scout.request("resources/read", json!({"uri": "limina://world"}));
    let summary: Value =
        serde_json::from_str(world["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(summary["counts"]["entities"], 3);

    // Nothing changed; each refusal was decided and traced like a call.
    let mut builder = scout;
    builder.rebind("builder.readWrite", "tester");
    assert_eq!(builder.call_ok("world.hash", json!({})), hash);
    let denied = builder.call_ok(
        "audit.query",
        json!({"decision": "deny", "agentId": "scout"}),
    );
    let caps: Vec<&str> = denied["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["cap"].as_str().unwrap())
        .collect();
    for cap in ["resource.entity", "resource.agent", "prompt.inspect-entity"] {
        assert!(caps.contains(&cap), "{cap} in {caps:?}");
    }
    let reads = builder.call_ok(
        "trace.tail",
        json!({"type": "resource.read", "limit": 1000}),
    );
    let read_uris: Vec<&str> = reads["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["payload"]["uri"].as_str().unwrap())
        .collect();
    assert!(
        read_uris.contains(&"limina://world") && read_uris.contains(&"limina://entity/ent_9"),
        "{read_uris:?}"
    );
    assert!(
        !read_uris.contains(&"limina://agents"),
        "a refused read reads nothing"
    );
}

/// The checks every official client's run must pass, whatever its revision.
/// `missing_code`: the code the client reports for a missing resource (the TypeScript SDK
/// reports the 2025-11-25 -32002 as its `ResourceNotFoundError`, -32602, in both revisions).
fn check_report(report: &Value, missing_code: i64) {
    let caps = &report["capabilities"];
    assert_eq!(caps["resources"]["subscribe"], true, "{caps}");
    assert_eq!(caps["resources"]["listChanged"], true, "{caps}");
    assert!(
        caps["prompts"].is_object() && caps["completions"].is_object(),
        "{caps}"
    );
    let uris: Vec<&str> = report["uris"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        report["pages"].as_u64().unwrap() >= 2,
        "150 entities take two pages: {}",
        report["pages"]
    );
    for uri in [
        "limina://world",
        "limina://world/scene",
        "limina://agents",
        "limina://panels",
        "ui://limina/viewer",
        "limina://entity/ent_1",
        "limina://entity/ent_151",
    ] {
        assert!(uris.contains(&uri), "{uri} listed");
    }
    let mut unique = uris.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), uris.len(), "no resource twice across pages");
    let templates = report["templates"].to_string();
    for t in [
        "limina://entity/{id}",
        "limina://agent/{id}",
        "limina://panel/{handle}",
        "limina://trace/{eventId}",
    ] {
        assert!(templates.contains(t), "{t} in {templates}");
    }
    assert_eq!(
        report["world"]["counts"]["entities"], 151,
        "{}",
        report["world"]
    );
    assert!(report["world"]["lighting"].is_object());
    assert_eq!(report["entity"]["id"], "ent_1");
    assert_eq!(report["entity"]["material"]["color"], 0x3366ff);
    assert_eq!(
        report["missing"]["code"], missing_code,
        "{}",
        report["missing"]
    );
    assert!(
        report["missing"]["message"]
            .as_str()
            .unwrap()
            .contains("limina://entity/ent_999")
    );
    let names: Vec<&str> = report["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["build-scene", "explain-event", "inspect-entity"]);
    let guide = report["built"][0]["text"].as_str().unwrap();
    assert!(
        guide.contains("a well in a square") && guide.contains("dusk"),
        "{guide}"
    );
    assert_eq!(report["built"][1]["type"], "resource");
    assert_eq!(report["built"][1]["resource"]["uri"], "limina://world");
    assert_eq!(
        report["inspected"][1]["resource"]["uri"],
        "limina://entity/ent_1"
    );
    assert_eq!(report["refused"]["code"], -32602, "{}", report["refused"]);
    let ids = report["ids"].as_array().unwrap();
    assert_eq!(ids.len(), 100, "completion stops at 100 values");
    assert_eq!(ids[0], "ent_1");
}

fn host_args(scene: &tempfile::NamedTempFile, traces: &std::path::Path) -> Vec<String> {
    let mut args: Vec<String> = [
        env!("CARGO_BIN_EXE_limina"),
        "--mcp-stdio",
        "--profile",
        "builder.readWrite",
    ]
    .map(String::from)
    .to_vec();
    args.extend(["--scene".into(), scene.path().to_str().unwrap().into()]);
    args.extend(["--trace-dir".into(), traces.to_str().unwrap().into()]);
    args.extend(crate::support::own_calibration(&[]));
    args
}

fn python(mode: &str) -> Value {
    let scene = row_of_boxes(150);
    let traces = tempfile::tempdir().unwrap();
    let mut args = vec![mode.to_string()];
    args.extend(host_args(&scene, traces.path()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    crate::modern::python_script("resources_python.py", &args).0
}

fn typescript(mode: &str) -> Value {
    let scene = row_of_boxes(150);
    let traces = tempfile::tempdir().unwrap();
    let mut args = vec![mode.to_string()];
    args.extend(host_args(&scene, traces.path()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = crate::modern::typescript_script("resources_typescript.mjs", &args).0;
    // The client's own walk over the pages finds what the test's did.
    assert_eq!(report["aggregated"], report["uris"], "{report}");
    report
}

#[test]
fn the_python_sdk_reads_subscribes_and_prompts_in_a_2025_session() {
    let report = python("legacy");
    assert_eq!(report["protocol_version"], "2025-11-25", "{report}");
    check_report(&report, -32002);
    let sub = &report["subscription"];
    assert_eq!(sub["heard"], "limina://entity/ent_1", "{sub}");
    assert_eq!(sub["after_unsubscribe"], 0, "{sub}");
    assert_eq!(report["styles"], json!(["dusk"]));
}

#[test]
fn the_python_sdk_reads_listens_and_prompts_in_2026_07_28() {
    let report = python("auto");
    assert_eq!(report["protocol_version"], "2026-07-28", "{report}");
    check_report(&report, -32602);
    assert_eq!(report["world_cache"], json!([0, "private"]));
    let sub = &report["subscription"];
    assert_eq!(
        sub["honored"]["resourceSubscriptions"],
        json!(["limina://entity/ent_1"]),
        "{sub}"
    );
    let events = sub["events"].to_string();
    assert!(
        events.contains("limina://entity/ent_1") && events.contains("list_changed"),
        "{sub}"
    );
}

#[test]
fn the_typescript_client_reads_subscribes_and_prompts_in_a_2025_session() {
    let report = typescript("legacy");
    check_report(&report, -32602);
    let sub = &report["subscription"];
    assert_eq!(sub["heard"][0], "limina://entity/ent_1", "{sub}");
    assert_eq!(sub["afterUnsubscribe"], 0, "{sub}");
    assert_eq!(sub["unsubscribeAgain"]["code"], -32602, "{sub}");
    // ent_1, ent_10…ent_19 and ent_100…ent_152: every id starting with "ent_1".
    let entities = report["entities"].as_array().unwrap();
    assert_eq!(entities.len(), 1 + 10 + 52, "{entities:?}");
    assert!(
        entities
            .iter()
            .all(|e| e.as_str().unwrap().starts_with("ent_1"))
    );
}

#[test]
fn the_typescript_client_pinned_to_2026_07_28_reads_listens_and_prompts() {
    let report = typescript("modern");
    assert_eq!(report["protocol_version"], "2026-07-28", "{report}");
    check_report(&report, -32602);
    assert_eq!(report["world_cache"], json!([0, "private"]));
    let sub = &report["subscription"];
    assert_eq!(
        sub["honored"]["resourceSubscriptions"],
        json!(["limina://entity/ent_1"]),
        "{sub}"
    );
    assert_eq!(sub["honored"]["resourcesListChanged"], true);
    assert!(
        sub["updates"].to_string().contains("limina://entity/ent_1"),
        "{sub}"
    );
    assert!(sub["listChanged"].as_u64().unwrap() >= 1, "{sub}");
}

#[test]
fn mcp_inspectors_cli_lists_resources_and_prompts() {
    use crate::http_client::HttpHost;
    use limina_guest_build::clients::{INSPECTOR, NODE_22, inspector_cli, node_binary};
    let node = node_binary(&NODE_22.ensure().expect("installing Node.js 22")).unwrap();
    let cli = inspector_cli(&INSPECTOR.ensure().expect("installing MCP Inspector"));
    let host = HttpHost::start(&["--profile", "builder.readWrite"]);
    let path = format!(
        "{}:{}",
        node.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |args: &[&str]| {
        let out = std::process::Command::new(&node)
            .arg(&cli)
            .args(["--cli", &host.url(), "--transport", "http"])
            .args(args)
            .env("PATH", &path)
            .current_dir(repo())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{args:?}: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str::<Value>(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    };
    let resources = run(&["--method", "resources/list"]);
    let uris = resources["resources"].to_string();
    assert!(
        uris.contains("limina://world") && uris.contains("ui://limina/viewer"),
        "{resources}"
    );
    let prompts = run(&["--method", "prompts/list"]);
    assert!(
        prompts["prompts"].to_string().contains("build-scene"),
        "{prompts}"
    );
    let read = run(&["--method", "resources/read", "--uri", "limina://world"]);
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\"tick\""),
        "{read}"
    );
}
