//! Upstream MCP servers mounted into the registry (`[[upstream]]`): a real server made with
//! the official Python SDK (`mcp` 2.3, `tests/upstreams/python_server.py`) started by the host
//! over stdio; its tools listed beside the world's, called through the one pipeline, traced
//! and charged; refusals that the server never sees; a server killed, a slow one, a cancelled
//! call, progress, and a tool list that changes.

use crate::support::{Client, error_of, repo};
use limina_guest_build::clients::PYTHON_SDK_MODERN;
use limina_guest_build::tools::venv_python;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

/// A host whose configuration mounts the Python server as `py`, with the server's marks file.
struct Mounted {
    client: Client,
    marks: PathBuf,
    _dir: tempfile::TempDir,
}

impl Mounted {
    /// What reached the server, one line per tool call.
    fn marks(&self) -> Vec<String> {
        std::fs::read_to_string(&self.marks)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// The configuration: the server as `py` (`extra` lines added to its entry), a profile
/// `agent` that holds `upstream.py` and one `outsider` that does not; `rest` appended.
fn config(python: &str, marks: &std::path::Path, extra: &str, rest: &str) -> String {
    let script = repo().join("tests/upstreams/python_server.py");
    format!(
        r#"[profiles.agent]
permissions = ["scene.read", "upstream.py"]

[profiles.outsider]
permissions = ["scene.read"]

{rest}

[[upstream]]
name = "py"
transport = "stdio"
command = "{python}"
args = ["{script}"]
env = {{ UPSTREAM_MARKS = "{marks}" }}
tools = ["echo", "add", "slow", "crash", "fail", "grow", "grown", "big", "long", "leak"]
{extra}
"#,
        script = script.display(),
        marks = marks.display(),
    )
}

fn python() -> String {
    let sdk = PYTHON_SDK_MODERN
        .ensure()
        .expect("installing the Python MCP SDK 2.3");
    venv_python(&sdk).display().to_string()
}

/// A host mounting the server, with a session under `profile`.
fn mounted(profile: &str, extra: &str, rest: &str) -> Mounted {
    mounted_with(&python(), profile, extra, rest)
}

/// [`mounted`], with the server run by `python`.
fn mounted_with(python: &str, profile: &str, extra: &str, rest: &str) -> Mounted {
    let dir = tempfile::tempdir().unwrap();
    let marks = dir.path().join("marks");
    let path = dir.path().join("limina.toml");
    std::fs::write(&path, config(python, &marks, extra, rest)).unwrap();
    let client = Client::session(profile, &["--config", path.to_str().unwrap()]);
    Mounted {
        client,
        marks,
        _dir: dir,
    }
}

fn tool_names(c: &mut Client) -> Vec<String> {
    let reply = c.request("tools/list", json!({}));
    reply["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn executed(c: &mut Client, skill: &str) -> Vec<Value> {
    c.call_ok(
        "trace.tail",
        json!({"type": "skill.executed", "limit": 200}),
    )["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["payload"]["skill"] == skill)
        .cloned()
        .collect()
}

fn usage_of(c: &mut Client, cap: &str) -> (i64, i64) {
    let usage = c.call_ok("audit.usage", json!({}));
    usage["perSessionCap"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["cap"] == cap)
        .map(|row| {
            (
                row["allowed"].as_i64().unwrap(),
                row["denied"].as_i64().unwrap(),
            )
        })
        .unwrap_or((0, 0))
}

fn budget(c: &mut Client) -> Value {
    let usage = c.call_ok("audit.usage", json!({}));
    usage["budgets"][0]["budget"].clone()
}

#[test]
fn a_python_servers_tools_are_listed_called_traced_and_charged() {
    let mut m = mounted("agent", "", "[budgets]\ncalls = 100\nupstreamMs = 600000\n");
    let c = &mut m.client;
    let names = tool_names(c);
    for want in ["py.echo", "py.add", "scene.queryEntities"] {
        assert!(
            names.contains(&want.to_string()),
            "{want} missing: {names:?}"
        );
    }
    // The allow-list leaves `hidden` out.
    assert!(!names.iter().any(|n| n == "py.hidden"), "{names:?}");
    let listed = c.request("tools/list", json!({}));
    let add = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "py.add")
        .unwrap()
        .clone();
    assert_eq!(add["_meta"]["upstream"], "py");
    assert_eq!(add["description"], "Adds two integers.");
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    // Another server's long description is cut to the limit and says where it came from.
    let long = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "py.long")
        .unwrap()
        .clone();
    let text = long["description"].as_str().unwrap();
    assert!(
        text.len() <= limina::limits::UPSTREAM_DESCRIPTION_BYTES,
        "{}",
        text.len()
    );
    assert!(
        text.starts_with("A description far longer")
            && text.ends_with("from upstream `py` was longer]")
    );
    assert_eq!(long["_meta"]["upstream"], "py");

    assert_eq!(
        c.call_ok("py.add", json!({"a": 2, "b": 3})),
        json!({"result": 5})
    );
    let echoed = c.call_ok("py.echo", json!({"text": "hello"}));
    assert_eq!(echoed, json!({"result": "hello"}));

    let events = executed(c, "py.add");
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["payload"]["upstream"], "py");
    assert_eq!(events[0]["payload"]["input"], json!({"a": 2, "b": 3}));
    assert_eq!(usage_of(c, "py.add"), (1, 0));
    let spent = budget(c);
    assert!(
        spent["upstreamMs"]["used"].as_f64().unwrap() > 0.0,
        "wall time is charged: {spent}"
    );
    assert_eq!(m.marks(), vec!["add 2 3", "echo hello"]);
    // skills.search finds it like any skill.
    let c = &mut m.client;
    let found = c.call_ok("skills.search", json!({"query": "add two integers"}));
    assert_eq!(found["results"][0]["name"], "py.add", "{found}");
}

#[test]
fn the_servers_stderr_goes_to_the_host_log_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("limina.toml");
    std::fs::write(&path, config(&python(), &dir.path().join("marks"), "", "")).unwrap();
    // stdin is closed at once: the host starts, mounts the server, and stops.
    let out = crate::support::limina(&[
        "--mcp-stdio",
        "--ephemeral-trace",
        "--config",
        path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("limina info: upstream `py`: py-upstream: serving"),
        "{stderr}"
    );
    assert!(
        stderr.contains("upstream `py` (py-upstream) speaks 2026-07-28"),
        "{stderr}"
    );
}

#[test]
fn a_schema_invalid_call_is_refused_before_the_upstream_sees_it() {
    let mut m = mounted("agent", "", "[budgets]\ncalls = 100\n");
    let c = &mut m.client;
    let before = budget(c);
    let result = c.call("py.add", json!({"a": "two", "b": 3}));
    let (code, message) = error_of(&result);
    assert_eq!(code, "invalid_input");
    assert!(
        message.contains("py.add") && message.contains("`a`"),
        "{message}"
    );
    // The budget counted only the audit.usage read after it, not the refused call.
    assert_eq!(
        budget(c)["calls"]["used"].as_i64().unwrap(),
        before["calls"]["used"].as_i64().unwrap() + 1
    );
    assert!(executed(c, "py.add").is_empty());
    assert_eq!(usage_of(c, "py.add"), (0, 0));
    assert!(m.marks().is_empty(), "the server saw {:?}", m.marks());
}

#[test]
fn a_session_without_the_capability_neither_sees_nor_reaches_the_tools() {
    let mut m = mounted("outsider", "", "");
    let c = &mut m.client;
    let names = tool_names(c);
    assert!(!names.iter().any(|n| n.starts_with("py.")), "{names:?}");
    let result = c.call("py.echo", json!({"text": "hi"}));
    let (code, message) = error_of(&result);
    assert_eq!(code, "forbidden");
    assert!(
        message.contains("missing permission: upstream.py"),
        "{message}"
    );
    assert!(executed(c, "py.echo").is_empty());
    assert_eq!(usage_of(c, "py.echo"), (0, 1));
    assert!(m.marks().is_empty(), "the server saw {:?}", m.marks());
}

#[test]
fn the_upstream_time_budget_refuses_once_spent() {
    let mut m = mounted("agent", "", "[budgets]\nupstreamMs = 0.001\n");
    let c = &mut m.client;
    c.call_ok("py.echo", json!({"text": "once"}));
    let result = c.call("py.echo", json!({"text": "twice"}));
    let (code, message) = error_of(&result);
    assert_eq!(code, "forbidden");
    assert!(message.contains("upstream time budget spent"), "{message}");
    // World skills are not held to it.
    c.call_ok("scene.queryEntities", json!({}));
    assert_eq!(m.marks(), vec!["echo once"]);
}

#[test]
fn quotas_and_tool_allow_lists_hold_upstream_tools_like_any_skill() {
    let rest = "[[quotas]]\ncap = \"py.echo\"\nlimit = 1\nwindowMs = 600000\n\n[profiles.narrow]\npermissions = [\"upstream.py\"]\ntools = [\"py.add\", \"audit.*\", \"trace.*\"]\n";
    let mut m = mounted("agent", "", rest);
    let c = &mut m.client;
    c.call_ok("py.echo", json!({"text": "one"}));
    let (code, message) = error_of(&c.call("py.echo", json!({"text": "two"})));
    assert_eq!(code, "forbidden");
    assert!(
        message.contains(":py.echo:") && message.contains("all are used"),
        "{message}"
    );
    c.rebind("narrow", "narrow-agent");
    let names = tool_names(c);
    assert!(names.contains(&"py.add".to_string()), "{names:?}");
    assert!(!names.contains(&"py.echo".to_string()), "{names:?}");
    let (code, message) = error_of(&c.call("py.echo", json!({"text": "three"})));
    assert_eq!(code, "forbidden");
    assert!(
        message.contains("does not allow the tool `py.echo`"),
        "{message}"
    );
    assert_eq!(m.marks(), vec!["echo one"]);
}

#[test]
fn revoking_an_upstream_refuses_its_tools() {
    let dir = tempfile::tempdir().unwrap();
    let config =
        limina::config::Config::parse(&config(&python(), &dir.path().join("marks"), "", ""))
            .unwrap();
    let mut registry = crate::support::in_process_registry(&[]);
    registry.policy_mut().reconfigure(config.policy.clone());
    let upstream = limina::upstream::Upstream::start(config.upstreams[0].clone()).unwrap();
    registry.mount_upstreams(vec![upstream.clone()]).unwrap();
    let caller = limina::registry::Caller {
        agent_id: "a".into(),
        session_id: "s".into(),
        profile: "agent".into(),
        permissions: Default::default(),
    };
    let ok = registry.invoke(&caller, "py.echo", json!({"text": "before"}));
    assert!(ok.success, "{:?}", ok.error);
    registry.revoke_package("py");
    let refused = registry.invoke(&caller, "py.echo", json!({"text": "after"}));
    let failure = refused.error.expect("refused");
    assert_eq!(failure.code, limina::call::ErrorCode::Forbidden);
    assert!(
        failure.message.contains("`py` was revoked"),
        "{}",
        failure.message
    );
    let marks = std::fs::read_to_string(dir.path().join("marks")).unwrap();
    assert_eq!(marks, "echo before\n");
    upstream.stop();
}

#[test]
fn an_error_result_is_a_handler_error_naming_the_upstream() {
    let mut m = mounted("agent", "", "");
    let c = &mut m.client;
    let (code, message) = error_of(&c.call("py.fail", json!({})));
    assert_eq!(code, "handler_error");
    assert!(
        message.contains("upstream `py` tool `fail` failed: Error executing tool fail"),
        "{message}"
    );
    assert!(executed(c, "py.fail").is_empty());
}

#[test]
fn an_upstream_that_would_shadow_a_package_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let marks = dir.path().join("marks");
    let text = config(&python(), &marks, "", "").replace("name = \"py\"", "name = \"scene\"");
    let path = dir.path().join("limina.toml");
    std::fs::write(&path, text).unwrap();
    let out = crate::support::limina(&[
        "--mcp-stdio",
        "--ephemeral-trace",
        "--config",
        path.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("upstream `scene`") && stderr.contains("would shadow the package `scene`"),
        "{stderr}"
    );
}

#[test]
fn a_bad_entry_is_refused_at_start_naming_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("limina.toml");
    std::fs::write(
        &path,
        "[[upstream]]\nname = \"py\"\ntransport = \"stdio\"\ncommand = \"x\"\ntimeoutMs = -5\n",
    )
    .unwrap();
    let out = crate::support::limina(&["--mcp-stdio", "--config", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let at = format!("{}:5:", path.display());
    assert!(
        stderr.contains(&at) && stderr.contains("`upstream[0].timeoutMs` must be > 0"),
        "{stderr}"
    );
}

#[test]
fn a_killed_upstream_answers_that_it_is_down_and_comes_back() {
    let mut m = mounted("agent", "", "");
    let c = &mut m.client;
    let (code, message) = error_of(&c.call("py.crash", json!({})));
    assert_eq!(code, "handler_error");
    assert!(message.contains("upstream `py`"), "{message}");
    // While it is down (or restarting) its tools say so at once; then it is back.
    let mut said_down = false;
    let mut back = false;
    for _ in 0..200 {
        let result = c.call("py.echo", json!({"text": "again"}));
        if result["isError"] == json!(false) {
            back = true;
            break;
        }
        let (code, message) = error_of(&result);
        assert_eq!(code, "handler_error");
        assert!(message.contains("upstream `py`"), "{message}");
        said_down = true;
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(said_down, "a call right after the crash saw it down");
    assert!(back, "the server was restarted");
    assert!(m.marks().contains(&"echo again".to_string()));
}

#[test]
fn a_slow_upstream_past_its_timeout_is_cancelled_there() {
    let mut m = mounted("agent", "timeoutMs = 1000", "");
    let c = &mut m.client;
    let (code, message) = error_of(&c.call("py.slow", json!({"ms": 20000})));
    assert_eq!(code, "capacity_exceeded");
    assert!(
        message.contains("did not answer `slow` within its 1000 ms timeoutMs"),
        "{message}"
    );
    assert!(wait_for_mark(&m, "cancelled"), "marks: {:?}", m.marks());
    // Other calls go on.
    let c = &mut m.client;
    assert_eq!(
        c.call_ok("py.add", json!({"a": 1, "b": 1})),
        json!({"result": 2})
    );
}

#[test]
fn a_cancelled_call_is_cancelled_at_the_upstream_and_progress_is_relayed() {
    let mut m = mounted("agent", "", "");
    let c = &mut m.client;
    c.send_line(
        &json!({"jsonrpc": "2.0", "id": 900, "method": "tools/call", "params": {
            "name": "py.slow", "arguments": {"ms": 20000}, "_meta": {"progressToken": "p1"}
        }})
        .to_string(),
    );
    let progress = c
        .wait_notification("notifications/progress", Duration::from_secs(30))
        .expect("progress relayed from the upstream");
    assert_eq!(progress["params"]["progressToken"], "p1");
    assert_eq!(progress["params"]["total"], json!(4.0));
    c.notify(
        "notifications/cancelled",
        json!({"requestId": 900, "reason": "changed my mind"}),
    );
    assert!(wait_for_mark(&m, "cancelled"), "marks: {:?}", m.marks());
    // The connection serves on; the cancelled call was traced as such.
    let c = &mut m.client;
    assert_eq!(
        c.call_ok("py.add", json!({"a": 1, "b": 2})),
        json!({"result": 3})
    );
    let cancelled = c.call_ok(
        "trace.tail",
        json!({"type": "skill.cancelled", "limit": 10}),
    );
    assert_eq!(cancelled["events"][0]["payload"]["skill"], "py.slow");
}

#[test]
fn an_upstreams_list_changed_remounts_its_tools_and_is_passed_on() {
    // Under `warn` a tool added later is mounted at once and reported (`hold`, the default,
    // holds it: `upstream_pins.rs`).
    let mut m = mounted("agent", "pinning = \"warn\"", "");
    let c = &mut m.client;
    assert!(!tool_names(c).contains(&"py.grown".to_string()));
    c.call_ok("py.grow", json!({}));
    let note = c.wait_notification("notifications/tools/list_changed", Duration::from_secs(30));
    assert!(note.is_some(), "list_changed passed on");
    let names = tool_names(c);
    assert!(names.contains(&"py.grown".to_string()), "{names:?}");
    assert_eq!(
        c.call_ok("py.grown", json!({"text": "up"})),
        json!({"result": "UP"})
    );
    let changed = c.call_ok(
        "trace.tail",
        json!({"type": "upstream.tool.changed", "limit": 10}),
    );
    let p = &changed["events"][0]["payload"];
    assert_eq!(
        (&p["tool"], &p["from"], &p["held"]),
        (&json!("grown"), &Value::Null, &json!(false)),
        "{p}"
    );
}

#[test]
fn a_server_that_only_speaks_2025_11_25_is_initialized_after_discover_fails() {
    // The 1.x SDK's server knows no `server/discover`: the host falls back to `initialize`.
    use limina_guest_build::clients::PYTHON_SDK;
    let sdk = PYTHON_SDK
        .ensure()
        .expect("installing the Python MCP SDK 1.x");
    let python = venv_python(&sdk).display().to_string();
    let mut m = mounted_with(&python, "agent", "pinning = \"warn\"", "");
    let c = &mut m.client;
    assert!(tool_names(c).contains(&"py.echo".to_string()));
    assert_eq!(
        c.call_ok("py.add", json!({"a": 40, "b": 2})),
        json!({"result": 42})
    );
    c.call_ok("py.grow", json!({}));
    let note = c.wait_notification("notifications/tools/list_changed", Duration::from_secs(30));
    assert!(
        note.is_some(),
        "list_changed passed on from a 2025-11-25 server"
    );
    assert!(tool_names(c).contains(&"py.grown".to_string()));
    assert_eq!(m.marks()[0], "add 40 2");
}

#[test]
fn a_package_loaded_under_an_upstreams_name_is_refused() {
    // In process: an upstream named `scene` mounted first, then the core `scene` package.
    let dir = tempfile::tempdir().unwrap();
    let text = config(&python(), &dir.path().join("marks"), "", "")
        .replace("name = \"py\"", "name = \"scene\"");
    let config = limina::config::Config::parse(&text).unwrap();
    let mut registry = crate::support::in_process_registry(&[]);
    let upstream = limina::upstream::Upstream::start(config.upstreams[0].clone()).unwrap();
    registry.mount_upstreams(vec![upstream.clone()]).unwrap();
    assert!(registry.skill("scene.echo").is_some());
    let source = limina::packages::PackageSource::read(&repo().join("target/core/scene")).unwrap();
    let err = registry.load(source).unwrap_err().to_string();
    assert!(
        err.contains("the name `scene` belongs to the upstream server `scene`"),
        "{err}"
    );
    assert!(registry.skill("scene.createEntity").is_none());
    upstream.stop();
}

#[test]
fn a_result_over_the_cap_is_a_handler_error() {
    let mut m = mounted("agent", "", "");
    let c = &mut m.client;
    let (code, message) = error_of(&c.call("py.big", json!({"kib": 1100})));
    assert_eq!(code, "handler_error");
    assert!(
        message.contains("upstream `py` returned") && message.contains("over the 1048576 byte cap"),
        "{message}"
    );
    assert!(executed(c, "py.big").is_empty());
}

#[test]
fn a_slow_upstream_call_holds_up_no_other_client() {
    let dir = tempfile::tempdir().unwrap();
    let marks = dir.path().join("marks");
    let path = dir.path().join("limina.toml");
    std::fs::write(&path, config(&python(), &marks, "", "")).unwrap();
    let host = crate::ws_client::WsHost::start(&[
        "--config",
        path.to_str().unwrap(),
        "--profile",
        "agent",
    ]);
    let mut waiting = host.client("agent", "slowpoke");
    let mut other = host.client("agent", "other");
    let id = waiting.send_request(
        "tools/call",
        json!({"name": "py.slow", "arguments": {"ms": 4000}}),
    );
    let reached = (0..300).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        std::fs::read_to_string(&marks).is_ok_and(|m| m.contains("slow 4000"))
    });
    assert!(reached, "the slow call reached the server");
    // While it runs: the world and the same upstream answer the other client.
    other.call_ok("scene.queryEntities", json!({}));
    let (echoed, _) = other.call_ok("py.echo", json!({"text": "meanwhile"}));
    assert_eq!(echoed, json!({"result": "meanwhile"}));
    assert!(
        waiting
            .read_for(Duration::from_millis(10))
            .is_none_or(|m| m.get("id") != Some(&json!(id))),
        "the slow call was still running"
    );
    let reply = waiting.reply_to(id);
    assert_eq!(
        reply["result"]["structuredContent"],
        json!({"result": "done"})
    );
}

fn wait_for_mark(m: &Mounted, mark: &str) -> bool {
    for _ in 0..300 {
        if m.marks().iter().any(|l| l == mark) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn a_credential_in_an_upstream_result_is_redacted_and_traced_without_its_value() {
    let mut m = mounted("agent", "", "");
    let c = &mut m.client;
    for (kind, shape) in [
        ("github", "github_token"),
        ("jwt", "jwt"),
        ("aws", "aws_access_key_id"),
    ] {
        let out = c.call_ok("py.leak", json!({"kind": kind}));
        assert_eq!(
            out,
            json!({"result": format!("the config file says token=[redacted:{shape}] (do not share)")}),
            "{kind}"
        );
    }
    let hits = c.call_ok(
        "trace.tail",
        json!({"type": "security.secret.redacted", "limit": 10}),
    );
    let kinds: Vec<&Value> = hits["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["payload"])
        .collect();
    assert_eq!(kinds.len(), 3, "{hits}");
    assert_eq!(
        kinds[0],
        &json!({"where": "result", "kind": "github_token", "skill": "py.leak", "action": "redacted"})
    );
    let trace = c.call_ok("trace.tail", json!({"limit": 1000})).to_string();
    for secret in [
        "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        "IOSFODNN7EXAMPLE",
        "c2lnbmF0dXJl",
    ] {
        assert!(!trace.contains(secret), "{secret} in the trace");
    }
}

#[test]
fn with_scan_results_refuse_an_upstream_result_holding_a_credential_is_refused() {
    let mut m = mounted("agent", "", "[outbound]\nscanResults = \"refuse\"\n");
    let c = &mut m.client;
    let (code, message) = error_of(&c.call("py.leak", json!({"kind": "github"})));
    assert_eq!(code, "forbidden");
    assert!(
        message.contains("(github_token)") && message.contains("scanResults = \"refuse\""),
        "{message}"
    );
    assert!(!message.contains("a1B2c3D4"), "{message}");
    let hits = c.call_ok(
        "trace.tail",
        json!({"type": "security.secret.redacted", "limit": 10}),
    );
    assert_eq!(hits["events"][0]["payload"]["action"], "refused");
    // Everything else still passes.
    assert_eq!(
        c.call_ok("py.add", json!({"a": 1, "b": 2})),
        json!({"result": 3})
    );
}
