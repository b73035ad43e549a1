//! `package.load` of a registry package fetches it off the engine: while the registry (Debian's
//! docker-registry, behind a loopback gate the test holds shut) has not answered, other
//! sessions are served; the loading connection's later messages wait for the load, so they
//! see its package; and a fetch that is refused changes nothing — not the listing, the world,
//! the budgets, nor the trace beyond the call's own decision and outcome.

use crate::local_registry::LocalRegistry;
use crate::oci_packages::{counter, keygen, push};
use crate::ws_client::{WAIT, WsClient, WsHost};
use serde_json::{Value, json};
use std::io::{self, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A loopback forwarder to a registry that holds every connection until it is opened.
struct Gate {
    /// `127.0.0.1:PORT`.
    address: String,
    /// One message per connection the host made.
    connected: Receiver<()>,
    open: Arc<(Mutex<bool>, Condvar)>,
}

impl Gate {
    fn start(registry: &str) -> Gate {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let (tx, connected) = channel();
        let open = Arc::new((Mutex::new(false), Condvar::new()));
        let (registry, shut) = (registry.to_string(), open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                if tx.send(()).is_err() {
                    return;
                }
                let (registry, shut) = (registry.clone(), shut.clone());
                std::thread::spawn(move || {
                    let (lock, opened) = &*shut;
                    let mut open = lock.lock().unwrap();
                    while !*open {
                        open = opened.wait(open).unwrap();
                    }
                    drop(open);
                    relay(client, &registry);
                });
            }
        });
        Gate {
            address,
            connected,
            open,
        }
    }

    /// Waits until the host has connected (its fetch is under way, unanswered).
    fn wait_connected(&self) {
        self.connected
            .recv_timeout(WAIT)
            .expect("the host never connected to the registry");
    }

    /// Lets every connection, held or to come, through to the registry.
    fn open(&self) {
        let (lock, opened) = &*self.open;
        *lock.lock().unwrap() = true;
        opened.notify_all();
    }
}

/// Copies bytes both ways between `client` and the registry until either side ends.
fn relay(mut client: TcpStream, registry: &str) {
    let Ok(mut upstream) = TcpStream::connect(registry) else {
        return;
    };
    let (mut from_client, mut to_upstream) =
        (client.try_clone().unwrap(), upstream.try_clone().unwrap());
    let up = std::thread::spawn(move || {
        let _ = io::copy(&mut from_client, &mut to_upstream);
        let _ = to_upstream.shutdown(Shutdown::Write);
    });
    let _ = io::copy(&mut upstream, &mut client);
    let _ = client.flush();
    let _ = client.shutdown(Shutdown::Write);
    let _ = up.join();
}

fn load_arguments(reference: &str, profile: &str) -> Value {
    json!({"ref": reference, "agentId": "ops", "sessionId": "s", "profile": profile})
}

fn tool_names(c: &mut WsClient) -> Vec<String> {
    let reply = c.request("tools/list", json!({}));
    names_in(&reply)
}

