//! The `ping` part of `cargo bench -p limina --bench camera`: other clients' pings while
//! captures run (not written yet: it needs `camera.capture` served).

/// The machine's load averages, as `/proc/loadavg` gives them.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

pub fn run() {}
