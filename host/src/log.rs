//! Host logging: plain lines on stderr (stdout belongs to the protocol).

use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};

/// Severity, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug = 0,
    Info = 1,
    Warn = 2,
    Error = 3,
}

static LEVEL: AtomicU8 = AtomicU8::new(Level::Info as u8);

/// Only lines at `level` or above are written.
pub fn set_level(level: Level) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

/// Parses `debug|info|warn|error`.
pub fn parse_level(s: &str) -> Option<Level> {
    match s {
        "debug" => Some(Level::Debug),
        "info" => Some(Level::Info),
        "warn" | "warning" => Some(Level::Warn),
        "error" => Some(Level::Error),
        _ => None,
    }
}

/// Writes one line to stderr if `level` is enabled.
///
/// A line that cannot be written (stderr on a full disk, past the process's file-size limit,
/// a closed pipe) is dropped: the log is advice, the trace is the record, and a host must not
/// stop serving because its advice has nowhere to go (`eprintln!` would panic the caller).
pub fn write(level: Level, message: &str) {
    if level as u8 >= LEVEL.load(Ordering::Relaxed) {
        let tag = match level {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        };
        let line = format!("limina {tag}: {message}\n");
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

pub fn debug(message: &str) {
    write(Level::Debug, message)
}
pub fn info(message: &str) {
    write(Level::Info, message)
}
pub fn warn(message: &str) {
    write(Level::Warn, message)
}
pub fn error(message: &str) {
    write(Level::Error, message)
}

/// A log line from a guest, kept for the client (`notifications/message`).
#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    pub level: Level,
    /// The package that wrote it.
    pub logger: String,
    pub message: String,
}

impl Level {
    /// The MCP name of the level.
    pub fn mcp_name(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warning",
            Level::Error => "error",
        }
    }

    /// Parses an MCP logging level (`debug` … `emergency`) onto ours.
    pub fn from_mcp(name: &str) -> Option<Level> {
        Some(match name {
            "debug" => Level::Debug,
            "info" | "notice" => Level::Info,
            "warning" => Level::Warn,
            "error" | "critical" | "alert" | "emergency" => Level::Error,
            _ => return None,
        })
    }
}
