//! The core `audio` skills over MCP: the headless mixer's handles `aud_<n>`, buses and
//! volumes, sounds ending as the world steps, strict inputs, and refusals that change nothing.

use crate::agent_skills::snapshot;
use crate::support::{Client, error_of};
use serde_json::{Value, json};

fn handle(c: &mut Client, skill: &str, args: Value) -> String {
    c.call_ok(skill, args)["handle"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The mixer as the inspector reports it: `{buses, sounds}`.
fn mixer(c: &mut Client) -> Value {
    snapshot(c)["world"]["audio"].clone()
}

fn tone(c: &mut Client) -> String {
    handle(c, "audio.play", json!({"freq": 440, "secs": 1}))
}

#[test]
fn every_sound_skill_returns_a_handle_in_order_and_stop_ends_it() {
    let mut c = Client::session("builder.readWrite", &[]);
    let handles = [
        handle(
            &mut c,
            "audio.play",
            json!({"freq": 440, "secs": 10, "bus": "sfx", "volume": 0}),
        ),
        handle(&mut c, "audio.ambient", json!({})),
        handle(
            &mut c,
            "audio.playAt",
            json!({"freq": 220.5, "secs": 0.1, "position": [1, 2, 3], "bus": "master", "volume": 1, "maxDistance": 0}),
        ),
        handle(
            &mut c,
            "audio.speak",
            json!({"text": "hello there", "position": [0, 1, 0], "volume": 0.5}),
        ),
    ];
    assert_eq!(handles, ["aud_1", "aud_2", "aud_3", "aud_4"]);
    let sounds = mixer(&mut c)["sounds"].clone();
    let summary: Vec<_> = sounds
        .as_array()
        .unwrap()
        .iter()
        .map(|s| json!([s["handle"], s["sound"]["kind"], s["bus"], s["volume"]]))
        .collect();
    assert_eq!(
        json!(summary),
        json!([
            ["aud_1", "tone", "sfx", 0.0],
            ["aud_2", "ambient", "ambience", 1.0],
            ["aud_3", "tone", "master", 1.0],
            ["aud_4", "speech", "voice", 0.5],
        ])
    );
    assert_eq!(
        sounds[0]["sound"],
        json!({"kind": "tone", "freq": 440.0, "secs": 10.0})
    );
    assert_eq!(sounds[2]["position"], json!([1.0, 2.0, 3.0]));
    assert_eq!(sounds[2]["maxDistance"], 0.0);
    assert_eq!(sounds[3]["sound"]["text"], "hello there");
    assert_eq!(sounds[3]["owner"], "tester");
    for h in &handles {
        assert_eq!(
            c.call_ok("audio.stop", json!({"handle": h})),
            json!({"ok": true})
        );
        assert_eq!(
            c.call_ok("audio.stop", json!({"handle": h})),
            json!({"ok": false})
        );
    }
    assert_eq!(
        c.call_ok("audio.stop", json!({"handle": "aud_99"}))["ok"],
        false
    );
    assert_eq!(tone(&mut c), "aud_5", "handles are never reused");
}

#[test]
fn volumes_change_on_live_sounds_and_on_every_bus() {
    let mut c = Client::session("builder.readWrite", &[]);
    let h = tone(&mut c);
    for volume in [0.0, 0.25, 1.0] {
        let out = c.call_ok("audio.setVolume", json!({"handle": h, "volume": volume}));
        assert_eq!(out, json!({"ok": true}));
    }
    let unknown = c.call_ok("audio.setVolume", json!({"handle": "aud_7", "volume": 0.5}));
    assert_eq!(unknown, json!({"ok": false}));
    for (bus, volume) in [
        ("master", 0.5),
        ("sfx", 0.0),
        ("ambience", 0.75),
        ("voice", 1.0),
    ] {
        let out = c.call_ok("audio.setBusVolume", json!({"bus": bus, "volume": volume}));
        assert_eq!(out, json!({"ok": true}));
    }
    let m = mixer(&mut c);
    assert_eq!(
        m["buses"],
        json!({"master": 0.5, "sfx": 0.0, "ambience": 0.75, "voice": 1.0})
    );
    assert_eq!(m["sounds"][0]["volume"], 1.0);
}

#[test]
fn tones_end_after_their_duration_as_the_world_steps_and_ambience_plays_on() {
    let mut c = Client::session("builder.readWrite", &["--tick-ms", "100"]);
    let short = handle(&mut c, "audio.play", json!({"freq": 440, "secs": 0.45}));
    let bed = handle(
        &mut c,
        "audio.ambient",
        json!({"bus": "ambience", "volume": 0.3}),
    );
    c.call_ok("world.step", json!({"ticks": 4}));
    let live = c.call_ok("audio.setVolume", json!({"handle": short, "volume": 0.5}));
    assert_eq!(live["ok"], true, "0.4 s into a 0.45 s tone");
    c.call_ok("world.step", json!({"ticks": 1}));
    assert_eq!(
        c.call_ok("audio.stop", json!({"handle": short}))["ok"],
        false
    );
    c.call_ok("world.step", json!({"ticks": 1000}));
    assert_eq!(c.call_ok("audio.stop", json!({"handle": bed}))["ok"], true);
}

#[test]
fn unknown_keys_are_invalid_input_naming_the_key() {
    let mut c = Client::session("builder.readWrite", &[]);
    for (skill, args) in [
        ("audio.play", json!({"freq": 440, "secs": 1, "loop": true})),
        ("audio.ambient", json!({"loop": true})),
        (
            "audio.playAt",
            json!({"freq": 440, "secs": 1, "position": [0, 0, 0], "loop": true}),
        ),
        (
            "audio.speak",
            json!({"text": "hi", "position": [0, 0, 0], "loop": true}),
        ),
        ("audio.stop", json!({"handle": "aud_1", "loop": true})),
        (
            "audio.setVolume",
            json!({"handle": "aud_1", "volume": 1, "loop": true}),
        ),
        (
            "audio.setBusVolume",
            json!({"bus": "sfx", "volume": 1, "loop": true}),
        ),
    ] {
        let (code, message) = error_of(&c.call(skill, args));
        assert_eq!(code, "invalid_input", "{skill}");
        assert!(message.contains("'loop'"), "{skill}: {message}");
    }
    assert_eq!(tone(&mut c), "aud_1", "nothing started before");
}

#[test]
fn ranges_buses_and_required_fields_are_checked() {
    let mut c = Client::session("builder.readWrite", &[]);
    let at = json!([0, 0, 0]);
    for (skill, args, field) in [
        ("audio.play", json!({"freq": 0, "secs": 1}), "freq"),
        ("audio.play", json!({"freq": -5, "secs": 1}), "freq"),
        ("audio.play", json!({"freq": 440, "secs": 0}), "secs"),
        ("audio.play", json!({"freq": 440, "secs": 10.01}), "secs"),
        (
            "audio.play",
            json!({"freq": 440, "secs": 1, "volume": 1.01}),
            "volume",
        ),
        (
            "audio.play",
            json!({"freq": 440, "secs": 1, "volume": -0.1}),
            "volume",
        ),
        (
            "audio.play",
            json!({"freq": 440, "secs": 1, "bus": "music"}),
            "bus",
        ),
        ("audio.play", json!({"secs": 1}), "freq"),
        ("audio.play", json!({"freq": 440}), "secs"),
        ("audio.ambient", json!({"bus": "loud"}), "bus"),
        ("audio.ambient", json!({"volume": 2}), "volume"),
        ("audio.playAt", json!({"freq": 440, "secs": 1}), "position"),
        (
            "audio.playAt",
            json!({"freq": 440, "secs": 1, "position": [0, 0]}),
            "position",
        ),
        (
            "audio.playAt",
            json!({"freq": 440, "secs": 1, "position": at, "maxDistance": -1}),
            "maxDistance",
        ),
        ("audio.speak", json!({"text": "", "position": at}), "text"),
        (
            "audio.speak",
            json!({"text": "x".repeat(501), "position": at}),
            "text",
        ),
        ("audio.speak", json!({"text": "hi"}), "position"),
        ("audio.stop", json!({}), "handle"),
        ("audio.setVolume", json!({"handle": "aud_1"}), "volume"),
        (
            "audio.setVolume",
            json!({"handle": "aud_1", "volume": 1.5}),
            "volume",
        ),
        ("audio.setBusVolume", json!({"volume": 0.5}), "bus"),
        (
            "audio.setBusVolume",
            json!({"bus": "sfx", "volume": -1}),
            "volume",
        ),
    ] {
        let (code, message) = error_of(&c.call(skill, args.clone()));
        assert_eq!(code, "invalid_input", "{skill} {args}");
        assert!(message.contains(field), "{skill} {args}: {message}");
    }
    // The edges of the ranges are accepted.
    handle(&mut c, "audio.play", json!({"freq": 0.001, "secs": 10}));
    handle(
        &mut c,
        "audio.speak",
        json!({"text": "x".repeat(500), "position": at}),
    );
}

#[test]
fn a_player_limited_session_is_refused_audio_play_and_nothing_changes() {
    let mut c = Client::session("builder.readWrite", &[]);
    let h = tone(&mut c);
    let before = mixer(&mut c);
    c.rebind("player.limited", "player");
    for (skill, args) in [
        ("audio.play", json!({"freq": 440, "secs": 1})),
        ("audio.ambient", json!({})),
        (
            "audio.playAt",
            json!({"freq": 440, "secs": 1, "position": [0, 0, 0]}),
        ),
        ("audio.speak", json!({"text": "hi", "position": [0, 0, 0]})),
        ("audio.stop", json!({"handle": h})),
        ("audio.setVolume", json!({"handle": h, "volume": 0})),
        ("audio.setBusVolume", json!({"bus": "master", "volume": 0})),
    ] {
        let (code, message) = error_of(&c.call(skill, args));
        assert_eq!(code, "forbidden", "{skill}");
        assert_eq!(message, "missing permission: audio.play");
    }
    c.rebind("builder.readWrite", "tester");
    assert_eq!(mixer(&mut c), before);
    assert_eq!(tone(&mut c), "aud_2", "no handle was spent");
    assert_eq!(
        c.call_ok("audio.stop", json!({"handle": h}))["ok"],
        true,
        "still playing"
    );
}
