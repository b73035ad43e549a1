//! `package.list` and `package.load`.

use super::fetch::{Fetch, Fetched};
use super::{Builtin, Spec, object};
use crate::call::{ErrorCode, Failure};
use crate::packages::oci::Reference;
use crate::packages::{PackageSource, package_dirs};
use crate::registry::{Caller, Registry};
use crate::sandbox::CompiledPackage;
use serde_json::{Value, json};

pub(super) fn specs() -> Vec<Spec> {
    let nullable = json!({"type": ["string", "null"]});
    vec![
        Spec {
            builtin: Builtin::PackageList,
            name: "package.list",
            description: "List the loaded packages with version, kind, declared capabilities, grants (network, files, secrets, state), engine range, content hash and whether they are signed; optionally one package by name.",
            input: object(
                json!({"name": {"type": "string", "description": "Only the package with this name."}}),
                &[],
            ),
            output: object(
                json!({"packages": {"type": "array", "items": object(
                    json!({
                        "ref": {"type": "string"}, "name": {"type": "string"}, "version": {"type": "string"},
                        "kind": {"type": "string"},
                        "declaredCapabilities": {"type": "array", "items": {"type": "string"}},
                        "engineCompat": {"type": "string"}, "contentHash": {"type": "string"},
                        "attested": {"type": "boolean"},
                        "grants": {"type": "object"}
                    }),
                    &["ref", "name", "version", "kind", "declaredCapabilities", "engineCompat", "contentHash", "attested"],
                )}}),
                &["packages"],
            ),
        },
        Spec {
            builtin: Builtin::PackageLoad,
            name: "package.load",
            description: "Load (or upgrade) a package by reference — an installed one by name or name@range, or one from an OCI registry by oci://HOST/REPO@sha256:DIGEST (or :TAG unless the host demands digests) — for an agent under a profile, through package admission that requires the profile to grant its declared capabilities.",
            input: object(
                json!({
                    "ref": {"type": "string", "description": "The package: its name (highest installed version), name@semver-range, or oci://HOST/REPO@sha256:DIGEST."},
                    "agentId": {"type": "string", "description": "The agent the package is loaded for."},
                    "sessionId": {"type": "string", "description": "The session the load is recorded under."},
                    "profile": {"type": "string", "description": "The permission profile that grants the package its capabilities."}
                }),
                &["ref", "agentId", "sessionId", "profile"],
            ),
            output: object(
                json!({
                    "ok": {"type": "boolean"}, "ref": {"type": "string"}, "agentId": nullable,
                    "rule": nullable, "rejectReason": nullable, "reason": nullable, "loadEventId": nullable
                }),
                &[
                    "ok",
                    "ref",
                    "agentId",
                    "rule",
                    "rejectReason",
                    "reason",
                    "loadEventId",
                ],
            ),
        },
    ]
}

pub(super) fn list(registry: &Registry, input: &Value) -> Value {
    let only = input.get("name").and_then(Value::as_str);
    let packages: Vec<Value> = registry
        .packages()
        .iter()
        .filter(|p| only.is_none_or(|n| n == p.manifest.name))
        .map(|p| {
            let m = &p.manifest;
            json!({
                "ref": format!("{}@{}", m.name, m.version),
                "name": m.name,
                "version": m.version,
                "kind": m.kind,
                "declaredCapabilities": m.capabilities.names(),
                "engineCompat": m.engine,
                "contentHash": format!("sha256:{}", p.content_hash),
                "attested": m.attestation.is_some(),
                "grants": m.grants.to_json(),
            })
        })
        .collect();
    json!({ "packages": packages })
}

pub(super) fn load(
    registry: &mut Registry,
    caller: &Caller,
    input: &Value,
) -> Result<Value, Failure> {
    let loader = loader(registry, caller, input)?;
    let reference = input["ref"].as_str().unwrap_or_default().to_string();
    if Reference::is_oci(&reference) {
        let fetch = fetch_as(registry, loader, reference)?;
        return Ok(register_fetched(registry, fetch.run()));
    }
    let source = resolve(registry, &reference)?;
    Ok(register(registry, &loader, &reference, source, None))
}

/// Whether a `package.load` with `input` fetches from a registry, and may therefore leave the
/// engine while it does: an `oci://` reference that parses, under a profile that exists (any
/// other input is refused on the engine, as before).
pub(super) fn fetches(registry: &Registry, input: &Value) -> bool {
    let reference = input["ref"].as_str().unwrap_or_default();
    let profile = input["profile"].as_str().unwrap_or_default();
    Reference::is_oci(reference)
        && Reference::parse(reference).is_ok()
        && registry.profiles().get(profile).is_ok()
}

