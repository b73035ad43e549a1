//! Upstream tools are pinned (the rug-pull defence): an upstream server can change a tool's
//! description, schemas or annotations at any moment, and an agent would then follow text
//! the operator never read. So each tool's definition — what an agent reads of it — is
//! pinned by digest when the upstream is first mounted, kept in the trace folder
//! (`upstream-pins/NAME.json`), and every later listing is compared with the pins:
//!
//! - a tool whose definition differs, or one that appears later, is *held* under
//!   `pinning = "hold"` (the default): neither version is listed or callable (a call is
//!   `forbidden`, rule `upstream.changed`, naming the tool and the fields) until the operator
//!   approves it (`limina upstream diff NAME`, `limina upstream approve NAME [TOOL…]`);
//!   `"warn"` mounts it and reports it; `"off"` pins nothing;
//! - `pin = { tool = "sha256:…" }` in the `[[upstream]]` entry fixes a tool's digest ahead of
//!   time: the configuration, not an approval, then says what may be mounted;
//! - every change, removal and addition is reported once as `upstream.tool.changed
//!   {upstream, tool, from, to, fields}` (`from`/`to` digests, `null` for an added/removed one).
//!
//! The pins file is shared with the CLI: every read-modify-write holds an exclusive `flock`
//! on `upstream-pins/.lock` and replaces the file whole. A host with an in-memory trace
//! keeps its pins in memory (every start then trusts the first listing again).

use super::ToolSpec;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The folder of the trace directory the pins live in.
pub const PINS_DIR: &str = "upstream-pins";

/// The parts of a tool's definition that are pinned: what an agent reads of it.
pub const FIELDS: [&str; 5] = [
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// `pinning` of an `[[upstream]]` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pinning {
    /// A changed or added tool is held until approved.
    #[default]
    Hold,
    /// A changed or added tool is mounted, and reported.
    Warn,
    /// Nothing is pinned.
    Off,
}

impl Pinning {
    pub fn parse(text: &str) -> Result<Pinning, String> {
        match text {
            "hold" => Ok(Pinning::Hold),
            "warn" => Ok(Pinning::Warn),
            "off" => Ok(Pinning::Off),
            other => Err(format!(
                "`{other}` is not a pinning; use \"hold\" (the default: a changed tool waits for approval), \"warn\" or \"off\""
            )),
        }
    }
}

/// A pin as `pin = { tool = "sha256:…" }` writes it: `sha256:` and 64 lowercase hex digits.
pub fn valid_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// The pinned definition of a listed tool: the [`FIELDS`] as listed (`null` when absent),
/// the description as mounted (cut to size).
pub fn definition(listed: &Value, description: &str) -> Value {
    let mut out = serde_json::Map::new();
    for field in FIELDS {
        let value = match field {
            "description" => Value::String(description.to_string()),
            _ => listed.get(field).cloned().unwrap_or(Value::Null),
        };
        out.insert(field.to_string(), value);
    }
    Value::Object(out)
}

/// `sha256:HEX` of `definition` in a canonical form (object keys sorted, no spaces), so the
/// order a server writes keys in changes nothing.
pub fn digest(definition: &Value) -> String {
    let mut text = String::new();
    canonical(definition, &mut text);
    format!("sha256:{}", hex::encode(Sha256::digest(text.as_bytes())))
}

fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The [`FIELDS`] in which two definitions differ.
pub fn changed_fields(from: &Value, to: &Value) -> Vec<&'static str> {
    FIELDS
        .into_iter()
        .filter(|f| {
            let (a, b) = (from.get(*f), to.get(*f));
            digest(a.unwrap_or(&Value::Null)) != digest(b.unwrap_or(&Value::Null))
        })
        .collect()
}

/// An approved tool: its digest and the definition approved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pinned {
    pub digest: String,
    pub definition: Value,
}

/// A change waiting for the operator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pending {
    /// The approved digest (`None`: the tool is new).
    pub from: Option<String>,
    /// The listed digest (`None`: the tool was removed).
    pub to: Option<String>,
    pub fields: Vec<String>,
    /// The listed definition (`None` when removed).
    pub definition: Option<Value>,
    /// The digest is fixed by `pin` in the configuration: only the configuration changes it.
    #[serde(default)]
    pub pinned_by_config: bool,
}

