//! The index: its answers equal a plain reading of the segments, and it is rebuilt from them
//! when missing or stale.

use super::*;
use std::fs;

/// Every answer the index serves, for comparing two indexes of the same history.
#[derive(Debug, PartialEq)]
struct Answers {
    pages: Vec<Vec<Event>>,
    decisions: Vec<(DecisionSummary, Vec<String>)>,
    children: Vec<String>,
    lookups: Vec<Option<String>>,
}

fn answers(t: &mut Tracer) -> Answers {
    let mut pages = Vec::new();
    let mut after = -1;
    loop {
        let (page, next) = t.tail(after, 97, None, None).unwrap();
        pages.push(page);
        match next {
            Some(n) => after = n,
            None => break,
        }
    }
    pages.push(
        t.tail(-1, 5, Some("agent_2"), Some("policy.denied"))
            .unwrap()
            .0,
    );
    let queries = [
        DecisionQuery {
            limit: 5,
            ..Default::default()
        },
        DecisionQuery {
            allow: Some(false),
            limit: 3,
            ..Default::default()
        },
        DecisionQuery {
            cap: Some("dice.roll".into()),
            session_id: Some("sess_3".into()),
            limit: 2000,
            ..Default::default()
        },
        DecisionQuery {
            package: Some("names".into()),
            allow: Some(true),
            limit: 1,
            ..Default::default()
        },
    ];
    let decisions = queries
        .iter()
        .map(|q| {
            let (summary, events) = t.decisions(q).unwrap();
            (summary, events.into_iter().map(|e| e.id).collect())
        })
        .collect();
    let first: Vec<Event> = pages[0].iter().take(3).cloned().collect();
    let children = first
        .iter()
        .flat_map(|e| t.children_of(&e.id))
        .map(|e| e.id)
        .collect();
    let lookups = pages[0]
        .iter()
        .step_by(13)
        .map(|e| t.get(&e.id).map(|e| e.integrity.hash))
        .collect();
    Answers {
        pages,
        decisions,
        children,
        lookups,
    }
}

/// What a plain reading of the segments says for the same decision query.
fn brute_force(dir: &Path, q: &DecisionQuery) -> (DecisionSummary, Vec<String>) {
    let mut summary = DecisionSummary::default();
    let mut ids = Vec::new();
    let mut listed = segments::list(&dir.join(SEGMENTS_DIR)).unwrap();
    listed.sort_by_key(|s| s.first_seq);
    for segment in listed {
        for line in fs::read_to_string(&segment.path).unwrap().lines() {
            let e: Event = serde_json::from_str(line).unwrap();
            if q.matches(&e) {
                let p = &e.payload;
                let text = |k: &str| p[k].as_str().unwrap_or("").to_string();
                summary.add(
                    p["allow"].as_bool().unwrap_or(false),
                    &text("cap"),
                    &text("rule"),
                    &text("package"),
                    1,
                );
                ids.push(e.id);
            }
        }
    }
    let skip = ids.len().saturating_sub(q.limit);
    (summary, ids.split_off(skip))
}

fn small_segments() -> Retention {
    Retention {
        segment_bytes: 16 << 10,
        ..Retention::default()
    }
}

#[test]
fn decision_queries_equal_a_plain_reading_of_the_segments() {
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_history(dir.path(), 3_000, small_segments()).unwrap();
    let mut t = Tracer::open_with(dir.path(), 50, small_segments()).unwrap();
    t.settle_index();
    // Some events only in the window, past what the index holds when asked.
    synthetic_calls(&mut t, 20);
    t.flush().unwrap();
    for q in [
        DecisionQuery {
            allow: Some(false),
            limit: 5,
            ..Default::default()
        },
        DecisionQuery {
            agent_id: Some("agent_3".into()),
            rule: Some("profile.grant".into()),
            limit: 40,
            ..Default::default()
        },
        DecisionQuery {
            limit: 0,
            ..Default::default()
        },
        // Every decision key merged, and a limit past every decision of one session.
        DecisionQuery {
            limit: 150,
            ..Default::default()
        },
        DecisionQuery {
            session_id: Some("sess_2".into()),
            limit: usize::MAX,
            ..Default::default()
        },
    ] {
        let (summary, events) = t.decisions(&q).unwrap();
        let ids: Vec<String> = events.into_iter().map(|e| e.id).collect();
        assert!(
            summary.total > 0 && summary.by_rule.len() <= 3,
            "{summary:?}"
        );
        assert_eq!((summary, ids), brute_force(dir.path(), &q), "{q:?}");
    }
}

