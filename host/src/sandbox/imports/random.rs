//! `limina:skill/random`: the host's seedable randomness.

use crate::sandbox::instance::GuestState;

// The same imports for both contract versions: `limina:skill@0.1.0` and `@0.2.0` name
// distinct interfaces with records of the same shape.
macro_rules! versioned {
    ($v:ident) => {
        mod $v {
            #[allow(unused_imports)]
            use super::*;
            use crate::sandbox::bindings::$v::limina::skill::random;

            impl random::Host for GuestState {
                fn next_u64(&mut self) -> u64 {
                    match self.call.as_mut() {
                        Some(call) => call.realm.rng.next_u64(),
                        None => 0,
                    }
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
