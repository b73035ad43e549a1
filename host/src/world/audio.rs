//! The headless audio mixer: handles `aud_<n>`, four buses, volumes and positions. Nothing is
//! played; this is the state a player would read. One-shot sounds end as ticks pass, so a game
//! that plays a sound per footstep does not fill the mixer.

use super::journal::Undo;
use super::oplog::Op;
use super::{World, WorldError};
use crate::limits::MAX_SOUNDS;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The four mixer buses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Bus {
    Master,
    Sfx,
    Ambience,
    Voice,
}

impl Bus {
    /// Every bus, in catalog order.
    pub const ALL: [Bus; 4] = [Bus::Master, Bus::Sfx, Bus::Ambience, Bus::Voice];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Bus::Master => "master",
            Bus::Sfx => "sfx",
            Bus::Ambience => "ambience",
            Bus::Voice => "voice",
        }
    }
}

/// What a handle plays.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum SoundKind {
    /// Frequency in Hz and duration in seconds.
    Tone { freq: f64, secs: f64 },
    /// The ambient bed, looping until stopped.
    Ambient,
    /// Spoken text.
    Speech(String),
}

/// A sound to start; `None` fields take their defaults.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SoundSpec {
    pub kind: SoundKind,
    pub bus: Option<Bus>,
    pub volume: Option<f64>,
    pub position: Option<[f64; 3]>,
    pub max_distance: Option<f64>,
}

/// A sound in the mixer.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sound {
    pub kind: SoundKind,
    pub bus: Bus,
    pub volume: f64,
    pub position: Option<[f64; 3]>,
    pub max_distance: Option<f64>,
    /// The agent whose call started it.
    pub owner: String,
    pub started_tick: u64,
}

impl Sound {
    /// How long it plays, in seconds; `None` for a loop.
    fn duration(&self) -> Option<f64> {
        match &self.kind {
            SoundKind::Tone { secs, .. } => Some(*secs),
            SoundKind::Ambient => None,
            // About 15 characters a second, as text-to-speech speaks.
            SoundKind::Speech(text) => Some(0.5 + text.chars().count() as f64 / 15.0),
        }
    }
}

/// Mixer state: live sounds by handle number and the bus volumes.
#[derive(Debug)]
pub struct Mixer {
    pub(super) sounds: BTreeMap<u64, Sound>,
    pub(super) buses: [f64; 4],
    /// Handles are issued in order and never reused, even after a rollback.
    pub(super) next: u64,
}

impl Default for Mixer {
    fn default() -> Self {
        Mixer {
            sounds: BTreeMap::new(),
            buses: [1.0; 4],
            next: 1,
        }
    }
}

/// The inverse of one mixer mutation.
#[derive(Debug)]
pub(super) enum AudioUndo {
    Started(u64),
    Replaced(u64, Sound),
    Stopped(u64, Sound),
    Bus(Bus, f64),
}

impl Mixer {
    pub(super) fn undo(&mut self, undo: AudioUndo) {
        match undo {
            AudioUndo::Started(n) => {
                self.sounds.remove(&n);
            }
            AudioUndo::Replaced(n, before) | AudioUndo::Stopped(n, before) => {
                self.sounds.insert(n, before);
            }
            AudioUndo::Bus(bus, volume) => self.buses[bus as usize] = volume,
        }
    }

    /// A live sound by handle.
    pub fn get(&self, handle: &str) -> Option<&Sound> {
        self.sounds.get(&parse_handle(handle)?)
    }

    /// The volume of a bus.
    pub fn bus_volume(&self, bus: Bus) -> f64 {
        self.buses[bus as usize]
    }

    /// Number of live sounds.
    pub fn len(&self) -> usize {
        self.sounds.len()
    }

    /// Whether no sound is playing.
    pub fn is_empty(&self) -> bool {
        self.sounds.is_empty()
    }

    /// Buses and sounds as JSON, for snapshots and the state sync.
    pub fn to_json(&self) -> Value {
        let buses: serde_json::Map<String, Value> = Bus::ALL
            .iter()
            .map(|b| (b.as_str().to_string(), json!(self.bus_volume(*b))))
            .collect();
        let sounds: Vec<Value> = self
            .sounds
            .iter()
            .map(|(n, s)| {
                let mut v = json!({
                    "handle": handle(*n),
                    "bus": s.bus.as_str(),
                    "volume": s.volume,
                    "position": s.position,
                    "maxDistance": s.max_distance,
                    "owner": s.owner,
                    "startedTick": s.started_tick,
                });
                let kind = match &s.kind {
                    SoundKind::Tone { freq, secs } => {
                        json!({"kind": "tone", "freq": freq, "secs": secs})
                    }
                    SoundKind::Ambient => json!({"kind": "ambient"}),
                    SoundKind::Speech(text) => json!({"kind": "speech", "text": text}),
                };
                v["sound"] = kind;
                v
            })
            .collect();
        json!({"buses": buses, "sounds": sounds})
    }
}

impl World {
    /// The mixer, read-only.
    pub fn mixer(&self) -> &Mixer {
        &self.audio
    }

    /// Starts a sound; returns `aud_<n>`. Fails on out-of-range values or over the sound cap.
    pub fn play_sound(&mut self, spec: SoundSpec, owner: &str) -> Result<String, WorldError> {
        let op = || Op::PlaySound(spec.clone(), owner.into());
        self.logged(self.wants_op().then(op), |w| w.play_sound_now(spec, owner))
    }

