//! Reading history back: tail pages, lookups by id and children, and export.

use super::*;
use serde_json::json;
use std::fs;

fn new(actor: &str, kind: &str) -> NewEvent {
    NewEvent {
        kind: kind.into(),
        actor_id: actor.into(),
        thread_id: "s1".into(),
        parent_event_id: None,
        caused_by: vec![],
        payload: json!({}),
    }
}

fn seqs(events: &[Event]) -> Vec<u64> {
    events.iter().map(|e| e.seq().unwrap()).collect()
}

/// A durable tracer with a window of 3 holding 10 events: odd seqs by actor `a` of type
/// `x`, even ones by `b` of type `y`.
fn ten_events(dir: &tempfile::TempDir) -> Tracer {
    let mut t = Tracer::open(dir.path(), 3).unwrap();
    t.settle_index();
    for i in 0..10 {
        let (actor, kind) = if i % 2 == 0 { ("a", "x") } else { ("b", "y") };
        t.emit(new(actor, kind));
    }
    t
}

#[test]
fn tail_pages_through_the_file_and_then_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = ten_events(&dir);
    let (page, next) = t.tail(-1, 4, None, None).unwrap();
    assert_eq!((seqs(&page), next), (vec![1, 2, 3, 4], Some(4)));
    let (page, next) = t.tail(4, 4, None, None).unwrap();
    assert_eq!((seqs(&page), next), (vec![5, 6, 7, 8], Some(8)));
    // Seqs 8..=10 are all in the window.
    let (page, next) = t.tail(8, 4, None, None).unwrap();
    assert_eq!((seqs(&page), next), (vec![9, 10], None));
    let (page, next) = t.tail(10, 4, None, None).unwrap();
    assert_eq!((seqs(&page), next), (vec![], None));
    // A page read from the file equals the events as issued.
    let from_window: Vec<_> = t.recent().collect();
    let (page, _) = t.tail(7, 10, None, None).unwrap();
    assert_eq!(page, from_window);
}

#[test]
fn tail_filters_by_actor_and_type_across_file_and_window() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = ten_events(&dir);
    let (page, next) = t.tail(-1, 2, Some("a"), None).unwrap();
    assert_eq!((seqs(&page), next), (vec![1, 3], Some(3)));
    let (page, next) = t.tail(3, 2, Some("a"), None).unwrap();
    assert_eq!((seqs(&page), next), (vec![5, 7], Some(7)));
    let (page, next) = t.tail(7, 2, Some("a"), None).unwrap();
    assert_eq!((seqs(&page), next), (vec![9], None));
    let (page, next) = t.tail(0, 10, Some("b"), Some("y")).unwrap();
    assert_eq!((seqs(&page), next), (vec![2, 4, 6, 8, 10], None));
    let (page, _) = t.tail(0, 10, Some("a"), Some("y")).unwrap();
    assert!(page.is_empty());
    // From the window alone: seqs 8..=10.
    let (page, next) = t.tail(7, 10, None, Some("y")).unwrap();
    assert_eq!((seqs(&page), next), (vec![8, 10], None));
}

#[test]
fn tail_limit_zero_returns_nothing_but_keeps_the_cursor_when_more_follow() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = ten_events(&dir);
    assert_eq!(t.tail(2, 0, None, None).unwrap(), (vec![], Some(2)));
    assert_eq!(t.tail(10, 0, None, None).unwrap(), (vec![], None));
}

#[test]
fn tail_reads_history_left_by_an_earlier_run() {
    let dir = tempfile::tempdir().unwrap();
    drop(ten_events(&dir));
    let mut t = Tracer::open(dir.path(), 2).unwrap();
    t.settle_index();
    t.emit(new("c", "z"));
    let (page, next) = t.tail(-1, 100, None, None).unwrap();
    assert_eq!((seqs(&page), next), ((1..=11).collect(), None));
    let (page, _) = t.tail(-1, 100, Some("c"), None).unwrap();
    assert_eq!(seqs(&page), vec![11]);
}

#[test]
fn in_memory_tail_serves_what_the_window_holds() {
    let mut t = Tracer::new(3);
    for _ in 0..5 {
        t.emit(new("a", "x"));
    }
    let (page, next) = t.tail(-1, 10, None, None).unwrap();
    assert_eq!((seqs(&page), next), (vec![3, 4, 5], None));
}

