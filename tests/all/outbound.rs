//! Outbound HTTP over real sockets: the `weather` example package against a local API the
//! test starts, through the whole pipeline — the grant check, the address check, the
//! request traced (`net.request`, no query or header values), its bytes charged to
//! `budget.net` and shown by `audit.usage`; and each refusal with its code, message and trace.

use crate::local_http::{LocalHttp, Seen};
use crate::support::{Client, error_of, package_dir, repo};
use serde_json::{Value, json};

/// The API key the tests give `weather` as a secret.
const KEY: &str = "k3y-that-must-not-leak";

/// The profile the tests' sessions use: the builder's, plus outbound I/O.
const PROFILE: &str = r#"
[profiles.outbound]
permissions = ["scene.read", "net.outbound", "secrets.read"]
"#;

/// A host serving `weather`, its manifest's grants pointed at `grants`, configured by
/// `config`, with secret files `WEATHER_API_URL` = `api` and `WEATHER_API_KEY` = [`KEY`].
pub struct Weather {
    pub client: Client,
    _packages: tempfile::TempDir,
    _config: tempfile::TempDir,
}

pub fn weather_host(network: &str, api: &str, config: &str, profile: &str) -> Weather {
    let packages = package_dir(
        &repo().join("packages/weather"),
        &repo().join("packages/weather/weather.wasm"),
    );
    let manifest = packages.path().join("weather/limina.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replace(
        r#"network = ["https://api.open-meteo.com/v1"]"#,
        &format!("network = [\"{network}\"]"),
    );
    std::fs::write(&manifest, text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let url_file = dir.path().join("url");
    let key_file = dir.path().join("key");
    std::fs::write(&url_file, api).unwrap();
    std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
    let config_text = format!(
        "{PROFILE}\n[secrets]\nWEATHER_API_URL = {{ file = \"{}\" }}\nWEATHER_API_KEY = {{ file = \"{}\" }}\n{config}",
        url_file.display(),
        key_file.display()
    );
    let config_path = dir.path().join("limina.toml");
    std::fs::write(&config_path, config_text).unwrap();
    let client = Client::session(
        profile,
        &[
            "--packages",
            packages.path().to_str().unwrap(),
            "--config",
            config_path.to_str().unwrap(),
        ],
    );
    Weather {
        client,
        _packages: packages,
        _config: dir,
    }
}

/// `[packages.weather.grants]` giving `network` and both secrets.
pub fn given(network: &str) -> String {
    format!(
        "[packages.weather.grants]\nnetwork = [\"{network}\"]\nsecrets = [\"WEATHER_API_URL\", \"WEATHER_API_KEY\"]\n"
    )
}

fn events(c: &mut Client, kind: &str) -> Vec<Value> {
    c.call_ok("trace.tail", json!({"type": kind, "limit": 100}))["events"]
        .as_array()
        .unwrap()
        .clone()
}

fn net_budget(c: &mut Client) -> Value {
    let usage = c.call_ok("audit.usage", json!({}));
    usage["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["budget"]["net"].clone())
        .find(|n| !n.is_null())
        .unwrap_or(Value::Null)
}

fn whole_trace(c: &mut Client) -> String {
    c.call_ok("trace.tail", json!({"limit": 1000})).to_string()
}

fn forecasts(server: &LocalHttp) -> Vec<Seen> {
    server
        .seen()
        .into_iter()
        .filter(|s| s.target.starts_with("/v1/forecast"))
        .collect()
}

const BERLIN: fn() -> Value = || json!({"latitude": 52.52, "longitude": 13.41});

#[test]
fn weather_fetches_a_local_api_traced_and_charged_without_query_or_secrets() {
    let server = LocalHttp::start();
    let base = server.base();
    let mut w = weather_host(
        &format!("{base}/v1"),
        &format!("{base}/v1"),
        &given(&base),
        "outbound",
    );
    let c = &mut w.client;
    let out = c.call_ok("weather.current", BERLIN());
    assert_eq!(
        out,
        json!({"temperatureC": 21.5, "windKmh": 7.25, "time": "2026-11-24T12:00"})
    );
    let seen = forecasts(&server);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].target.contains("latitude=52.52"), "{:?}", seen[0]);
    assert_eq!(
        seen[0].header("x-api-key"),
        Some(KEY),
        "the secret reached the API"
    );
    assert_eq!(
        seen[0].header("host"),
        Some(format!("127.0.0.1:{}", server.port).as_str())
    );

    let requests = events(c, "net.request");
    assert_eq!(requests.len(), 1, "{requests:?}");
    let p = &requests[0]["payload"];
    assert_eq!(p["package"], "weather");
    assert_eq!(p["method"], "GET");
    assert_eq!(p["scheme"], "http");
    assert_eq!(p["host"], "127.0.0.1");
    assert_eq!(p["port"], server.port);
    assert_eq!(p["path"], "/v1/forecast", "no query in the trace");
    assert_eq!(p["status"], 200);
    assert_eq!(p["bytesIn"], crate::local_http::FORECAST.len());
    assert_eq!(p["bytesOut"], 0);
    assert!(p["ms"].as_f64().is_some());
    // Caused by the call's policy decision, like every guest crossing.
    let executed = events(c, "skill.executed");
    assert_eq!(
        requests[0]["parentEventId"], executed[0]["causedBy"][0],
        "{requests:?} {executed:?}"
    );
    let trace = whole_trace(c);
    assert!(!trace.contains(KEY), "no secret in the trace");
    assert!(
        !trace.contains("latitude=52.52"),
        "no query string in the trace"
    );
    assert_eq!(
        net_budget(c),
        json!({"requests": {"used": 1, "limit": null}, "bytes": {"used": crate::local_http::FORECAST.len(), "limit": null}})
    );
}

