//! The write path under injected faults (a disk that fills up, refuses new files, refuses the
//! retention record or fails a sync): nothing unwritten is ever acknowledged, the chain never
//! holds an event that was not written, writing resumes when space returns, and the folder
//! verifies and reopens after each fault.

use super::disk::faulty::{Faults, FaultyDisk};
use super::segments::{CUT_FILE, list};
use super::*;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::Ordering;

fn event(i: u64) -> NewEvent {
    NewEvent {
        kind: "x".into(),
        actor_id: "a".into(),
        thread_id: "s".into(),
        parent_event_id: None,
        caused_by: vec![],
        payload: json!({"i": i, "pad": "0123456789abcdef0123456789abcdef"}),
    }
}

fn open(dir: &Path, retention: Retention, faults: &Arc<Faults>, durability: Durability) -> Tracer {
    Tracer::open_on(
        dir,
        16,
        retention,
        durability,
        Arc::new(FaultyDisk(faults.clone())),
        false,
    )
    .unwrap()
}

fn small(segment_bytes: u64, max_bytes: Option<u64>) -> Retention {
    Retention {
        segment_bytes,
        max_bytes,
        max_age: None,
    }
}

/// Emits one "call" of `n` events and commits it; its ids when the write succeeded.
fn call(t: &mut Tracer, n: u64) -> Result<Vec<String>, String> {
    let ids: Vec<String> = (0..n).map(|i| t.emit(event(i))).collect();
    t.commit().map(|()| ids)
}

/// Every id in `acked` is on disk, the folder verifies, and it holds exactly `count` events.
fn assert_durable(dir: &Path, acked: &[String], count: u64) {
    let report = verify_dir(dir, None, None).unwrap();
    assert_eq!(report.events, count, "events on disk");
    let mut on_disk = std::collections::HashSet::new();
    for segment in list(&dir.join(SEGMENTS_DIR)).unwrap() {
        for line in std::fs::read_to_string(&segment.path).unwrap().lines() {
            let event: Event = serde_json::from_str(line).unwrap();
            on_disk.insert(event.id);
        }
    }
    for id in acked {
        assert!(on_disk.contains(id), "acknowledged {id} is not on disk");
    }
}

#[test]
fn a_disk_full_mid_segment_refuses_the_call_keeps_nothing_of_it_and_resumes_when_space_returns() {
    let dir = tempfile::tempdir().unwrap();
    let faults = Faults::with_room(1_000);
    let mut t = open(
        dir.path(),
        small(1 << 20, None),
        &faults,
        Durability::default(),
    );
    let mut acked = Vec::new();
    let refused = loop {
        match call(&mut t, 2) {
            Ok(ids) => acked.extend(ids),
            Err(cause) => break cause,
        }
    };
    assert!(refused.contains("No space left on device"), "{refused}");
    assert!(refused.contains("free space in"), "{refused}");
    let written = t.count();
    assert_eq!(
        written,
        acked.len() as u64,
        "the refused call's events are not chained"
    );
    // The torn line the failed write left was cut off: the folder verifies as it stands.
    assert_durable(dir.path(), &acked, written);
    assert!(
        t.health().lock().unwrap().is_some(),
        "not ready while it lasts"
    );

    // While it lasts nothing is chained, and tries fail until space returns.
    assert_eq!(t.emit(event(9)), UNRECORDED);
    assert_eq!(t.count(), written);
    t.retry_now();
    assert!(t.accepting().is_err());
    faults.set_room(1 << 20);
    t.retry_now();
    t.accepting().unwrap();
    assert!(t.health().lock().unwrap().is_none(), "ready again");
    acked.extend(call(&mut t, 3).unwrap());
    assert_eq!(t.count(), written + 3);
    t.flush().unwrap();
    assert_durable(dir.path(), &acked, written + 3);

    // A restart continues the unbroken chain.
    drop(t);
    let mut t = open(
        dir.path(),
        small(1 << 20, None),
        &faults,
        Durability::default(),
    );
    assert_eq!(t.count(), written + 3);
    acked.extend(call(&mut t, 1).unwrap());
    drop(t);
    assert_durable(dir.path(), &acked, written + 4);
}

#[test]
fn a_disk_full_at_rotation_refuses_until_the_new_segment_can_be_made() {
    let dir = tempfile::tempdir().unwrap();
    let faults = Faults::with_room(1 << 20);
    let mut t = open(
        dir.path(),
        small(4096, None),
        &faults,
        Durability::default(),
    );
    let mut acked = Vec::new();
    // Fill the first segment to its size.
    while t.store.as_ref().unwrap().segments().last().unwrap().len < 4096 {
        acked.extend(call(&mut t, 1).unwrap());
    }
    faults.refuse_create.store(true, Ordering::SeqCst);
    let cause = call(&mut t, 2).unwrap_err();
    assert!(
        cause.contains("cannot write") || cause.contains("No space"),
        "{cause}"
    );
    assert_eq!(t.count(), acked.len() as u64);
    assert_durable(dir.path(), &acked, acked.len() as u64);

    faults.refuse_create.store(false, Ordering::SeqCst);
    t.retry_now();
    t.accepting().unwrap();
    acked.extend(call(&mut t, 2).unwrap());
    drop(t);
    assert_eq!(list(&dir.path().join(SEGMENTS_DIR)).unwrap().len(), 2);
    assert_durable(dir.path(), &acked, acked.len() as u64);
    let t = open(
        dir.path(),
        small(4096, None),
        &faults,
        Durability::default(),
    );
    assert_eq!(t.count(), acked.len() as u64);
}