#[test]
fn get_and_children_find_events_that_left_the_window_before_a_flush() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tracer::open(dir.path(), 2).unwrap();
    t.settle_index();
    let root = t.emit(new("a", "policy.decision"));
    let caused = t.emit(NewEvent {
        caused_by: vec![root.clone()],
        ..new("a", "skill.executed")
    });
    let parented = t.emit(NewEvent {
        parent_event_id: Some(root.clone()),
        ..new("a", "host.import")
    });
    t.emit(new("b", "other"));
    let grandchild = t.emit(NewEvent {
        caused_by: vec![parented.clone()],
        ..new("a", "deep")
    });

    assert_eq!(t.get(&root).unwrap().kind, "policy.decision");
    assert_eq!(t.get(&grandchild).unwrap().kind, "deep");
    let ids = |events: Vec<Event>| events.into_iter().map(|e| e.id).collect::<Vec<_>>();
    assert_eq!(ids(t.children_of(&root)), vec![caused, parented.clone()]);
    assert_eq!(ids(t.children_of(&parented)), vec![grandchild]);
    // A right seq with a wrong hash, a seq not issued yet, and a foreign id.
    assert_eq!(t.get("evt_a_000000000001_0000000000000000"), None);
    assert_eq!(t.get("evt_a_000000000099_0000000000000000"), None);
    assert_eq!(t.get("nope"), None);
}

#[test]
fn export_rejects_names_that_could_leave_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = ten_events(&dir);
    let out = dir.path().join("exports");
    for name in ["../x", "a/b", "a\\b", ".hidden", "", "a..b", "x y"] {
        let err = t.export(&out, name).err().unwrap();
        assert!(err.to_string().contains("is not allowed"), "{name}: {err}");
    }
    assert_eq!(
        check_export_name(".hidden").unwrap_err().rule,
        "it must not start with `.`"
    );
    assert!(check_export_name("run-1_final.jsonl").is_ok());
    assert!(!out.exists() || fs::read_dir(&out).unwrap().next().is_none());
}

#[test]
fn export_writes_the_whole_trace_under_a_bare_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = ten_events(&dir);
    let out = dir.path().join("exports");
    let (events, bytes) = t.export(&out, "run-1.jsonl").unwrap();
    let exported = out.join("run-1.jsonl");
    assert_eq!(
        (events, bytes),
        (10, fs::metadata(&exported).unwrap().len())
    );
    t.flush().unwrap();
    let segment = dir
        .path()
        .join(SEGMENTS_DIR)
        .join(segments::segment_name(1));
    assert_eq!(fs::read(&exported).unwrap(), fs::read(segment).unwrap());
    assert_eq!(verify_file(&exported).unwrap().events, 10);
    // Only the export itself is left in the folder.
    assert_eq!(fs::read_dir(&out).unwrap().count(), 1);
    for own in [
        "segments",
        "trace.jsonl",
        "index.sqlite",
        "index.sqlite-wal",
    ] {
        let err = t.export(dir.path(), own).err().unwrap();
        assert!(
            err.to_string().contains("a file of the trace itself"),
            "{err}"
        );
    }
}

#[test]
fn export_writes_a_sequence_or_time_range_across_segments() {
    let dir = tempfile::tempdir().unwrap();
    let retention = Retention {
        segment_bytes: 1024,
        ..Retention::default()
    };
    let mut t = Tracer::open_with(dir.path(), 3, retention).unwrap();
    t.settle_index();
    for i in 0..40 {
        t.emit(new(if i % 2 == 0 { "a" } else { "b" }, "x"));
    }
    t.flush().unwrap();
    assert!(fs::read_dir(dir.path().join(SEGMENTS_DIR)).unwrap().count() > 4);
    let out = dir.path().join("exports");
    let range = ExportRange {
        from_seq: Some(12),
        to_seq: Some(31),
        ..ExportRange::default()
    };
    let mut reports = Vec::new();
    let (events, _) = t
        .export_range(&out, "mid.jsonl", &range, &mut |done, total| {
            reports.push((done, total))
        })
        .unwrap();
    assert_eq!(events, 20);
    let text = fs::read_to_string(out.join("mid.jsonl")).unwrap();
    let seqs: Vec<u64> = text
        .lines()
        .map(|l| serde_json::from_str::<Event>(l).unwrap().seq().unwrap())
        .collect();
    assert_eq!(seqs, (12..=31).collect::<Vec<_>>());
    // Without a range, every segment is written, not only the newest.
    let (events, _) = t
        .export_range(&out, "whole.jsonl", &ExportRange::default(), &mut |_, _| {})
        .unwrap();
    assert_eq!(events, 40);
    assert_eq!(verify_file(&out.join("whole.jsonl")).unwrap().events, 40);
    // Progress ends at its total, and the export stopped early: it never read the last
    // segments.
    let (done, total) = *reports.last().unwrap();
    assert!(done <= total, "{reports:?}");
    // A time range: everything up to the newest event's own timestamp, from the start.
    let newest = t.recent().last().unwrap().timestamp.clone();
    let range = ExportRange {
        until: Some(newest),
        since: Some("1970-01-01T00:00:00.000Z".into()),
        ..ExportRange::default()
    };
    let (events, _) = t
        .export_range(&out, "all.jsonl", &range, &mut |_, _| {})
        .unwrap();
    assert_eq!(events, 40);
    let range = ExportRange {
        since: Some("2999-01-01T00:00:00.000Z".into()),
        ..ExportRange::default()
    };
    let (events, _) = t
        .export_range(&out, "none.jsonl", &range, &mut |_, _| {})
        .unwrap();
    assert_eq!(events, 0);
}