/// Calls `weather.current` and returns its error code and message.
fn refused_call(c: &mut Client) -> (String, String) {
    let r = c.call("weather.current", BERLIN());
    error_of(&r)
}

fn denial(c: &mut Client) -> Value {
    let denied = events(c, "security.permission.denied");
    assert_eq!(denied.len(), 1, "one refusal traced: {denied:?}");
    denied[0]["payload"].clone()
}

#[test]
fn a_url_outside_the_grant_is_refused_before_any_connection() {
    let server = LocalHttp::start();
    let base = server.base();
    // Granted /v1 only; the API base points at /v2.
    let mut w = weather_host(
        &format!("{base}/v1"),
        &format!("{base}/v2"),
        &given(&base),
        "outbound",
    );
    let c = &mut w.client;
    let (code, message) = refused_call(c);
    assert_eq!(code, "forbidden");
    assert!(
        message.contains("(net.grant)")
            && message.contains(&format!("GET http://127.0.0.1:{}/v2/forecast", server.port))
            && message.contains("HttpRequestDenied"),
        "{message}"
    );
    assert!(
        !message.contains("latitude"),
        "no query in the message: {message}"
    );
    let p = denial(c);
    assert_eq!(p["rule"], "net.grant");
    assert_eq!(p["boundary"], "net");
    assert_eq!(p["path"], "/v2/forecast");
    assert!(server.seen().is_empty(), "nothing reached the server");
    assert!(events(c, "net.request").is_empty());
    assert_eq!(net_budget(c), Value::Null, "nothing charged");
    assert_eq!(
        c.call_ok("scene.queryEntities", json!({}))["entities"],
        json!([]),
        "the world is as it was"
    );
}

#[test]
fn a_session_without_net_outbound_sends_nothing() {
    let server = LocalHttp::start();
    let base = server.base();
    let mut w = weather_host(
        &format!("{base}/v1"),
        &format!("{base}/v1"),
        &format!(
            "{}\n[profiles.reader]\npermissions = [\"scene.read\", \"secrets.read\"]\n",
            given(&base)
        ),
        "reader",
    );
    let c = &mut w.client;
    // The skill declares net.outbound: hidden from this session and refused by policy.
    let r = c.call("weather.current", BERLIN());
    let (code, message) = error_of(&r);
    assert_eq!(code, "forbidden");
    assert!(message.contains("net.outbound"), "{message}");
    assert!(server.seen().is_empty());
}

#[test]
fn the_net_budget_refuses_requests_once_spent() {
    let server = LocalHttp::start();
    let base = server.base();
    let mut w = weather_host(
        &format!("{base}/v1"),
        &format!("{base}/v1"),
        &format!("{}\n[budgets]\nnetRequests = 1\n", given(&base)),
        "outbound",
    );
    let c = &mut w.client;
    c.call_ok("weather.current", BERLIN());
    let (code, message) = refused_call(c);
    assert_eq!(code, "forbidden");
    assert!(message.contains("(budget.net)"), "{message}");
    assert_eq!(denial(c)["rule"], "budget.net");
    assert_eq!(forecasts(&server).len(), 1, "the second request never left");
    assert_eq!(net_budget(c)["requests"], json!({"used": 1, "limit": 1}));
}
