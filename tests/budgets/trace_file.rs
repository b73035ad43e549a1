//! The durable trace over the real binary: recovery after a torn write, and verification
//! that names the first bad line.

use crate::support::Client;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn verify(file: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_limina"))
        .args(["trace", "verify"])
        .arg(file)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn seqs(c: &mut Client) -> Vec<u64> {
    let tail = c.call_ok("trace.tail", json!({"limit": 1000}));
    tail["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            e["id"]
                .as_str()
                .unwrap()
                .split('_')
                .nth(2)
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect()
}

#[test]
fn a_trace_cut_mid_line_recovers_continues_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--trace-dir", dir.path().to_str().unwrap()];
    let file = dir.path().join("segments/00000000000000000001.jsonl");
    {
        let mut c = Client::session("builder.readWrite", &args);
        c.call_ok("scene.createEntity", json!({}));
        c.call_ok("scene.createEntity", json!({}));
        // Killed, not closed: whatever was flushed is all there is.
    }
    let (ok, report) = verify(&file);
    assert!(ok, "{report}");
    // Tear the final line as a crash mid-write would.
    let text = std::fs::read_to_string(&file).unwrap();
    let good_lines = text.lines().count();
    std::fs::write(&file, &text.as_bytes()[..text.len() - 40]).unwrap();
    let (ok, report) = verify(&file);
    assert!(!ok);
    assert!(
        report.contains(&format!("line {good_lines}: partial_final_line")),
        "{report}"
    );

    let mut c = Client::session("builder.readWrite", &args);
    c.call_ok("scene.queryEntities", json!({}));
    let seqs = seqs(&mut c);
    // The torn event is gone, the survivors keep their numbers and the sequence goes on.
    assert_eq!(
        seqs[..good_lines - 1],
        (1..good_lines as u64).collect::<Vec<_>>()[..]
    );
    assert!(
        seqs[good_lines - 1] == good_lines as u64,
        "sequence continues at the torn event's number: {seqs:?}"
    );
    drop(c);
    // The second run went on in a segment of its own; the folder verifies as one history.
    let (ok, report) = verify(dir.path());
    assert!(ok, "{report}");
    assert!(report.contains("in 2 segments"), "{report}");
}

#[test]
fn a_tampered_line_is_named_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--trace-dir", dir.path().to_str().unwrap()];
    let file = dir.path().join("segments/00000000000000000001.jsonl");
    {
        let mut c = Client::session("builder.readWrite", &args);
        c.call_ok("scene.createEntity", json!({"position": [1, 2, 3]}));
        c.call_ok("scene.createEntity", json!({}));
    }
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let target = lines
        .iter()
        .position(|l| l.contains("\"skill.executed\""))
        .unwrap();
    let mut event: Value = serde_json::from_str(&lines[target]).unwrap();
    event["payload"]["input"]["position"] = json!([9, 9, 9]);
    lines[target] = event.to_string();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let (ok, report) = verify(&file);
    assert!(!ok);
    assert!(
        report.contains(&format!("line {}: hash_mismatch", target + 1)),
        "{report}"
    );

    // Dropping a line breaks the link of the one after it.
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines.remove(1);
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let (_, report) = verify(&file);
    assert!(
        report.contains("line 2: previous_hash_mismatch"),
        "{report}"
    );
}
