//! Upstream MCP servers' tools in the registry (`crate::upstream` holds the servers): mounted
//! as skills `NAME.tool`, remounted when a server's list changes (between messages, on the
//! engine), and called like any skill — on the engine only when something forces it (a hook
//! wraps the skill); otherwise the call is detached (`detached.rs`) and waits on a thread of
//! its own.

use super::{Annotations, Handler, Registry, Schema, Skill};
use crate::call::{ErrorCode, Failure};
use crate::policy::{LatencyTier, Permissions};
use crate::trace::NewEvent;
use crate::upstream::pins::Review;
use crate::upstream::{ToolSpec, Upstream, tools::content_schema};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The version every upstream skill shows: the server's own tools are not versioned.
const UPSTREAM_VERSION: &str = "upstream";

/// How often, while a tool is held, the pins files are looked at for an approval.
const APPROVAL_POLL: Duration = Duration::from_millis(200);

/// Upstream tools their pins hold (`crate::upstream::pins`): not listed, and a call to one is
/// refused naming what changed.
#[derive(Default)]
pub(super) struct Held {
    /// Skill name → why it is held.
    tools: BTreeMap<String, String>,
    /// When the pins files were last looked at for an approval.
    checked: Option<Instant>,
}

impl Registry {
    /// Mounts `upstreams`' tools. Refused, changing nothing, when an upstream's name is that
    /// of a loaded package or of host skills: its tools would shadow theirs.
    pub fn mount_upstreams(&mut self, upstreams: Vec<Arc<Upstream>>) -> Result<(), String> {
        for upstream in &upstreams {
            let name = upstream.name();
            let prefix = format!("{name}.");
            let package = self.packages.iter().any(|p| p.manifest.name == name);
            let taken = self
                .skills
                .values()
                .find(|s| s.name.starts_with(&prefix) && s.upstream().is_none());
            if package || taken.is_some() {
                return Err(format!(
                    "upstream `{name}`: its tools would be `{name}.*`, which would shadow the {} `{name}`; give the [[upstream]] entry another name",
                    if package { "package" } else { "host skills of" }
                ));
            }
            if self.upstreams.iter().any(|u| u.name() == name) {
                return Err(format!("upstream `{name}` is mounted already"));
            }
        }
        // Pins are kept beside the trace they belong to (in memory for an in-memory trace).
        if let Some(dir) = self.realm.as_ref().and_then(|r| r.tracer.dir()) {
            for upstream in &upstreams {
                upstream.keep_pins_in(dir);
            }
        }
        self.upstreams.extend(upstreams);
        self.refresh_upstreams();
        Ok(())
    }

    /// Why the upstream tool `skill` is held by its pins, if it is: it is listed nowhere, and
    /// a call to it is refused naming what changed.
    pub fn held_tool(&self, skill: &str) -> Option<&str> {
        self.held.tools.get(skill).map(String::as_str)
    }

    /// The refusal of a call to a held tool: `forbidden` under the rule `upstream.changed`,
    /// traced as a denied decision like any policy refusal.
    pub(super) fn refuse_held(
        &mut self,
        caller: &super::Caller,
        skill: &str,
        why: String,
        events: &mut Vec<String>,
    ) -> Failure {
        let upstream = skill
            .split_once('.')
            .map_or(skill, |(up, _)| up)
            .to_string();
        let verdict = crate::policy::Verdict {
            allow: false,
            rule: "upstream.changed",
            reason: why,
            missing: None,
            quota: None,
            budget: None,
        };
        let crossing = super::decision::Crossing {
            boundary: "registry",
            cap: skill,
            package: Some(&upstream),
            required: vec![],
        };
        let realm = self.realm_mut();
        let decision = super::decision::record(realm, caller, crossing, &verdict);
        events.extend(decision.events);
        Failure::new(ErrorCode::Forbidden, verdict.reason)
    }

    /// The mounted upstream servers.
    pub fn upstreams(&self) -> &[Arc<Upstream>] {
        &self.upstreams
    }

    /// Remounts the tools of every upstream whose list changed (it restarted, or said its
    /// tools changed). Cheap when nothing changed: the engine calls it between messages.
    pub fn refresh_upstreams(&mut self) {
        for index in 0..self.upstreams.len() {
            if let Some(tools) = self.upstreams[index].take_fresh_tools() {
                let review = self.upstreams[index].review(tools);
                self.remount(index, review);
            }
        }
        // An approval (`limina upstream approve`) lands in the pins file: looked for while
        // something is held, a few times a second at most.
        let due = self
            .held
            .checked
            .is_none_or(|at| at.elapsed() >= APPROVAL_POLL);
        if !self.held.tools.is_empty() && due {
            self.held.checked = Some(Instant::now());
            for index in 0..self.upstreams.len() {
                if let Some(review) = self.upstreams[index].review_if_approved() {
                    self.remount(index, review);
                }
            }
        }
    }

