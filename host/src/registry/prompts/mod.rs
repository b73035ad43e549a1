//! Prompts: message templates a client offers its user (MCP `prompts/*`), with their
//! arguments completed (`completion/complete`). The registry holds one table of
//! [`PromptSource`]s; the host's own (`host.rs`) are registered at start, and packages add
//! theirs through the same table ([`Registry::add_prompt_source`]).
//!
//! Getting a prompt is decided like a call — the prompt's capability (`prompt.<name>`,
//! which tool allow-lists name) and permissions — and traced (`prompt.get`, caused by the
//! decision); resources a prompt embeds are read through the resource pipeline, each read
//! decided and traced on its own. Listings show only what the caller may get.

mod host;

use super::resources::{Access, Page};
use super::{Caller, Registry};
use crate::call::{ErrorCode, Failure};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A prompt as listings show it.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptInfo {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub arguments: Vec<PromptArgument>,
}

/// One argument a prompt takes (a string).
#[derive(Debug, Clone, PartialEq)]
pub struct PromptArgument {
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
}

/// A prompt filled in: its messages, each `{role, content}` as MCP writes them.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptMessages {
    pub description: Option<String>,
    pub messages: Vec<Value>,
}

/// One source of prompts: the host's own and, through the same table, packages'.
pub trait PromptSource: Send + Sync {
    /// The package serving them (`None`: the host), so a reload replaces them.
    fn package(&self) -> Option<&str> {
        None
    }
    /// Its prompts, each with what getting it takes.
    fn prompts(&self, registry: &Registry) -> Vec<(PromptInfo, Access)>;
    /// Fills in its prompt `name` (one it lists) with `arguments`, already checked against
    /// the prompt's declared ones.
    fn get(
        &self,
        registry: &mut Registry,
        caller: &Caller,
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<PromptMessages, Failure>;
    /// Values for `argument` of its prompt `name` starting with `prefix`, at most `limit`;
    /// `arguments` holds the ones already given.
    fn complete(
        &self,
        _registry: &Registry,
        _caller: &Caller,
        _name: &str,
        _argument: &str,
        _prefix: &str,
        _limit: usize,
    ) -> Vec<String> {
        Vec::new()
    }
}

/// The registry's prompt sources.
#[derive(Clone, Default)]
pub(crate) struct PromptTable {
    sources: Vec<Arc<dyn PromptSource>>,
    /// Bumped whenever a source is added or removed.
    pub(crate) generation: u64,
}

impl PromptTable {
    /// The host's own prompts.
    pub(crate) fn host() -> PromptTable {
        PromptTable {
            sources: vec![host::source()],
            generation: 0,
        }
    }
}

impl Registry {
    /// Adds a source of prompts (a package's, when it loads).
    pub fn add_prompt_source(&mut self, source: Arc<dyn PromptSource>) {
        self.prompts.sources.push(source);
        self.prompts.generation += 1;
    }

    /// Keeps only the prompt sources `keep` accepts.
    pub fn retain_prompt_sources(&mut self, keep: impl Fn(&dyn PromptSource) -> bool) {
        let before = self.prompts.sources.len();
        self.prompts.sources.retain(|s| keep(s.as_ref()));
        if self.prompts.sources.len() != before {
            self.prompts.generation += 1;
        }
    }

    /// Every prompt `caller` may get, sorted by name, with its source.
    fn visible_prompts(&self, caller: &Caller) -> Vec<(PromptInfo, Access, Arc<dyn PromptSource>)> {
        let mut out: Vec<_> = self
            .prompts
            .sources
            .iter()
            .flat_map(|s| {
                s.prompts(self)
                    .into_iter()
                    .map(move |(info, access)| (info, access, s.clone()))
            })
            .filter(|(_, access, _)| self.may_read(caller, access))
            .collect();
        out.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        out
    }

    /// A page of the prompts `caller` may get, from `cursor` (a prompt name a page gave).
    pub fn list_prompts(
        &self,
        caller: &Caller,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<Page<PromptInfo>, Failure> {
        let all = self.visible_prompts(caller);
        let start = match cursor {
            None => 0,
            Some(after) => {
                all.iter().position(|(p, _, _)| p.name == after).ok_or_else(|| {
                    Failure::new(
                        ErrorCode::InvalidInput,
                        format!("invalid cursor `{after}`: pass back a nextCursor from an earlier prompts/list"),
                    )
                })? + 1
            }
        };
        let items: Vec<PromptInfo> = all
            .iter()
            .skip(start)
            .take(limit)
            .map(|(p, _, _)| p.clone())
            .collect();
        let next = (start + items.len() < all.len())
            .then(|| items.last().map(|p| p.name.clone()))
            .flatten();
        Ok(Page { items, next })
    }

    /// Fills in prompt `name` for `caller`: its arguments checked (missing required ones and
    /// unknown ones refused), decided by policy and traced, then filled.
    pub fn get_prompt(
        &mut self,
        caller: &Caller,
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<PromptMessages, Failure> {
        let found = self.prompts.sources.iter().find_map(|s| {
            s.prompts(self)
                .into_iter()
                .find(|(p, _)| p.name == name)
                .map(|(p, a)| (p, a, s.clone()))
        });
        let Some((info, access, source)) = found else {
            return Err(Failure::new(
                ErrorCode::NotFound,
                format!("unknown prompt `{name}`; prompts/list shows the prompts you may get"),
            ));
        };
        check_arguments(&info, arguments)?;
        let decision = self.decide_crossing(caller, &access, "prompt")?;
        let got = source.get(self, caller, name, arguments);
        let payload = json!({
            "prompt": name,
            "arguments": arguments,
            "ok": got.is_ok(),
            "error": got.as_ref().err().map(|f| json!({"code": f.code, "message": f.message})),
        });
        self.trace_crossing(caller, &decision, "prompt.get", payload);
        got
    }

    /// Values for `argument` of prompt `name` starting with `prefix`, if `caller` may get
    /// it (`None`: no such prompt or argument for this caller).
    pub fn complete_prompt(
        &self,
        caller: &Caller,
        name: &str,
        argument: &str,
        prefix: &str,
        limit: usize,
    ) -> Option<Vec<String>> {
        let (info, _, source) = self
            .visible_prompts(caller)
            .into_iter()
            .find(|(p, _, _)| p.name == name)?;
        info.arguments.iter().find(|a| a.name == argument)?;
        Some(source.complete(self, caller, name, argument, prefix, limit))
    }
}

/// Refuses arguments a prompt does not declare and missing required ones, naming them.
fn check_arguments(info: &PromptInfo, given: &BTreeMap<String, String>) -> Result<(), Failure> {
    let known: Vec<&str> = info.arguments.iter().map(|a| a.name.as_str()).collect();
    if let Some(unknown) = given.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(Failure::new(
            ErrorCode::InvalidInput,
            format!(
                "prompt `{}` takes no argument `{unknown}`; it takes: {}",
                info.name,
                known.join(", ")
            ),
        ));
    }
    if let Some(missing) = info
        .arguments
        .iter()
        .find(|a| a.required && given.get(&a.name).is_none_or(|v| v.trim().is_empty()))
    {
        return Err(Failure::new(
            ErrorCode::InvalidInput,
            format!(
                "prompt `{}` needs the argument `{}`{}",
                info.name,
                missing.name,
                missing
                    .description
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
