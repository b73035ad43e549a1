//! One world for every assistant on the machine: `limina --mcp-stdio` processes started the
//! same way (here with `HOME` at one temporary folder, so all take the default trace folder)
//! share one world — the first serves it, the others join it over the control socket — and
//! when the serving process ends, one of the others takes the world over and every client
//! carries on with its session.

use crate::support::{Client, guest_packages, long_calls_config, text};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The stdio protocol tests again, each with its client behind a joined process
/// (`Client::spawn_with` sees this module's name on the test's thread).
#[allow(clippy::duplicate_mod)] // on purpose: the same tests, through another way in
#[path = "stdio.rs"]
mod through_a_joined_process;

const WAIT: Duration = Duration::from_secs(60);

/// The default trace folder of a user whose home is `home`.
fn traces(home: &Path) -> PathBuf {
    home.join(".local/state/limina/traces")
}

/// A process at `home` with a session of `agent` under builder.readWrite.
fn assistant(home: &Path, agent: &str, args: &[&str]) -> Client {
    let mut c = Client::spawn_at_home(home, args);
    c.rebind("builder.readWrite", agent);
    c
}

/// `limina status --json` for `home`'s default folder.
fn status(home: &Path) -> (Option<i32>, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_limina"))
        .args(["status", "--json"])
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .output()
        .unwrap();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "status printed no JSON ({e}): {}\n{}",
            text(&out.stdout),
            text(&out.stderr)
        )
    });
    (out.status.code(), doc)
}

fn serving_pid(home: &Path) -> u32 {
    let (_, doc) = status(home);
    doc["serving"]["pid"].as_u64().expect("a serving host") as u32
}

fn entities(c: &mut Client) -> BTreeSet<String> {
    c.call_ok("scene.queryEntities", json!({}))["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entity"].as_str().unwrap().to_string())
        .collect()
}

fn hash(c: &mut Client) -> Value {
    c.call_ok("world.hash", json!({}))
}

/// `world.hash` right after a server was killed: a call the relay passed on before it saw the
/// server go is answered "may or may not have run" (`-32003`), and asked again.
fn hash_after_takeover(c: &mut Client) -> Value {
    loop {
        let reply = c.request("tools/call", json!({"name": "world.hash", "arguments": {}}));
        if let Some(result) = reply.get("result") {
            return result["structuredContent"].clone();
        }
        assert_eq!(reply["error"]["code"], -32003, "{reply}");
    }
}

fn kill9(pid: u32) {
    // SAFETY: kills a process this test started.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
}

#[test]
fn three_assistants_sharing_a_home_build_one_world_and_status_shows_them() {
    let home = tempfile::tempdir().unwrap();
    let mut a = assistant(home.path(), "alice", &[]);
    let mut b = assistant(home.path(), "bob", &[]);
    let mut c = assistant(home.path(), "carol", &[]);
    for (client, x) in [(&mut a, 0), (&mut b, 2), (&mut c, 4)] {
        client.call_ok("scene.createEntity", json!({"position": [x, 0, 0]}));
    }
    let seen = entities(&mut a);
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(entities(&mut b), seen);
    assert_eq!(entities(&mut c), seen);
    assert_eq!(hash(&mut a), hash(&mut c));

    let (code, doc) = status(home.path());
    assert_eq!(code, Some(0), "{doc}");
    assert_eq!(doc["serving"]["pid"], a.pid(), "{doc}");
    assert_eq!(doc["serving"]["sessions"][0]["agentId"], "alice", "{doc}");
    assert_eq!(doc["world"]["entities"], 3, "{doc}");
    let joined: BTreeSet<u64> = doc["joined"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["pid"].as_u64().unwrap())
        .collect();
    assert_eq!(
        joined,
        BTreeSet::from([b.pid() as u64, c.pid() as u64]),
        "{doc}"
    );
    let agents: BTreeSet<&str> = doc["joined"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["sessions"][0]["agentId"].as_str().unwrap())
        .collect();
    assert_eq!(agents, BTreeSet::from(["bob", "carol"]));
    assert!(doc["disk"]["trace"]["bytes"].as_u64().unwrap() > 0, "{doc}");
    // As text for a person.
    let out = Command::new(env!("CARGO_BIN_EXE_limina"))
        .arg("status")
        .env("HOME", home.path())
        .env_remove("XDG_STATE_HOME")
        .output()
        .unwrap();
    let shown = text(&out.stdout);
    assert!(
        shown.contains(&format!("is served by pid {}", a.pid())),
        "{shown}"
    );
    assert!(shown.contains("joined processes: 2"), "{shown}");
    assert!(shown.contains("world: 3 entities"), "{shown}");
}

