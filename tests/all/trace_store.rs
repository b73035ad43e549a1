//! The trace at scale over the real binary: segments kept within `[trace] maxBytes`, the
//! index surviving a kill -9 while it is written, ranged exports, and bad settings refused.

use crate::support::{Client, error_of, limina, limina_ok, text};
use crate::ws_client::WsHost;
use limina::trace::{Event, Retention, synthetic};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// Every event in the segments of `dir`, oldest first.
fn all_events(dir: &Path) -> Vec<Event> {
    let mut paths: Vec<_> = std::fs::read_dir(dir.join("segments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    paths.sort();
    paths
        .iter()
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect::<Vec<Event>>()
        })
        .collect()
}

/// The newest indexed event, read straight from the database as another process would.
fn indexed_seq(dir: &Path) -> i64 {
    let Ok(db) = rusqlite::Connection::open_with_flags(
        dir.join("index.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    ) else {
        return 0;
    };
    db.query_row("SELECT value FROM meta WHERE key = 'last_seq'", [], |r| {
        r.get(0)
    })
    .unwrap_or(0)
}

#[test]
fn queries_after_a_kill_during_indexing_answer_as_the_segments_say() {
    let dir = tempfile::tempdir().unwrap();
    let retention = Retention {
        segment_bytes: 4 << 20,
        ..Retention::default()
    };
    synthetic::write_history(dir.path(), 60_000, retention).unwrap();
    let events = all_events(dir.path());
    let total = events.len() as i64;
    let args = ["--trace-dir", dir.path().to_str().unwrap()];
    {
        let _host = Client::session("builder.readWrite", &args);
        // Killed as soon as the first batch is committed, with the rest still to index.
        let deadline = Instant::now() + Duration::from_secs(60);
        while indexed_seq(dir.path()) == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let at_kill = indexed_seq(dir.path());
    assert!(at_kill > 0, "the index never started");
    eprintln!("killed with {at_kill} of {total} events indexed");

    // Asked at once, while the index is still being rebuilt: what it does not hold yet is
    // read from the segments, so the answers are already whole.
    let mut c = Client::session("builder.readWrite", &args);
    let denied: Vec<&Event> = events
        .iter()
        .filter(|e| e.kind == "policy.denied")
        .collect();
    let q = c.call_ok("audit.query", json!({"decision": "deny", "limit": 5}));
    // The session's own initialize adds no decisions; the counts are the history's.
    assert_eq!(q["summary"]["denied"], json!(denied.len()));
    assert_eq!(q["summary"]["allowed"], json!(0));
    let ids: Vec<&str> = q["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["eventId"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = denied[denied.len() - 5..]
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(ids, want);

    let allowed = c.call_ok(
        "audit.query",
        json!({"decision": "allow", "cap": "dice.roll", "limit": 1}),
    );
    let want = events
        .iter()
        .filter(|e| e.kind == "policy.decision" && e.payload["cap"] == "dice.roll")
        .count();
    assert_eq!(allowed["summary"]["total"], json!(want));

    let tail = c.call_ok("trace.tail", json!({"afterSeq": total / 2, "limit": 3}));
    let got: Vec<&Value> = tail["events"].as_array().unwrap().iter().collect();
    for (i, e) in got.iter().enumerate() {
        assert_eq!(e["id"], json!(events[(total / 2) as usize + i].id));
    }

    // An executed call in the middle: explained by its decision, found among its children.
    let executed = &events[(total / 3) as usize..]
        .iter()
        .find(|e| e.kind == "skill.executed")
        .unwrap();
    let why = c.call_ok("audit.explain", json!({"eventId": executed.id}));
    assert_eq!(why["decision"]["eventId"], json!(executed.caused_by[0]));
    let decision = c.call_ok(
        "trace.explainEvent",
        json!({"eventId": executed.caused_by[0]}),
    );
    assert_eq!(decision["children"][0]["id"], json!(executed.id));
    // Closed, not killed this time: a kill may tear the last line, which only the next
    // start repairs.
    assert_eq!(c.close(), Some(0));
    assert!(indexed_seq(dir.path()) >= at_kill);
    limina_ok(&["trace", "verify", dir.path().to_str().unwrap()]);
}

#[test]
fn a_live_host_keeps_its_trace_within_max_bytes_and_what_remains_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limina.toml");
    std::fs::write(&config, "[trace]\nsegmentBytes = 8192\nmaxBytes = 32768\n").unwrap();
    let traces = dir.path().join("traces");
    let args = [
        "--trace-dir",
        traces.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ];
    let mut c = Client::session("builder.readWrite", &args);
    for i in 0..150 {
        c.call_ok("scene.createEntity", json!({"position": [i, 0, 0]}));
    }
    let kept: u64 = std::fs::read_dir(traces.join("segments"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    // At most maxBytes of sealed segments plus the one being written.
    assert!(kept <= 32768 + 8192 + 2048, "{kept} bytes kept");
    let tail = c.call_ok("trace.tail", json!({"limit": 1}));
    let first = tail["events"][0]["id"].as_str().unwrap().to_string();
    assert!(
        !first.contains("_000000000001_"),
        "the oldest events are gone: {first}"
    );
    let q = c.call_ok(
        "audit.query",
        json!({"cap": "scene.createEntity", "limit": 0}),
    );
    assert!(q["summary"]["total"].as_u64().unwrap() < 150, "{q}");
    assert_eq!(c.close(), Some(0));
    let report = limina_ok(&["trace", "verify", traces.to_str().unwrap()]);
    assert!(report.contains("starting at the retention cut"), "{report}");
}

#[test]
fn bad_trace_settings_are_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    for (body, key) in [
        ("[trace]\nmaxBytes = -5\n", "`trace.maxBytes` must be ≥ 0"),
        (
            "[trace]\nsegmentBytes = 12\n",
            "`trace.segmentBytes` must be at least 4096",
        ),
        (
            "[trace]\nmaxAgeDays = 0\n",
            "`trace.maxAgeDays` must be a number of days > 0",
        ),
        ("[trace]\nkeepDays = 3\n", "unknown field `keepDays`"),
    ] {
        let config = dir.path().join("bad.toml");
        std::fs::write(&config, body).unwrap();
        let out = limina(&["--mcp-stdio", "--config", config.to_str().unwrap()]);
        assert!(!out.status.success(), "{body}");
        let err = text(&out.stderr);
        assert!(err.contains(&format!("bad.toml:2: {key}")), "{body}: {err}");
    }
}

#[test]
fn trace_export_writes_a_range_and_refuses_bad_bounds_naming_the_field() {
    let mut c = Client::session("builder.readWrite", &[]);
    for _ in 0..3 {
        c.call_ok("scene.createEntity", json!({}));
    }
    let out = c.call_ok(
        "trace.export",
        json!({"name": "mid.jsonl", "fromSeq": 2, "toSeq": 4}),
    );
    assert_eq!(out["events"], json!(3));
    let dir = c.traces.as_ref().unwrap().path().to_path_buf();
    let lines = std::fs::read_to_string(dir.join("mid.jsonl")).unwrap();
    let seqs: Vec<u64> = lines
        .lines()
        .map(|l| serde_json::from_str::<Event>(l).unwrap().seq().unwrap())
        .collect();
    assert_eq!(seqs, vec![2, 3, 4]);
    let out = c.call_ok(
        "trace.export",
        json!({"name": "recent.jsonl", "since": "2000-01-01T00:00:00Z"}),
    );
    assert!(out["events"].as_u64().unwrap() >= 6, "{out}");

    for (args, field) in [
        (
            json!({"name": "x.jsonl", "since": "yesterday"}),
            "`since`: `yesterday` is not a UTC time",
        ),
        (
            json!({"name": "x.jsonl", "until": "2026-11-23 07:00:00"}),
            "`until`:",
        ),
        (
            json!({"name": "x.jsonl", "fromSeq": 5, "toSeq": 2}),
            "`fromSeq` (5) must not be after `toSeq` (2)",
        ),
    ] {
        let (code, message) = error_of(&c.call("trace.export", args.clone()));
        assert_eq!(code, "invalid_input", "{args}");
        assert!(message.contains(field), "{args}: {message}");
    }
    assert!(!dir.join("x.jsonl").exists());
}

#[test]
fn a_query_over_a_history_not_indexed_yet_holds_up_no_other_client() {
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_history(dir.path(), 200_000, Retention::default()).unwrap();
    let denied = all_events(dir.path())
        .iter()
        .filter(|e| e.kind == "policy.denied")
        .count();
    let host = WsHost::start(&[
        "--network-profile",
        "builder.readWrite",
        "--trace-dir",
        dir.path().to_str().unwrap(),
    ]);
    let mut auditor = host.client("system.readonly", "auditor");
    let mut builder = host.client("builder.readWrite", "builder");
    // Asked at once: the index is being rebuilt, so most of the history is read from the
    // segments, on a worker thread.
    let id = auditor.send_request(
        "tools/call",
        json!({"name": "audit.query", "arguments": {"decision": "deny", "limit": 3}}),
    );
    std::thread::sleep(Duration::from_millis(20));
    builder.call_ok("scene.createEntity", json!({}));
    assert_eq!(builder.request("ping", json!({}))["result"], json!({}));
    assert!(
        auditor.read_for(Duration::from_millis(0)).is_none(),
        "the world call waited for the query"
    );
    let reply = auditor.reply_to(id);
    assert_eq!(
        reply["result"]["structuredContent"]["summary"]["denied"],
        json!(denied),
        "{reply}"
    );
}

#[test]
fn a_whole_export_of_a_long_history_reports_progress_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_history(dir.path(), 50_000, Retention::default()).unwrap();
    let args = ["--trace-dir", dir.path().to_str().unwrap()];
    let mut c = Client::session("builder.readWrite", &args);
    c.call_ok("scene.createEntity", json!({}));
    let reply = c.request(
        "tools/call",
        json!({"name": "trace.export", "arguments": {"name": "all.jsonl"}, "_meta": {"progressToken": "export-1"}}),
    );
    let out = &reply["result"]["structuredContent"];
    // Everything up to the export's own decision: the history, the session's calls so far.
    let written = out["events"].as_u64().unwrap();
    assert!(written > 50_000, "{reply}");
    let progress: Vec<&Value> = c
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert!(progress.len() > 2, "{progress:?}");
    assert!(
        progress
            .iter()
            .all(|n| n["params"]["progressToken"] == "export-1")
    );
    let last = &progress.last().unwrap()["params"];
    assert_eq!(last["progress"], last["total"], "{last}");
    let file = dir.path().join("all.jsonl");
    let report = limina_ok(&["trace", "verify", file.to_str().unwrap()]);
    assert!(
        report.starts_with(&format!("ok: {written} events")),
        "{report}"
    );
}