/// `upstream-pins/NAME.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PinFile {
    pub upstream: String,
    #[serde(default)]
    pub approved: BTreeMap<String, Pinned>,
    #[serde(default)]
    pub pending: BTreeMap<String, Pending>,
}

/// One reported change: `upstream.tool.changed`.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub tool: String,
    pub from: Option<String>,
    pub to: Option<String>,
    pub fields: Vec<String>,
    /// It is held (not callable) until approved.
    pub held: bool,
}

impl Change {
    /// The `upstream.tool.changed` payload.
    pub fn payload(&self, upstream: &str) -> Value {
        json!({
            "upstream": upstream,
            "tool": self.tool,
            "from": self.from,
            "to": self.to,
            "fields": self.fields,
            "held": self.held,
        })
    }
}

/// What a listing comes to under the pins.
#[derive(Debug, Default)]
pub struct Review {
    /// The tools to mount.
    pub mount: Vec<ToolSpec>,
    /// Held tools and why, for the refusal of a call to one.
    pub held: Vec<(String, String)>,
    /// Changes not reported before.
    pub changes: Vec<Change>,
}

/// One upstream's pins: the file (when the trace is durable) and what was reported.
pub struct PinStore {
    upstream: String,
    pinning: Pinning,
    /// `pin` from the configuration: tool → digest.
    fixed: BTreeMap<String, String>,
    /// `None`: kept in memory only.
    dir: Option<PathBuf>,
    state: PinFile,
    /// The file's modification time and length when last read or written.
    stamp: Option<(SystemTime, u64)>,
    /// What each tool's last reported change was (tool → (from, to)).
    reported: BTreeMap<String, (Option<String>, Option<String>)>,
    /// The last listing, reviewed again when approvals change.
    listed: Vec<ToolSpec>,
}

impl PinStore {
    pub fn new(upstream: &str, pinning: Pinning, fixed: BTreeMap<String, String>) -> PinStore {
        PinStore {
            upstream: upstream.to_string(),
            pinning,
            fixed,
            dir: None,
            state: PinFile {
                upstream: upstream.to_string(),
                ..PinFile::default()
            },
            stamp: None,
            reported: BTreeMap::new(),
            listed: Vec::new(),
        }
    }

    /// Keeps the pins in `trace_dir/upstream-pins` from now on.
    pub fn keep_in(&mut self, trace_dir: &Path) {
        self.dir = Some(trace_dir.join(PINS_DIR));
    }

    /// The last listing, to review again.
    pub fn listed(&self) -> Vec<ToolSpec> {
        self.listed.clone()
    }

    /// Whether the file changed since it was last read or written (an approval from the CLI).
    pub fn changed_on_disk(&self) -> bool {
        let Some(dir) = &self.dir else { return false };
        stamp(&file_of(dir, &self.upstream)) != self.stamp
    }

    /// Compares `listed` with the pins, records what changed (durably when kept on disk) and
    /// says what to mount.
    pub fn review(&mut self, listed: Vec<ToolSpec>) -> Review {
        self.listed = listed.clone();
        if self.pinning == Pinning::Off {
            return Review {
                mount: listed,
                ..Review::default()
            };
        }
        let dir = self.dir.clone();
        let result = match &dir {
            Some(dir) => locked(dir, || {
                let path = file_of(dir, &self.upstream);
                let existed = path.exists();
                let mut state = read(&path, &self.upstream)?;
                let before = state.clone();
                let review = self.judge(&mut state, &listed, !existed);
                if state != before || !existed {
                    write(&path, &state)?;
                }
                self.stamp = stamp(&path);
                self.state = state;
                Ok(review)
            }),
            None => {
                let first = self.stamp.is_none();
                let mut state = std::mem::take(&mut self.state);
                let review = self.judge(&mut state, &listed, first);
                self.state = state;
                // In memory, "read once" stands for "the file exists".
                self.stamp = Some((SystemTime::UNIX_EPOCH, 0));
                Ok(review)
            }
        };
        let mut review = result.unwrap_or_else(|e| {
            // Fail closed: without its pins, nothing of this upstream is mounted.
            crate::log::error(&format!(
                "upstream `{}`: its pins cannot be kept ({e}); none of its tools are mounted",
                self.upstream
            ));
            Review {
                held: listed
                    .iter()
                    .map(|t| {
                        (
                            t.name.clone(),
                            format!(
                                "upstream `{}`: its pins cannot be read or written ({e}), so its tool `{}` is held",
                                self.upstream, t.name
                            ),
                        )
                    })
                    .collect(),
                ..Review::default()
            }
        });
        // A tool mounted as approved has nothing to report: a later change is news again.
        for tool in &review.mount {
            if !review.changes.iter().any(|c| c.tool == tool.name) {
                self.reported.remove(&tool.name);
            }
        }
        review.changes.retain(|c| {
            let key = (c.from.clone(), c.to.clone());
            self.reported.insert(c.tool.clone(), key.clone()) != Some(key)
        });
        review
    }

