//! Each SDK language's HTTP client over `wasi:http`, in a guest of that language: Rust
//! (`limina_sdk::http`, `tests/guests/rustfetch`), Python (`limina_http`,
//! `tests/guests-python/fetcher`), C (`limina_http.h`, `tests/guests-c/cfetch`) and
//! JavaScript (`limina_http.js`, `tests/guests-js/jsfetch`). Each fetches from a local server
//! through the host with a grant (traced and charged), sends a body past one stream write, and
//! sees a request outside its grant refused before any connection, with the code, the trace and
//! nothing charged.

use crate::local_http::{FORECAST, LocalHttp};
use crate::support::{Client, package_dir, repo};
use serde_json::{Value, json};

/// A guest of one language: its package folder and its built component.
struct Guest {
    name: &'static str,
    dir: &'static str,
    component: &'static str,
}

const RUST: Guest = Guest {
    name: "rustfetch",
    dir: "tests/guests/rustfetch",
    component: "target/components/rustfetch.wasm",
};
const PYTHON: Guest = Guest {
    name: "fetcher",
    dir: "tests/guests-python/fetcher",
    component: "target/components/fetcher.wasm",
};
const C: Guest = Guest {
    name: "cfetch",
    dir: "tests/guests-c/cfetch",
    component: "target/components/cfetch.wasm",
};

