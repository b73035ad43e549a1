//! `package.list` and `package.load`.

use super::{Builtin, Spec, object};
use crate::call::{ErrorCode, Failure};
use crate::packages::oci::{self, Reference};
use crate::packages::{PackageSource, package_dirs};
use crate::registry::{Caller, Registry};
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
    let reference = input["ref"].as_str().unwrap_or_default().to_string();
    let profile_name = input["profile"].as_str().unwrap_or_default();
    // The grant is what the named profile allows, never more than the caller holds: a session
    // cannot load a package with rights it does not have itself.
    let profile = registry
        .profiles()
        .get(profile_name)
        .map_err(|e| Failure::new(ErrorCode::InvalidInput, format!("`profile`: {e}")))?;
    let grant = profile.permissions.intersect(caller.permissions);
    let loader = Caller {
        permissions: grant,
        profile: profile.name.clone(),
        ..caller.clone()
    };
    let source = if Reference::is_oci(&reference) {
        let parsed = Reference::parse(&reference)
            .map_err(|e| Failure::new(ErrorCode::InvalidInput, format!("`ref`: {e}")))?;
        match oci::fetch(&parsed, registry.oci()) {
            Ok(source) => source,
            // Nothing was loaded: what is loaded keeps serving.
            Err(e) => {
                return Ok(json!({
                    "ok": false, "ref": reference, "agentId": caller.agent_id,
                    "rule": e.kind.rule(),
                    "rejectReason": e.kind.rule().rsplit('.').next(),
                    "reason": e.message, "loadEventId": null,
                }));
            }
        }
    } else {
        resolve(registry, &reference)?
    };
    let events_before = registry.realm().tracer.count();
    let result = registry.load_for(&loader, source, None);
    let load_event = registry
        .realm()
        .tracer
        .newest()
        .filter(|_| registry.realm().tracer.count() > events_before)
        .map(|e| e.id.clone());
    Ok(match result {
        Ok(skills) => json!({
            "ok": true, "ref": reference, "agentId": caller.agent_id, "rule": "package.admitted",
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
                "ok": false, "ref": reference, "agentId": caller.agent_id, "rule": rule,
                "rejectReason": rule.map(|r| r.trim_start_matches("package.")).unwrap_or("invalid"),
                "reason": message, "loadEventId": load_event,
            })
        }
    })
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
