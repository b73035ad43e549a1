//! `dev.reload`: the hot-reload path on demand.

use super::{Builtin, Spec, object};
use crate::registry::{Caller, ErrorCode, Failure, Registry};
use serde_json::{Value, json};

pub(super) fn specs() -> Vec<Spec> {
    vec![Spec {
        builtin: Builtin::DevReload,
        name: "dev.reload",
        description: "Reload without restarting: `skill` reloads the package owning the named skill, `package` the named package, `scene` resets the world and replays the scene file, `data` re-reads the configuration.",
        input: object(
            json!({
                "target": {"type": "string", "enum": ["skill", "package", "scene", "data"]},
                "name": {"type": "string", "minLength": 1, "description": "The skill (target skill), the package (target package) or a scene file name in the --scene file's folder (target scene; default: the --scene file itself)."},
                "reason": {"type": "string", "maxLength": 200, "description": "Why, for the trace."}
            }),
            &["target"],
        ),
        output: object(
            json!({
                "ok": {"type": "boolean"},
                "target": {"type": "string", "enum": ["skill", "package", "scene", "data"]},
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
            let skill = need_name()?;
            let package = registry
                .skill(&skill)
                .and_then(|s| s.package_index())
                .map(|i| registry.packages()[i].manifest.name.clone())
                .ok_or_else(|| {
                    Failure::new(
                        ErrorCode::InvalidInput,
                        format!("`name`: `{skill}` is not a skill any loaded package provides"),
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
        "scene" => registry.replay_scene(caller, name.as_deref()),
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