    /// The decision for each tool, updating `state`.
    fn judge(&self, state: &mut PinFile, listed: &[ToolSpec], first: bool) -> Review {
        let hold = self.pinning == Pinning::Hold;
        let mut review = Review::default();
        for tool in listed {
            let name = &tool.name;
            let fixed = self.fixed.get(name);
            let expected = fixed.or_else(|| state.approved.get(name).map(|p| &p.digest));
            let pinned = Pinned {
                digest: tool.digest.clone(),
                definition: tool.definition.clone(),
            };
            match expected {
                Some(e) if *e == tool.digest => {
                    state.pending.remove(name);
                    if fixed.is_some() && state.approved.get(name) != Some(&pinned) {
                        state.approved.insert(name.clone(), pinned);
                    }
                    review.mount.push(tool.clone());
                }
                None if first => {
                    state.approved.insert(name.clone(), pinned);
                    review.mount.push(tool.clone());
                }
                expected => {
                    let fields: Vec<String> = match state.approved.get(name) {
                        Some(old) => changed_fields(&old.definition, &tool.definition),
                        None => FIELDS.to_vec(),
                    }
                    .into_iter()
                    .map(str::to_string)
                    .collect();
                    let change = Change {
                        tool: name.clone(),
                        from: expected.cloned(),
                        to: Some(tool.digest.clone()),
                        fields: fields.clone(),
                        held: hold,
                    };
                    if hold {
                        review
                            .held
                            .push((name.clone(), self.held_message(&change, fixed)));
                        state.pending.insert(
                            name.clone(),
                            Pending {
                                from: change.from.clone(),
                                to: change.to.clone(),
                                fields,
                                definition: Some(tool.definition.clone()),
                                pinned_by_config: fixed.is_some(),
                            },
                        );
                    } else {
                        if fixed.is_none() {
                            state.approved.insert(name.clone(), pinned);
                        }
                        state.pending.remove(name);
                        review.mount.push(tool.clone());
                    }
                    review.changes.push(change);
                }
            }
        }
        let gone: Vec<(String, String)> = state
            .approved
            .iter()
            .map(|(name, p)| (name.clone(), p.digest.clone()))
            .chain(self.fixed.iter().map(|(n, d)| (n.clone(), d.clone())))
            .filter(|(name, _)| !listed.iter().any(|t| &t.name == name))
            .collect();
        for (name, digest) in gone {
            if review.changes.iter().any(|c| c.tool == name) {
                continue;
            }
            let change = Change {
                tool: name.clone(),
                from: Some(digest),
                to: None,
                fields: vec![],
                held: false,
            };
            if hold {
                state.pending.insert(
                    name.clone(),
                    Pending {
                        from: change.from.clone(),
                        to: None,
                        fields: vec![],
                        definition: None,
                        pinned_by_config: self.fixed.contains_key(&name),
                    },
                );
            } else if !self.fixed.contains_key(&name) {
                state.approved.remove(&name);
            }
            review.changes.push(change);
        }
        review
    }

