//! Loading a package into the registry: admission by policy, its description (from the
//! compiled cache when this host described the same component before, else compiled and
//! instantiated once to read it), check every skill it declares, then register them all or
//! none.

use super::decision::{self, Crossing};
use super::hooks::{GuestHook, HookPhase};
use super::{Annotations, Caller, Handler, Package, Registry, Schema, Skill};
use crate::limits::{MAX_DESCRIBE_BYTES, MAX_SKILLS_PER_PACKAGE};
use crate::packages::PackageSource;
use crate::packages::SignatureCheck;
use crate::policy::{PackageFacts, Permissions};
use crate::sandbox::CompiledPackage;
use crate::sandbox::bindings::limina::skill::types::{HookDescriptor, HookPhase as WitHookPhase};
use crate::sandbox::bindings::{PackageDescription, SkillDescriptor};
use crate::trace::NewEvent;
use anyhow::{Result, anyhow, bail};
use serde_json::{Value, json};

impl Registry {
    /// Loads a package at start-up (the host grants every permission a package may declare).
    pub fn load(&mut self, source: PackageSource) -> Result<Vec<String>> {
        self.load_for(&host_caller(), source, None)
    }

    /// Loads a package on behalf of `caller`, or replaces the loaded package of the same name
    /// (hot reload): its declared capabilities must be within the caller's permissions.
    /// `precompiled` is the component already compiled off the request path, if it was.
    /// Nothing changes if any check fails; the old version keeps serving. Each step is
    /// traced (`package.loaded` or `package.load.rejected`, caused by the admission).
    pub fn load_for(
        &mut self,
        caller: &Caller,
        source: PackageSource,
        precompiled: Option<CompiledPackage>,
    ) -> Result<Vec<String>> {
        let name = source.manifest.name.clone();
        let version = source.manifest.version.clone();
        let label = format!("package `{name}` {version}");
        // Found on disk: the install step of install → resolve → load.
        let installed = self.realm_mut().tracer.emit(NewEvent {
            kind: "package.installed".into(),
            actor_id: caller.agent_id.clone(),
            thread_id: caller.session_id.clone(),
            parent_event_id: None,
            caused_by: vec![],
            payload: json!({
                "package": name,
                "version": version,
                "dir": source.dir,
                "contentHash": source.content_hash(),
            }),
        });
        let grants_beyond = self
            .host_grants
            .overclaim(&source.manifest.name, &source.manifest.grants);
        self.write_deferred();
        let verdict = self.policy.admit_package(&PackageFacts {
            grants_beyond,
            ..package_facts(&source, caller.permissions)
        });
        let realm = self
            .realm
            .as_mut()
            .expect("the realm is home between calls");
        let crossing = Crossing {
            boundary: "package",
            cap: &name,
            package: Some(&name),
            required: declared_permissions(&source.manifest).names(),
        };
        let admission =
            decision::record_caused(realm, caller, crossing, &verdict, Some(&installed));
        let previous = self
            .packages
            .iter()
            .find(|p| p.manifest.name == name)
            .map(|p| p.manifest.version.clone());
        let result = if verdict.allow {
            self.register(source, precompiled, &label)
        } else {
            Err(anyhow!(
                "{label} was refused ({}): {}",
                verdict.rule,
                verdict.reason
            ))
        };
        let (kind, payload) = match &result {
            Ok(skills) => (
                "package.loaded",
                json!({"package": name, "version": version, "replaced": previous, "skills": skills}),
            ),
            Err(e) => (
                "package.load.rejected",
                json!({"package": name, "version": version, "rule": verdict.rule, "reason": format!("{e:#}")}),
            ),
        };
        self.realm_mut().tracer.emit(NewEvent {
            kind: kind.into(),
            actor_id: caller.agent_id.clone(),
            thread_id: caller.session_id.clone(),
            parent_event_id: Some(admission.id.clone()),
            caused_by: vec![admission.id],
            payload,
        });
        result
    }

