//! Tasks: a long call becomes a handle the client polls, in 2026-07-28's
//! `io.modelcontextprotocol/tasks` extension and 2025-11-25's experimental tasks; the client
//! goes on meanwhile, cancellation stops the call, tasks belong to their identity, are bounded
//! and traced.

use crate::support::{Client, repo};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const VERSION: &str = "2026-07-28";
const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// A folder with the `sleepy` Python guest (its calls run off the engine) as a package, and a
/// configuration that lets it sleep long: the folder, `--packages`, `--config`.
fn sleepy_package() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("packages/sleepy");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(
        repo().join("tests/guests-python/sleepy/limina.toml"),
        package.join("limina.toml"),
    )
    .unwrap();
    std::fs::copy(
        repo().join("target/components/sleepy.wasm"),
        package.join("sleepy.wasm"),
    )
    .unwrap();
    let config = dir.path().join("limina.toml");
    std::fs::write(
        &config,
        "[limits]\ntimeoutMs = 60000\n\n[packages.sleepy]\ntimeoutMs = 30000\n",
    )
    .unwrap();
    let packages = dir.path().join("packages").to_str().unwrap().to_string();
    let config = config.to_str().unwrap().to_string();
    (dir, packages, config)
}

/// A stdio host with the `sleepy` package.
fn sleepy_host() -> (Client, tempfile::TempDir) {
    let (dir, packages, config) = sleepy_package();
    let args = [
        "--profile",
        "builder.readWrite",
        "--packages",
        &packages,
        "--config",
        &config,
    ];
    (Client::spawn(&args), dir)
}

/// `params` as a 2026-07-28 request, declaring the tasks extension when `tasks`.
fn modern(mut params: Value, tasks: bool) -> Value {
    let extensions = if tasks {
        json!({ EXTENSION: {} })
    } else {
        json!({})
    };
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {"extensions": extensions},
    });
    params
}

/// Polls `tasks/get` until the task leaves `working`; the last answer.
fn settle(c: &mut Client, get: impl Fn() -> (String, Value)) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (method, params) = get();
        let reply = c.request(&method, params);
        let status = reply["result"]["status"].as_str().unwrap_or_default();
        if status != "working" {
            return reply;
        }
        assert!(Instant::now() < deadline, "still working: {reply}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn events_of(c: &mut Client, kind: &str, modern_request: bool) -> Vec<Value> {
    let params = json!({"name": "trace.tail", "arguments": {"type": kind}});
    let reply = if modern_request {
        c.request("tools/call", modern(params, false))
    } else {
        c.request("tools/call", params)
    };
    reply["result"]["structuredContent"]["events"]
        .as_array()
        .unwrap_or_else(|| panic!("{reply}"))
        .clone()
}

#[test]
fn a_slow_python_skill_runs_as_a_2026_task_while_the_client_goes_on() {
    let (mut c, _dir) = sleepy_host();
    let discovered = c.request("server/discover", modern(json!({}), false));
    assert!(
        discovered["result"]["capabilities"]["extensions"][EXTENSION].is_object(),
        "{discovered}"
    );
    let listed = c.request("tools/list", modern(json!({}), false));
    let support = |name: &str| {
        listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["execution"]["taskSupport"]
            .clone()
    };
    assert_eq!(support("sleepy.nap"), "optional");
    assert_eq!(support("trace.export"), "optional");
    assert_eq!(support("scene.createEntity"), "forbidden");

    let created = c.request(
        "tools/call",
        modern(
            json!({"name": "sleepy.nap", "arguments": {"seconds": 1.5}}),
            true,
        ),
    );
    let task = &created["result"];
    assert_eq!(task["resultType"], "task", "{created}");
    assert_eq!(task["status"], "working");
    assert!(task.get("task").is_none(), "flat, not nested: {task}");
    assert!(
        task["ttlMs"].is_u64() && task["pollIntervalMs"].is_u64(),
        "{task}"
    );
    assert!(task.get("ttl").is_none() && task.get("pollInterval").is_none());
    let id = task["taskId"].as_str().unwrap().to_string();

    // The client goes on while it sleeps: other calls are answered, the task still works.
    let found = c.request(
        "tools/call",
        modern(
            json!({"name": "scene.queryEntities", "arguments": {}}),
            false,
        ),
    );
    assert_eq!(found["result"]["isError"], false, "{found}");
    let now = c.request("tasks/get", modern(json!({"taskId": id}), true));
    assert_eq!(now["result"]["status"], "working", "{now}");
    assert!(now["result"].get("result").is_none());

    let done = settle(&mut c, || {
        ("tasks/get".into(), modern(json!({"taskId": id}), true))
    });
    let result = &done["result"];
    assert_eq!(result["status"], "completed", "{done}");
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["result"]["isError"], false, "{done}");
    assert!(!result["result"]["content"].as_array().unwrap().is_empty());
    assert!(
        result["result"]["_meta"]
            .get("io.modelcontextprotocol/related-task")
            .is_none()
    );
    let ended = events_of(&mut c, "task.completed", true);
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert_eq!(ended[0]["payload"]["taskId"], id.as_str());
    assert_eq!(ended[0]["payload"]["skill"], "sleepy.nap");
    let executed = events_of(&mut c, "skill.executed", true);
    assert!(
        executed
            .iter()
            .any(|e| e["payload"]["skill"] == "sleepy.nap"),
        "the call crossed the pipeline: {executed:?}"
    );

    // Without the extension declared: no task, and the tasks methods are refused naming it.
    let plain = c.request(
        "tools/call",
        modern(
            json!({"name": "sleepy.nap", "arguments": {"seconds": 0}}),
            false,
        ),
    );
    assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
    let refused = c.request("tasks/get", modern(json!({"taskId": id}), false));
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(refused["error"]["data"]["requiredCapabilities"]["extensions"][EXTENSION].is_object());
    let unknown = c.request("tasks/get", modern(json!({"taskId": "task-0-x"}), true));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown task")
    );
}

