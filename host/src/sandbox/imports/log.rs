//! `limina:skill/log`: guest log lines on the host's stderr.

use crate::limits::{MAX_GUEST_LOG_LINE_CHARS, MAX_GUEST_LOG_LINES_PER_CALL};
use crate::sandbox::instance::GuestState;

// The same imports for both contract versions: `limina:skill@0.1.0` and `@0.2.0` name
// distinct interfaces with records of the same shape.
macro_rules! versioned {
    ($v:ident) => {
        mod $v {
            #[allow(unused_imports)]
            use super::*;
            use crate::sandbox::bindings::$v::limina::skill::log;

            impl log::Host for GuestState {
                fn log(&mut self, level: log::Level, message: String) {
                    let level = match level {
                        log::Level::Debug => crate::log::Level::Debug,
                        log::Level::Info => crate::log::Level::Info,
                        log::Level::Warn => crate::log::Level::Warn,
                        log::Level::Error => crate::log::Level::Error,
                    };
                    // Bounded so a chatty guest cannot flood the host or its clients.
                    let message: String = message.chars().take(MAX_GUEST_LOG_LINE_CHARS).collect();
                    // A secret the guest echoes reaches neither the host log nor a client.
                    let message = self.redacted(message);
                    crate::log::write(level, &format!("[{}] {message}", self.package));
                    if let Some(call) = self.call.as_mut()
                        && call.logs.len() < MAX_GUEST_LOG_LINES_PER_CALL
                    {
                        call.logs.push(crate::log::LogLine {
                            level,
                            logger: self.package.to_string(),
                            message,
                        });
                    }
                }
            }
        }
    };
}
versioned!(v01);
versioned!(v02);