#[test]
fn status_of_a_folder_nobody_serves_says_so_and_exits_3() {
    let home = tempfile::tempdir().unwrap();
    let (code, doc) = status(home.path());
    assert_eq!(code, Some(3));
    assert_eq!(doc["serving"], Value::Null);
    assert_eq!(doc["disk"]["trace"]["bytes"], 0);
}

/// One client's calls until `stop`: the entities acknowledged, and how many calls were
/// answered with "may or may not have run" (their host ended in flight).
fn keep_creating(mut c: Client, calls: usize) -> (Client, Vec<String>, usize) {
    let mut made = Vec::new();
    let mut unsure = 0;
    for i in 0..calls {
        let reply = c.request(
            "tools/call",
            json!({"name": "scene.createEntity", "arguments": {"position": [i, 1, 0]}}),
        );
        if let Some(entity) = reply["result"]["structuredContent"]["entity"].as_str() {
            made.push(entity.to_string());
            continue;
        }
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(reply["error"]["code"], -32003, "{reply}");
        assert!(
            message.contains("it may or may not have run") && message.contains("trace.tail"),
            "{message}"
        );
        unsure += 1;
    }
    (c, made, unsure)
}

#[test]
fn kill_9_of_the_serving_process_while_all_call_hands_the_world_over_losing_no_acknowledged_call() {
    let home = tempfile::tempdir().unwrap();
    let a = assistant(home.path(), "alice", &[]);
    let b = assistant(home.path(), "bob", &[]);
    let c = assistant(home.path(), "carol", &[]);
    let server = a.pid();
    let bob = std::thread::spawn(move || keep_creating(b, 30));
    let carol = std::thread::spawn(move || keep_creating(c, 30));
    // Alice calls too until her process is killed under her.
    let alice = std::thread::spawn(move || {
        let mut a = a;
        let mut made = Vec::new();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for i in 0..1000 {
                let reply = a.request(
                    "tools/call",
                    json!({"name": "scene.createEntity", "arguments": {"position": [i, 2, 0]}}),
                );
                made.push(
                    reply["result"]["structuredContent"]["entity"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                );
            }
        }));
        assert!(result.is_err(), "alice's host was killed under her");
        made
    });
    std::thread::sleep(Duration::from_millis(300));
    kill9(server);
    let alice_made = alice.join().unwrap();
    let (mut b, bob_made, bob_unsure) = bob.join().unwrap();
    let (mut c, carol_made, carol_unsure) = carol.join().unwrap();
    assert!(
        bob_unsure <= 1 && carol_unsure <= 1,
        "at most the one call in flight each: {bob_unsure} {carol_unsure}"
    );
    let world = entities(&mut b);
    for made in alice_made.iter().chain(&bob_made).chain(&carol_made) {
        assert!(
            world.contains(made),
            "acknowledged {made} is missing from {world:?}"
        );
    }
    assert_eq!(entities(&mut c), world);
    let new_server = serving_pid(home.path());
    assert!(
        new_server == b.pid() || new_server == c.pid(),
        "{new_server}"
    );

    // Quiet now: the world's hash before a kill -9 equals the one after the takeover.
    let before = hash(&mut b);
    kill9(new_server);
    let survivor = if new_server == b.pid() {
        &mut c
    } else {
        &mut b
    };
    assert_eq!(hash_after_takeover(survivor), before);
    assert_eq!(serving_pid(home.path()), survivor.pid());
}