/// A `package.load` of a registry package, decided: ready to fetch on another thread.
pub(crate) fn fetch_for(
    registry: &Registry,
    caller: &Caller,
    input: &Value,
) -> Result<Fetch, Failure> {
    let loader = loader(registry, caller, input)?;
    let reference = input["ref"].as_str().unwrap_or_default().to_string();
    fetch_as(registry, loader, reference)
}

fn fetch_as(registry: &Registry, loader: Caller, reference: String) -> Result<Fetch, Failure> {
    let parsed = Reference::parse(&reference)
        .map_err(|e| Failure::new(ErrorCode::InvalidInput, format!("`ref`: {e}")))?;
    Ok(Fetch::new(
        loader,
        reference,
        parsed,
        registry.oci().clone(),
        registry.sandbox(),
    ))
}

/// Registers what a fetch gave; a refused fetch loaded nothing, and what is loaded keeps
/// serving.
pub(crate) fn register_fetched(registry: &mut Registry, fetched: Fetched) -> Value {
    let Fetched {
        loader,
        reference,
        result,
    } = fetched;
    match result {
        Ok((source, compiled)) => register(registry, &loader, &reference, source, compiled),
        Err(e) => json!({
            "ok": false, "ref": reference, "agentId": loader.agent_id,
            "rule": e.kind.rule(),
            "rejectReason": e.kind.rule().rsplit('.').next(),
            "reason": e.message, "loadEventId": null,
        }),
    }
}

/// Whom a load is for: the caller under the named profile's grant.
fn loader(registry: &Registry, caller: &Caller, input: &Value) -> Result<Caller, Failure> {
    let profile_name = input["profile"].as_str().unwrap_or_default();
    // The grant is what the named profile allows, never more than the caller holds: a session
    // cannot load a package with rights it does not have itself.
    let profile = registry
        .profiles()
        .get(profile_name)
        .map_err(|e| Failure::new(ErrorCode::InvalidInput, format!("`profile`: {e}")))?;
    Ok(Caller {
        permissions: profile.permissions.intersect(caller.permissions),
        profile: profile.name.clone(),
        ..caller.clone()
    })
}

/// Admits and registers `source` for `loader` (`Registry::load_for`); the answer names the
/// rule that decided and the `package.loaded` or `package.load.rejected` event.
fn register(
    registry: &mut Registry,
    loader: &Caller,
    reference: &str,
    source: PackageSource,
    compiled: Option<CompiledPackage>,
) -> Value {
    let events_before = registry.realm().tracer.count();
    let result = registry.load_for(loader, source, compiled);
    let load_event = registry
        .realm()
        .tracer
        .newest()
        .filter(|_| registry.realm().tracer.count() > events_before)
        .map(|e| e.id.clone());
    match result {
        Ok(skills) => json!({
            "ok": true, "ref": reference, "agentId": loader.agent_id, "rule": "package.admitted",
            "rejectReason": null, "reason": format!("loaded {}", skills.join(", ")), "loadEventId": load_event,
        }),
        Err(e) => {
            let message = format!("{e:#}");
            let rule = [
                "package.revoked",
                "package.engine",
                "package.overclaim",
                "package.signature",
            ]
            .into_iter()
            .find(|r| message.contains(&format!("({r})")));
            json!({
                "ok": false, "ref": reference, "agentId": loader.agent_id, "rule": rule,
                "rejectReason": rule.map(|r| r.trim_start_matches("package.")).unwrap_or("invalid"),
                "reason": message, "loadEventId": load_event,
            })
        }
    }
}

/// The installed package a reference names: `name` (highest version) or `name@range`.
fn resolve(registry: &Registry, reference: &str) -> Result<PackageSource, Failure> {
    let (name, range) = match reference.split_once('@') {
        Some((n, r)) => (n, r),
        None => (reference, "*"),
    };
    let range = semver::VersionReq::parse(range).map_err(|e| {
        Failure::new(
            ErrorCode::InvalidInput,
            format!("`ref`: `{range}` is not a semver range ({e})"),
        )
    })?;
    let mut best: Option<(semver::Version, PackageSource)> = None;
    for root in registry.package_roots() {
        for dir in package_dirs(root).unwrap_or_default() {
            let Ok(source) = PackageSource::read(&dir) else {
                continue;
            };
            let Ok(version) = semver::Version::parse(&source.manifest.version) else {
                continue;
            };
            if source.manifest.name == name
                && range.matches(&version)
                && best.as_ref().is_none_or(|(v, _)| &version > v)
            {
                best = Some((version, source));
            }
        }
    }
    best.map(|(_, s)| s).ok_or_else(|| {
        Failure::new(
            ErrorCode::InvalidInput,
            format!("`ref`: no installed package matches `{reference}` in the package folders"),
        )
    })
}