    fn play_sound_now(&mut self, spec: SoundSpec, owner: &str) -> Result<String, WorldError> {
        match &spec.kind {
            SoundKind::Tone { freq, secs } => {
                if !(*freq > 0.0 && freq.is_finite()) {
                    return Err(invalid(format!("`freq` must be > 0, got {freq}")));
                }
                if !(*secs > 0.0 && *secs <= 10.0) {
                    return Err(invalid(format!("`secs` must be > 0 and ≤ 10, got {secs}")));
                }
            }
            SoundKind::Ambient => {}
            SoundKind::Speech(text) => {
                let n = text.chars().count();
                if !(1..=500).contains(&n) {
                    return Err(invalid(format!(
                        "`text` must be 1 to 500 characters, got {n}"
                    )));
                }
            }
        }
        let volume = spec.volume.unwrap_or(1.0);
        check_volume(volume)?;
        if let Some(d) = spec.max_distance
            && !(d >= 0.0 && d.is_finite())
        {
            return Err(invalid(format!("`maxDistance` must be ≥ 0, got {d}")));
        }
        if let Some(p) = spec.position
            && !p.iter().all(|c| c.is_finite())
        {
            return Err(invalid("`position` must be finite numbers".into()));
        }
        if self.audio.sounds.len() >= MAX_SOUNDS {
            return Err(WorldError::Capacity(format!(
                "the mixer holds its maximum of {MAX_SOUNDS} sounds; stop some first"
            )));
        }
        let bus = spec.bus.unwrap_or(match spec.kind {
            SoundKind::Tone { .. } => Bus::Sfx,
            SoundKind::Ambient => Bus::Ambience,
            SoundKind::Speech(_) => Bus::Voice,
        });
        let n = self.audio.next;
        self.audio.next += 1;
        let sound = Sound {
            kind: spec.kind,
            bus,
            volume,
            position: spec.position,
            max_distance: spec.max_distance,
            owner: owner.to_string(),
            started_tick: self.tick,
        };
        self.audio.sounds.insert(n, sound);
        self.record(Undo::Audio(AudioUndo::Started(n)));
        Ok(handle(n))
    }

    /// Stops a sound; false for an unknown or ended handle.
    pub fn stop_sound(&mut self, handle: &str) -> bool {
        self.logged(self.wants_op().then(|| Op::StopSound(handle.into())), |w| {
            w.stop_sound_now(handle)
        })
    }

    fn stop_sound_now(&mut self, handle: &str) -> bool {
        let Some((n, sound)) =
            parse_handle(handle).and_then(|n| self.audio.sounds.remove(&n).map(|s| (n, s)))
        else {
            return false;
        };
        self.record(Undo::Audio(AudioUndo::Stopped(n, sound)));
        true
    }

    /// Sets a sound's volume (0..1); false for an unknown or ended handle.
    pub fn set_sound_volume(&mut self, handle: &str, volume: f64) -> Result<bool, WorldError> {
        let op = || Op::SetSoundVolume(handle.into(), volume);
        self.logged(self.wants_op().then(op), |w| {
            w.set_sound_volume_now(handle, volume)
        })
    }

    fn set_sound_volume_now(&mut self, handle: &str, volume: f64) -> Result<bool, WorldError> {
        check_volume(volume)?;
        let Some(n) = parse_handle(handle).filter(|n| self.audio.sounds.contains_key(n)) else {
            return Ok(false);
        };
        let sound = self.audio.sounds.get_mut(&n).expect("checked above");
        let before = sound.clone();
        sound.volume = volume;
        self.record(Undo::Audio(AudioUndo::Replaced(n, before)));
        Ok(true)
    }

    /// Sets a bus's volume (0..1).
    pub fn set_bus_volume(&mut self, bus: Bus, volume: f64) -> Result<(), WorldError> {
        self.logged(
            self.wants_op().then_some(Op::SetBusVolume(bus, volume)),
            |w| w.set_bus_volume_now(bus, volume),
        )
    }

    fn set_bus_volume_now(&mut self, bus: Bus, volume: f64) -> Result<(), WorldError> {
        check_volume(volume)?;
        let before = std::mem::replace(&mut self.audio.buses[bus as usize], volume);
        self.record(Undo::Audio(AudioUndo::Bus(bus, before)));
        Ok(())
    }

    /// Ends the sounds whose time is up; called once per step, after the tick advanced.
    pub(super) fn advance_audio(&mut self) {
        let (tick, dt) = (self.tick, self.settings.tick_seconds as f64);
        self.audio.sounds.retain(|_, s| match s.duration() {
            Some(secs) => ((tick - s.started_tick) as f64) * dt < secs,
            None => true,
        });
    }
}

fn check_volume(volume: f64) -> Result<(), WorldError> {
    if (0.0..=1.0).contains(&volume) {
        Ok(())
    } else {
        Err(invalid(format!(
            "`volume` must be between 0 and 1, got {volume}"
        )))
    }
}

fn invalid(message: String) -> WorldError {
    WorldError::Invalid(message)
}

/// `aud_<n>` → n.
fn parse_handle(handle: &str) -> Option<u64> {
    handle.strip_prefix("aud_")?.parse().ok()
}

fn handle(n: u64) -> String {
    format!("aud_{n}")
}

#[cfg(test)]
#[path = "audio_tests.rs"]
mod tests;
