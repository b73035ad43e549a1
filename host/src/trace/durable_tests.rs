//! The durable store: reopening, recovery from torn writes, locking, and verification.

use super::*;
use serde_json::json;
use std::fs;
use std::path::PathBuf;

fn new(actor: &str, kind: &str, payload: Value) -> NewEvent {
    NewEvent {
        kind: kind.into(),
        actor_id: actor.into(),
        thread_id: "s1".into(),
        parent_event_id: None,
        caused_by: vec![],
        payload,
    }
}

fn trace_path(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("traces")
}

/// The first segment of the trace in `dir`.
fn first_segment(dir: &Path) -> PathBuf {
    dir.join(SEGMENTS_DIR).join(segments::segment_name(1))
}

/// Writes `n` events to a fresh durable trace in `dir` and closes it; returns its lines.
fn good_trace(dir: &Path, n: u64) -> Vec<String> {
    let path = first_segment(dir);
    let mut t = Tracer::open(dir, 4).unwrap();
    for i in 0..n {
        t.emit(new(
            "agent_1",
            "x",
            json!({ "i": i, "f": 0.1 + 0.2, "tiny": 1e-300 }),
        ));
    }
    t.flush().unwrap();
    drop(t);
    fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn last_hash(t: &Tracer) -> String {
    t.recent().last().unwrap().integrity.hash.clone()
}

#[test]
fn reopened_trace_continues_the_sequence_and_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let path = trace_path(&dir);
    assert_eq!(good_trace(&path, 5).len(), 5);

    let mut t = Tracer::open(&path, 4).unwrap();
    assert_eq!(t.count(), 5);
    assert_eq!(t.dir(), Some(path.as_path()));
    let ids: Vec<_> = (0..3)
        .map(|_| t.emit(new("agent_1", "y", json!({}))))
        .collect();
    assert!(
        ids[0].starts_with("evt_agent_1_000000000006_"),
        "{}",
        ids[0]
    );
    assert!(
        ids[2].starts_with("evt_agent_1_000000000008_"),
        "{}",
        ids[2]
    );
    let expected = last_hash(&t);
    drop(t); // dropping flushes the buffer

    // The second run wrote a segment of its own; the chain runs on across both.
    let report = verify_dir(&path, None, None).unwrap();
    assert_eq!((report.events, report.segments), (8, 2));
    assert_eq!(report.last_hash, Some(expected));
}

#[test]
fn torn_final_line_is_cut_off_and_the_sequence_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let traces = trace_path(&dir);
    let lines = good_trace(&traces, 3);
    let path = first_segment(&traces);
    let two_lines = (lines[0].len() + lines[1].len() + 2) as u64;
    let file = fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(fs::metadata(&path).unwrap().len() - 10)
        .unwrap();
    drop(file);

    let mut t = Tracer::open(&traces, 4).unwrap();
    assert_eq!(fs::metadata(&path).unwrap().len(), two_lines);
    assert_eq!(t.count(), 2);
    let id = t.emit(new("agent_1", "y", json!({})));
    assert!(id.starts_with("evt_agent_1_000000000003_"), "{id}");
    let second: Event = serde_json::from_str(&lines[1]).unwrap();
    let third = t.recent().last().unwrap();
    assert_eq!(third.integrity.previous_hash, Some(second.integrity.hash));
    t.flush().unwrap();
    assert_eq!(verify_dir(&traces, None, None).unwrap().events, 3);
}

#[test]
fn final_garbage_line_with_a_break_is_cut_off_too() {
    let dir = tempfile::tempdir().unwrap();
    let traces = trace_path(&dir);
    good_trace(&traces, 2);
    let path = first_segment(&traces);
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str("\0\0\0 not json\n");
    fs::write(&path, text).unwrap();

    let mut t = Tracer::open(&traces, 4).unwrap();
    assert_eq!(t.count(), 2);
    t.emit(new("agent_1", "y", json!({})));
    t.flush().unwrap();
    assert_eq!(verify_dir(&traces, None, None).unwrap().events, 3);
}

#[test]
fn a_file_holding_only_a_torn_line_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    let traces = trace_path(&dir);
    let first = good_trace(&traces, 1).remove(0);
    let path = first_segment(&traces);
    fs::write(&path, &first[..first.len() / 2]).unwrap();

    let mut t = Tracer::open(&traces, 4).unwrap();
    assert_eq!(t.count(), 0);
    assert_eq!(fs::metadata(&path).unwrap().len(), 0);
    let id = t.emit(new("a", "x", json!({})));
    assert!(id.starts_with("evt_a_000000000001_"), "{id}");
    assert_eq!(t.recent().last().unwrap().integrity.previous_hash, None);
}