    /// Registers a new package or swaps a loaded one atomically: everything is checked
    /// before anything changes. The package keeps its index, so skills point at it unchanged;
    /// calls decided before finish on the old version, the next call runs the new one.
    fn register(
        &mut self,
        source: PackageSource,
        precompiled: Option<CompiledPackage>,
        label: &str,
    ) -> Result<Vec<String>> {
        let name = source.manifest.name.clone();
        if self.upstreams.iter().any(|u| u.name() == name) {
            bail!(
                "{label}: the name `{name}` belongs to the upstream server `{name}` ([[upstream]]); its skills would shadow that server's tools"
            );
        }
        let existing = self.packages.iter().position(|p| p.manifest.name == name);
        let limits = self
            .limit_overrides
            .get(&name)
            .copied()
            .unwrap_or(source.manifest.limits);
        self.ceilings
            .check(&name, &limits)
            .map_err(anyhow::Error::msg)?;
        let reaches_out = !source.manifest.grants.network.is_empty();
        let hash = source.content_hex();
        // A description this host build read from the same component before needs no
        // instance (nor, until the first call, the compiled component: `compiled.rs`).
        let (compiled, (description, offered), described_now) = match (
            precompiled,
            self.sandbox.cached_description(&hash, reaches_out),
        ) {
            (precompiled, Some(described)) => {
                // A would-be viewer is compiled now: its imports decide where its calls run.
                let precompiled = match precompiled {
                    None if super::viewing::may_view(&source.manifest) => Some(
                        self.sandbox
                            .compile_for(&source.component, label, reaches_out)?,
                    ),
                    other => other,
                };
                (precompiled, described, false)
            }
            (precompiled, None) => {
                let compiled = match precompiled {
                    Some(c) => c,
                    None => self
                        .sandbox
                        .compile_for(&source.component, label, reaches_out)?,
                };
                let mut instance = compiled.instantiate(&name, &limits)?;
                let description = instance.describe()?;
                let offered = instance.offered()?;
                (Some(compiled), (description, offered), true)
            }
        };
        let kept = described_now.then(|| description.clone());
        let index = existing.unwrap_or(self.packages.len());
        let (skills, hooks) =
            check_description(&name, description, index, reaches_out, !described_now)?;
        super::offered::check(&name, &offered).map_err(|e| anyhow::anyhow!("{label}: {e}"))?;
        if let Some(taken) = skills.iter().find(|s| {
            self.skills
                .get(&s.name)
                .is_some_and(|t| t.package_index() != Some(index))
        }) {
            bail!(
                "{label}: skill `{}` is already registered by another package",
                taken.name
            );
        }
        if let Some(mut description) = kept {
            // Kept with its schemas in the standard form its skills hold, which a later start
            // lists and checks with as they are, parsing none.
            for (d, skill) in description.skills.iter_mut().zip(&skills) {
                debug_assert_eq!(d.name, skill.name, "checked in order");
                d.input_schema = skill.input.text().get().to_string();
                d.output_schema = skill.output.text().get().to_string();
            }
            self.sandbox
                .keep_description(&hash, reaches_out, &description, &offered);
        }
        let names: Vec<String> = skills.iter().map(|s| s.name.clone()).collect();
        let embedded_component = match &source.component {
            std::borrow::Cow::Borrowed(bytes) => Some(*bytes),
            std::borrow::Cow::Owned(_) => None,
        };
        let package = Package {
            content_hash: hash,
            dir: source.dir,
            embedded: source.embedded,
            manifest: source.manifest,
            limits,
            compiled: compiled.map(std::sync::OnceLock::from).unwrap_or_default(),
            embedded_component,
            hooks,
        };
        match existing {
            Some(i) => {
                self.skills.retain(|_, s| s.package_index() != Some(i));
                self.warm.retain(|_, p| p != i);
                self.packages[i] = package;
            }
            None => self.packages.push(package),
        }
        self.skills.insert_all(skills);
        self.offer(&name, offered);
        for name in &names {
            self.refresh_tier(name);
        }
        self.generation += 1;
        self.skill_set += 1;
        crate::log::debug(&format!("loaded {label}: {}", names.join(", ")));
        Ok(names)
    }
}

