//! The headless audio mixer: handles `aud_<n>`, four buses, volumes and positions.

/// Mixer state (filled in by the `audio` skills).
#[derive(Debug, Default)]
pub struct Mixer {}
