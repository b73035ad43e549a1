//! `cargo bench -p limina --bench startup`: what the one installable file costs. Prints the
//! release binary's size and its start-up — spawn to the first `tools/list` reply — with an
//! empty compile cache (the first start on a machine: the core is compiled and cached) and
//! with a warm one (every later start), as medians.
//!
//! With `LIMINA_BASELINE=/path/to/an/older/limina` (e.g. one built before the core packages
//! were embedded, which reads them from `target/core`), the same starts run against it,
//! alternating start by start, and each line gains the ratio to it. The baseline is given
//! `--core-dir target/core`, so both serve the same core.

mod spawn;

use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Starts with an empty cache per binary (each compiles the whole core).
const COLD: usize = 5;
/// Starts with a warm cache per binary.
const WARM: usize = 15;

/// One binary under test and how it is told where its core is.
struct Subject {
    label: &'static str,
    binary: String,
    core_args: Vec<String>,
}

impl Subject {
    /// Milliseconds from spawn to the `tools/list` reply, with `cache` as the compile cache.
    fn start(&self, cache: &Path) -> f64 {
        let mut args: Vec<&str> = vec!["--mcp-stdio", "--manual-clock", "--log-level", "warn"];
        args.extend(self.core_args.iter().map(String::as_str));
        let cache = cache.to_str().unwrap();
        args.extend(["--cache-dir", cache]);
        let started = Instant::now();
        let mut host = spawn::limina_at(&self.binary, &args, None, None);
        let reply = host.exchange(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        let elapsed = started.elapsed().as_secs_f64() * 1e3;
        assert!(reply["result"]["tools"].is_array(), "{reply}");
        elapsed
    }
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn size_mib(binary: &str) -> f64 {
    std::fs::metadata(binary).unwrap().len() as f64 / (1024.0 * 1024.0)
}

fn main() {
    let core = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/core");
    let mut subjects = vec![Subject {
        label: "this build",
        binary: env!("CARGO_BIN_EXE_limina").to_string(),
        core_args: Vec::new(),
    }];
    if let Some(baseline) = std::env::var_os("LIMINA_BASELINE") {
        subjects.push(Subject {
            label: "baseline",
            binary: baseline.to_string_lossy().into_owned(),
            core_args: vec!["--core-dir".into(), core.display().to_string()],
        });
    }
    let mut cold: Vec<Vec<f64>> = vec![Vec::new(); subjects.len()];
    let mut warm: Vec<Vec<f64>> = vec![Vec::new(); subjects.len()];
    let caches: Vec<tempfile::TempDir> = subjects
        .iter()
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    for round in 0..COLD {
        for (i, subject) in subjects.iter().enumerate() {
            let fresh = caches[i].path().join(format!("cold-{round}"));
            cold[i].push(subject.start(&fresh));
        }
    }
    for _ in 0..WARM {
        for (i, subject) in subjects.iter().enumerate() {
            // The last cold start's cache is warm.
            let warm_cache = caches[i].path().join(format!("cold-{}", COLD - 1));
            warm[i].push(subject.start(&warm_cache));
        }
    }
    let rows: Vec<(f64, f64, f64)> = subjects
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                size_mib(&s.binary),
                median(cold[i].clone()),
                median(warm[i].clone()),
            )
        })
        .collect();
    println!(
        "{:<12} {:>10} {:>22} {:>22}",
        "binary",
        "size",
        format!("first start (of {COLD})"),
        format!("later starts (of {WARM})")
    );
    for (subject, (size, first, later)) in subjects.iter().zip(&rows) {
        let ratio = |value: f64, base: f64| {
            if rows.len() > 1 {
                format!(" ({:.2}x)", value / base)
            } else {
                String::new()
            }
        };
        let base = rows.last().unwrap();
        println!(
            "{:<12} {:>10} {:>22} {:>22}",
            subject.label,
            format!("{size:.1} MiB{}", ratio(*size, base.0)),
            format!("{first:.0} ms{}", ratio(*first, base.1)),
            format!("{later:.1} ms{}", ratio(*later, base.2)),
        );
    }
}
