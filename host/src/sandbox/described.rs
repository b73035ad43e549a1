//! What a package says of itself (`describe()`: skills, schemas, hooks), kept beside its
//! compiled component once every part of it checked, its schemas in the standard form the
//! host made of them, so a start with a warm cache lists a package's skills without
//! deserializing or instantiating it, or parsing a schema.
//!
//! An entry is keyed like the compiled component (the component's sha256 and the engine's
//! compatibility hash) plus the WIT contract and whether the package links `wasi:http`: a
//! changed component, host or contract never reads an old description. The file carries
//! the sha256 of its own body; a damaged or edited entry is ignored (and written again by
//! the next load that describes the package), never trusted.

use super::bindings::PackageDescription;
use super::bindings::SkillDescriptor;
use super::bindings::limina::skill::types::{Annotations, HookDescriptor, HookPhase};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The first word of an entry, and the format's version (part of the entry's name too, so
/// a host reading another format never finds its entries). Version 2: schemas in standard
/// form.
pub(super) const MAGIC: &str = "limina-description 2";

/// Where the description of the component hashing to `content_hash` lives in `dir`.
pub(super) fn path(dir: &Path, content_hash: &str, key: u64, http: bool) -> PathBuf {
    let linker = if http { "http" } else { "plain" };
    dir.join(format!("{content_hash}-{key:016x}-{linker}.describe"))
}

/// The description in `path`, when there is a sound one. A damaged entry is reported on
/// stderr and ignored.
pub(super) fn read(path: &Path) -> Option<PackageDescription> {
    let text = std::fs::read_to_string(path).ok()?;
    match decode(&text) {
        Ok(description) => Some(description),
        Err(why) => {
            crate::log::warn(&format!(
                "ignoring the damaged description cache entry {} ({why}); the package is described again",
                path.display()
            ));
            None
        }
    }
}

/// Writes `description` to `path` (a temporary file, then renamed, so readers never see
/// half of one).
pub(super) fn write(path: &Path, description: &PackageDescription) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, encode(description))?;
    std::fs::rename(&tmp, path)
}

/// An entry's text: the header line (magic and the body's sha256), then the body as JSON.
pub(super) fn encode(d: &PackageDescription) -> String {
    let body = json!({
        "skills": d.skills.iter().map(skill_json).collect::<Vec<_>>(),
        "hooks": d.hooks.iter().map(|h| json!({
            "name": h.name,
            "phase": match h.phase { HookPhase::Before => "before", HookPhase::After => "after" },
            "skills": h.skills,
        })).collect::<Vec<_>>(),
    })
    .to_string();
    format!("{MAGIC} {}\n{body}", super::content_hash(body.as_bytes()))
}

fn skill_json(s: &SkillDescriptor) -> Value {
    json!({
        "name": s.name,
        "version": s.version,
        "category": s.category,
        "description": s.description,
        "permissions": s.permissions,
        "inputSchema": s.input_schema,
        "outputSchema": s.output_schema,
        "annotations": [
            s.annotations.read_only,
            s.annotations.destructive,
            s.annotations.idempotent,
            s.annotations.open_world,
        ],
    })
}

/// The description an entry's text holds; why not, when its header, checksum or body is
/// wrong.
pub(super) fn decode(text: &str) -> Result<PackageDescription, String> {
    let (header, body) = text.split_once('\n').ok_or("no header line")?;
    let sum = header
        .strip_prefix(MAGIC)
        .and_then(|rest| rest.strip_prefix(' '))
        .ok_or("not a description entry of this format")?;
    if super::content_hash(body.as_bytes()) != sum {
        return Err("its body does not match its checksum".into());
    }
    let body: Value = serde_json::from_str(body).map_err(|e| format!("its body: {e}"))?;
    let skills = list(&body, "skills")?
        .iter()
        .map(skill_of)
        .collect::<Result<Vec<_>, _>>()?;
    let hooks = list(&body, "hooks")?
        .iter()
        .map(hook_of)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PackageDescription { skills, hooks })
}