#[test]
fn the_serving_clients_stdin_closing_hands_the_world_over_and_sessions_carry_on() {
    let home = tempfile::tempdir().unwrap();
    let mut a = assistant(home.path(), "alice", &[]);
    let mut b = assistant(home.path(), "bob", &[]);
    b.call_ok("scene.createEntity", json!({}));
    let (_, before) = status(home.path());
    let session = before["joined"][0]["sessions"][0]["sessionId"].clone();
    a.call_ok("scene.createEntity", json!({"position": [1, 0, 0]}));
    assert_eq!(a.close(), Some(0));
    // Bob's next calls are served by the process that took over: his own.
    assert_eq!(entities(&mut b).len(), 2);
    let (_, after) = status(home.path());
    assert_eq!(after["serving"]["pid"], b.pid(), "{after}");
    let own = &after["serving"]["sessions"][0];
    assert_eq!(own["sessionId"], session, "the same session: {after}");
    assert_eq!(own["agentId"], "bob");
    assert_eq!(own["profile"], "builder.readWrite");
    // A third joins later and finds the same world.
    let mut c = assistant(home.path(), "carol", &[]);
    assert_eq!(entities(&mut c).len(), 2);
}

#[test]
fn sigterm_of_the_serving_process_hands_the_world_over_cleanly() {
    let home = tempfile::tempdir().unwrap();
    let mut a = assistant(home.path(), "alice", &[]);
    let mut b = assistant(home.path(), "bob", &[]);
    a.call_ok("scene.createEntity", json!({}));
    let before = hash(&mut b);
    // A drain: the host stops cleanly (its checkpoint written) and exits 0.
    assert_eq!(a.terminate(libc::SIGTERM), Some(0));
    assert_eq!(
        hash(&mut b),
        before,
        "the next call is served by the process that took over"
    );
    assert_eq!(serving_pid(home.path()), b.pid());
    let (_, doc) = status(home.path());
    assert_eq!(doc["disk"]["checkpoints"]["count"], 1, "{doc}");
}

#[test]
fn a_subscription_resumes_with_a_snapshot_after_a_takeover() {
    let home = tempfile::tempdir().unwrap();
    let a = assistant(home.path(), "alice", &[]);
    let mut b = assistant(home.path(), "bob", &[]);
    let reply = b.request("state/subscribe", json!({}));
    assert!(reply.get("result").is_some(), "{reply}");
    assert!(b.wait_notification("state/snapshot", WAIT).is_some());
    kill9(a.pid());
    // The next request goes to the new server, which sends the resumed subscription's snapshot.
    b.request("ping", json!({}));
    assert!(
        b.wait_notification("state/snapshot", WAIT).is_some(),
        "no snapshot after the takeover: {:?}",
        b.notifications
    );
}

#[test]
fn another_user_cannot_reach_the_world() {
    let home = tempfile::tempdir().unwrap();
    let mut a = assistant(home.path(), "alice", &[]);
    let dir = traces(home.path());
    use std::os::unix::fs::PermissionsExt;
    // Let `nobody` reach the folder: the socket's own mode (0600) keeps it out.
    for d in dir.ancestors().take_while(|d| d.starts_with(home.path())) {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let as_nobody = || {
        use std::os::unix::process::CommandExt;
        Command::new(env!("CARGO_BIN_EXE_limina"))
            .args(["status", "--trace-dir", dir.to_str().unwrap()])
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap()
    };
    let out = as_nobody();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("ermission denied"),
        "{}",
        text(&out.stderr)
    );
    // Even with the socket opened to everyone by hand, the host refuses another uid (and logs
    // it), and a limina of another user refuses to talk to this user's host.
    let socket = dir.join("control.sock");
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = as_nobody();
    assert!(!out.status.success());
    let said = text(&out.stderr);
    assert!(
        said.contains("is served by uid 0") && said.contains("not by this user"),
        "{said}"
    );
    let logged = a
        .stderr_line("refused a control-socket connection from uid 65534", WAIT)
        .expect("the host logs the refusal");
    assert!(
        logged.contains("only the user who runs this host (uid 0) may join it"),
        "{logged}"
    );
}

#[test]
fn a_stale_socket_left_by_a_crash_is_replaced_and_the_world_restored() {
    let home = tempfile::tempdir().unwrap();
    let mut a = assistant(home.path(), "alice", &[]);
    a.call_ok("scene.createEntity", json!({}));
    let before = hash(&mut a);
    kill9(a.pid());
    drop(a);
    assert!(
        traces(home.path()).join("control.sock").exists(),
        "the crash left its socket"
    );
    let mut b = Client::spawn_at_home(home.path(), &[]);
    b.rebind("builder.readWrite", "bob");
    assert!(
        b.stderr_line("replacing the stale control socket", WAIT)
            .is_some()
    );
    assert_eq!(hash(&mut b), before);
    assert_eq!(serving_pid(home.path()), b.pid());
}

