//! `limina:skill/random`: the host's seedable randomness.

use crate::sandbox::bindings::limina::skill::random;
use crate::sandbox::instance::GuestState;

impl random::Host for GuestState {
    fn next_u64(&mut self) -> u64 {
        match self.call.as_mut() {
            Some(call) => call.realm.rng.next_u64(),
            None => 0,
        }
    }
}
