//! `limina:skill/audio`: the headless mixer's handles, buses and volumes.

use super::{from_world, v3};
use crate::policy::Permission;
use crate::sandbox::bindings::limina::skill::types::WorldError;
use crate::sandbox::instance::GuestState;
use crate::world::{Bus, SoundKind, SoundSpec};

// The same imports for both contract versions: `limina:skill@0.1.0` and `@0.2.0` name
// distinct interfaces with records of the same shape.
macro_rules! versioned {
    ($v:ident) => {
        mod $v {
            #[allow(unused_imports)]
            use super::*;
            use crate::sandbox::bindings::$v::limina::skill::audio;

            fn bus(b: audio::Bus) -> Bus {
                match b {
                    audio::Bus::Master => Bus::Master,
                    audio::Bus::Sfx => Bus::Sfx,
                    audio::Bus::Ambience => Bus::Ambience,
                    audio::Bus::Voice => Bus::Voice,
                }
            }

            impl audio::Host for GuestState {
                fn play(&mut self, spec: audio::PlaySpec) -> Result<String, WorldError> {
                    let call = self.active(Permission::AudioPlay)?;
                    let spec = SoundSpec {
                        kind: match spec.sound {
                            audio::Sound::Tone((freq, secs)) => SoundKind::Tone { freq, secs },
                            audio::Sound::Ambient => SoundKind::Ambient,
                            audio::Sound::Speech(text) => SoundKind::Speech(text),
                        },
                        bus: spec.bus.map(bus),
                        volume: spec.volume,
                        position: spec.position.map(v3),
                        max_distance: spec.max_distance,
                    };
                    call.realm
                        .world
                        .play_sound(spec, &call.info.agent_id)
                        .map_err(from_world)
                }

                fn stop(&mut self, handle: String) -> Result<bool, WorldError> {
                    let call = self.active(Permission::AudioPlay)?;
                    Ok(call.realm.world.stop_sound(&handle))
                }

                fn set_volume(&mut self, handle: String, volume: f64) -> Result<bool, WorldError> {
                    let call = self.active(Permission::AudioPlay)?;
                    call.realm
                        .world
                        .set_sound_volume(&handle, volume)
                        .map_err(from_world)
                }

                fn set_bus_volume(&mut self, b: audio::Bus, volume: f64) -> Result<(), WorldError> {
                    let call = self.active(Permission::AudioPlay)?;
                    call.realm
                        .world
                        .set_bus_volume(bus(b), volume)
                        .map_err(from_world)
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
