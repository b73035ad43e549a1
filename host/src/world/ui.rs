//! UI panels as scene data: labels, bubbles, callouts and HUD panels with handles `ui_<n>`.
//! There is no renderer in the host; a client renders what the state sync and snapshot report.

use super::journal::Undo;
use super::oplog::Op;
use super::{World, WorldError};
use crate::limits::{MAX_UI_PANEL_BYTES, MAX_UI_PANELS};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The panel kinds a client knows how to draw.
pub const PANEL_KINDS: [&str; 6] = [
    "label",
    "textBox",
    "speechBubble",
    "thoughtBubble",
    "callout",
    "hudPanel",
];

/// One panel: its kind, its spec (anchor, style, text…) and who made it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Panel {
    pub kind: String,
    #[serde(with = "super::json_text")]
    pub spec: Map<String, Value>,
    /// The agent whose call created it.
    pub owner: String,
    pub created_tick: u64,
}

/// Every live panel, by handle number.
#[derive(Debug)]
pub struct UiState {
    pub(super) panels: BTreeMap<u64, Panel>,
    /// Handles are issued in order and never reused, even after a rollback.
    pub(super) next: u64,
}

impl Default for UiState {
    fn default() -> Self {
        UiState {
            panels: BTreeMap::new(),
            next: 1,
        }
    }
}

/// The inverse of one UI mutation.
#[derive(Debug)]
pub(super) enum UiUndo {
    Created(u64),
    Replaced(u64, Panel),
    Removed(u64, Panel),
}

impl UiState {
    pub(super) fn undo(&mut self, undo: UiUndo) {
        match undo {
            UiUndo::Created(n) => {
                self.panels.remove(&n);
            }
            UiUndo::Replaced(n, before) | UiUndo::Removed(n, before) => {
                self.panels.insert(n, before);
            }
        }
    }

    /// A live panel by handle.
    pub fn get(&self, handle: &str) -> Option<&Panel> {
        self.panels.get(&parse_handle(handle)?)
    }

    /// Number of live panels.
    pub fn len(&self) -> usize {
        self.panels.len()
    }

    /// Whether there are no panels.
    pub fn is_empty(&self) -> bool {
        self.panels.is_empty()
    }

    /// Every panel as JSON, in handle order, for snapshots and the state sync.
    pub fn to_json(&self) -> Vec<Value> {
        self.panels
            .iter()
            .map(|(n, p)| {
                json!({
                    "handle": handle(*n),
                    "kind": p.kind,
                    "spec": p.spec,
                    "owner": p.owner,
                    "createdTick": p.created_tick,
                })
            })
            .collect()
    }
}

impl World {
    /// The UI panels, read-only.
    pub fn ui(&self) -> &UiState {
        &self.ui
    }

    /// Creates a panel of `kind` from `spec` (an object with an `anchor`); returns `ui_<n>`.
    pub fn create_panel(
        &mut self,
        kind: &str,
        spec: Value,
        owner: &str,
    ) -> Result<String, WorldError> {
        let op = || Op::CreatePanel {
            kind: kind.into(),
            spec: spec.clone(),
            owner: owner.into(),
        };
        self.logged(self.wants_op().then(op), |w| {
            w.create_panel_now(kind, spec, owner)
        })
    }

    fn create_panel_now(
        &mut self,
        kind: &str,
        spec: Value,
        owner: &str,
    ) -> Result<String, WorldError> {
        if !PANEL_KINDS.contains(&kind) {
            return Err(WorldError::Invalid(format!(
                "`kind` must be one of {}, got `{kind}`",
                PANEL_KINDS.join(", ")
            )));
        }
        let spec = checked_spec(spec, "spec")?;
        check_anchor(spec.get("anchor"))?;
        if self.ui.panels.len() >= MAX_UI_PANELS {
            return Err(WorldError::Capacity(format!(
                "the world holds its maximum of {MAX_UI_PANELS} UI panels; remove some first"
            )));
        }
        let n = self.ui.next;
        self.ui.next += 1;
        let panel = Panel {
            kind: kind.to_string(),
            spec,
            owner: owner.to_string(),
            created_tick: self.tick,
        };
        self.ui.panels.insert(n, panel);
        self.record(Undo::Ui(UiUndo::Created(n)));
        Ok(handle(n))
    }

