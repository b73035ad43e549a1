use super::*;
use serde_json::json;

fn new(kind: &str, payload: Value) -> NewEvent {
    NewEvent {
        kind: kind.into(),
        actor_id: "agent1".into(),
        thread_id: "s1".into(),
        parent_event_id: None,
        caused_by: vec![],
        payload,
    }
}

#[test]
fn ids_carry_actor_and_twelve_digit_sequence() {
    let mut t = Tracer::new(10);
    let a = t.emit(new("x", json!({})));
    let b = t.emit(new("x", json!({})));
    assert!(a.starts_with("evt_agent1_000000000001_"), "{a}");
    assert!(b.starts_with("evt_agent1_000000000002_"), "{b}");
    assert_eq!(a.rsplit('_').next().unwrap().len(), 16);
}

/// A large event is sealed whole like any other, and the buffers it grew are given back
/// rather than kept at its size for the host's lifetime.
#[test]
fn a_large_event_seals_whole_and_gives_its_buffers_back() {
    let mut t = Tracer::new(10);
    let big = json!({"text": "x".repeat(200_000)});
    t.emit(new("big", big.clone()));
    assert!(t.line.capacity() <= 64 << 10, "{}", t.line.capacity());
    t.emit(new("small", json!({"k": 1})));
    let events: Vec<_> = t.recent().collect();
    assert_eq!(events[0].payload, big);
    assert_eq!(events[1].payload, json!({"k": 1}));
    assert_eq!(
        events[1].integrity.previous_hash.as_deref(),
        Some(events[0].integrity.hash.as_str())
    );
    for e in &events {
        assert_eq!(e.compute_hash(), e.integrity.hash);
    }
}

#[test]
fn hashes_chain_and_detect_tampering() {
    let mut t = Tracer::new(10);
    t.emit(new("a", json!({"k": 1})));
    t.emit(new("b", json!({"k": 2})));
    let events: Vec<_> = t.recent().collect();
    assert_eq!(events[0].integrity.previous_hash, None);
    assert_eq!(
        events[1].integrity.previous_hash.as_deref(),
        Some(events[0].integrity.hash.as_str())
    );
    for e in &events {
        assert_eq!(e.compute_hash(), e.integrity.hash);
    }
    let mut tampered = events[1].clone();
    tampered.payload = json!({"k": 3});
    assert_ne!(tampered.compute_hash(), tampered.integrity.hash);
}

#[test]
fn canonical_json_sorts_keys_without_whitespace() {
    assert_eq!(
        canonical_json(&json!({"b": 1, "a": [1, {"d": 2, "c": 3}]})),
        r#"{"a":[1,{"c":3,"d":2}],"b":1}"#
    );
}

#[test]
fn window_keeps_only_the_newest_events() {
    let mut t = Tracer::new(2);
    for i in 0..5 {
        t.emit(new("x", json!({ "i": i })));
    }
    let kept: Vec<_> = t
        .recent()
        .map(|e| e.payload["i"].as_i64().unwrap())
        .collect();
    assert_eq!(kept, vec![3, 4]);
    assert_eq!(t.count(), 5);
}

#[test]
fn timestamps_are_iso8601_utc() {
    assert_eq!(event::iso8601_for_test(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(
        event::iso8601_for_test(1_795_219_200),
        "2026-11-21T00:00:00.000Z"
    );
}

#[test]
fn the_streamed_hash_equals_the_hash_of_the_canonical_value() {
    let mut t = Tracer::new(4);
    t.emit(new("a", json!({"z": [1.5, {"y": null, "b": "é"}], "a": 1})));
    let e = t.recent().next().unwrap();
    let mut body = serde_json::to_value(&e).unwrap();
    body.as_object_mut().unwrap().remove("integrity");
    assert_eq!(e.integrity.hash, event::chain_hash(&body, None));
}

/// The stored line and the hash are written from the payload serialized once: the line reads
/// back as the event and serializes to the same bytes, and its hash is the one a verifier
/// computes from the line alone.
#[test]
fn the_line_and_hash_written_from_one_serialization_match_the_plain_forms() {
    let mut caused = new(
        "skill.executed",
        json!({"z": "é\n\"q\"", "a": [1, 2.5, null], "m": {"y": true, "b": {}}}),
    );
    caused.parent_event_id = Some("evt_x_000000000001_0000000000000000".into());
    caused.caused_by = vec!["evt_a".into(), "evt_b".into()];
    // Texts serde must escape, wherever a string is written: a quote, a backslash, a
    // control character, DEL and non-ASCII.
    let mut odd = new("odd \"type\"\\", json!({"k": "\u{7f}"}));
    odd.actor_id = "agent \u{1}\u{7f}".into();
    odd.thread_id = "séance\t".into();
    odd.caused_by = vec!["evt_\"q\"".into()];
    for (previous, new_event) in [
        (None, new("a", json!({}))),
        (Some("sha256:00".to_string()), caused),
        (Some("sha256:\"odd\"\\".to_string()), odd),
    ] {
        let mut line = b"left from the event before".to_vec();
        let sealed = event::seal(
            7,
            &new_event,
            previous.clone(),
            "2026-11-25T00:00:00.000Z",
            &mut line,
        );
        let text = String::from_utf8(line).unwrap();
        let event: Event = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&event).unwrap(), text);
        assert_eq!(event.id, sealed.id);
        assert_eq!(event.payload, new_event.payload);
        assert_eq!(event.integrity.previous_hash, previous);
        let stored: Value = serde_json::from_str(&text).unwrap();
        let mut body = stored.clone();
        body.as_object_mut().unwrap().remove("integrity");
        assert_eq!(event::chain_hash(&body, previous.as_deref()), sealed.hash);
        assert_eq!(event.compute_hash(), sealed.hash);
    }
}