/// The agent and session id of the host's own calls; no client may bind them.
pub const HOST_SESSION: &str = "host";

/// The host itself, on its own authority: loading packages at start-up or on a file change
/// (it may grant every permission a package declares) and replaying the scene file.
pub(crate) fn host_caller() -> Caller {
    Caller {
        agent_id: HOST_SESSION.into(),
        session_id: HOST_SESSION.into(),
        profile: "host".into(),
        permissions: Permissions::all(),
    }
}

/// Every permission a package's guest may use: its capabilities and those its grants imply.
/// Whoever loads it must hold them all.
pub(crate) fn declared_permissions(m: &crate::packages::Manifest) -> Permissions {
    m.capabilities.union(m.grants.permissions())
}

/// What admission needs to know, read off the package as it is on disk now.
fn package_facts(source: &PackageSource, grant: Permissions) -> PackageFacts<'_> {
    let m = &source.manifest;
    let host =
        semver::Version::parse(env!("CARGO_PKG_VERSION")).expect("the crate version is semver");
    let engine_incompatible = semver::VersionReq::parse(&m.engine)
        .ok()
        .filter(|range| !range.matches(&host))
        .map(|range| {
            format!(
                "package `{}` needs a host matching `{range}`; this host is {host}",
                m.name
            )
        });
    let mut integrity_problem = None;
    if source.hash_matches() == Some(false) {
        integrity_problem = Some(format!(
            "the component does not match its manifest: `content_hash` pins {} but the file hashes to {}; rebuild with `limina pkg build` or restore the component",
            m.content_hash.as_deref().unwrap_or(""),
            source.content_hash()
        ));
    }
    let mut signed_by = None;
    match source.signature() {
        SignatureCheck::Valid { public_key } => signed_by = Some(public_key),
        SignatureCheck::Invalid(reason) => integrity_problem = integrity_problem.or(Some(reason)),
        SignatureCheck::Absent => {}
    }
    PackageFacts {
        name: &m.name,
        declared: declared_permissions(m),
        grant,
        grants_beyond: None,
        engine_incompatible,
        integrity_problem,
        signed_by,
    }
}

/// Checks what a package says of itself. `reaches_out`: its package holds network grants, so
/// its skills are marked `openWorld` whatever they say.
/// `cached`: the description was read back from the compiled cache, where it was kept only
/// after its schemas compiled, so they are compiled on first use instead of now.
fn check_description(
    package: &str,
    d: PackageDescription,
    index: usize,
    reaches_out: bool,
    cached: bool,
) -> Result<(Vec<Skill>, Vec<GuestHook>)> {
    if d.skills.is_empty() {
        bail!("package `{package}` declares no skills");
    }
    if d.skills.len() > MAX_SKILLS_PER_PACKAGE {
        bail!(
            "package `{package}` declares {} skills, over the host's cap of {MAX_SKILLS_PER_PACKAGE} per package",
            d.skills.len()
        );
    }
    let size: usize = d.skills.iter().map(descriptor_bytes).sum::<usize>()
        + d.hooks
            .iter()
            .map(|h| h.name.len() + h.skills.iter().map(String::len).sum::<usize>())
            .sum::<usize>();
    if size > MAX_DESCRIBE_BYTES {
        bail!(
            "package `{package}` describes itself in {size} bytes, over the host's cap of {MAX_DESCRIBE_BYTES}"
        );
    }
    let twice = {
        let mut seen = std::collections::HashSet::new();
        d.skills
            .iter()
            .find(|s| !seen.insert(s.name.as_str()))
            .map(|s| s.name.clone())
    };
    if let Some(twice) = twice {
        bail!("package `{package}` declares the skill `{twice}` twice");
    }
    let skills = d
        .skills
        .into_iter()
        .map(|s| check_skill(package, s, index, reaches_out, cached))
        .collect::<Result<Vec<_>>>()?;
    let hooks = d
        .hooks
        .into_iter()
        .map(|h| check_hook(package, h))
        .collect::<Result<Vec<_>>>()?;
    Ok((skills, hooks))
}