/// A filtered `trace.tail` page equals the plain reading's: the index merges the rows of every
/// matching (type, actor) key.
#[test]
fn filtered_tail_pages_equal_a_plain_reading_of_the_segments() {
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_history(dir.path(), 1_500, small_segments()).unwrap();
    let mut t = Tracer::open_with(dir.path(), 50, small_segments()).unwrap();
    t.settle_index();
    let mut all: Vec<Event> = Vec::new();
    let mut listed = segments::list(&dir.path().join(SEGMENTS_DIR)).unwrap();
    listed.sort_by_key(|s| s.first_seq);
    for segment in listed {
        for line in fs::read_to_string(&segment.path).unwrap().lines() {
            all.push(serde_json::from_str(line).unwrap());
        }
    }
    let seq = |e: &Event| seq_of_id(&e.id).unwrap() as i64;
    for (after, limit, actor, kind) in [
        (-1, 40, None, Some("skill.executed")),
        (700, 25, None, Some("policy.decision")),
        (-1, 33, Some("agent_2"), None),
        (1_234, 500, Some("agent_4"), None),
        (10, 7, Some("agent_0"), Some("policy.denied")),
        (1_000, 100_000, None, Some("policy.denied")),
    ] {
        let (page, _) = t.tail(after, limit, actor, kind).unwrap();
        let expected: Vec<String> = all
            .iter()
            .filter(|e| seq(e) > after)
            .filter(|e| actor.is_none_or(|a| e.actor_id == a))
            .filter(|e| kind.is_none_or(|k| e.kind == k))
            .take(limit)
            .map(|e| e.id.clone())
            .collect();
        let got: Vec<String> = page.into_iter().map(|e| e.id).collect();
        assert!(!expected.is_empty(), "{after} {actor:?} {kind:?}");
        assert_eq!(got, expected, "{after} {limit} {actor:?} {kind:?}");
    }
}

/// A few policy decisions issued live, as a host would.
fn synthetic_calls(t: &mut Tracer, n: usize) {
    for i in 0..n {
        t.emit(NewEvent {
            kind: "policy.denied",
            actor_id: "agent_3",
            thread_id: "sess_live",
            parent_event_id: None,
            caused_by: vec![],
            payload: serde_json::json!({"cap": "scene.createEntity", "allow": false,
                "rule": "quota", "agentId": "agent_3", "sessionId": "sess_live", "package": null, "i": i}),
        });
    }
}

#[test]
fn a_deleted_index_is_rebuilt_from_the_segments_and_answers_the_same() {
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_history(dir.path(), 2_000, small_segments()).unwrap();
    let before = {
        let mut t = Tracer::open_with(dir.path(), 4, small_segments()).unwrap();
        t.settle_index();
        answers(&mut t)
    };
    assert!(before.pages.len() > 10 && !before.children.is_empty());
    for file in ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm"] {
        let _ = fs::remove_file(dir.path().join(file));
    }
    let mut t = Tracer::open_with(dir.path(), 4, small_segments()).unwrap();
    t.settle_index();
    assert_eq!(answers(&mut t), before);
}

#[test]
fn an_index_of_another_history_is_noticed_and_rebuilt() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    synthetic::write_history(a.path(), 1_500, small_segments()).unwrap();
    synthetic::write_history(b.path(), 1_500, small_segments()).unwrap();
    let expected = {
        let mut t = Tracer::open_with(b.path(), 4, small_segments()).unwrap();
        t.settle_index();
        answers(&mut t)
    };
    {
        // Index `a` fully, then put its index beside `b`'s segments.
        let mut t = Tracer::open_with(a.path(), 4, small_segments()).unwrap();
        t.settle_index();
        answers(&mut t);
    }
    for file in ["index.sqlite-wal", "index.sqlite-shm"] {
        let _ = fs::remove_file(b.path().join(file));
    }
    fs::copy(a.path().join("index.sqlite"), b.path().join("index.sqlite")).unwrap();
    let mut t = Tracer::open_with(b.path(), 4, small_segments()).unwrap();
    t.settle_index();
    assert_eq!(answers(&mut t), expected);
}

#[test]
fn a_durable_tracer_without_its_index_answers_from_the_segments() {
    let dir = tempfile::tempdir().unwrap();
    // A folder in the index's place: SQLite cannot open it.
    fs::create_dir_all(dir.path().join("index.sqlite")).unwrap();
    let mut t = Tracer::open(dir.path(), 3).unwrap();
    t.settle_index();
    synthetic_calls(&mut t, 5);
    // The window holds 3; the other 2 are read from the segments.
    let (page, _) = t.tail(-1, 10, None, None).unwrap();
    assert_eq!(page.len(), 5);
}

