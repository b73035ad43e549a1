//! The trace index behind a live host: a query asked the moment a pipelined burst ends sees
//! every acknowledged event, and a kill while the indexer holds rows it has not committed loses
//! nothing — the next start answers whole at once and catches the index up from the segments.

use crate::support::Client;
use limina::trace::Event;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// Every event in the segments of `dir`, oldest first.
fn segment_events(dir: &Path) -> Vec<Event> {
    let mut paths: Vec<_> = std::fs::read_dir(dir.join("segments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .filter(|p| p.file_name().is_some_and(|n| n != "retention.jsonl"))
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

/// `(newest seq, event rows, decisions counted)` of the index, read as another process would.
fn index_rows(dir: &Path) -> (i64, i64, i64) {
    let Ok(db) = rusqlite::Connection::open_with_flags(
        dir.join("index.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    ) else {
        return (0, 0, 0);
    };
    let one = |sql: &str| db.query_row(sql, [], |r| r.get(0)).unwrap_or(0);
    (
        one("SELECT value FROM meta WHERE key = 'last_seq'"),
        one("SELECT COUNT(*) FROM events"),
        one("SELECT COALESCE(SUM(n), 0) FROM decision_keys"),
    )
}

/// `calls` pipelined `scene.queryEntities`: every request written before any reply is read.
fn burst(c: &mut Client, calls: usize) {
    for i in 0..calls {
        let params =
            json!({"name": "scene.queryEntities", "arguments": {"near": [0, 0, 0], "radius": 1}});
        c.send_line(
            &json!({"jsonrpc": "2.0", "id": 100_000 + i, "method": "tools/call", "params": params})
                .to_string(),
        );
    }
    for _ in 0..calls {
        let reply = c.read();
        assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
    }
}

/// What the segments say `audit.query {cap: scene.queryEntities, limit: 3}` answers: the
/// total and the newest three decision ids.
fn expected_query(events: &[Event]) -> (usize, Vec<String>) {
    let ids: Vec<String> = events
        .iter()
        .filter(|e| e.kind == "policy.decision" && e.payload["cap"] == "scene.queryEntities")
        .map(|e| e.id.clone())
        .collect();
    (ids.len(), ids[ids.len() - 3..].to_vec())
}

fn query(c: &mut Client) -> (usize, Vec<String>) {
    let q = c.call_ok(
        "audit.query",
        json!({"cap": "scene.queryEntities", "limit": 3}),
    );
    let ids = q["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["eventId"].as_str().unwrap().to_string())
        .collect();
    (q["summary"]["total"].as_u64().unwrap() as usize, ids)
}

#[test]
fn a_kill_mid_batch_loses_nothing_and_the_restarted_index_catches_up_from_the_segments() {
    const CALLS: usize = 3_000;
    let dir = tempfile::tempdir().unwrap();
    let args = ["--trace-dir", dir.path().to_str().unwrap()];
    let mut c = Client::session("builder.readWrite", &args);
    burst(&mut c, CALLS);
    // Asked the moment the burst ends: every acknowledged call is in the answer.
    let (total, ids) = query(&mut c);
    let events = segment_events(dir.path());
    assert_eq!(total, CALLS);
    assert_eq!((total, ids), expected_query(&events));
    // Killed at once, as a crash would: rows the indexer had not committed go with it.
    c.terminate(libc::SIGKILL);
    let events = segment_events(dir.path());

    let mut c = Client::session("builder.readWrite", &args);
    assert_eq!(query(&mut c), expected_query(&events));
    let executed: Vec<&Event> = events
        .iter()
        .filter(|e| e.kind == "skill.executed")
        .collect();
    let tail = c.call_ok(
        "trace.tail",
        json!({"afterSeq": 0, "limit": 4, "type": "skill.executed"}),
    );
    let got: Vec<&Value> = tail["events"].as_array().unwrap().iter().collect();
    for (e, want) in got.iter().zip(&executed) {
        assert_eq!(e["id"], json!(want.id));
    }
    assert_eq!(got.len(), 4);

    // The index catches up with every event in the segments (the restarted session's calls
    // too), each row once and each decision counted once.
    let events = segment_events(dir.path());
    let newest = events.last().unwrap().seq().unwrap() as i64;
    let deadline = Instant::now() + Duration::from_secs(120);
    while index_rows(dir.path()).0 < newest {
        assert!(Instant::now() < deadline, "the index never caught up");
        std::thread::sleep(Duration::from_millis(10));
    }
    let decisions = events
        .iter()
        .filter(|e| limina::trace::DECISION_KINDS.contains(&e.kind.as_str()))
        .count() as i64;
    assert_eq!(
        index_rows(dir.path()),
        (newest, events.len() as i64, decisions)
    );
    assert_eq!(query(&mut c).0, CALLS);
    assert_eq!(c.close(), Some(0));
}