    fn held_message(&self, change: &Change, fixed: Option<&String>) -> String {
        let (upstream, tool) = (&self.upstream, &change.tool);
        let to = change.to.as_deref().unwrap_or("-");
        match (&change.from, fixed) {
            (Some(_), Some(pin)) => format!(
                "upstream `{upstream}` lists the tool `{tool}` with the digest {to}, not the {pin} its `pin` fixes (changed: {}); neither version may be called: review it with `limina upstream diff {upstream}`, then update the `pin`",
                change.fields.join(", ")
            ),
            (Some(_), None) => format!(
                "upstream `{upstream}` changed the tool `{tool}` since it was approved (changed: {}); neither version may be called until the operator reviews it with `limina upstream diff {upstream}` and accepts it with `limina upstream approve {upstream} {tool}`",
                change.fields.join(", ")
            ),
            (None, _) => format!(
                "upstream `{upstream}` added the tool `{tool}` after it was first mounted; it may not be called until the operator reviews it with `limina upstream diff {upstream}` and accepts it with `limina upstream approve {upstream} {tool}`"
            ),
        }
    }
}

fn file_of(dir: &Path, upstream: &str) -> PathBuf {
    dir.join(format!("{upstream}.json"))
}

fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

fn read(path: &Path, upstream: &str) -> Result<PinFile, String> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| format!("{} is not a pins file: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(PinFile {
            upstream: upstream.to_string(),
            ..PinFile::default()
        }),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Replaces the file whole: written beside it, synced, renamed over it.
fn write(path: &Path, state: &PinFile) -> Result<(), String> {
    let text = serde_json::to_string_pretty(state).map_err(|e| e.to_string())?;
    let temp = path.with_extension("json.new");
    let written = (|| {
        use std::io::Write;
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    written.map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Runs `work` holding the pins folder's lock (created with the folder when missing).
fn locked<T>(dir: &Path, work: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    use std::os::fd::AsRawFd;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let lock_path = dir.join(".lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    // SAFETY: flock on a descriptor this function owns; released when `lock` is closed.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(format!(
            "cannot lock {}: {}",
            lock_path.display(),
            std::io::Error::last_os_error()
        ));
    }
    work()
}

/// The pins file of `upstream` kept under `trace_dir`, as it stands.
pub fn load(trace_dir: &Path, upstream: &str) -> Result<PinFile, String> {
    let dir = trace_dir.join(PINS_DIR);
    let path = file_of(&dir, upstream);
    if !path.exists() {
        return Err(format!(
            "no pins for an upstream `{upstream}` in {} (it has not been mounted with this trace folder)",
            dir.display()
        ));
    }
    read(&path, upstream)
}

/// Accepts the pending changes of `tools` (every pending one when empty): a changed or added
/// tool's listed definition becomes its pin, a removed tool's pin is dropped. The names
/// accepted, or why nothing was.
pub fn approve(trace_dir: &Path, upstream: &str, tools: &[String]) -> Result<Vec<String>, String> {
    let dir = trace_dir.join(PINS_DIR);
    load(trace_dir, upstream)?;
    locked(&dir, || {
        let path = file_of(&dir, upstream);
        let mut state = read(&path, upstream)?;
        let names: Vec<String> = if tools.is_empty() {
            state.pending.keys().cloned().collect()
        } else {
            tools.to_vec()
        };
        if names.is_empty() {
            return Err(format!(
                "upstream `{upstream}` has no change waiting for approval"
            ));
        }
        for name in &names {
            let Some(pending) = state.pending.get(name) else {
                let waiting: Vec<&str> = state.pending.keys().map(String::as_str).collect();
                return Err(format!(
                    "upstream `{upstream}` has no change of a tool `{name}` waiting (waiting: {})",
                    if waiting.is_empty() {
                        "none".to_string()
                    } else {
                        waiting.join(", ")
                    }
                ));
            };
            if pending.pinned_by_config {
                return Err(format!(
                    "the tool `{name}` of upstream `{upstream}` is pinned by `pin` in its [[upstream]] entry; approve it there: `{name} = \"{}\"`",
                    pending
                        .to
                        .as_deref()
                        .unwrap_or("(removed: drop it from `pin`)")
                ));
            }
        }
        for name in &names {
            let pending = state.pending.remove(name).expect("checked above");
            match (pending.to, pending.definition) {
                (Some(digest), Some(definition)) => {
                    state
                        .approved
                        .insert(name.clone(), Pinned { digest, definition });
                }
                _ => {
                    state.approved.remove(name);
                }
            }
        }
        write(&path, &state)?;
        Ok(names)
    })
}

#[cfg(test)]
#[path = "pins_tests.rs"]
mod tests;