#[test]
fn a_cancel_and_an_approval_go_through_a_joined_process() {
    let home = tempfile::tempdir().unwrap();
    let packages = guest_packages(&["slow"]);
    let mut config = std::fs::read_to_string(long_calls_config()).unwrap();
    config.push_str("[[approve]]\nskill = \"scene.create*\"\nprofiles = [\"builder.readWrite\"]\nmessage = \"Add an entity?\"\ntimeoutMs = 60000\n");
    let config_file = home.path().join("limina.toml");
    std::fs::write(&config_file, config).unwrap();
    let args = [
        "--packages",
        packages.path().to_str().unwrap(),
        "--config",
        config_file.to_str().unwrap(),
    ];
    let _a = assistant(home.path(), "alice", &args);
    let mut b = Client::spawn_at_home(home.path(), &args);
    let reply = b.request("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "agentId": "bob", "profile": "builder.readWrite"}));
    assert!(reply.get("result").is_some(), "{reply}");

    // Cancel: sent behind a running call, it reaches the guest through the relay.
    b.send_line(r#"{"jsonrpc":"2.0","id":"spin","method":"tools/call","params":{"name":"slow.buildThenSpin","arguments":{}}}"#);
    std::thread::sleep(Duration::from_millis(300));
    b.send_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"spin"}}"#,
    );
    assert_eq!(b.request("ping", json!({}))["result"], json!({}));

    // Approval: the server's question reaches the client, its answer the server.
    b.send_line(r#"{"jsonrpc":"2.0","id":"make","method":"tools/call","params":{"name":"scene.createEntity","arguments":{}}}"#);
    let question = b.read();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    b.send_line(&json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"approve": true}}}).to_string());
    let done = b.read();
    assert_eq!(done["id"], "make", "{done}");
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert_eq!(
        entities(&mut b).len(),
        1,
        "the cancelled call left nothing, the approved one its entity"
    );
}

#[test]
fn a_joining_process_with_other_packages_says_what_differs_and_what_applies() {
    let home = tempfile::tempdir().unwrap();
    let packages = guest_packages(&["slow"]);
    let _a = assistant(home.path(), "alice", &[]);
    let mut b = Client::spawn_at_home(
        home.path(),
        &["--packages", packages.path().to_str().unwrap()],
    );
    let line = b
        .stderr_line("--packages:", WAIT)
        .expect("the difference is said");
    let dir = std::fs::canonicalize(packages.path()).unwrap();
    assert!(line.contains(&format!("--packages: this process was given {}, the serving host runs with none; the serving host's applies to every client", dir.display())), "{line}");
    // And the server's packages are the ones served.
    b.rebind("builder.readWrite", "bob");
    let listed = b.request("tools/list", json!({}));
    assert!(
        !listed.to_string().contains("slow.steps"),
        "the joining process's packages are not loaded"
    );
}

#[test]
fn fresh_world_on_a_joining_process_is_refused_saying_why() {
    let home = tempfile::tempdir().unwrap();
    let mut a = assistant(home.path(), "alice", &[]);
    a.call_ok("scene.createEntity", json!({}));
    let b = Client::spawn_at_home(home.path(), &["--fresh-world"]);
    let mut b = b;
    let line = b.stderr_line("--fresh-world", WAIT).expect("refused");
    assert!(line.contains("would empty everyone's world"), "{line}");
    assert_eq!(b.close(), Some(1));
    assert_eq!(entities(&mut a).len(), 1, "the world is untouched");
}

/// A stand-in for a host of another version or a stuck one: the test holds the folder's lock
/// and listens on its control socket itself.
fn fake_server(home: &Path) -> (std::fs::File, std::os::unix::net::UnixListener) {
    use std::io::Write;
    let dir = traces(home);
    std::fs::create_dir_all(dir.join("segments")).unwrap();
    let mut lock = std::fs::File::create(dir.join("segments/lock")).unwrap();
    lock.lock().unwrap();
    write!(lock, "{}", std::process::id()).unwrap();
    let listener = std::os::unix::net::UnixListener::bind(dir.join("control.sock")).unwrap();
    (lock, listener)
}