#[test]
fn in_memory_export_writes_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tracer::new(10);
    for _ in 0..3 {
        t.emit(new("a", "x"));
    }
    let (events, bytes) = t.export(dir.path(), "mem.jsonl").unwrap();
    assert_eq!(events, 3);
    assert_eq!(
        bytes,
        fs::metadata(dir.path().join("mem.jsonl")).unwrap().len()
    );
    assert_eq!(
        verify_file(&dir.path().join("mem.jsonl")).unwrap().events,
        3
    );
}

/// A page the window holds, read from the window alone, is the page the whole history gives,
/// for every cursor, limit and filter `tail_in_window` admits; the ones it refuses reach past
/// the window or look at too many events for the engine.
#[test]
fn a_tail_page_the_window_holds_reads_the_same_from_the_window_alone() {
    use crate::limits::{TAIL_ON_ENGINE_EVENTS, TAIL_ON_ENGINE_SCAN};
    let dir = tempfile::tempdir().unwrap();
    let window = TAIL_ON_ENGINE_SCAN as usize + 40;
    let mut t = Tracer::open(dir.path(), window).unwrap();
    t.settle_index();
    for i in 0..window + 100 {
        let (actor, kind) = if i % 3 == 0 { ("a", "x") } else { ("b", "y") };
        t.emit(new(actor, kind));
        if i < window + 90 {
            t.commit().unwrap();
        }
    }
    // The last ten are not written yet: the window holds them, the engine may answer them.
    let newest = t.count() as i64;
    let first_in_window = newest - window as i64 + 1;
    let mut admitted = 0;
    for after in [
        -1,
        0,
        first_in_window - 2,
        first_in_window - 1,
        first_in_window,
    ]
    .into_iter()
    .chain(newest - 300..=newest)
    {
        for limit in [0, 1, 5, 63, 64, 65, 100] {
            for (actor, kind) in [(None, None), (Some("a"), None), (None, Some("y"))] {
                let filtered = actor.is_some() || kind.is_some();
                let holds = t.tail_in_window(after, limit, filtered);
                let newer = (newest - after.max(0)).max(0) as u64;
                let expected = after.max(0) + 1 >= first_in_window
                    && newer.min(limit as u64 + 1) <= TAIL_ON_ENGINE_EVENTS
                    && (!filtered || newer <= TAIL_ON_ENGINE_SCAN);
                assert_eq!(
                    holds, expected,
                    "after {after} limit {limit} {actor:?} {kind:?}"
                );
                if !holds {
                    continue;
                }
                admitted += 1;
                let from_window = t.window_history().tail(after, limit, actor, kind).unwrap();
                let whole = t.history().tail(after, limit, actor, kind).unwrap();
                assert_eq!(from_window, whole, "after {after} limit {limit}");
            }
        }
    }
    assert!(admitted > 300, "{admitted}");
    // Past the window's start, or too many newer events with a filter: refused.
    assert!(!t.tail_in_window(first_in_window - 2, 1, false));
    assert!(t.tail_in_window(newest - 10, 5, true));
    assert!(!t.tail_in_window(newest - TAIL_ON_ENGINE_SCAN as i64 - 1, 5, true));
}