#[test]
fn queries_asked_while_the_index_is_rebuilt_are_already_whole() {
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_history(dir.path(), 30_000, small_segments()).unwrap();
    // Asked at once: most of the history is not indexed yet and is read from the segments.
    let early = {
        let mut t = Tracer::open_with(dir.path(), 4, small_segments()).unwrap();
        let early = answers(&mut t);
        let q = DecisionQuery {
            allow: Some(false),
            limit: 7,
            ..Default::default()
        };
        let (summary, events) = t.decisions(&q).unwrap();
        let ids: Vec<String> = events.into_iter().map(|e| e.id).collect();
        assert_eq!((summary, ids), brute_force(dir.path(), &q));
        early
    };
    let mut t = Tracer::open_with(dir.path(), 4, small_segments()).unwrap();
    t.settle_index();
    assert_eq!(answers(&mut t), early);
}

#[test]
fn a_damaged_index_file_is_replaced_and_built_again() {
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_history(dir.path(), 2_000, small_segments()).unwrap();
    let expected = {
        let mut t = Tracer::open_with(dir.path(), 4, small_segments()).unwrap();
        t.settle_index();
        answers(&mut t)
    };
    for file in ["index.sqlite-wal", "index.sqlite-shm"] {
        let _ = fs::remove_file(dir.path().join(file));
    }
    fs::write(dir.path().join("index.sqlite"), vec![0xa5; 64 << 10]).unwrap();
    let mut t = Tracer::open_with(dir.path(), 4, small_segments()).unwrap();
    t.settle_index();
    assert!(t.index.is_some(), "the index is back");
    assert_eq!(answers(&mut t), expected);
}

#[test]
fn a_damaged_line_is_passed_over_by_queries_and_named_by_verify() {
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_history(dir.path(), 1_000, small_segments()).unwrap();
    let first = dir
        .path()
        .join(SEGMENTS_DIR)
        .join(segments::segment_name(1));
    let text = fs::read_to_string(&first).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[10] = "{\"garbage\": ";
    fs::write(&first, lines.join("\n") + "\n").unwrap();
    let count = |t: &mut Tracer| {
        let (mut n, mut after) = (0, -1);
        loop {
            let (page, next) = t.tail(after, 500, None, None).unwrap();
            n += page.len();
            match next {
                Some(next) => after = next,
                None => return n,
            }
        }
    };
    // Asked at once (mostly read from the segments) and once indexed: the same, one short.
    let mut t = Tracer::open_with(dir.path(), 4, small_segments()).unwrap();
    let total = t.count() as usize;
    assert_eq!(count(&mut t), total - 1);
    t.settle_index();
    assert_eq!(count(&mut t), total - 1);
    let err = verify_dir(dir.path(), None, None).unwrap_err().to_string();
    assert!(err.contains("line 11: invalid_json"), "{err}");
}

/// `n` calls as a live host traces them: a decision (one in three denied, across caps and
/// sessions) and, when allowed, the `skill.executed` it causes.
fn live_calls(t: &mut Tracer, n: usize, round: usize) {
    for i in 0..n {
        let allow = i % 3 != 0;
        let cap = ["scene.createEntity", "dice.roll", "names.generate"][(i + round) % 3];
        let session = format!("sess_{}", (i + round) % 4);
        let decision = t.emit(NewEvent {
            kind: if allow {
                "policy.decision"
            } else {
                "policy.denied"
            }
            .into(),
            actor_id: "agent_1".into(),
            thread_id: session.clone(),
            parent_event_id: None,
            caused_by: vec![],
            payload: serde_json::json!({"cap": cap, "allow": allow, "rule": "profile",
                "agentId": "agent_1", "sessionId": session, "package": null}),
        });
        if allow {
            t.emit(NewEvent {
                kind: "skill.executed".into(),
                actor_id: "agent_1".into(),
                thread_id: session,
                parent_event_id: None,
                caused_by: vec![decision],
                payload: serde_json::json!({"skill": cap, "ok": true}),
            });
        }
    }
}

#[test]
fn a_live_tracer_indexes_every_event_across_batches_and_counts_each_decision_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tracer::open_with(dir.path(), 8, small_segments()).unwrap();
    let queries = [
        DecisionQuery {
            limit: 4,
            ..Default::default()
        },
        DecisionQuery {
            allow: Some(false),
            session_id: Some("sess_2".into()),
            limit: 50,
            ..Default::default()
        },
        DecisionQuery {
            cap: Some("dice.roll".into()),
            limit: 1,
            ..Default::default()
        },
    ];
    // Asked between flushes, while the indexer holds rows it has not committed: whole each time.
    for round in 0..24 {
        live_calls(&mut t, 41, round);
        t.flush().unwrap();
        if round % 5 == 0 {
            for q in &queries {
                let (summary, events) = t.decisions(q).unwrap();
                let ids: Vec<String> = events.into_iter().map(|e| e.id).collect();
                assert_eq!(
                    (summary, ids),
                    brute_force(dir.path(), q),
                    "round {round}: {q:?}"
                );
            }
        }
    }
    let before = answers(&mut t);
    t.settle_index();
    assert_eq!(answers(&mut t), before);
    for q in &queries {
        let (summary, _) = t.decisions(q).unwrap();
        assert_eq!(summary, brute_force(dir.path(), q).0, "{q:?}");
    }
    // Reopened: the index picks up where it was committed, with no row counted twice.
    drop(t);
    let mut t = Tracer::open_with(dir.path(), 8, small_segments()).unwrap();
    t.settle_index();
    assert_eq!(answers(&mut t), before);
}