#[test]
fn cancelling_a_task_stops_its_call_and_is_idempotent() {
    let (mut c, _dir) = sleepy_host();
    let created = c.request(
        "tools/call",
        modern(
            json!({"name": "sleepy.nap", "arguments": {"seconds": 20}}),
            true,
        ),
    );
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    let ack = c.request("tasks/cancel", modern(json!({"taskId": id}), true));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("taskId").is_none(), "an empty ack: {ack}");
    let done = settle(&mut c, || {
        ("tasks/get".into(), modern(json!({"taskId": id}), true))
    });
    assert_eq!(done["result"]["status"], "cancelled", "{done}");
    // `cancelled`, not `completed`: the sleeping guest was stopped, not waited for.
    let again = c.request("tasks/cancel", modern(json!({"taskId": id}), true));
    assert_eq!(again["result"]["resultType"], "complete", "{again}");
    assert_eq!(events_of(&mut c, "task.cancelled", true).len(), 1);
    assert_eq!(events_of(&mut c, "skill.cancelled", true).len(), 1);
}

#[test]
fn trace_export_runs_as_a_2025_task_and_tasks_belong_to_their_caller() {
    let (mut c, _dir) = sleepy_host();
    let init = c.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"},
               "profile": "builder.readWrite", "agentId": "alice"}),
    );
    assert!(
        init["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"].is_object(),
        "{init}"
    );
    let created = c.request(
        "tools/call",
        json!({"name": "trace.export", "arguments": {"name": "run-1.jsonl"}, "task": {"ttl": 60000}}),
    );
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert!(
        task["ttl"].is_u64() && task["pollInterval"].is_u64(),
        "{task}"
    );
    let id = task["taskId"].as_str().unwrap().to_string();
    // `tasks/result` waits for the end, then answers the call's own result naming the task.
    let result = c.request("tasks/result", json!({"taskId": id}));
    let result = &result["result"];
    assert_eq!(result["isError"], false, "{result}");
    assert!(
        result["structuredContent"]["events"].as_u64().unwrap() > 0,
        "{result}"
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    let got = c.request("tasks/get", json!({"taskId": id}));
    assert_eq!(got["result"]["status"], "completed", "{got}");
    let listed = c.request("tasks/list", json!({}));
    assert_eq!(
        listed["result"]["tasks"][0]["taskId"],
        id.as_str(),
        "{listed}"
    );
    // A sleepy task with tasks/result sent while it runs.
    let sleeping = c.request(
        "tools/call",
        json!({"name": "sleepy.nap", "arguments": {"seconds": 0.5}, "task": {}}),
    );
    let nap = sleeping["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let woke = c.request("tasks/result", json!({"taskId": nap}));
    assert_eq!(woke["result"]["isError"], false, "{woke}");
    // A skill that cannot run as a task is simply called.
    let direct = c.request(
        "tools/call",
        json!({"name": "scene.queryEntities", "arguments": {}, "task": {}}),
    );
    assert!(direct["result"].get("task").is_none(), "{direct}");

    // Another caller is told the task does not exist.
    c.rebind("builder.readWrite", "bob");
    let theirs = c.request("tasks/get", json!({"taskId": id}));
    assert_eq!(theirs["error"]["code"], -32602, "{theirs}");
    let none = c.request("tasks/list", json!({}));
    assert_eq!(none["result"]["tasks"], json!([]), "{none}");
}

#[test]
fn one_identity_holds_a_bounded_number_of_tasks() {
    let (mut c, _dir) = sleepy_host();
    let limit = limina::limits::MAX_TASKS_PER_IDENTITY;
    for n in 0..limit {
        let created = c.request(
            "tools/call",
            modern(
                json!({"name": "sleepy.nap", "arguments": {"seconds": 0}}),
                true,
            ),
        );
        assert_eq!(
            created["result"]["resultType"], "task",
            "task {n}: {created}"
        );
    }
    let refused = c.request(
        "tools/call",
        modern(
            json!({"name": "sleepy.nap", "arguments": {"seconds": 0}}),
            true,
        ),
    );
    assert_eq!(refused["error"]["code"], -32002, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("MAX_TASKS_PER_IDENTITY"),
        "{refused}"
    );
    // The refused one was never decided: only the tasks made crossed the policy.
    let decided = events_of(&mut c, "policy.decision", true);
    let naps = decided
        .iter()
        .filter(|e| e["payload"]["cap"] == "sleepy.nap")
        .count();
    assert_eq!(naps, limit);
}

#[test]
fn over_http_each_poll_is_its_own_request_and_still_finds_the_task() {
    let (_dir, packages, config) = sleepy_package();
    let host = crate::http_client::HttpHost::start(&[
        "--profile",
        "builder.readWrite",
        "--packages",
        &packages,
        "--config",
        &config,
    ]);
    let post = |id: u64, method: &str, params: Value| {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let reply = crate::modern::post_modern(&host, &message, &[]);
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.json()
    };
    let created = post(
        1,
        "tools/call",
        modern(
            json!({"name": "sleepy.nap", "arguments": {"seconds": 0.3}}),
            true,
        ),
    );
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut n = 2;
    let done = loop {
        let got = post(n, "tasks/get", modern(json!({"taskId": id}), true));
        n += 1;
        if got["result"]["status"] != "working" {
            break got;
        }
        assert!(Instant::now() < deadline, "{got}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["result"]["isError"], false, "{done}");
}