/// The text a skill descriptor carries, in bytes.
fn descriptor_bytes(s: &SkillDescriptor) -> usize {
    [
        &s.name,
        &s.version,
        &s.category,
        &s.description,
        &s.input_schema,
        &s.output_schema,
    ]
    .iter()
    .map(|t| t.len())
    .sum::<usize>()
        + s.permissions.iter().map(String::len).sum::<usize>()
}

/// Namespaces of the host's built-ins, which guest hooks may not target.
const SYSTEM_NAMESPACES: [&str; 6] = [
    "skills.",
    "trace.",
    "audit.",
    "inspector.",
    "dev.",
    "package.",
];

fn check_hook(package: &str, h: HookDescriptor) -> Result<GuestHook> {
    if h.name.is_empty() || h.skills.is_empty() {
        bail!("package `{package}`: every hook needs a name and at least one skill pattern");
    }
    if let Some(p) = h
        .skills
        .iter()
        .find(|p| p.as_str() == "*" || SYSTEM_NAMESPACES.iter().any(|ns| p.starts_with(ns)))
    {
        bail!(
            "package `{package}`: hook `{}` targets `{p}`; name the skills it wraps (the host's system skills cannot be hooked)",
            h.name
        );
    }
    Ok(GuestHook {
        name: h.name,
        phase: match h.phase {
            WitHookPhase::Before => HookPhase::Before,
            WitHookPhase::After => HookPhase::After,
        },
        skills: h.skills,
    })
}

fn check_skill(
    package: &str,
    s: SkillDescriptor,
    index: usize,
    reaches_out: bool,
    cached: bool,
) -> Result<Skill> {
    let prefix = format!("{package}.");
    if !s.name.starts_with(&prefix) || s.name.len() == prefix.len() {
        bail!(
            "package `{package}` may only register skills named `{package}.<name>`, not `{}`",
            s.name
        );
    }
    let permissions =
        Permissions::parse(&s.permissions).map_err(|e| anyhow!("skill `{}`: {e}", s.name))?;
    let input = parse_schema(&s.name, "input", s.input_schema, cached)?;
    // A cached description passed this check before it was kept.
    if !cached && input.source().get("type").and_then(Value::as_str) != Some("object") {
        bail!(
            "skill `{}`: the input schema must have \"type\": \"object\"",
            s.name
        );
    }
    let output = parse_schema(&s.name, "output", s.output_schema, cached)?;
    Ok(Skill {
        name: s.name,
        version: s.version,
        category: s.category,
        description: s.description,
        permissions,
        input,
        output,
        annotations: Annotations {
            read_only: s.annotations.read_only,
            destructive: s.annotations.destructive,
            idempotent: s.annotations.idempotent,
            open_world: s.annotations.open_world || reaches_out,
        },
        handler: Handler::Guest(index),
        latency: Default::default(),
        // Set from the manifest's `[latency]` once registered.
        tier: crate::policy::LatencyTier::Fast,
    })
}

/// A skill's schema; `cached`: read back from the compiled cache, where it was kept in its
/// standard form once it compiled (`register`), so it is taken as it is and parsed on first
/// use.
fn parse_schema(skill: &str, which: &str, text: String, cached: bool) -> Result<Schema> {
    let not_json = |e| anyhow!("skill `{skill}`: the {which} schema is not JSON: {e}");
    if cached {
        return Schema::standard_text(text).map_err(not_json);
    }
    let value: Value = serde_json::from_str(&text).map_err(|e| not_json(e.to_string()))?;
    Schema::compile(value)
        .map_err(|e| anyhow!("skill `{skill}`: the {which} schema is invalid: {e}"))
}