#[test]
fn the_gap_read_from_the_segments_answers_as_the_parsed_events_do() {
    let dir = tempfile::tempdir().unwrap();
    synthetic::write_history(dir.path(), 600, small_segments()).unwrap();
    // No index at all: every answer comes from the segments (and a window of 4).
    let mut t = Tracer::open_on(
        dir.path(),
        4,
        small_segments(),
        Durability::default(),
        std::sync::Arc::new(disk::RealDisk),
        false,
    )
    .unwrap();
    live_calls(&mut t, 30, 1);
    // Odd decisions: `allow` missing (counted as denied), a cap with quotes and escapes, a
    // package that is not a string, a payload that is not an object.
    for payload in [
        serde_json::json!({"cap": "dice.roll", "rule": "r", "agentId": "agent_1", "sessionId": "sess_1"}),
        serde_json::json!({"cap": "sc\"e\\ne", "allow": true, "rule": "r", "package": 7}),
        serde_json::json!(["not", "an", "object"]),
    ] {
        t.emit(NewEvent {
            kind: "policy.denied",
            actor_id: "agent_1",
            thread_id: "sess_1",
            parent_event_id: None,
            caused_by: vec![],
            payload,
        });
    }
    live_calls(&mut t, 6, 2);
    t.flush().unwrap();
    let queries = [
        DecisionQuery {
            limit: 7,
            ..Default::default()
        },
        DecisionQuery {
            allow: Some(false),
            limit: 4,
            ..Default::default()
        },
        DecisionQuery {
            allow: Some(true),
            cap: Some("sc\"e\\ne".into()),
            limit: 4,
            ..Default::default()
        },
        DecisionQuery {
            package: Some(String::new()),
            session_id: Some("sess_1".into()),
            limit: 100,
            ..Default::default()
        },
        DecisionQuery {
            cap: Some("dice".into()),
            limit: 3,
            ..Default::default()
        },
    ];
    for q in &queries {
        let (summary, events) = t.decisions(q).unwrap();
        let ids: Vec<String> = events.into_iter().map(|e| e.id).collect();
        assert_eq!((summary, ids), brute_force(dir.path(), q), "{q:?}");
    }
    // Pages filtered by actor and type, and children, as a plain reading says.
    let all: Vec<Event> = t.tail(-1, usize::MAX, None, None).unwrap().0;
    let (page, _) = t
        .tail(-1, 9, Some("agent_1"), Some("skill.executed"))
        .unwrap();
    let want: Vec<&Event> = all
        .iter()
        .filter(|e| e.actor_id == "agent_1" && e.kind == "skill.executed")
        .take(9)
        .collect();
    assert_eq!(page.iter().collect::<Vec<_>>(), want);
    assert_eq!(want.len(), 9);
    let parent = &want[0].caused_by[0];
    let children: Vec<String> = t.children_of(parent).into_iter().map(|e| e.id).collect();
    assert_eq!(children, vec![want[0].id.clone()]);
}

/// The indexer runs as batch work: its wake-ups do not preempt a thread answering a call.
#[test]
fn the_indexer_thread_is_scheduled_as_batch_work() {
    let dir = tempfile::tempdir().unwrap();
    // No window: settling waits until the index holds the event, so the indexer thread has
    // run (and named itself) by then.
    let mut t = Tracer::open(dir.path(), 0).unwrap();
    synthetic_calls(&mut t, 1);
    t.flush().unwrap();
    t.settle_index();
    let policies: Vec<String> = fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| {
            let path = task.ok()?.path();
            let stat = fs::read_to_string(path.join("stat")).ok()?;
            let (name, rest) = stat.split_once(" (")?.1.rsplit_once(") ")?;
            // After the name: field 3 on; the policy is field 41.
            (name == "trace-index").then(|| rest.split(' ').nth(41 - 3).unwrap().to_string())
        })
        .collect();
    assert!(!policies.is_empty(), "no trace-index thread found");
    // SCHED_BATCH = 3.
    assert!(policies.iter().all(|p| p == "3"), "{policies:?}");
}