    /// Mounts what `review` lets through, holds the rest and traces what changed.
    fn remount(&mut self, index: usize, review: Review) {
        let name = self.upstreams[index].name().to_string();
        self.report_changes(&name, &review);
        let prefix = format!("{name}.");
        self.held
            .tools
            .retain(|skill, _| !skill.starts_with(&prefix));
        for (tool, why) in review.held {
            self.held.tools.insert(format!("{name}.{tool}"), why);
        }
        let mut fresh = Vec::new();
        for tool in review.mount {
            match skill_of(&name, index, tool) {
                Ok(skill) => fresh.push(skill),
                Err(why) => crate::log::warn(&why),
            }
        }
        fresh.sort_by(|a, b| a.name.cmp(&b.name));
        let same = {
            let old: Vec<&Skill> = self
                .skills
                .values()
                .filter(|s| matches!(s.handler, Handler::Upstream(i) if i == index))
                .collect();
            old.len() == fresh.len()
                && old.iter().zip(&fresh).all(|(a, b)| {
                    a.name == b.name
                        && a.description == b.description
                        && a.input.source() == b.input.source()
                        && a.output.source() == b.output.source()
                })
        };
        if same {
            return;
        }
        // Measured latency stays with a tool that is still there.
        let mut old = std::collections::BTreeMap::new();
        self.skills.retain(|k, s| {
            if matches!(s.handler, Handler::Upstream(i) if i == index) {
                old.insert(k.to_string(), (std::mem::take(&mut s.latency), s.tier));
                false
            } else {
                true
            }
        });
        for mut skill in fresh {
            if let Some((latency, tier)) = old.remove(&skill.name) {
                skill.latency = latency;
                skill.tier = tier;
            }
            self.skills.insert(skill);
        }
        self.generation += 1;
        self.skill_set += 1;
        self.refresh_tiers();
    }

    /// `upstream.tool.changed` for each change, and a warning in the host log.
    fn report_changes(&mut self, upstream: &str, review: &Review) {
        for change in &review.changes {
            crate::log::warn(&format!(
                "upstream `{upstream}`: tool `{}` {} ({} → {}){}",
                change.tool,
                match (&change.from, &change.to) {
                    (None, _) => "was added".to_string(),
                    (_, None) => "was removed".to_string(),
                    _ => format!("changed its {}", change.fields.join(", ")),
                },
                change.from.as_deref().unwrap_or("none"),
                change.to.as_deref().unwrap_or("none"),
                if change.held {
                    "; held until approved (`limina upstream diff`)"
                } else {
                    ""
                }
            ));
            let Some(realm) = self.realm.as_mut() else {
                continue;
            };
            realm.tracer.emit(NewEvent {
                kind: "upstream.tool.changed",
                actor_id: super::load::HOST_SESSION,
                thread_id: super::load::HOST_SESSION,
                parent_event_id: None,
                caused_by: vec![],
                payload: change.payload(upstream),
            });
        }
    }

    /// Runs an upstream call on this thread (the engine), charging its wall time: only for
    /// calls that cannot be detached.
    pub(super) fn call_upstream_here(
        &mut self,
        caller: &super::Caller,
        index: usize,
        skill: &str,
        input: &Value,
    ) -> Result<Value, Failure> {
        let upstream = self.upstreams[index].clone();
        let tool = tool_of(upstream.name(), skill);
        let started = Instant::now();
        let result = upstream.call(tool, input.clone(), &self.control);
        self.policy
            .charge_upstream(&caller.session_id, started.elapsed().as_secs_f64() * 1000.0);
        result
    }

    /// The upstream behind `skill`, if it is one's.
    pub(super) fn upstream_of(&self, skill: &str) -> Option<&Arc<Upstream>> {
        match self.skills.get(skill)?.handler {
            Handler::Upstream(i) => self.upstreams.get(i),
            _ => None,
        }
    }
}

impl Skill {
    /// The upstream server providing it, by name, if one does.
    pub fn upstream(&self) -> Option<&str> {
        match self.handler {
            Handler::Upstream(_) => self.name.split_once('.').map(|(up, _)| up),
            _ => None,
        }
    }
}

/// The server's name of `skill` (`py.echo` → `echo`).
pub(super) fn tool_of<'a>(upstream: &str, skill: &'a str) -> &'a str {
    skill
        .strip_prefix(upstream)
        .and_then(|rest| rest.strip_prefix('.'))
        .unwrap_or(skill)
}

fn skill_of(upstream: &str, index: usize, tool: ToolSpec) -> Result<Skill, String> {
    let name = format!("{upstream}.{}", tool.name);
    let input = Schema::compile(tool.input_schema).map_err(|e| {
        format!(
            "upstream `{upstream}`: tool `{}` is not mounted: its inputSchema is invalid: {e}",
            tool.name
        )
    })?;
    let output =
        Schema::compile(tool.output_schema.unwrap_or_else(content_schema)).map_err(|e| {
            format!(
                "upstream `{upstream}`: tool `{}` is not mounted: its outputSchema is invalid: {e}",
                tool.name
            )
        })?;
    Ok(Skill {
        name,
        version: UPSTREAM_VERSION.into(),
        category: "upstream".into(),
        description: tool.description,
        // What a session needs is the entry's named capability (decided in the pipeline).
        permissions: Permissions::NONE,
        input,
        output,
        annotations: Annotations {
            read_only: tool.read_only,
            destructive: tool.destructive,
            idempotent: tool.idempotent,
            open_world: true,
        },
        handler: Handler::Upstream(index),
        latency: Default::default(),
        tier: LatencyTier::Fast,
    })
}