#[test]
fn a_retention_record_that_cannot_be_written_removes_nothing_and_calls_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let faults = Faults::with_room(1 << 20);
    faults.refuse_paths.lock().unwrap().push(CUT_FILE.into());
    let retention = small(4096, Some(8192));
    let mut t = open(dir.path(), retention, &faults, Durability::default());
    let mut acked = Vec::new();
    for _ in 0..150 {
        acked.extend(call(&mut t, 1).unwrap());
    }
    t.flush().unwrap();
    // Past maxBytes, yet every segment stays: none goes without its record.
    assert!(list(&dir.path().join(SEGMENTS_DIR)).unwrap().len() > 3);
    assert_durable(dir.path(), &acked, 150);

    // Once the record can be written, the next rotation cuts, and what stays verifies.
    faults.refuse_paths.lock().unwrap().clear();
    for _ in 0..40 {
        acked.extend(call(&mut t, 1).unwrap());
    }
    drop(t);
    let report = verify_dir(dir.path(), None, None).unwrap();
    assert!(report.first_seq.unwrap() > 1, "retention cut the history");
    let t = open(dir.path(), retention, &faults, Durability::default());
    assert_eq!(t.count(), 190);
}

#[test]
fn a_failed_sync_is_an_outage_too() {
    let dir = tempfile::tempdir().unwrap();
    let faults = Faults::with_room(1 << 20);
    let always = Durability {
        fsync: Fsync::Always,
        ..Durability::default()
    };
    let mut t = open(dir.path(), small(1 << 20, None), &faults, always);
    call(&mut t, 2).unwrap();
    t.flush().unwrap();
    faults.fail_sync.store(true, Ordering::SeqCst);
    call(&mut t, 1).unwrap();
    let e = t.flush().unwrap_err().to_string();
    assert!(e.contains("Input/output error"), "{e}");
    assert!(t.accepting().is_err());
    faults.fail_sync.store(false, Ordering::SeqCst);
    t.retry_now();
    t.accepting().unwrap();
    call(&mut t, 1).unwrap();
    t.flush().unwrap();
    drop(t);
    verify_dir(dir.path(), None, None).unwrap();
}

#[test]
fn an_interval_sync_runs_in_the_background_and_its_failure_is_an_outage() {
    let dir = tempfile::tempdir().unwrap();
    let faults = Faults::with_room(1 << 20);
    let mut t = open(
        dir.path(),
        small(1 << 20, None),
        &faults,
        Durability::default(),
    );
    call(&mut t, 2).unwrap();
    t.sync_interval_now().unwrap();
    t.flush().expect("the sync starts in the background");
    t.sync_interval_now().expect("the first sync succeeded");
    faults.fail_sync.store(true, Ordering::SeqCst);
    let acked = call(&mut t, 1).unwrap();
    t.flush()
        .expect("the batch does not wait for the sync it starts");
    let e = t.sync_interval_now().unwrap_err();
    assert!(e.contains("Input/output error"), "{e}");
    let refused = call(&mut t, 1).unwrap_err();
    assert!(refused.contains("Input/output error"), "{refused}");
    assert!(t.accepting().is_err());
    assert_eq!(t.count(), 3, "the refused call left nothing in the chain");
    faults.fail_sync.store(false, Ordering::SeqCst);
    t.retry_now();
    t.accepting().unwrap();
    let more = call(&mut t, 1).unwrap();
    t.flush().unwrap();
    drop(t);
    assert_durable(dir.path(), &[acked, more].concat(), 4);
}

#[test]
fn on_write_failure_memory_keeps_serving_and_loses_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let faults = Faults::with_room(500);
    let memory = Durability {
        on_write_failure: OnWriteFailure::Memory,
        ..Durability::default()
    };
    let mut t = open(dir.path(), small(1 << 20, None), &faults, memory);
    for _ in 0..20 {
        call(&mut t, 1).expect("memory mode answers every call");
    }
    assert_eq!(t.count(), 20);
    assert!(t.accepting().is_ok());
    assert!(t.health().lock().unwrap().is_none());
    drop(t);
    let report = verify_dir(dir.path(), None, None).unwrap();
    assert!(report.events < 20, "the history past the failure is lost");
}