#[test]
fn a_server_of_another_control_protocol_is_refused_naming_both_versions() {
    use std::io::{BufRead, BufReader, Write};
    let home = tempfile::tempdir().unwrap();
    let (_lock, listener) = fake_server(home.path());
    let mut b = Client::spawn_at_home(home.path(), &[]);
    let (stream, _) = listener.accept().unwrap();
    let mut hello = String::new();
    BufReader::new(&stream).read_line(&mut hello).unwrap();
    let hello: Value = serde_json::from_str(&hello).unwrap();
    assert_eq!(hello["purpose"], "client");
    (&stream)
        .write_all(b"{\"join\": 99, \"version\": \"9.0.0\", \"pid\": 1}\n")
        .unwrap();
    let line = b
        .stderr_line("cannot share a world", WAIT)
        .expect("refused");
    assert!(
        line.contains("the serving host is limina 9.0.0 (control protocol 99)"),
        "{line}"
    );
    assert!(
        line.contains(&format!("limina {}", hello["version"].as_str().unwrap())),
        "{line}"
    );
    assert_eq!(b.close(), Some(1));
}

#[test]
fn a_joining_process_of_another_control_protocol_is_refused_naming_both_versions() {
    use std::io::{BufRead, BufReader, Write};
    let home = tempfile::tempdir().unwrap();
    let _a = assistant(home.path(), "alice", &[]);
    let stream =
        std::os::unix::net::UnixStream::connect(traces(home.path()).join("control.sock")).unwrap();
    (&stream)
        .write_all(b"{\"join\": 99, \"version\": \"9.0.0\", \"pid\": 1, \"purpose\": \"client\"}\n")
        .unwrap();
    let mut answer = String::new();
    BufReader::new(&stream).read_line(&mut answer).unwrap();
    let answer: Value = serde_json::from_str(&answer).unwrap();
    let refused = answer["refused"].as_str().unwrap();
    assert!(
        refused.contains("joining process is limina 9.0.0 (control protocol 99)"),
        "{refused}"
    );
    assert!(
        refused.contains(&format!(
            "serving host is limina {}",
            answer["version"].as_str().unwrap()
        )),
        "{refused}"
    );
}

#[test]
fn a_stuck_server_is_not_replaced_and_the_joining_process_names_its_pid() {
    let home = tempfile::tempdir().unwrap();
    let (_lock, listener) = fake_server(home.path());
    let mut b = Client::spawn_at_home(home.path(), &[]);
    let (_stream, _) = listener.accept().unwrap();
    // Never answered: the joining process gives up naming the stuck pid, and does not serve.
    let line = b.stderr_line("stuck", WAIT).expect("said stuck");
    assert!(
        line.contains(&format!("(pid {})", std::process::id())),
        "{line}"
    );
    assert!(
        line.contains("not replaced while it holds the lock"),
        "{line}"
    );
    assert_eq!(b.close(), Some(1));
}

/// The serving host's answer to a hand-written hello on the control socket of `home`.
fn welcome_for(home: &Path, hello: Value) -> Value {
    use std::io::{BufRead, BufReader, Write};
    let stream =
        std::os::unix::net::UnixStream::connect(traces(home).join("control.sock")).unwrap();
    (&stream)
        .write_all(format!("{hello}\n").as_bytes())
        .unwrap();
    let mut answer = String::new();
    BufReader::new(&stream).read_line(&mut answer).unwrap();
    serde_json::from_str(&answer).unwrap()
}

