//! Hot reload at the protocol layer: packages rebuilt by the watcher are swapped in between
//! messages, and clients hear `notifications/tools/list_changed`.

use super::server::{Connection, Server};
use crate::mcp::wire::jsonrpc;
use crate::packages::watch::{Reload, Watcher};
use anyhow::Result;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, channel};

/// The watcher and the channel its rebuilt packages arrive on.
pub struct Reloads {
    rx: Receiver<Reload>,
    _watcher: Watcher,
}

impl Server {
    /// Starts watching package folders (`--watch`).
    pub fn watch(&mut self, roots: Vec<PathBuf>) -> Result<()> {
        let (tx, rx) = channel();
        let watcher = Watcher::start(roots, self.registry().sandbox(), tx)?;
        self.reloads = Some(Reloads {
            rx,
            _watcher: watcher,
        });
        Ok(())
    }

    /// Swaps in every package the watcher has rebuilt since the last look. A package that
    /// fails to read, build or be admitted leaves the old version serving.
    pub(in crate::mcp) fn apply_reloads(&mut self) {
        let Some(reloads) = &self.reloads else { return };
        let pending: Vec<Reload> = reloads.rx.try_iter().collect();
        for reload in pending {
            let dir = reload.dir.display().to_string();
            match self.registry_mut().reload(reload) {
                Ok((package, skills)) => crate::log::info(&format!(
                    "reloaded package `{package}` from {dir}: {}",
                    skills.join(", ")
                )),
                Err(e) => crate::log::warn(&format!(
                    "reload from {dir} failed, the previous version keeps serving: {e:#}"
                )),
            }
        }
    }

    /// Notifications owed to this connection: guest log lines at or above its level, and
    /// `tools/list_changed` once the skill set changed since it last listed or was told.
    pub fn notifications(&mut self, conn: &mut Connection) -> Vec<Value> {
        let threshold = conn.log_level.unwrap_or(crate::log::Level::Warn);
        let mut out: Vec<Value> = std::mem::take(&mut conn.pending);
        out.extend(self
            .registry_mut()
            .take_logs()
            .into_iter()
            .filter(|line| line.level >= threshold && conn.session.is_some())
            .map(|line| {
                jsonrpc::notification(
                    "notifications/message",
                    json!({"level": line.level.mcp_name(), "logger": line.logger, "data": line.message}),
                )
            }));
        let generation = self.registry().generation();
        if conn.session.is_some() && conn.seen_generation != generation {
            conn.seen_generation = generation;
            out.push(jsonrpc::notification(
                "notifications/tools/list_changed",
                json!({}),
            ));
        }
        out.extend(self.listen_notifications(conn));
        out
    }

    /// Work done while no message is waiting: swap in rebuilt packages, keep the clock.
    pub fn idle(&mut self) {
        self.apply_reloads();
        self.registry_mut().refresh_upstreams();
        self.advance_clock();
        self.registry_mut().world_idle();
    }

    /// The host is stopping cleanly: the world's last checkpoint.
    pub fn shutdown(&mut self) {
        for upstream in self.registry().upstreams() {
            upstream.stop();
        }
        match self.registry_mut().checkpoint_world("shutdown") {
            Ok(_) => {}
            Err(e) => crate::log::error(&format!(
                "{e:#}; the world will be rebuilt from the journal at the next start"
            )),
        }
        self.flush();
    }
}
