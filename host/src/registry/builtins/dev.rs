//! `dev.reload`: the hot-reload path on demand.

use super::{Builtin, Spec, object};
use crate::call::{ErrorCode, Failure};
use crate::registry::{Caller, Registry};
use serde_json::{Value, json};

/// The catalog's targets (`skill`, `scene`, `data`) plus `package`, which the
/// packages issue adds. Under `skill`, naming a package also works.
const TARGETS: [&str; 4] = ["skill", "package", "scene", "data"];

pub(super) fn specs() -> Vec<Spec> {
    vec![Spec {
        builtin: Builtin::DevReload,
        name: "dev.reload",
        description: "Reload without restarting: target skill reloads the package of the named skill, package reloads the named package, scene resets the world and replays the scene file, and data re-reads the policy configuration.",
        input: object(
            json!({
                "target": {"type": "string", "enum": TARGETS, "description": "What to reload: skill, package, scene or data."},
                "name": {"type": "string", "minLength": 1, "description": "The skill whose package to reload (target skill), the package (target package), or a scene file in the --scene file's folder (target scene; default: the --scene file itself)."},
                "reason": {"type": "string", "maxLength": 200, "description": "Why, for the trace."}
            }),
            &["target"],
        ),
        output: object(
            json!({
                "ok": {"type": "boolean"},
                "target": {"type": "string", "enum": TARGETS},
                "invalidated": {"type": "array", "items": {"type": "string"}},
                "reason": {"type": "string"}
            }),
            &["ok", "target", "invalidated"],
        ),
    }]
}

pub(super) fn reload(
    registry: &mut Registry,
    caller: &Caller,
    input: &Value,
) -> Result<Value, Failure> {
    let target = input["target"].as_str().unwrap_or_default().to_string();
    let name = input.get("name").and_then(Value::as_str).map(String::from);
    let why = input
        .get("reason")
        .and_then(Value::as_str)
        .map(String::from);
    let need_name = || {
        name.clone().ok_or_else(|| {
            Failure::new(
                ErrorCode::InvalidInput,
                format!("`name` is required for target `{target}`"),
            )
        })
    };
    let outcome = match target.as_str() {
        "skill" => {
            let name = need_name()?;
            let owner = registry
                .skill(&name)
                .and_then(|s| s.package_index())
                .map(|i| registry.packages()[i].manifest.name.clone());
            let package = owner
                .or_else(|| {
                    registry
                        .packages()
                        .iter()
                        .any(|p| p.manifest.name == name)
                        .then(|| name.clone())
                })
                .ok_or_else(|| {
                    Failure::new(
                        ErrorCode::InvalidInput,
                        format!(
                            "`name`: `{name}` is neither a skill of a loaded package nor a loaded package"
                        ),
                    )
                })?;
            registry.reload_package(caller, &package)
        }
        "package" => {
            let package = need_name()?;
            if !registry
                .packages()
                .iter()
                .any(|p| p.manifest.name == package)
            {
                return Err(Failure::new(
                    ErrorCode::InvalidInput,
                    format!("`name`: no package named `{package}` is loaded"),
                ));
            }
            registry.reload_package(caller, &package)
        }
        "scene" => registry.replay_scene(name.as_deref()),
        "data" => registry.reload_data(),
        other => {
            return Err(Failure::new(
                ErrorCode::InvalidInput,
                format!("`target`: unknown target `{other}`"),
            ));
        }
    };
    let (ok, invalidated, reason) = match outcome {
        Ok(list) => (true, list, why.clone()),
        Err(e) => (false, Vec::new(), Some(format!("{e:#}"))),
    };
    registry.note(
        caller,
        &target,
        ok,
        json!({"target": target, "name": name, "invalidated": invalidated, "reason": reason, "requestedBecause": why}),
    );
    let mut out = json!({"ok": ok, "target": target, "invalidated": invalidated});
    if let Some(reason) = reason {
        out["reason"] = json!(reason);
    }
    Ok(out)
}
