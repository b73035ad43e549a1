//! `limina world export`: the world kept in a trace folder, as a scene file.

use crate::Cli;
use anyhow::{Context, Result};
use limina::world::WorldSettings;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Loads the kept world (checkpoint and journal, without taking the folder's lock) and writes
/// it as JSONL scene lines to `output`, or to stdout.
pub fn export(cli: &Cli, output: Option<&Path>) -> Result<ExitCode> {
    let trace_dir = cli
        .trace_dir
        .clone()
        .unwrap_or_else(super::serve::default_trace_dir);
    let settings = WorldSettings {
        max_entities: cli.max_entities,
        tick_seconds: cli.tick_ms as f32 / 1000.0,
    };
    let (world, restored) = limina::persistence::load(&trace_dir, settings)
        .with_context(|| format!("loading the world kept in {}", trace_dir.display()))?;
    let scene = limina::persistence::export::scene(&world);
    match output {
        Some(path) => std::fs::write(path, &scene.text)
            .with_context(|| format!("writing {}", path.display()))?,
        None => std::io::stdout().write_all(scene.text.as_bytes())?,
    }
    limina::log::info(&format!(
        "exported {} entities as {} scene lines (from {}, {} journal records)",
        world.entity_count(),
        scene.lines,
        restored
            .checkpoint
            .as_ref()
            .map_or("no checkpoint".to_string(), |p| p.display().to_string()),
        restored.records
    ));
    Ok(ExitCode::SUCCESS)
}