struct Host {
    c: Client,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

/// A host serving `guest` with the network grant `network` declared and given, under a
/// profile holding `net.outbound`.
fn host(guest: &Guest, network: &str) -> Host {
    let packages = package_dir(&repo().join(guest.dir), &repo().join(guest.component));
    let manifest = packages.path().join(guest.name).join("limina.toml");
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        r#"network = ["http://127.0.0.1:9"]"#,
        &format!("network = [\"{network}\"]"),
    );
    std::fs::write(&manifest, text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limina.toml");
    // The Python guest also declares a secret; the host gives it an empty one.
    let secret = dir.path().join("token");
    std::fs::write(&secret, "unused").unwrap();
    let secrets = if guest.name == "fetcher" {
        format!(
            "[secrets]\nFETCHER_TOKEN = {{ file = \"{}\" }}\n\n[packages.fetcher.grants]\nsecrets = [\"FETCHER_TOKEN\"]\nnetwork = [\"{network}\"]\n",
            secret.display()
        )
    } else {
        format!(
            "[packages.{}.grants]\nnetwork = [\"{network}\"]\n",
            guest.name
        )
    };
    std::fs::write(
        &config,
        format!(
            "[profiles.outbound]\npermissions = [\"scene.read\", \"net.outbound\", \"secrets.read\"]\n\n{secrets}"
        ),
    )
    .unwrap();
    let c = Client::session(
        "outbound",
        &[
            "--packages",
            packages.path().to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
    );
    Host {
        c,
        _dirs: (packages, dir),
    }
}

fn events(c: &mut Client, kind: &str) -> Vec<Value> {
    c.call_ok("trace.tail", json!({"type": kind, "limit": 100}))["events"]
        .as_array()
        .unwrap()
        .clone()
}

fn net_used(c: &mut Client) -> Value {
    c.call_ok("audit.usage", json!({}))["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["budget"]["net"].clone())
        .find(|n| !n.is_null())
        .unwrap_or(Value::Null)
}

/// A granted GET comes back whole, traced as `net.request` and charged to `budget.net`.
fn fetches_a_granted_url(guest: &Guest) {
    let server = LocalHttp::start();
    let base = server.base();
    let mut h = host(guest, &base);
    let out = h.c.call_ok(
        &format!("{}.get", guest.name),
        json!({"url": format!("{base}/v1/forecast?latitude=1")}),
    );
    assert_eq!(out["status"], 200, "{}: {out}", guest.name);
    assert_eq!(out["body"], FORECAST, "{}: {out}", guest.name);
    let seen = server.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].target, "/v1/forecast?latitude=1");
    let requests = events(&mut h.c, "net.request");
    assert_eq!(requests.len(), 1, "{requests:?}");
    let p = &requests[0]["payload"];
    assert_eq!(p["package"], guest.name);
    assert_eq!(p["path"], "/v1/forecast");
    assert_eq!(p["status"], 200);
    assert_eq!(p["bytesIn"], FORECAST.len());
    assert_eq!(net_used(&mut h.c)["requests"]["used"], 1);
}

/// A POST body larger than one `blocking-write-and-flush` (4096 bytes) arrives whole.
fn posts_a_body_past_one_stream_write(guest: &Guest) {
    let server = LocalHttp::start();
    let base = server.base();
    let mut h = host(guest, &base);
    let body: String = (0..10_000)
        .map(|i| (b'a' + (i % 26) as u8) as char)
        .collect();
    let out = h.c.call_ok(
        &format!("{}.get", guest.name),
        json!({"url": format!("{base}/echo"), "method": "POST", "body": body}),
    );
    assert_eq!(out["status"], 200, "{}: {out}", guest.name);
    // The Python probe answers the first 2,000 characters of what it read.
    let echoed = out["body"].as_str().unwrap();
    assert!(
        echoed.len() >= 2000 && body.starts_with(echoed),
        "{}: the echo is the body sent: {out}",
        guest.name
    );
    let seen = server.seen();
    assert_eq!(seen[0].method, "POST");
    assert_eq!(
        seen[0].body,
        body.as_bytes(),
        "the server got the body whole"
    );
    let requests = events(&mut h.c, "net.request");
    assert_eq!(requests[0]["payload"]["bytesOut"], 10_000);
}

/// A URL outside the grant is refused before any connection: the guest sees
/// `HttpRequestDenied`, the refusal is traced under `net.grant`, nothing is charged.
fn refuses_a_url_outside_the_grant(guest: &Guest) {
    let server = LocalHttp::start();
    let base = server.base();
    let mut h = host(guest, &format!("{base}/v1"));
    let out = h.c.call_ok(
        &format!("{}.get", guest.name),
        json!({"url": format!("{base}/v2/forecast")}),
    );
    assert_eq!(out, json!({"error": "HttpRequestDenied"}), "{}", guest.name);
    let denied = events(&mut h.c, "security.permission.denied");
    assert_eq!(denied.len(), 1, "{denied:?}");
    assert_eq!(denied[0]["payload"]["rule"], "net.grant");
    assert_eq!(denied[0]["payload"]["path"], "/v2/forecast");
    assert!(server.seen().is_empty(), "nothing reached the server");
    assert!(events(&mut h.c, "net.request").is_empty());
    assert_eq!(net_used(&mut h.c), Value::Null, "nothing charged");
}

#[test]
fn rust_sdk_client_fetches_a_granted_url() {
    fetches_a_granted_url(&RUST);
}

#[test]
fn rust_sdk_client_posts_a_body_past_one_stream_write() {
    posts_a_body_past_one_stream_write(&RUST);
}

#[test]
fn rust_sdk_client_is_refused_outside_its_grant() {
    refuses_a_url_outside_the_grant(&RUST);
}

#[test]
fn python_sdk_client_fetches_a_granted_url() {
    fetches_a_granted_url(&PYTHON);
}

#[test]
fn python_sdk_client_posts_a_body_past_one_stream_write() {
    posts_a_body_past_one_stream_write(&PYTHON);
}

#[test]
fn python_sdk_client_is_refused_outside_its_grant() {
    refuses_a_url_outside_the_grant(&PYTHON);
}

#[test]
fn c_sdk_client_fetches_a_granted_url() {
    fetches_a_granted_url(&C);
}

#[test]
fn c_sdk_client_posts_a_body_past_one_stream_write() {
    posts_a_body_past_one_stream_write(&C);
}

#[test]
fn c_sdk_client_is_refused_outside_its_grant() {
    refuses_a_url_outside_the_grant(&C);
}

/// componentize-qjs cannot build a component importing `wasi:http`, so a JavaScript package
/// with network grants is refused before any tool runs, with a message saying why and what
/// to do instead, and nothing is written.
#[test]
fn a_javascript_package_with_network_grants_is_refused_at_build_saying_why() {
    use crate::support::{limina, text};
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_str().unwrap();
    let created = limina(&["pkg", "new", "netjs", "--lang", "js", "--dir", root]);
    assert!(created.status.success(), "{}", text(&created.stderr));
    let dir = tmp.path().join("netjs");
    let manifest = dir.join("limina.toml");
    let text_before = std::fs::read_to_string(&manifest).unwrap();
    let granted = text_before.replace(
        "# [grants]\n# network = [",
        "[grants]\nnetwork = [\"https://api.example.com/v1\"]\n# [",
    );
    assert_ne!(granted, text_before, "the template shows a commented grant");
    std::fs::write(&manifest, &granted).unwrap();
    let built = limina(&["pkg", "build", dir.to_str().unwrap()]);
    let err = text(&built.stderr);
    assert!(!built.status.success(), "{err}");
    assert!(
        err.contains("a JavaScript package cannot declare `[grants] network` yet")
            && err.contains("componentize-qjs")
            && err.contains("Rust, Python or C"),
        "{err}"
    );
    assert!(!dir.join("netjs.wasm").exists(), "nothing was built");
    assert_eq!(
        std::fs::read_to_string(&manifest).unwrap(),
        granted,
        "the manifest is as it was"
    );
}