fn skill_of(v: &Value) -> Result<SkillDescriptor, String> {
    let flags = list(v, "annotations")?;
    let flag = |i: usize| {
        flags
            .get(i)
            .and_then(Value::as_bool)
            .ok_or_else(|| "an annotation is not a boolean".to_string())
    };
    Ok(SkillDescriptor {
        name: text(v, "name")?,
        version: text(v, "version")?,
        category: text(v, "category")?,
        description: text(v, "description")?,
        permissions: strings(v, "permissions")?,
        input_schema: text(v, "inputSchema")?,
        output_schema: text(v, "outputSchema")?,
        annotations: Annotations {
            read_only: flag(0)?,
            destructive: flag(1)?,
            idempotent: flag(2)?,
            open_world: flag(3)?,
        },
    })
}

fn hook_of(v: &Value) -> Result<HookDescriptor, String> {
    let phase = match text(v, "phase")?.as_str() {
        "before" => HookPhase::Before,
        "after" => HookPhase::After,
        other => return Err(format!("a hook's phase is `{other}`")),
    };
    Ok(HookDescriptor {
        name: text(v, "name")?,
        phase,
        skills: strings(v, "skills")?,
    })
}

fn list<'a>(v: &'a Value, field: &str) -> Result<&'a Vec<Value>, String> {
    v.get(field)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("`{field}` is not a list"))
}

fn text(v: &Value, field: &str) -> Result<String, String> {
    v.get(field)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("`{field}` is not text"))
}

fn strings(v: &Value, field: &str) -> Result<Vec<String>, String> {
    list(v, field)?
        .iter()
        .map(|s| {
            s.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("`{field}` holds something other than text"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PackageDescription {
        PackageDescription {
            skills: vec![SkillDescriptor {
                name: "dice.roll".into(),
                version: "1.0.0".into(),
                category: "dice".into(),
                description: "Rolls \"dice\"\nfairly.".into(),
                permissions: vec!["scene.read".into()],
                input_schema: r#"{"type":"object"}"#.into(),
                output_schema: "{}".into(),
                annotations: Annotations {
                    read_only: true,
                    destructive: false,
                    idempotent: true,
                    open_world: false,
                },
            }],
            hooks: vec![HookDescriptor {
                name: "audit".into(),
                phase: HookPhase::After,
                skills: vec!["scene.*".into()],
            }],
        }
    }

    #[test]
    fn an_entry_reads_back_as_the_description_it_was_written_from() {
        let text = encode(&sample());
        let back = decode(&text).unwrap();
        assert_eq!(encode(&back), text);
        assert_eq!(back.skills[0].description, "Rolls \"dice\"\nfairly.");
        assert!(matches!(back.hooks[0].phase, HookPhase::After));
        assert!(back.skills[0].annotations.idempotent);
    }

    #[test]
    fn an_edited_truncated_or_foreign_entry_is_refused_with_the_reason() {
        let text = encode(&sample());
        let edited = text.replace("dice.roll", "dice.rule");
        assert_eq!(
            decode(&edited).unwrap_err(),
            "its body does not match its checksum"
        );
        let truncated = &text[..text.len() - 5];
        assert_eq!(
            decode(truncated).unwrap_err(),
            "its body does not match its checksum"
        );
        assert_eq!(
            decode("limina-description 0 abc\n{}").unwrap_err(),
            "not a description entry of this format"
        );
        assert_eq!(decode("").unwrap_err(), "no header line");
    }

    #[test]
    fn a_missing_or_damaged_file_reads_as_no_entry() {
        let dir = tempfile::tempdir().unwrap();
        let at = path(dir.path(), "ab", 7, false);
        assert!(read(&at).is_none());
        write(&at, &sample()).unwrap();
        assert_eq!(encode(&read(&at).unwrap()), encode(&sample()));
        std::fs::write(&at, "limina-description 1 00\n{}").unwrap();
        assert!(read(&at).is_none());
        assert_ne!(
            path(dir.path(), "ab", 7, false),
            path(dir.path(), "ab", 7, true),
            "a package linked with wasi:http has an entry of its own"
        );
    }
}
