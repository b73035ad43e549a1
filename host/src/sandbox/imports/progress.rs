//! `limina:skill/progress`: a long call's progress, passed to the client that asked for it.

use crate::limits::{MAX_GUEST_LOG_LINE_CHARS, MAX_PROGRESS_REPORTS_PER_CALL};
use crate::sandbox::instance::GuestState;

// The same imports for both contract versions: `limina:skill@0.1.0` and `@0.2.0` name
// distinct interfaces with records of the same shape.
macro_rules! versioned {
    ($v:ident) => {
        mod $v {
            #[allow(unused_imports)]
            use super::*;
            use crate::sandbox::bindings::$v::limina::skill::progress;

            impl progress::Host for GuestState {
                fn report(&mut self, done: f64, total: Option<f64>, message: Option<String>) {
                    let Some(call) = self.call.as_mut() else {
                        return;
                    };
                    let Some(sink) = &call.info.progress else {
                        return;
                    };
                    // Bounded and well-formed, so a guest cannot flood its client or send garbage.
                    if !done.is_finite() || total.is_some_and(|t| !t.is_finite()) {
                        return;
                    }
                    if call.progress_reports >= MAX_PROGRESS_REPORTS_PER_CALL {
                        return;
                    }
                    call.progress_reports += 1;
                    let message =
                        message.map(|m| m.chars().take(MAX_GUEST_LOG_LINE_CHARS).collect());
                    sink(done, total, message);
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
