//! The MCP revisions this host speaks, as one value: the server matches on it where the
//! revisions' shapes differ, and the client side (`crate::upstream`) where its requests do.
//! Each revision's own names and shapes are in its module (`classic.rs`, `modern.rs`).

use super::classic::PROTOCOL_VERSIONS;
use super::modern::VERSION as MODERN_VERSION;

/// A protocol revision: how a message says what it speaks, and what shape its answer takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revision {
    /// 2025-11-25 and the revisions before it: one `initialize` binds a session, then plain
    /// requests follow on it.
    Classic,
    /// 2026-07-28: no session; every request names its version and the client's
    /// capabilities in `_meta`, and every result says its `resultType`.
    Modern,
}

impl Revision {
    /// The revision's date as the wire writes it (for `Classic`, the newest of its family).
    pub fn version(self) -> &'static str {
        match self {
            Revision::Classic => PROTOCOL_VERSIONS[0],
            Revision::Modern => MODERN_VERSION,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_revision_writes_its_date() {
        assert_eq!(Revision::Classic.version(), "2025-11-25");
        assert_eq!(Revision::Modern.version(), "2026-07-28");
    }
}
