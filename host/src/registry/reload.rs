//! Reloading without a restart: packages rebuilt on disk (by the watcher or `dev.reload`), the
//! configuration (`data`) and the world from a scene file (`scene`). Each reload is traced as
//! `dev.<target>.reload.completed` or `.failed`, honestly.

use super::load::host_caller;
use super::pipeline::Authority;
use super::{Caller, Registry};
use crate::packages::PackageSource;
use crate::packages::watch::Reload;
use crate::trace::NewEvent;
use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The parts of the configuration a `data` reload applies.
pub struct Reconfiguration {
    /// Profiles, quotas, budgets, approvals and tiers.
    pub policy: crate::policy::PolicyConfig,
    /// Per-package limits, by package name.
    pub package_limits: std::collections::BTreeMap<String, crate::limits::PackageLimits>,
    /// What the host gives each package beyond its manifest.
    pub grants: crate::grants::HostGrants,
    /// The host-wide ceilings no package exceeds.
    pub ceilings: crate::ceilings::Ceilings,
    /// How much each package may write into its volumes.
    pub files: crate::files::FilesConfig,
    /// The roots outbound `https` trusts.
    pub outbound: crate::net::TlsRoots,
    /// What a credential in a package's or upstream's result does.
    pub scan_results: crate::grants::credentials::ScanResults,
}

/// Reads the configuration again for a `data` reload (the CLI's reads `--config`); the error
/// says what is wrong with it.
pub type ConfigLoader = Box<dyn Fn() -> Result<Reconfiguration, String> + Send>;

impl Registry {
    /// How `data` reloads re-read the configuration.
    pub fn set_config_loader(&mut self, loader: ConfigLoader) {
        self.config_loader = Some(loader);
    }

    /// The scene file `scene` reloads replay (also replayed at start-up with `--scene`).
    pub fn set_scene_file(&mut self, path: PathBuf) {
        self.scene_file = Some(path);
    }

    /// Swaps in a package the watcher rebuilt; returns the package and its skills.
    pub fn reload(&mut self, reload: Reload) -> Result<(String, Vec<String>)> {
        let host = host_caller();
        let outcome = match reload.result {
            Ok((source, compiled)) => {
                let name = source.manifest.name.clone();
                self.load_for(&host, source, Some(compiled))
                    .map(|skills| (name, skills))
            }
            Err(e) => Err(e),
        };
        let payload = match &outcome {
            Ok((package, skills)) => {
                json!({"dir": reload.dir, "package": package, "invalidated": skills})
            }
            Err(e) => json!({"dir": reload.dir, "reason": format!("{e:#}")}),
        };
        self.note(&host, "skill", outcome.is_ok(), payload);
        outcome
    }

    /// Re-reads and reloads the named package from its folder (compiled on this thread).
    pub fn reload_package(&mut self, caller: &Caller, package: &str) -> Result<Vec<String>> {
        let (dir, embedded) = self
            .packages
            .iter()
            .find(|p| p.manifest.name == package)
            .map(|p| (p.dir.clone(), p.embedded))
            .ok_or_else(|| anyhow!("no package named `{package}` is loaded"))?;
        if embedded {
            bail!(
                "package `{package}` is built into this binary, so there is no folder to reload it from; to work on a core package, start the host with --core-dir target/core and rebuild with `cargo xtask build-guests`"
            );
        }
        let source = PackageSource::read(&dir)?;
        if source.manifest.name != package {
            bail!(
                "{} now holds package `{}`, not `{package}`",
                dir.display(),
                source.manifest.name
            );
        }
        // Reloading re-admits with the host's grant, as at start-up; the caller only triggers.
        let _ = caller;
        self.load_for(&host_caller(), source, None)
    }

    /// Re-reads the configuration file and applies it: profiles, quotas, budgets, limits.
    pub fn reload_data(&mut self) -> Result<Vec<String>> {
        let load = self.config_loader.as_ref().ok_or_else(|| {
            anyhow!("this host was started without --config; there is no configuration to reload")
        })?;
        let config = load().map_err(anyhow::Error::msg)?;
        let profiles = config
            .policy
            .profiles
            .names()
            .iter()
            .map(|p| format!("profile:{p}"))
            .collect();
        self.write_deferred();
        self.policy.reconfigure(config.policy);
        self.set_limit_overrides(config.package_limits);
        self.set_host_grants(config.grants);
        if config.ceilings.instances != self.ceilings.instances {
            // The pool's slots are reserved once, when the sandbox is built.
            crate::log::warn(&format!(
                "`[limits] instances` = {} takes effect when the host next starts; {} until then",
                config.ceilings.instances, self.ceilings.instances
            ));
        }
        if config.ceilings.worker_scheduling != self.ceilings.worker_scheduling {
            // The workers enter their class once, when they start.
            crate::log::warn(&format!(
                "`[limits] workerScheduling` = \"{}\" takes effect when the host next starts; \"{}\" until then",
                config.ceilings.worker_scheduling.name(),
                self.ceilings.worker_scheduling.name()
            ));
        }
        let (instances, worker_scheduling) =
            (self.ceilings.instances, self.ceilings.worker_scheduling);
        self.set_ceilings(crate::ceilings::Ceilings {
            instances,
            worker_scheduling,
            ..config.ceilings
        });
        self.set_files(config.files);
        self.set_tls_roots(config.outbound);
        self.set_scan_results(config.scan_results);
        // The tier thresholds may have moved.
        self.refresh_tiers();
        self.generation += 1;
        self.skill_set += 1;
        Ok(profiles)
    }

