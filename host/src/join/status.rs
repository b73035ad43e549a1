//! `limina status`: who serves a trace folder and how it is doing. The serving host answers
//! with what only it knows (its pid, version, uptime, transports, the joined processes and
//! every session, entities and tick); the sizes on disk (trace segments, checkpoints) are read
//! from the folder, so they are there even when nobody serves it.

use crate::persistence::WORLD_DIR;
use crate::trace::SEGMENTS_DIR;
use serde_json::{Value, json};
use std::fmt::Write;
use std::path::Path;

/// Files in `dir` whose names pass `keep`: how many, and their bytes.
fn files(dir: &Path, keep: impl Fn(&str) -> bool) -> (u64, u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, 0);
    };
    let mut count = 0;
    let mut bytes = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !keep(name) {
            continue;
        }
        if let Ok(meta) = entry.metadata()
            && meta.is_file()
        {
            count += 1;
            bytes += meta.len();
        }
    }
    (count, bytes)
}

/// The trace's and the checkpoints' sizes in `trace_dir`.
pub fn disk(trace_dir: &Path) -> Value {
    let (segments, trace_bytes) = files(&trace_dir.join(SEGMENTS_DIR), |n| n.ends_with(".jsonl"));
    let (checkpoints, checkpoint_bytes) =
        files(&trace_dir.join(WORLD_DIR), |n| n.ends_with(".bin"));
    json!({
        "trace": {"segments": segments, "bytes": trace_bytes},
        "checkpoints": {"count": checkpoints, "bytes": checkpoint_bytes},
    })
}

/// Bytes in a way a person reads.
fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn sessions_line(out: &mut String, sessions: &Value) {
    for s in sessions.as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "    session {} — agent {}, profile {}",
            s["sessionId"].as_str().unwrap_or("?"),
            s["agentId"].as_str().unwrap_or("?"),
            s["profile"].as_str().unwrap_or("?"),
        );
    }
}

/// The status document as text for a person.
pub fn render(status: &Value) -> String {
    let mut out = String::new();
    let dir = status["traceDir"].as_str().unwrap_or("?");
    let serving = &status["serving"];
    if serving.is_null() {
        let _ = writeln!(out, "no limina host serves {dir}");
    } else {
        let _ = writeln!(
            out,
            "{dir} is served by pid {} (limina {}), up {}",
            serving["pid"],
            serving["version"].as_str().unwrap_or("?"),
            uptime(serving["uptimeSeconds"].as_f64().unwrap_or(0.0)),
        );
        for t in serving["transports"].as_array().into_iter().flatten() {
            match t["address"].as_str() {
                Some(address) => {
                    let _ = writeln!(out, "  {}: {address}", t["kind"].as_str().unwrap_or("?"));
                }
                None => {
                    let _ = writeln!(out, "  {}", t["kind"].as_str().unwrap_or("?"));
                }
            }
        }
        sessions_line(&mut out, &serving["sessions"]);
        let joined = status["joined"].as_array().map_or(&[][..], Vec::as_slice);
        let _ = writeln!(out, "joined processes: {}", joined.len());
        for j in joined {
            let _ = writeln!(
                out,
                "  pid {} ({})",
                j["pid"],
                j["transport"].as_str().unwrap_or("?")
            );
            sessions_line(&mut out, &j["sessions"]);
        }
        let world = &status["world"];
        let _ = writeln!(
            out,
            "world: {} entities at tick {}",
            world["entities"], world["tick"]
        );
    }
    let trace = &status["disk"]["trace"];
    let checkpoints = &status["disk"]["checkpoints"];
    let _ = writeln!(
        out,
        "trace: {} in {} segments; checkpoints: {} in {}",
        size(trace["bytes"].as_u64().unwrap_or(0)),
        trace["segments"],
        size(checkpoints["bytes"].as_u64().unwrap_or(0)),
        checkpoints["count"],
    );
    out
}

fn uptime(seconds: f64) -> String {
    let s = seconds as u64;
    match s {
        0..60 => format!("{seconds:.1} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_on_disk_count_segments_and_checkpoints() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(SEGMENTS_DIR)).unwrap();
        std::fs::create_dir_all(dir.path().join(WORLD_DIR)).unwrap();
        std::fs::write(
            dir.path().join(SEGMENTS_DIR).join("00000001.jsonl"),
            [0u8; 100],
        )
        .unwrap();
        std::fs::write(dir.path().join(SEGMENTS_DIR).join("lock"), "1").unwrap();
        std::fs::write(
            dir.path()
                .join(WORLD_DIR)
                .join("checkpoint-00000000000000000001.bin"),
            [0u8; 2048],
        )
        .unwrap();
        let disk = disk(dir.path());
        assert_eq!(disk["trace"], json!({"segments": 1, "bytes": 100}));
        assert_eq!(disk["checkpoints"], json!({"count": 1, "bytes": 2048}));
    }

    #[test]
    fn a_served_folder_names_its_server_transports_joined_processes_and_world() {
        let status = json!({
            "traceDir": "/t",
            "serving": {"pid": 10, "version": "1.2.3", "uptimeSeconds": 75.0,
                "transports": [{"kind": "stdio"}, {"kind": "ws", "address": "ws://127.0.0.1:8787"}],
                "sessions": [{"sessionId": "s1", "agentId": "a1", "profile": "builder.readWrite"}]},
            "joined": [{"pid": 11, "transport": "stdio", "sessions": [{"sessionId": "s2", "agentId": "a2", "profile": "p"}]}],
            "world": {"entities": 3, "tick": 99},
            "disk": {"trace": {"segments": 1, "bytes": 5000}, "checkpoints": {"count": 0, "bytes": 0}},
        });
        let text = render(&status);
        assert!(
            text.starts_with("/t is served by pid 10 (limina 1.2.3), up 1 min 15 s\n"),
            "{text}"
        );
        assert!(text.contains("  ws: ws://127.0.0.1:8787\n"), "{text}");
        assert!(
            text.contains("    session s1 — agent a1, profile builder.readWrite\n"),
            "{text}"
        );
        assert!(
            text.contains("joined processes: 1\n  pid 11 (stdio)\n    session s2"),
            "{text}"
        );
        assert!(text.contains("world: 3 entities at tick 99\n"), "{text}");
        assert!(
            text.contains("trace: 4.9 KiB in 1 segments; checkpoints: 0 B in 0"),
            "{text}"
        );
        let nobody =
            json!({"traceDir": "/t", "serving": null, "disk": disk(Path::new("/nonexistent"))});
        assert!(render(&nobody).starts_with("no limina host serves /t\n"));
    }
}