    /// Merges `patch` into a panel: top-level keys replace, `style` merges key by key.
    /// Returns (found, changed).
    pub fn update_panel(&mut self, handle: &str, patch: Value) -> Result<(bool, bool), WorldError> {
        let op = || Op::UpdatePanel {
            handle: handle.into(),
            patch: patch.clone(),
        };
        self.logged(self.wants_op().then(op), |w| {
            w.update_panel_now(handle, patch)
        })
    }

    fn update_panel_now(&mut self, handle: &str, patch: Value) -> Result<(bool, bool), WorldError> {
        let patch = checked_spec(patch, "patch")?;
        if let Some(anchor) = patch.get("anchor") {
            check_anchor(Some(anchor))?;
        }
        let Some(n) = parse_handle(handle).filter(|n| self.ui.panels.contains_key(n)) else {
            return Ok((false, false));
        };
        let before = self.ui.panels[&n].clone();
        let mut spec = before.spec.clone();
        for (key, value) in patch {
            match (spec.get_mut(&key), value) {
                (Some(Value::Object(old)), Value::Object(new)) if key == "style" => {
                    old.extend(new);
                }
                (_, value) => {
                    spec.insert(key, value);
                }
            }
        }
        if spec == before.spec {
            return Ok((true, false));
        }
        if crate::json::text(&Value::Object(spec.clone())).len() > MAX_UI_PANEL_BYTES {
            return Err(WorldError::Invalid(format!(
                "the updated panel would exceed {MAX_UI_PANEL_BYTES} bytes of JSON"
            )));
        }
        self.ui.panels.get_mut(&n).expect("checked above").spec = spec;
        self.record(Undo::Ui(UiUndo::Replaced(n, before)));
        Ok((true, true))
    }

    /// Removes a panel; false for an unknown handle.
    pub fn remove_panel(&mut self, handle: &str) -> bool {
        self.logged(
            self.wants_op().then(|| Op::RemovePanel(handle.into())),
            |w| w.remove_panel_now(handle),
        )
    }

    fn remove_panel_now(&mut self, handle: &str) -> bool {
        let Some((n, panel)) =
            parse_handle(handle).and_then(|n| self.ui.panels.remove(&n).map(|p| (n, p)))
        else {
            return false;
        };
        self.record(Undo::Ui(UiUndo::Removed(n, panel)));
        true
    }
}

fn checked_spec(value: Value, what: &str) -> Result<Map<String, Value>, WorldError> {
    let Value::Object(map) = value else {
        return Err(WorldError::Invalid(format!(
            "`{what}` must be a JSON object"
        )));
    };
    // Bounded so one package cannot fill the host's memory through panels.
    let bytes = crate::json::text(&Value::Object(map.clone())).len();
    if bytes > MAX_UI_PANEL_BYTES {
        return Err(WorldError::Invalid(format!(
            "`{what}` is {bytes} bytes of JSON, over the {MAX_UI_PANEL_BYTES} byte cap"
        )));
    }
    Ok(map)
}

fn check_anchor(anchor: Option<&Value>) -> Result<(), WorldError> {
    match anchor.and_then(|a| a.get("kind")).and_then(Value::as_str) {
        Some("world" | "screen") => Ok(()),
        _ => Err(WorldError::Invalid(
            "`anchor` must be an object whose `kind` is `world` or `screen`".into(),
        )),
    }
}

/// `ui_<n>` → n.
fn parse_handle(handle: &str) -> Option<u64> {
    handle.strip_prefix("ui_")?.parse().ok()
}

fn handle(n: u64) -> String {
    format!("ui_{n}")
}

#[cfg(test)]
#[path = "ui_tests.rs"]
mod tests;