fn names_in(listing: &Value) -> Vec<String> {
    listing["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("not a listing: {listing}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn has_counter(names: &[String]) -> bool {
    names.iter().any(|n| n == "counter.version")
}

/// The replies to `ids` on `c`, in the order they arrived.
fn replies_in_order(c: &mut WsClient, ids: &[u64]) -> Vec<Value> {
    let deadline = Instant::now() + WAIT;
    let mut got = Vec::new();
    while got.len() < ids.len() {
        assert!(
            Instant::now() < deadline,
            "replies to {ids:?} missing: {got:?}"
        );
        if let Some(message) = c.read_for(Duration::from_millis(200))
            && message["id"].as_u64().is_some_and(|id| ids.contains(&id))
        {
            got.push(message);
        }
    }
    got
}

#[test]
fn a_registry_that_does_not_answer_holds_only_the_load_waiting_for_it() {
    let registry = LocalRegistry::start();
    let digest = push(
        &counter(None),
        &format!("oci://{}/test/counter:0.1.0", registry.address),
    );
    let gate = Gate::start(&registry.address);
    let cache = tempfile::tempdir().unwrap();
    let host = WsHost::start(&[
        "--profile",
        "builder.readWrite",
        "--cache-dir",
        cache.path().join("compiled").to_str().unwrap(),
    ]);
    let mut loader = host.client("builder.readWrite", "ops");
    let mut other = host.client("builder.readWrite", "other");
    let pinned = format!("oci://{}/test/counter@{digest}", gate.address);
    let load = loader.send_request(
        "tools/call",
        json!({"name": "package.load", "arguments": load_arguments(&pinned, "builder.readWrite")}),
    );
    // Sent behind the load on the same connection: it must see the loaded package.
    let listing = loader.send_request("tools/list", json!({}));
    gate.wait_connected();

    // The registry has not answered: another session is served all the same, and sees the
    // world without the package.
    let pong = other.request("ping", json!({}));
    assert_eq!(pong["result"], json!({}), "{pong}");
    let (made, _) = other.call_ok("scene.createEntity", json!({"position": [1, 0, 0]}));
    assert!(made["entity"].is_string(), "{made}");
    assert!(!has_counter(&tool_names(&mut other)));
    // … while the load, and what its connection sent after it, wait.
    assert!(
        loader
            .read_for(Duration::from_millis(300))
            .is_none_or(|m| m.get("id").is_none()),
        "the loader was answered before the registry was"
    );

    gate.open();
    let replies = replies_in_order(&mut loader, &[load, listing]);
    assert_eq!(
        replies[0]["id"], load,
        "the load is answered first: {replies:?}"
    );
    let answer = &replies[0]["result"]["structuredContent"];
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(answer["rule"], "package.admitted");
    assert!(has_counter(&names_in(&replies[1])), "{:?}", replies[1]);
    assert!(has_counter(&tool_names(&mut other)));
    let (version, _) = other.call_ok("counter.version", json!({}));
    assert!(!version.is_null());
}

/// The figures a refused load must leave as they were: the listing, the world, every
/// session's budget, and the package events of the trace.
fn observed(c: &mut WsClient) -> (Vec<String>, Value, Value, Vec<Value>) {
    let (hash, _) = c.call_ok("world.hash", json!({}));
    let (usage, _) = c.call_ok("audit.usage", json!({}));
    let mut package_events = Vec::new();
    for kind in [
        "package.installed",
        "package.loaded",
        "package.load.rejected",
    ] {
        let (tail, _) = c.call_ok("trace.tail", json!({"type": kind, "limit": 1000}));
        package_events.extend(tail["events"].as_array().unwrap().iter().cloned());
    }
    (
        tool_names(c),
        hash,
        usage["budgets"].clone(),
        package_events,
    )
}

#[test]
fn a_refused_fetch_says_why_and_changes_nothing() {
    let registry = LocalRegistry::start();
    let address = &registry.address;
    let keys = tempfile::tempdir().unwrap();
    let (trusted_key, trusted) = keygen(keys.path(), "trusted.key");
    let unsigned = push(&counter(None), &format!("oci://{address}/test/unsigned:1"));
    let by_trusted = push(
        &counter(Some(&trusted_key)),
        &format!("oci://{address}/test/trusted:1"),
    );
    let config = keys.path().join("host.toml");
    std::fs::write(
        &config,
        format!("trustedKeys = [\"{trusted}\"]\n[oci]\nrequireDigest = true\n"),
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let host = WsHost::start(&[
        "--profile",
        "builder.readWrite",
        "--config",
        config.to_str().unwrap(),
        "--cache-dir",
        cache.path().join("compiled").to_str().unwrap(),
    ]);
    let mut c = host.client("builder.readWrite", "ops");
    c.call_ok("scene.createEntity", json!({"position": [0, 1, 0]}));
    let nowhere = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    };
    let absent = format!("sha256:{}", "0".repeat(64));
    let before = observed(&mut c);
    assert!(!has_counter(&before.0));
    let refusals = [
        (
            format!("oci://{address}/test/unsigned@{unsigned}"),
            "package.signature",
            "is not signed, and this host takes registry packages only signed by one of `trustedKeys`"
                .to_string(),
        ),
        (
            format!("oci://{address}/test/unsigned:1"),
            "registry.digest",
            "names a tag but no digest, and `[oci] requireDigest` is on".to_string(),
        ),
        (
            format!("oci://{address}/test/unsigned@{absent}"),
            "registry.refused",
            format!("the registry has no {absent}"),
        ),
        (
            // Not the digest refused above: what was fetched once is kept, and read again
            // with no registry at all.
            format!("oci://{nowhere}/test/unsigned@{absent}"),
            "registry.unreachable",
            nowhere.clone(),
        ),
    ];
    for (reference, rule, why) in &refusals {
        let result = c.call(
            "package.load",
            load_arguments(reference, "builder.readWrite"),
        );
        let answer = &result["structuredContent"];
        assert_eq!(answer["ok"], false, "{reference}: {answer}");
        assert_eq!(answer["rule"], *rule, "{reference}: {answer}");
        assert_eq!(answer["loadEventId"], Value::Null, "{answer}");
        let reason = answer["reason"].as_str().unwrap();
        assert!(reason.contains(why.as_str()), "{reference}: {reason}");
        // Its decision and its outcome, nothing of a package.
        let emitted = result["_meta"]["eventsEmitted"].as_array().unwrap();
        assert_eq!(emitted.len(), 2, "{result}");
        assert_eq!(observed(&mut c), before, "after {reference}");
    }

    // Inputs refused before anything is fetched, naming the field.
    for (arguments, field, why) in [
        (
            load_arguments(
                &format!("oci://{address}/test/trusted@{by_trusted}"),
                "nobody",
            ),
            "`profile`",
            "nobody",
        ),
        (
            load_arguments(
                &format!("oci://{address}/test/trusted"),
                "builder.readWrite",
            ),
            "`ref`",
            "neither a tag nor a digest",
        ),
    ] {
        let (code, message) = crate::support::error_of(&c.call("package.load", arguments));
        assert_eq!(code, "invalid_input");
        assert!(
            message.contains(field) && message.contains(why),
            "{message}"
        );
        assert_eq!(observed(&mut c), before);
    }

    // The host still loads what it may.
    let result = c.call(
        "package.load",
        load_arguments(
            &format!("oci://{address}/test/trusted@{by_trusted}"),
            "builder.readWrite",
        ),
    );
    assert_eq!(result["structuredContent"]["ok"], true, "{result}");
    assert!(has_counter(&tool_names(&mut c)));
}