#[test]
fn damage_before_a_torn_line_refuses_to_open_and_keeps_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let traces = trace_path(&dir);
    good_trace(&traces, 2);
    let path = first_segment(&traces);
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str("garbage\n{\"torn");
    fs::write(&path, &text).unwrap();

    let err = format!("{:#}", Tracer::open(&traces, 4).err().unwrap());
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("--trace-dir"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn a_locked_trace_folder_is_refused_naming_it_the_holder_and_the_flags_to_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = trace_path(&dir);
    let _holder = Tracer::open(&path, 4).unwrap();
    let err = Tracer::open(&path, 4).err().unwrap().to_string();
    assert!(
        err.contains(&format!("trace folder {} is in use", path.display())),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "process {} on host {}",
            std::process::id(),
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .unwrap()
                .trim()
        )),
        "{err}"
    );
    assert!(
        err.contains("pass a different --trace-dir") && err.contains("--ephemeral-trace"),
        "{err}"
    );
}

#[test]
fn event_seq_is_read_from_the_right_of_ids_with_underscored_actors() {
    let mut t = Tracer::new(4);
    t.emit(new("agent_with_under_scores", "x", json!({})));
    assert_eq!(t.recent().last().unwrap().seq(), Some(1));
    assert_eq!(seq_of_id("evt_a_b_000000000042_0123456789abcdef"), Some(42));
    assert_eq!(seq_of_id("evt_a_42_0123456789abcdef"), None);
    assert_eq!(seq_of_id("nope"), None);
    assert_eq!(seq_of_id("evt__000000000007_0123456789abcdef"), Some(7));
    assert_eq!(seq_of_id("evt_000000000007_0123456789abcdef"), None);
    assert_eq!(seq_of_id("evt_a_00000000007x_0123456789abcdef"), None);
    assert_eq!(seq_of_id("evt_a_000000000007_0123456789_bcdef"), None);
    assert_eq!(seq_of_id("xvt_a_000000000007_0123456789abcdef"), None);
    assert_eq!(
        seq_of_id("evt_a_999999999999_ffffffffffffffff"),
        Some(999_999_999_999)
    );
}

/// Writes the lines (each followed by a break unless `torn_end`) and verifies them.
fn verify_lines(lines: &[String], torn_end: bool) -> Result<VerifyReport, VerifyError> {
    let mut text = lines.join("\n");
    if !torn_end {
        text.push('\n');
    }
    verify_reader(text.as_bytes())
}

fn assert_bad(result: Result<VerifyReport, VerifyError>, line: u64, reason: &str) {
    match result {
        Err(VerifyError::BadLine {
            line: got,
            reason: r,
            ..
        }) => assert_eq!((got, r.as_str()), (line, reason)),
        other => panic!("expected line {line} {reason}, got {other:?}"),
    }
}

fn lines_of_five() -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    good_trace(&trace_path(&dir), 5)
}

#[test]
fn a_good_trace_verifies_with_its_count_and_last_hash() {
    let lines = lines_of_five();
    let last: Event = serde_json::from_str(&lines[4]).unwrap();
    let report = verify_lines(&lines, false).unwrap();
    assert_eq!(report.events, 5);
    assert_eq!(report.last_hash, Some(last.integrity.hash));
    assert_eq!(
        verify_reader(&b""[..]).unwrap(),
        VerifyReport {
            events: 0,
            last_hash: None
        }
    );
}

#[test]
fn a_tampered_payload_is_a_hash_mismatch_on_its_line() {
    let mut lines = lines_of_five();
    lines[2] = lines[2].replace("\"i\":2", "\"i\":9");
    assert_bad(verify_lines(&lines, false), 3, "hash_mismatch");
}

#[test]
fn swapped_or_removed_lines_are_a_previous_hash_mismatch() {
    let mut swapped = lines_of_five();
    swapped.swap(1, 2);
    assert_bad(verify_lines(&swapped, false), 2, "previous_hash_mismatch");
    let mut removed = lines_of_five();
    removed.remove(3);
    assert_bad(verify_lines(&removed, false), 4, "previous_hash_mismatch");
}

#[test]
fn a_garbage_line_in_the_middle_is_invalid_json() {
    let mut lines = lines_of_five();
    lines.insert(2, "{not json".into());
    assert_bad(verify_lines(&lines, false), 3, "invalid_json");
}

#[test]
fn a_final_line_without_a_break_is_partial() {
    let mut lines = lines_of_five();
    let cut = lines[4].len() - 7;
    lines[4].truncate(cut);
    assert_bad(verify_lines(&lines, true), 5, "partial_final_line");
}

#[test]
fn a_line_without_integrity_is_missing_integrity() {
    let mut lines = lines_of_five();
    let mut event: Value = serde_json::from_str(&lines[3]).unwrap();
    event.as_object_mut().unwrap().remove("integrity");
    lines[3] = event.to_string();
    assert_bad(verify_lines(&lines, false), 4, "missing_integrity");
}

#[test]
fn verify_reasons_have_their_wire_names() {
    let names: Vec<_> = [
        ChainBreak::InvalidJson,
        ChainBreak::PartialFinalLine,
        ChainBreak::MissingIntegrity,
        ChainBreak::PreviousHashMismatch,
        ChainBreak::HashMismatch,
    ]
    .iter()
    .map(|r| r.as_str())
    .collect();
    assert_eq!(
        names,
        [
            "invalid_json",
            "partial_final_line",
            "missing_integrity",
            "previous_hash_mismatch",
            "hash_mismatch"
        ]
    );
}
