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
use super::exports::Offered;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The first word of an entry, and the format's version (part of the entry's name too, so
/// a host reading another format never finds its entries). Version 2: schemas in standard
/// form. Version 3: what a 0.2.0 package offers besides skills (resources, prompts).
pub(super) const MAGIC: &str = "limina-description 3";

/// Where the description of the component hashing to `content_hash` lives in `dir`.
pub(super) fn path(dir: &Path, content_hash: &str, key: u64, http: bool) -> PathBuf {
    let linker = if http { "http" } else { "plain" };
    dir.join(format!("{content_hash}-{key:016x}-{linker}.describe"))
}

/// The description in `path`, when there is a sound one. A damaged entry is reported on
/// stderr and ignored.
pub(super) fn read(path: &Path) -> Option<(PackageDescription, Offered)> {
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
pub(super) fn write(
    path: &Path,
    description: &PackageDescription,
    offered: &Offered,
) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, encode(description, offered))?;
    std::fs::rename(&tmp, path)
}

/// An entry's text: the header line (magic and the body's sha256), then the body as JSON.
pub(super) fn encode(d: &PackageDescription, offered: &Offered) -> String {
    let body = Body {
        skills: d.skills.iter().map(SkillEntry::from).collect(),
        hooks: d.hooks.iter().map(HookEntry::from).collect(),
        offered: offered.clone(),
    };
    let body = serde_json::to_string(&body).expect("a description serializes");
    format!("{MAGIC} {}\n{body}", super::content_hash(body.as_bytes()))
}

/// The description an entry's text holds; why not, when its header, checksum or body is
/// wrong.
pub(super) fn decode(text: &str) -> Result<(PackageDescription, Offered), String> {
    let (header, body) = text.split_once('\n').ok_or("no header line")?;
    let sum = header
        .strip_prefix(MAGIC)
        .and_then(|rest| rest.strip_prefix(' '))
        .ok_or("not a description entry of this format")?;
    if super::content_hash(body.as_bytes()) != sum {
        return Err("its body does not match its checksum".into());
    }
    // Read straight into its fields: a start reads one entry per package.
    let body: Body = serde_json::from_str(body).map_err(|e| format!("its body: {e}"))?;
    let description = PackageDescription {
        skills: body
            .skills
            .into_iter()
            .map(SkillEntry::into_descriptor)
            .collect(),
        hooks: body
            .hooks
            .into_iter()
            .map(HookEntry::into_descriptor)
            .collect(),
    };
    Ok((description, body.offered))
}

/// An entry's body.
#[derive(Serialize, Deserialize)]
struct Body {
    skills: Vec<SkillEntry>,
    hooks: Vec<HookEntry>,
    offered: Offered,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SkillEntry {
    name: String,
    version: String,
    category: String,
    description: String,
    permissions: Vec<String>,
    input_schema: String,
    output_schema: String,
    /// Read-only, destructive, idempotent, open-world.
    annotations: [bool; 4],
}

impl From<&SkillDescriptor> for SkillEntry {
    fn from(s: &SkillDescriptor) -> Self {
        let a = &s.annotations;
        SkillEntry {
            name: s.name.clone(),
            version: s.version.clone(),
            category: s.category.clone(),
            description: s.description.clone(),
            permissions: s.permissions.clone(),
            input_schema: s.input_schema.clone(),
            output_schema: s.output_schema.clone(),
            annotations: [a.read_only, a.destructive, a.idempotent, a.open_world],
        }
    }
}

impl SkillEntry {
    fn into_descriptor(self) -> SkillDescriptor {
        let [read_only, destructive, idempotent, open_world] = self.annotations;
        SkillDescriptor {
            name: self.name,
            version: self.version,
            category: self.category,
            description: self.description,
            permissions: self.permissions,
            input_schema: self.input_schema,
            output_schema: self.output_schema,
            annotations: Annotations {
                read_only,
                destructive,
                idempotent,
                open_world,
            },
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct HookEntry {
    name: String,
    phase: Phase,
    skills: Vec<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Phase {
    Before,
    After,
}

impl From<&HookDescriptor> for HookEntry {
    fn from(h: &HookDescriptor) -> Self {
        HookEntry {
            name: h.name.clone(),
            phase: match h.phase {
                HookPhase::Before => Phase::Before,
                HookPhase::After => Phase::After,
            },
            skills: h.skills.clone(),
        }
    }
}

impl HookEntry {
    fn into_descriptor(self) -> HookDescriptor {
        HookDescriptor {
            name: self.name,
            phase: match self.phase {
                Phase::Before => HookPhase::Before,
                Phase::After => HookPhase::After,
            },
            skills: self.skills,
        }
    }
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

    fn offered() -> Offered {
        Offered {
            resources: vec![super::super::ResourceDecl {
                uri: "limina://pkg/dice/faces".into(),
                template: false,
                name: "Faces".into(),
                title: None,
                description: Some("What each face shows.".into()),
                mime_type: "text/markdown".into(),
                permissions: vec![],
            }],
            prompts: vec![super::super::PromptDecl {
                name: "dice.explain".into(),
                title: None,
                description: None,
                arguments: vec![("roll".into(), None, true)],
                permissions: vec![],
            }],
        }
    }

    #[test]
    fn an_entry_reads_back_as_the_description_it_was_written_from() {
        let text = encode(&sample(), &offered());
        let (back, back_offered) = decode(&text).unwrap();
        assert_eq!(encode(&back, &back_offered), text);
        assert_eq!(back_offered, offered());
        assert_eq!(back.skills[0].description, "Rolls \"dice\"\nfairly.");
        assert!(matches!(back.hooks[0].phase, HookPhase::After));
        assert!(back.skills[0].annotations.idempotent);
    }

    #[test]
    fn an_edited_truncated_or_foreign_entry_is_refused_with_the_reason() {
        let text = encode(&sample(), &offered());
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
        // A body of the wrong shape under a matching checksum (another writer's) is refused,
        // naming what is wrong.
        let sealed = |body: &str| {
            format!(
                "{MAGIC} {}\n{body}",
                crate::sandbox::content_hash(body.as_bytes())
            )
        };
        let wrong_phase = encode(&sample(), &Offered::default())
            .split_once('\n')
            .unwrap()
            .1
            .replace("\"after\"", "\"later\"");
        let refused = decode(&sealed(&wrong_phase)).unwrap_err();
        assert!(
            refused.starts_with("its body: unknown variant `later`"),
            "{refused}"
        );
        let refused = decode(&sealed(
            r#"{"skills":[{"name":1}],"hooks":[],"offered":{}}"#,
        ))
        .unwrap_err();
        assert!(
            refused.starts_with("its body: invalid type: integer `1`"),
            "{refused}"
        );
    }

    #[test]
    fn a_missing_or_damaged_file_reads_as_no_entry() {
        let dir = tempfile::tempdir().unwrap();
        let at = path(dir.path(), "ab", 7, false);
        assert!(read(&at).is_none());
        write(&at, &sample(), &offered()).unwrap();
        let (d, o) = read(&at).unwrap();
        assert_eq!(encode(&d, &o), encode(&sample(), &offered()));
        std::fs::write(&at, "limina-description 1 00\n{}").unwrap();
        assert!(read(&at).is_none());
        assert_ne!(
            path(dir.path(), "ab", 7, false),
            path(dir.path(), "ab", 7, true),
            "a package linked with wasi:http has an entry of its own"
        );
    }
}
