//! `limina:skill/log`: guest log lines on the host's stderr.

use crate::sandbox::bindings::limina::skill::log;
use crate::sandbox::instance::GuestState;

/// Log lines one call may pass on to the client.
const MAX_LINES_PER_CALL: usize = 100;

impl log::Host for GuestState {
    fn log(&mut self, level: log::Level, message: String) {
        let level = match level {
            log::Level::Debug => crate::log::Level::Debug,
            log::Level::Info => crate::log::Level::Info,
            log::Level::Warn => crate::log::Level::Warn,
            log::Level::Error => crate::log::Level::Error,
        };
        // Bounded so a chatty guest cannot flood the host or its clients.
        let message: String = message.chars().take(4096).collect();
        crate::log::write(level, &format!("[{}] {message}", self.package));
        if let Some(call) = self.call.as_mut()
            && call.logs.len() < MAX_LINES_PER_CALL
        {
            call.logs.push(crate::log::LogLine {
                level,
                logger: self.package.to_string(),
                message,
            });
        }
    }
}
