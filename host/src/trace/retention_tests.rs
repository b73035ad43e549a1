//! Segments and retention: rotation by size, removal by size and age with the cut recorded,
//! and verification of what remains.

use super::segments::{CUT_FILE, last_cut, list, segment_name};
use super::*;
use std::fs;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

fn limits(segment: u64, max: Option<u64>) -> Retention {
    Retention {
        segment_bytes: segment,
        max_bytes: max,
        max_age: None,
    }
}

fn emit_n(t: &mut Tracer, n: usize) {
    for i in 0..n {
        t.emit(NewEvent {
            kind: "x",
            actor_id: "a",
            thread_id: "s",
            parent_event_id: None,
            caused_by: vec![],
            payload: serde_json::json!({"i": i, "pad": "0123456789abcdef0123456789abcdef"}),
        });
        t.flush().unwrap();
    }
}

fn seg_dir(dir: &Path) -> PathBuf {
    dir.join(SEGMENTS_DIR)
}

#[test]
fn segments_rotate_by_size_and_chain_across_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tracer::open_with(dir.path(), 4, limits(4096, None)).unwrap();
    t.settle_index();
    emit_n(&mut t, 200);
    let segments = list(&seg_dir(dir.path())).unwrap();
    assert!(segments.len() >= 5, "{segments:?}");
    for pair in segments.windows(2) {
        // A sealed segment passed the size by at most one line.
        assert!(pair[0].len >= 4096 && pair[0].len < 4096 + 400, "{pair:?}");
        // Each segment is named by its first event.
        let first = fs::read_to_string(&pair[1].path).unwrap();
        let event: Event = serde_json::from_str(first.lines().next().unwrap()).unwrap();
        assert_eq!(event.seq(), Some(pair[1].first_seq));
    }
    let report = verify_dir(dir.path(), None, None).unwrap();
    assert_eq!(
        (report.events, report.first_seq, report.last_seq),
        (200, Some(1), Some(200))
    );
    // A range starting in a middle segment trusts the hash its first line chains from.
    let report = verify_dir(dir.path(), Some(100), Some(150)).unwrap();
    assert!(
        report.first_seq.unwrap() <= 100 && report.last_seq.unwrap() >= 150,
        "{report:?}"
    );
    assert!(report.events < 200);
}

#[test]
fn retention_by_size_removes_the_oldest_segments_and_what_remains_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tracer::open_with(dir.path(), 4, limits(4096, Some(16384))).unwrap();
    t.settle_index();
    emit_n(&mut t, 400);
    let segments = list(&seg_dir(dir.path())).unwrap();
    let total: u64 = segments.iter().map(|s| s.len).sum();
    assert!(total <= 16384 + 4096, "{total} bytes kept in {segments:?}");
    let cut = last_cut(&seg_dir(dir.path()))
        .unwrap()
        .expect("a cut is recorded");
    assert_eq!(cut.first_seq, segments[0].first_seq);
    let report = verify_dir(dir.path(), None, None).unwrap();
    assert_eq!(report.cut_at, Some(cut.first_seq));
    assert_eq!(report.last_seq, Some(400));
    // Queries see the kept history only, from the index and the window.
    let (page, _) = t.tail(-1, 3, None, None).unwrap();
    assert_eq!(page[0].seq(), Some(cut.first_seq));
    assert_eq!(t.count(), 400);
    // Reopened, the chain goes on after the cut.
    drop(t);
    let mut t = Tracer::open_with(dir.path(), 4, limits(4096, Some(16384))).unwrap();
    t.settle_index();
    emit_n(&mut t, 5);
    drop(t);
    assert_eq!(
        verify_dir(dir.path(), None, None).unwrap().last_seq,
        Some(405)
    );
}

#[test]
fn a_segment_removed_without_a_recorded_cut_is_named_by_verify() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tracer::open_with(dir.path(), 4, limits(4096, None)).unwrap();
    t.settle_index();
    emit_n(&mut t, 150);
    drop(t);
    let segments = list(&seg_dir(dir.path())).unwrap();
    // A middle segment gone: the next one's first line no longer links.
    fs::remove_file(&segments[2].path).unwrap();
    let err = verify_dir(dir.path(), None, None).unwrap_err().to_string();
    let next = segment_name(segments[3].first_seq);
    assert!(
        err.starts_with(&format!("{next} line 1: previous_hash_mismatch")),
        "{err}"
    );
    // The oldest gone with no cut on record: the history is missing its start.
    fs::remove_file(&segments[0].path).unwrap();
    let err = verify_dir(dir.path(), None, None).unwrap_err().to_string();
    assert!(err.contains("missing_history"), "{err}");
    assert!(!seg_dir(dir.path()).join(CUT_FILE).exists());
}

#[test]
fn retention_by_age_removes_segments_whose_newest_event_is_too_old() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tracer::open_with(dir.path(), 4, limits(4096, None)).unwrap();
    t.settle_index();
    emit_n(&mut t, 150);
    drop(t);
    let segments = list(&seg_dir(dir.path())).unwrap();
    let old = SystemTime::now() - Duration::from_secs(3 * 86_400);
    for s in &segments[..2] {
        fs::File::options()
            .write(true)
            .open(&s.path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let retention = Retention {
        max_age: Some(Duration::from_secs(2 * 86_400)),
        ..limits(4096, None)
    };
    let mut t = Tracer::open_with(dir.path(), 4, retention).unwrap();
    t.settle_index();
    let kept = list(&seg_dir(dir.path())).unwrap();
    assert_eq!(kept[0].first_seq, segments[2].first_seq);
    assert_eq!(
        verify_dir(dir.path(), None, None).unwrap().cut_at,
        Some(segments[2].first_seq)
    );
    let (page, _) = t.tail(-1, 1, None, None).unwrap();
    assert_eq!(page[0].seq(), Some(segments[2].first_seq));
}

#[test]
fn the_single_trace_file_of_earlier_versions_is_adopted_as_the_first_segment() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tracer::open_with(dir.path(), 4, limits(1 << 20, None)).unwrap();
    emit_n(&mut t, 30);
    drop(t);
    // Lay the folder out as an earlier host left it: one trace.jsonl, no segments, no index.
    let first = seg_dir(dir.path()).join(segment_name(1));
    fs::rename(&first, dir.path().join("trace.jsonl")).unwrap();
    fs::remove_dir_all(seg_dir(dir.path())).unwrap();
    for file in ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm"] {
        let _ = fs::remove_file(dir.path().join(file));
    }
    let mut t = Tracer::open_with(dir.path(), 4, limits(1 << 20, None)).unwrap();
    assert_eq!(t.count(), 30);
    assert!(!dir.path().join("trace.jsonl").exists());
    assert!(first.exists());
    emit_n(&mut t, 2);
    let (page, _) = t.tail(-1, 2, None, None).unwrap();
    assert_eq!(page[0].seq(), Some(1));
    drop(t);
    let report = verify_dir(dir.path(), None, None).unwrap();
    assert_eq!((report.events, report.segments), (32, 2));
}