    /// Replays a scene file into a fresh world and swaps it in only if every call succeeded:
    /// one JSON object per line, `{"skill": name, "input": {...}}` (or `name`/`arguments`).
    /// The calls run on the host's own authority (the operator wrote the file), whoever asked
    /// (`dev.reload` already required `scene.write` of them). On any failure the world is left as it was and the
    /// error names the line. `name` picks another scene by bare file name in the `--scene`
    /// file's folder; paths are refused, so a session cannot make the host read files elsewhere.
    pub fn replay_scene(&mut self, name: Option<&str>) -> Result<Vec<String>> {
        let path = self.scene_path(name)?;
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let calls = parse_scene(&path, &text)?;
        let host = host_caller();
        let fresh = self.realm().world.emptied();
        let realm = self.realm_mut();
        let previous = std::mem::replace(&mut realm.world, fresh);
        let rng = realm.rng.clone();
        // The replay's own calls run without the caller's control; its progress goes to it.
        let control = self.control.clone();
        for (done, call) in calls.iter().enumerate() {
            control.report(done as f64, Some(calls.len() as f64), "replaying the scene");
            let response = self.invoke_as(&host, &call.skill, call.input.clone(), Authority::Host);
            if let Some(failure) = response.error {
                let realm = self.realm_mut();
                realm.world = previous;
                realm.rng = rng;
                bail!(
                    "{}: `{}` failed: {}: {}; the world was left as it was",
                    call.at,
                    call.skill,
                    failure.code,
                    failure.message
                );
            }
        }
        Ok(calls.into_iter().map(|c| c.skill).collect())
    }

    /// The scene file to replay: the `--scene` file, or `name` beside it.
    fn scene_path(&self, name: Option<&str>) -> Result<PathBuf> {
        match (name, self.scene_file.clone()) {
            (None, Some(path)) => Ok(path),
            (None, None) => bail!("no scene file: start the host with --scene FILE"),
            (Some(name), configured) => {
                crate::trace::check_export_name(name).map_err(|e| anyhow!("`name`: {e}"))?;
                let folder = configured
                    .as_deref()
                    .and_then(|p| p.parent())
                    .ok_or_else(|| anyhow!("`name`: scenes are read from the --scene file's folder, and this host has none"))?;
                Ok(folder.join(name))
            }
        }
    }

    /// Records a reload's outcome as `dev.<target>.reload.completed` or `.failed`.
    pub(super) fn note(
        &mut self,
        caller: &Caller,
        target: &str,
        ok: bool,
        payload: Value,
    ) -> String {
        let kind = format!(
            "dev.{target}.reload.{}",
            if ok { "completed" } else { "failed" }
        );
        self.realm_mut().tracer.emit(NewEvent {
            kind,
            actor_id: caller.agent_id.clone(),
            thread_id: caller.session_id.clone(),
            parent_event_id: None,
            caused_by: vec![],
            payload,
        })
    }
}

/// One call of a scene file.
struct SceneCall {
    /// `path:line`, for errors.
    at: String,
    skill: String,
    input: Value,
}

/// Every call of a scene file, read before any runs: a malformed line refuses the whole file.
fn parse_scene(path: &Path, text: &str) -> Result<Vec<SceneCall>> {
    let mut calls = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{}:{}", path.display(), n + 1);
        let call: Value = serde_json::from_str(line).with_context(|| format!("{at}: not JSON"))?;
        let skill = call
            .get("skill")
            .or(call.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("{at}: each line needs a `skill` name"))?
            .to_string();
        let input = call
            .get("input")
            .or(call.get("arguments"))
            .cloned()
            .unwrap_or(Value::Null);
        calls.push(SceneCall { at, skill, input });
    }
    Ok(calls)
}