/// A network client of a joined process comes with its edge's decision; one without (which
/// would have no ceiling), or whose decision names a profile the host does not define, is not
/// served, and the world is untouched.
#[test]
fn a_network_client_without_its_edges_decision_or_with_an_unknown_profile_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let mut a = assistant(home.path(), "alice", &[]);
    let before = hash(&mut a);
    let (_, doc) = status(home.path());
    let protocol = 2;
    let version = doc["serving"]["version"].clone();
    let bare = welcome_for(
        home.path(),
        json!({"join": protocol, "version": version, "pid": 1, "purpose": "client", "transport": "ws"}),
    );
    let refused = bare["refused"].as_str().unwrap_or_else(|| panic!("{bare}"));
    assert!(refused.contains("without its admission"), "{refused}");
    let unknown = welcome_for(
        home.path(),
        json!({"join": protocol, "version": version, "pid": 1, "purpose": "client", "transport": "http",
               "admitted": {"profiles": ["root.everything"], "agentId": "mallory", "setting": "the `[[network.tokens]]` entry of agent `mallory`"}}),
    );
    let refused = unknown["refused"]
        .as_str()
        .unwrap_or_else(|| panic!("{unknown}"));
    assert!(
        refused.contains(
            "`root.everything` is not a profile the serving host's configuration defines"
        ),
        "{refused}"
    );
    assert!(refused.contains("[[network.tokens]]"), "{refused}");
    // A refusal report that holds no refusal is refused too, and traces nothing.
    let empty = welcome_for(
        home.path(),
        json!({"join": protocol, "version": version, "pid": 1, "purpose": "refusal"}),
    );
    let refused = empty["refused"]
        .as_str()
        .unwrap_or_else(|| panic!("{empty}"));
    assert_eq!(refused, "a refusal report without its refusal");
    let denied = a.call_ok("trace.tail", json!({"type": "session.admission.denied"}));
    assert_eq!(denied["events"], json!([]), "{denied}");
    assert_eq!(hash(&mut a), before);
    let (_, doc) = status(home.path());
    assert_eq!(doc["joined"], json!([]), "{doc}");
}

/// A joined client that writes a thousand calls before reading a reply is held back, as a
/// stdio client of the serving host is: every call answered, none refused as busy or cut off.
#[test]
fn a_joined_client_pipelining_a_thousand_calls_gets_every_reply() {
    let home = tempfile::tempdir().unwrap();
    let _a = assistant(home.path(), "alice", &[]);
    let mut b = assistant(home.path(), "bob", &[]);
    let n = 1_000;
    let mut batch = String::new();
    for i in 0..n {
        batch.push_str(
            &json!({"jsonrpc": "2.0", "id": 10_000 + i, "method": "tools/call", "params": {"name": "scene.createEntity", "arguments": {"position": [i, 0, 0]}}})
                .to_string(),
        );
        batch.push('\n');
    }
    b.send_line(batch.trim_end());
    for i in 0..n {
        let reply = b.read();
        assert_eq!(reply["id"], 10_000 + i, "{reply}");
        assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
    }
    assert_eq!(entities(&mut b).len(), n);
}

/// A burst of pipelined calls through a joined process is relayed whole however it arrives:
/// first in pieces cut anywhere (inside a line, inside an id), each its own read, then the
/// rest in one write. Every call is answered once, in the order sent; ids of every JSON kind
/// (`7` and `"7"` both in flight) come back as sent.
#[test]
fn a_burst_of_pipelined_calls_cut_anywhere_or_in_one_piece_is_answered_whole_and_in_order() {
    let home = tempfile::tempdir().unwrap();
    let _a = assistant(home.path(), "alice", &[]);
    let mut b = assistant(home.path(), "bob", &[]);
    let ids: Vec<Value> = (0..3_000u64)
        .map(|i| match i % 4 {
            0 => json!(100_000 + i),
            1 => json!(format!("{}", 100_000 + i - 1)),
            2 => json!(format!("call \"{i}\" \u{e9}")),
            _ => json!(u64::MAX - i),
        })
        .collect();
    let mut bytes = Vec::new();
    for (k, id) in ids.iter().enumerate() {
        let message = if k % 10 == 9 {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "scene.queryEntities", "arguments": {"near": [0, 0, 0], "radius": 1}}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
        };
        bytes.extend_from_slice(message.to_string().as_bytes());
        bytes.push(b'\n');
    }
    // The first tenth in pieces of 1 to 97 bytes, a pause after each so that each is read
    // on its own; the rest at once.
    let split = bytes.len() / 10;
    let mut at = 0;
    for cut in [1, 2, 3, 5, 8, 13, 21, 34, 55, 97].iter().cycle() {
        if at >= split {
            break;
        }
        let end = (at + cut).min(split);
        b.send_bytes(&bytes[at..end]);
        at = end;
        std::thread::sleep(Duration::from_micros(200));
    }
    b.send_bytes(&bytes[split..]);
    for id in &ids {
        let reply = b.read();
        assert_eq!(&reply["id"], id, "{reply}");
        assert!(reply.get("result").is_some(), "{reply}");
    }
    assert!(b.quiet_for(Duration::from_millis(300)), "no reply twice");
}
