//! What the durable trace promises: when it syncs (`[trace] fsync`) and what happens when it
//! cannot be written (`[trace] onWriteFailure`). Parsed here, so the configuration file only
//! hands over the raw strings.

/// When written events are synced to the device (`[trace] fsync`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fsync {
    /// Every batch of replies waits for one sync of the events it names (group commit): a
    /// power loss takes nothing acknowledged.
    Always,
    /// A sync at most every `TRACE_FSYNC_INTERVAL_MS`: a power loss may take the last second
    /// of acknowledged events; a crash of the process alone takes none.
    #[default]
    Interval,
    /// Only at segment rotation: a power loss may take whatever the OS had not written back
    /// (up to about 30 s on Linux); a crash of the process alone takes none.
    Never,
}

/// What the host does when the trace cannot be written (`[trace] onWriteFailure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnWriteFailure {
    /// Calls that would be recorded are refused until writing works again (fail closed).
    #[default]
    Refuse,
    /// Calls go on and their events stay in memory only: history is lost for good.
    Memory,
}

/// The trace's durability settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Durability {
    pub fsync: Fsync,
    pub on_write_failure: OnWriteFailure,
}

impl Fsync {
    /// `"always"`, `"interval"` or `"never"`.
    pub fn parse(text: &str) -> Result<Fsync, String> {
        match text {
            "always" => Ok(Fsync::Always),
            "interval" => Ok(Fsync::Interval),
            "never" => Ok(Fsync::Never),
            other => Err(format!(
                "`trace.fsync` must be \"always\", \"interval\" or \"never\", got \"{other}\""
            )),
        }
    }
}

impl OnWriteFailure {
    /// `"refuse"` or `"memory"`.
    pub fn parse(text: &str) -> Result<OnWriteFailure, String> {
        match text {
            "refuse" => Ok(OnWriteFailure::Refuse),
            "memory" => Ok(OnWriteFailure::Memory),
            other => Err(format!(
                "`trace.onWriteFailure` must be \"refuse\" (refuse calls while the trace cannot \
                 be written) or \"memory\" (keep serving, losing history), got \"{other}\""
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_bad_values_name_the_key_and_the_choices() {
        assert_eq!(Fsync::parse("always"), Ok(Fsync::Always));
        assert_eq!(Fsync::parse("never"), Ok(Fsync::Never));
        assert_eq!(OnWriteFailure::parse("memory"), Ok(OnWriteFailure::Memory));
        let e = Fsync::parse("sometimes").unwrap_err();
        assert!(
            e.contains("`trace.fsync`") && e.contains("\"interval\""),
            "{e}"
        );
        let e = OnWriteFailure::parse("ignore").unwrap_err();
        assert!(
            e.contains("`trace.onWriteFailure`") && e.contains("\"refuse\""),
            "{e}"
        );
    }
}
