//! Core `audio` skills: the headless mixer. Nothing is played; the host keeps the state a
//! player would read (handles `aud_<n>`, four buses, volumes, positions). Inputs are strict.

use limina_sdk::Vec3;
use limina_sdk::host::audio::{self, PlaySpec, Sound};
use limina_sdk::prelude::*;

/// The four mixer buses.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum BusIn {
    Master,
    Sfx,
    Ambience,
    Voice,
}

fn bus(b: BusIn) -> audio::Bus {
    match b {
        BusIn::Master => audio::Bus::Master,
        BusIn::Sfx => audio::Bus::Sfx,
        BusIn::Ambience => audio::Bus::Ambience,
        BusIn::Voice => audio::Bus::Voice,
    }
}

fn vec3(p: [f64; 3]) -> Vec3 {
    Vec3 {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PlayInput {
    /// Tone frequency in Hz.
    #[schemars(extend("exclusiveMinimum" = 0))]
    freq: f64,
    /// Duration in seconds.
    #[schemars(range(max = 10), extend("exclusiveMinimum" = 0))]
    secs: f64,
    /// Mixer bus; sfx when absent.
    #[serde(default)]
    bus: Option<BusIn>,
    /// Volume from 0 to 1; 1 when absent.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    volume: Option<f64>,
}

#[derive(Serialize, JsonSchema)]
struct HandleOutput {
    /// The sound's handle, `aud_<n>`.
    handle: String,
}

fn start(spec: PlaySpec) -> Result<HandleOutput, SkillError> {
    Ok(HandleOutput {
        handle: audio::play(&spec)?,
    })
}

fn play(input: PlayInput, _ctx: &CallContext) -> Result<HandleOutput, SkillError> {
    start(PlaySpec {
        sound: Sound::Tone((input.freq, input.secs)),
        bus: input.bus.map(bus),
        volume: input.volume,
        position: None,
        max_distance: None,
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AmbientInput {
    /// Mixer bus; ambience when absent.
    #[serde(default)]
    bus: Option<BusIn>,
    /// Volume from 0 to 1; 1 when absent.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    volume: Option<f64>,
}

fn ambient(input: AmbientInput, _ctx: &CallContext) -> Result<HandleOutput, SkillError> {
    start(PlaySpec {
        sound: Sound::Ambient,
        bus: input.bus.map(bus),
        volume: input.volume,
        position: None,
        max_distance: None,
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PlayAtInput {
    /// Tone frequency in Hz.
    #[schemars(extend("exclusiveMinimum" = 0))]
    freq: f64,
    /// Duration in seconds.
    #[schemars(range(max = 10), extend("exclusiveMinimum" = 0))]
    secs: f64,
    /// Where the sound comes from, [x, y, z] in metres.
    position: [f64; 3],
    /// Mixer bus; sfx when absent.
    #[serde(default)]
    bus: Option<BusIn>,
    /// Volume from 0 to 1; 1 when absent.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    volume: Option<f64>,
    /// Distance in metres past which it cannot be heard.
    #[serde(default)]
    #[schemars(range(min = 0))]
    max_distance: Option<f64>,
}

fn play_at(input: PlayAtInput, _ctx: &CallContext) -> Result<HandleOutput, SkillError> {
    start(PlaySpec {
        sound: Sound::Tone((input.freq, input.secs)),
        bus: input.bus.map(bus),
        volume: input.volume,
        position: Some(vec3(input.position)),
        max_distance: input.max_distance,
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SpeakInput {
    /// What to say.
    #[schemars(length(min = 1, max = 500))]
    text: String,
    /// Where the voice comes from, [x, y, z] in metres.
    position: [f64; 3],
    /// Volume from 0 to 1; 1 when absent.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    volume: Option<f64>,
}

fn speak(input: SpeakInput, _ctx: &CallContext) -> Result<HandleOutput, SkillError> {
    start(PlaySpec {
        sound: Sound::Speech(input.text),
        bus: None,
        volume: input.volume,
        position: Some(vec3(input.position)),
        max_distance: None,
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StopInput {
    /// The sound to stop, `aud_<n>`.
    handle: String,
}

#[derive(Serialize, JsonSchema)]
struct OkOutput {
    /// False when no live sound has this handle (setBusVolume always answers true).
    ok: bool,
}

fn stop(input: StopInput, _ctx: &CallContext) -> Result<OkOutput, SkillError> {
    Ok(OkOutput {
        ok: audio::stop(&input.handle)?,
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetVolumeInput {
    /// The sound to change, `aud_<n>`.
    handle: String,
    /// Volume from 0 to 1.
    #[schemars(range(min = 0, max = 1))]
    volume: f64,
}

fn set_volume(input: SetVolumeInput, _ctx: &CallContext) -> Result<OkOutput, SkillError> {
    Ok(OkOutput {
        ok: audio::set_volume(&input.handle, input.volume)?,
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SetBusVolumeInput {
    /// The bus to change.
    bus: BusIn,
    /// Volume from 0 to 1.
    #[schemars(range(min = 0, max = 1))]
    volume: f64,
}

fn set_bus_volume(input: SetBusVolumeInput, _ctx: &CallContext) -> Result<OkOutput, SkillError> {
    audio::set_bus_volume(bus(input.bus), input.volume)?;
    Ok(OkOutput { ok: true })
}

fn skill<I, O, F>(name: &str, description: &str, handler: F) -> Skill
where
    I: serde::de::DeserializeOwned + JsonSchema,
    O: Serialize + JsonSchema,
    F: Fn(I, &CallContext) -> Result<O, SkillError> + Send + Sync + 'static,
{
    Skill::new(name, "1.0.0", description, handler).permissions(&["audio.play"])
}

limina_sdk::export_package!(
    Package::new()
        .skill(skill(
            "audio.play",
            "Play a tone of a given frequency for up to 10 seconds on a mixer bus (sfx by default); returns its handle.",
            play,
        ))
        .skill(skill(
            "audio.ambient",
            "Start the looping ambient background sound (on the ambience bus by default) until it is stopped; returns its handle.",
            ambient,
        ))
        .skill(skill(
            "audio.playAt",
            "Play a tone from a point in the world, fading out past maxDistance; returns its handle.",
            play_at,
        ))
        .skill(skill(
            "audio.speak",
            "Speak text aloud from a point in the world on the voice bus; returns its handle.",
            speak,
        ))
        .skill(skill(
            "audio.stop",
            "Stop a playing sound by handle; ok is false if no such sound is playing.",
            stop,
        ))
        .skill(skill(
            "audio.setVolume",
            "Change the volume (0 to 1) of a playing sound by handle; ok is false if no such sound is playing.",
            set_volume,
        ))
        .skill(skill(
            "audio.setBusVolume",
            "Set the volume (0 to 1) of a whole mixer bus: master, sfx, ambience or voice.",
            set_bus_volume,
        ))
);
