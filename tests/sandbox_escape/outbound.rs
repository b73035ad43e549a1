//! Reaching past the network and secrets grants (`tests/guests-python/fetcher`): address
//! tricks, a granted name that resolves inside, redirects, oversized and trickling answers,
//! secrets not granted, and a granted secret echoed back. Every refusal happens before a
//! connection is attempted (the hosts run with `LIMINA_NET_LOOPBACK_ONLY`, so a connection
//! anywhere but loopback would abort the host and fail the test).

use crate::local_http::{BIG_BYTES, LEAKY, LocalHttp};
use crate::support::{Client, package_dir, repo};
use serde_json::{Value, json};

const TOKEN: &str = "t0ken-0f-the-fetcher";

struct Fetcher {
    c: Client,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

/// A host serving `fetcher`, granted (and given) `network`, its secret `FETCHER_TOKEN`, under
/// a profile holding `permissions`; `extra` args go to the host (e.g. `--resolve`).
fn fetcher(network: &[String], permissions: &str, extra: &[&str]) -> Fetcher {
    fetcher_with(network, permissions, extra, "")
}

/// [`fetcher`] with `config` appended to the host's configuration.
fn fetcher_with(network: &[String], permissions: &str, extra: &[&str], config: &str) -> Fetcher {
    let more = config;
    let packages = package_dir(
        &repo().join("tests/guests-python/fetcher"),
        &repo().join("target/components/fetcher.wasm"),
    );
    let list = network
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let manifest = packages.path().join("fetcher/limina.toml");
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        r#"network = ["http://127.0.0.1:9"]"#,
        &format!("network = [{list}]"),
    );
    std::fs::write(&manifest, text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let config = dir.path().join("limina.toml");
    std::fs::write(
        &config,
        format!(
            "[profiles.probe]\npermissions = [{permissions}]\n\n[secrets]\nFETCHER_TOKEN = {{ file = \"{}\" }}\n\n[packages.fetcher.grants]\nnetwork = [{list}]\nsecrets = [\"FETCHER_TOKEN\"]\n\n{more}",
            token.display()
        ),
    )
    .unwrap();
    let mut args = vec![
        "--packages",
        packages.path().to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Fetcher {
        c: Client::session("probe", &args),
        _dirs: (packages, dir),
    }
}

const ALL: &str = r#""scene.read", "net.outbound", "secrets.read""#;

fn get(f: &mut Fetcher, url: &str) -> Value {
    f.c.call_ok("fetcher.get", json!({"url": url}))
}

fn denials(f: &mut Fetcher) -> Vec<Value> {
    f.c.call_ok(
        "trace.tail",
        json!({"type": "security.permission.denied", "limit": 100}),
    )["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["payload"].clone())
        .collect()
}

/// `url` is refused under `rule`, with a reason holding `words`, traced, nothing sent or
/// charged, and the host answers the next call.
fn assert_refused(f: &mut Fetcher, url: &str, code: &str, rule: &str, words: &str) {
    let out = get(f, url);
    assert_eq!(out, json!({"error": code}), "{url}");
    let denied = denials(f);
    let last = denied
        .last()
        .unwrap_or_else(|| panic!("no denial traced for {url}"));
    assert_eq!(last["rule"], rule, "{url}: {last}");
    assert!(
        last["reason"].as_str().unwrap().contains(words),
        "{url}: {last}"
    );
    let requests =
        f.c.call_ok("trace.tail", json!({"type": "net.request", "limit": 10}));
    assert_eq!(requests["events"], json!([]), "{url}: nothing was sent");
    f.c.call_ok("scene.queryEntities", json!({}));
}

fn granted_name() -> Vec<String> {
    vec!["http://api.example.test".into()]
}

#[test]
fn loopback_by_address_is_refused_when_not_granted() {
    let server = LocalHttp::start();
    let mut f = fetcher(&granted_name(), ALL, &[]);
    let url = format!("http://127.0.0.1:{}/", server.port);
    assert_refused(
        &mut f,
        &url,
        "HttpRequestDenied",
        "net.grant",
        "outside the network grants",
    );
    assert!(server.seen().is_empty());
}

#[test]
fn ipv6_loopback_is_refused_when_not_granted() {
    let server = LocalHttp::start();
    let mut f = fetcher(&granted_name(), ALL, &[]);
    let url = format!("http://[::1]:{}/", server.port);
    assert_refused(&mut f, &url, "HttpRequestDenied", "net.grant", "[::1]");
}

#[test]
fn ipv4_mapped_loopback_is_refused_when_not_granted() {
    let mut f = fetcher(&granted_name(), ALL, &[]);
    assert_refused(
        &mut f,
        "http://[::ffff:127.0.0.1]:8080/",
        "HttpRequestDenied",
        "net.grant",
        "outside the network grants",
    );
}

#[test]
fn the_cloud_metadata_address_is_refused_when_not_granted() {
    let mut f = fetcher(&granted_name(), ALL, &[]);
    assert_refused(
        &mut f,
        "http://169.254.169.254/latest/meta-data/",
        "HttpRequestDenied",
        "net.grant",
        "169.254.169.254",
    );
}

#[test]
fn a_private_range_address_is_refused_when_not_granted() {
    let mut f = fetcher(&granted_name(), ALL, &[]);
    assert_refused(
        &mut f,
        "http://10.0.0.1/admin",
        "HttpRequestDenied",
        "net.grant",
        "10.0.0.1",
    );
}

#[test]
fn a_decimal_encoded_loopback_address_is_read_as_one_and_refused() {
    let server = LocalHttp::start();
    // Granted loopback on another port: the decimal form is judged as 127.0.0.1 all the same.
    let mut f = fetcher(&["http://127.0.0.1:9".into()], ALL, &[]);
    let url = format!("http://2130706433:{}/", server.port);
    assert_refused(&mut f, &url, "HttpRequestDenied", "net.grant", "2130706433");
    assert!(server.seen().is_empty());
}

#[test]
fn a_granted_name_that_resolves_to_loopback_is_refused() {
    let server = LocalHttp::start();
    let grant = format!("http://rebind.example.test:{}", server.port);
    let mut f = fetcher(
        std::slice::from_ref(&grant),
        ALL,
        &["--resolve", "rebind.example.test=127.0.0.1"],
    );
    assert_refused(
        &mut f,
        &format!("{grant}/"),
        "DestinationIpProhibited",
        "net.address",
        "`rebind.example.test` resolves to 127.0.0.1, a loopback address",
    );
    assert!(server.seen().is_empty());
}

#[test]
fn a_redirect_to_an_ungranted_host_is_not_followed_and_the_next_hop_is_refused() {
    let server = LocalHttp::start();
    let mut f = fetcher(&[server.base()], ALL, &[]);
    let first = get(&mut f, &format!("{}/redirect", server.base()));
    assert_eq!(
        first["status"], 302,
        "the redirect comes back to the guest: {first}"
    );
    let requests =
        f.c.call_ok("trace.tail", json!({"type": "net.request", "limit": 10}));
    assert_eq!(requests["events"][0]["payload"]["status"], 302);
    let out = get(&mut f, "http://evil.test/steal");
    assert_eq!(out, json!({"error": "HttpRequestDenied"}));
    assert_eq!(denials(&mut f).last().unwrap()["rule"], "net.grant");
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn a_response_past_the_cap_ends_in_an_error() {
    let server = LocalHttp::start();
    let mut f = fetcher(&[server.base()], ALL, &[]);
    let out = get(&mut f, &format!("{}/big", server.base()));
    // The guest's read fails once the cap is passed; it never holds the whole answer.
    assert_eq!(
        out,
        json!({"error": "the body could not be read"}),
        "{BIG_BYTES} bytes sent"
    );
    let requests =
        f.c.call_ok("trace.tail", json!({"type": "net.request", "limit": 10}));
    let p = &requests["events"][0]["payload"];
    assert!(
        p["error"]
            .as_str()
            .unwrap()
            .contains("the response body passed the cap of 8388608 bytes"),
        "{p}"
    );
    assert!(p["bytesIn"].as_u64().unwrap() <= 8 << 20, "{p}");
    f.c.call_ok("scene.queryEntities", json!({}));
}

#[test]
fn a_server_trickling_bytes_is_cut_at_the_call_deadline() {
    let server = LocalHttp::start();
    let mut f = fetcher(&[server.base()], ALL, &[]);
    let r = f.c.call(
        "fetcher.get",
        json!({"url": format!("{}/trickle", server.base())}),
    );
    let (code, message) = crate::support::error_of(&r);
    assert_eq!(code, "capacity_exceeded", "{message}");
    assert!(message.contains("3000 ms deadline"), "{message}");
    f.c.call_ok("scene.queryEntities", json!({}));
}

#[test]
fn the_environment_lists_only_granted_secrets() {
    let mut f = fetcher(&granted_name(), ALL, &[]);
    let env = f.c.call_ok("fetcher.env", json!({}));
    // The value reached the guest, and is redacted in what it answers.
    assert_eq!(env["environment"], json!([["FETCHER_TOKEN", "[redacted]"]]));
}

#[test]
fn an_ungranted_secret_or_host_variable_reads_empty() {
    let mut f = fetcher(&granted_name(), ALL, &[]);
    for name in ["HOME", "PATH", "LIMINA_NET_LOOPBACK_ONLY"] {
        let out = f.c.call_ok("fetcher.leak", json!({"name": name}));
        assert_eq!(out, json!({"echo": "output says "}), "{name}");
    }
}

#[test]
fn without_secrets_read_the_environment_is_empty_and_the_refusal_traced() {
    let mut f = fetcher(&granted_name(), r#""scene.read", "net.outbound""#, &[]);
    let env = f.c.call_ok("fetcher.env", json!({}));
    assert_eq!(env["environment"], json!([]));
    let denied = denials(&mut f);
    assert_eq!(denied.len(), 1, "{denied:?}");
    assert_eq!(denied[0]["missing"], "secrets.read");
    assert_eq!(denied[0]["boundary"], "secrets");
}

#[test]
fn without_net_outbound_no_request_is_sent() {
    let server = LocalHttp::start();
    let mut f = fetcher(&[server.base()], r#""scene.read", "secrets.read""#, &[]);
    assert_refused(
        &mut f,
        &format!("{}/", server.base()),
        "HttpRequestDenied",
        "profile.denied",
        "net.outbound",
    );
    assert!(server.seen().is_empty());
}

#[test]
fn a_secret_the_guest_echoes_is_redacted_everywhere() {
    let mut f = fetcher(&granted_name(), ALL, &[]);
    f.c.request("logging/setLevel", json!({"level": "debug"}));
    let out =
        f.c.call_ok("fetcher.leak", json!({"name": "FETCHER_TOKEN"}));
    assert_eq!(out, json!({"echo": "output says [redacted]"}));
    let r = f.c.call(
        "fetcher.leak",
        json!({"name": "FETCHER_TOKEN", "fail": true}),
    );
    let (code, message) = crate::support::error_of(&r);
    assert_eq!(code, "handler_error");
    assert_eq!(message, "error says [redacted]");
    let trace =
        f.c.call_ok("trace.tail", json!({"limit": 1000}))
            .to_string();
    assert!(!trace.contains(TOKEN), "no secret in the trace");
    assert!(
        trace.contains("[redacted]"),
        "the trace event is kept, redacted"
    );
    let notes = serde_json::to_string(&f.c.notifications).unwrap();
    assert!(
        !notes.contains(TOKEN),
        "no secret in log notifications: {notes}"
    );
    assert!(notes.contains("log says [redacted]"), "{notes}");
    assert!(notes.contains("stdout says [redacted]"), "{notes}");
}

/// Base64 of `bytes` (`url`: the URL-safe alphabet), padded.
fn base64(bytes: &[u8], url: bool) -> String {
    let alphabet: &[u8; 64] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | ((*b as u32) << (16 - 8 * i)));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                alphabet[((n >> (18 - 6 * i)) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

/// What `fetcher.leak` writes for `encoding` and `prefix`, with the characters that depend on
/// the token alone: the part no redaction may leave.
fn token_part(encoding: &str, prefix: &str) -> String {
    let raw = format!("{prefix}{TOKEN}");
    let encoded = match encoding {
        "base64" | "base64nopad" => base64(raw.as_bytes(), false),
        "base64url" => base64(raw.as_bytes(), true),
        "hex" => raw.bytes().map(|b| format!("{b:02x}")).collect(),
        "HEX" => raw.bytes().map(|b| format!("{b:02X}")).collect(),
        "percent" => raw.bytes().map(|b| format!("%{b:02x}")).collect(),
        "percentSome" => raw.replace('e', "%65"),
        other => panic!("no encoding {other}"),
    };
    // Four characters off each end lie past any prefix of two bytes and any padding.
    encoded[4..encoded.len() - 4].to_string()
}

#[test]
fn a_secret_the_guest_echoes_encoded_is_redacted_at_every_alignment() {
    let mut f = fetcher(&granted_name(), ALL, &[]);
    f.c.request("logging/setLevel", json!({"level": "debug"}));
    let encodings = [
        "base64",
        "base64url",
        "base64nopad",
        "hex",
        "HEX",
        "percent",
        "percentSome",
    ];
    for encoding in encodings {
        for prefix in ["", "a", "ab"] {
            let out = f.c.call_ok(
                "fetcher.leak",
                json!({"name": "FETCHER_TOKEN", "encoding": encoding, "prefix": prefix}),
            );
            let echo = out["echo"].as_str().unwrap();
            assert!(echo.contains("[redacted]"), "{encoding}/{prefix}: {echo}");
            assert!(
                !echo.contains(&token_part(encoding, prefix)),
                "{encoding}/{prefix}: {echo}"
            );
        }
    }
    let trace =
        f.c.call_ok("trace.tail", json!({"limit": 1000}))
            .to_string();
    let notes = serde_json::to_string(&f.c.notifications).unwrap();
    for encoding in encodings {
        for prefix in ["", "a", "ab"] {
            let part = token_part(encoding, prefix);
            assert!(!trace.contains(&part), "{encoding}/{prefix} in the trace");
            assert!(
                !notes.contains(&part),
                "{encoding}/{prefix} in a notification"
            );
        }
    }
    assert!(
        notes.contains("stderr says"),
        "the channels were exercised: {notes}"
    );
}

#[test]
fn credentials_in_what_a_package_fetched_are_redacted_and_traced() {
    let server = LocalHttp::start();
    let mut f = fetcher(&[server.base()], ALL, &[]);
    let out = get(&mut f, &format!("{}/leaky", server.base()));
    assert_eq!(
        out["body"],
        "config: aws_access_key_id=[redacted:aws_access_key_id] region=eu-west-1\n[redacted:private_key]\nok",
        "{out}"
    );
    let hits = f.c.call_ok(
        "trace.tail",
        json!({"type": "security.secret.redacted", "limit": 10}),
    );
    let payloads: Vec<&Value> = hits["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["payload"])
        .collect();
    assert_eq!(
        payloads,
        [
            &json!({"where": "result", "kind": "aws_access_key_id", "skill": "fetcher.get", "action": "redacted"}),
            &json!({"where": "result", "kind": "private_key", "skill": "fetcher.get", "action": "redacted"}),
        ]
    );
    let trace =
        f.c.call_ok("trace.tail", json!({"limit": 1000}))
            .to_string();
    assert!(!trace.contains("AKIAIOSFODNN7EXAMPLE") && !trace.contains("MIIEowIBAAKCAQEA7bq0"));
    assert!(LEAKY.contains("AKIAIOSFODNN7EXAMPLE"));
}

#[test]
fn with_scan_results_refuse_a_package_result_holding_a_credential_is_refused() {
    let server = LocalHttp::start();
    let mut f = fetcher_with(
        &[server.base()],
        ALL,
        &[],
        "[outbound]\nscanResults = \"refuse\"\n",
    );
    let r = f.c.call(
        "fetcher.get",
        json!({"url": format!("{}/leaky", server.base())}),
    );
    let (code, message) = crate::support::error_of(&r);
    assert_eq!(code, "forbidden");
    assert!(
        message.contains("(aws_access_key_id, private_key)") && !message.contains("AKIA"),
        "{message}"
    );
    // An answer without one passes.
    let out = get(&mut f, &format!("{}/", server.base()));
    assert_eq!(out["body"], "hello");
}
