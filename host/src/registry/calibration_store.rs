//! Calibration kept across restarts: per guest skill, the calls in its latency window, saved
//! beside the compiled-component cache after each calibration and loaded at start-up, so
//! tiers are known before the first real call. Entries are keyed by the package's content
//! hash: a rebuilt package starts afresh.

use super::Registry;
use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};
use std::path::PathBuf;

const FORMAT: u64 = 1;

impl Registry {
    /// Where calibration results are saved and loaded from.
    pub fn set_calibration_file(&mut self, path: PathBuf) {
        self.calibration_file = Some(path);
    }

    /// The file calibration results are kept in, if any.
    pub fn calibration_file(&self) -> Option<&std::path::Path> {
        self.calibration_file.as_deref()
    }

    /// Fills latency windows from the saved calibration; how many skills it applied to.
    pub fn load_calibration(&mut self) -> Result<usize> {
        let Some(path) = self.calibration_file.clone() else {
            return Ok(0);
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let saved: Value = serde_json::from_str(&text).context("not JSON")?;
        if saved["format"] != json!(FORMAT) {
            bail!(
                "written by another version of limina (format {})",
                saved["format"]
            );
        }
        let mut applied = 0;
        for (name, entry) in saved["skills"].as_object().into_iter().flatten() {
            let Some(skill) = self.skills.get(name) else {
                continue;
            };
            let Some(package) = skill.package_index().map(|i| &self.packages[i]) else {
                continue;
            };
            if entry["contentHash"].as_str() != Some(package.content_hash.as_str()) {
                continue;
            }
            for call in entry["calls"].as_array().into_iter().flatten() {
                let wall = call[0].as_f64().unwrap_or(0.0);
                let cpu = call[1].as_f64().unwrap_or(0.0);
                self.record_call(name, wall, cpu, call[2].as_bool().unwrap_or(false));
            }
            applied += 1;
        }
        Ok(applied)
    }

    /// Writes every guest skill's window to the calibration file (when one is set).
    pub(super) fn save_calibration(&self) -> Result<()> {
        let Some(path) = &self.calibration_file else {
            return Ok(());
        };
        let mut skills = Map::new();
        for skill in self.skills.values() {
            let Some(package) = skill.package_index().map(|i| &self.packages[i]) else {
                continue;
            };
            let calls: Vec<Value> = skill
                .latency
                .calls()
                .into_iter()
                .map(|(wall, cpu, failed)| json!([wall, cpu, failed]))
                .collect();
            if calls.is_empty() {
                continue;
            }
            skills.insert(
                skill.name.clone(),
                json!({"package": package.manifest.name, "contentHash": package.content_hash, "calls": calls}),
            );
        }
        let text = json!({"format": FORMAT, "skills": skills}).to_string();
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // Written whole, then renamed: a reader never sees half a file.
        let temp = path.with_extension("json.tmp");
        std::fs::write(&temp, text)?;
        std::fs::rename(&temp, path)?;
        Ok(())
    }
}
