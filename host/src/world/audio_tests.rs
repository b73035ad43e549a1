//! The headless mixer: defaults, checks, expiry over ticks, and rollback.

use super::super::*;
use crate::limits::MAX_SOUNDS;

fn world() -> World {
    World::new(WorldSettings {
        max_entities: 10,
        tick_seconds: 0.1,
    })
}

fn tone(secs: f64) -> SoundSpec {
    SoundSpec {
        kind: SoundKind::Tone { freq: 440.0, secs },
        bus: None,
        volume: None,
        position: None,
        max_distance: None,
    }
}

#[test]
fn each_kind_of_sound_lands_on_its_default_bus_at_full_volume() {
    let mut w = world();
    let t = w.play_sound(tone(1.0), "ann").unwrap();
    let mut ambient = tone(1.0);
    ambient.kind = SoundKind::Ambient;
    let a = w.play_sound(ambient, "ann").unwrap();
    let mut speech = tone(1.0);
    speech.kind = SoundKind::Speech("hello".into());
    speech.position = Some([1.0, 2.0, 3.0]);
    let s = w.play_sound(speech, "ann").unwrap();
    assert_eq!(
        (t.as_str(), a.as_str(), s.as_str()),
        ("aud_1", "aud_2", "aud_3")
    );
    let m = w.mixer();
    assert_eq!(m.get(&t).unwrap().bus, Bus::Sfx);
    assert_eq!(m.get(&a).unwrap().bus, Bus::Ambience);
    assert_eq!(m.get(&s).unwrap().bus, Bus::Voice);
    assert_eq!(m.get(&s).unwrap().position, Some([1.0, 2.0, 3.0]));
    assert_eq!(m.get(&t).unwrap().volume, 1.0);
}

#[test]
fn out_of_range_values_are_refused_and_change_nothing() {
    let mut w = world();
    for secs in [0.0, 10.5, f64::NAN] {
        assert!(
            matches!(w.play_sound(tone(secs), "ann"), Err(WorldError::Invalid(m)) if m.contains("`secs`"))
        );
    }
    let mut loud = tone(1.0);
    loud.volume = Some(1.5);
    assert!(
        matches!(w.play_sound(loud, "ann"), Err(WorldError::Invalid(m)) if m.contains("`volume`"))
    );
    let mut far = tone(1.0);
    far.max_distance = Some(-1.0);
    assert!(w.play_sound(far, "ann").is_err());
    assert!(w.set_bus_volume(Bus::Master, -0.1).is_err());
    assert!(w.mixer().is_empty());
    assert_eq!(w.mixer().bus_volume(Bus::Master), 1.0);
}

#[test]
fn stop_and_set_volume_answer_false_for_unknown_handles() {
    let mut w = world();
    let h = w.play_sound(tone(1.0), "ann").unwrap();
    assert_eq!(w.set_sound_volume(&h, 0.25), Ok(true));
    assert_eq!(w.mixer().get(&h).unwrap().volume, 0.25);
    assert!(w.stop_sound(&h));
    assert!(!w.stop_sound(&h));
    assert_eq!(w.set_sound_volume(&h, 0.5), Ok(false));
    assert_eq!(w.set_sound_volume("aud_x", 0.5), Ok(false));
}

#[test]
fn tones_end_after_their_duration_and_ambience_plays_on() {
    let mut w = world();
    let short = w.play_sound(tone(0.25), "ann").unwrap();
    let mut ambient = tone(1.0);
    ambient.kind = SoundKind::Ambient;
    let bed = w.play_sound(ambient, "ann").unwrap();
    w.step();
    w.step();
    assert!(w.mixer().get(&short).is_some(), "0.2 s of a 0.25 s tone");
    w.step();
    assert!(w.mixer().get(&short).is_none());
    for _ in 0..1000 {
        w.step();
    }
    assert!(w.mixer().get(&bed).is_some());
}

#[test]
fn the_sound_cap_is_a_capacity_error() {
    let mut w = world();
    for _ in 0..MAX_SOUNDS {
        w.play_sound(tone(1.0), "ann").unwrap();
    }
    assert!(matches!(
        w.play_sound(tone(1.0), "ann"),
        Err(WorldError::Capacity(_))
    ));
}

#[test]
fn rollback_undoes_plays_stops_volumes_and_buses() {
    let mut w = world();
    let kept = w.play_sound(tone(1.0), "ann").unwrap();
    let stopped = w.play_sound(tone(1.0), "ann").unwrap();
    let before = w.mixer().to_json();

    w.begin();
    w.play_sound(tone(2.0), "ann").unwrap();
    w.set_sound_volume(&kept, 0.1).unwrap();
    w.stop_sound(&stopped);
    w.set_bus_volume(Bus::Voice, 0.3).unwrap();
    w.rollback();

    assert_eq!(w.mixer().to_json(), before);
}
