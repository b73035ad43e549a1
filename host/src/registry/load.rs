//! Loading a package into the registry: compile, instantiate once to read its description,
//! check every skill it declares, then register them all or none.

use super::{Annotations, Package, Registry, Schema, Skill};
use crate::packages::PackageSource;
use crate::policy::Permissions;
use crate::sandbox::bindings::{PackageDescription, SkillDescriptor};
use crate::sandbox::content_hash;
use anyhow::{Result, anyhow, bail};
use serde_json::Value;

impl Registry {
    /// Loads a package and registers its skills. Nothing is registered if any check fails.
    pub fn load(&mut self, source: PackageSource) -> Result<Vec<String>> {
        let name = source.manifest.name.clone();
        let label = format!("package `{name}` {}", source.manifest.version);
        if self.packages.iter().any(|p| p.manifest.name == name) {
            bail!("{label}: a package named `{name}` is already loaded");
        }
        let compiled = self.sandbox.compile(&source.component, &label)?;
        let description = compiled
            .instantiate(&name, &source.manifest.limits)?
            .describe()?;
        let index = self.packages.len();
        let skills = check_description(&name, description, index)?;
        for skill in &skills {
            if self.skills.contains_key(&skill.name) {
                bail!("{label}: skill `{}` is already registered", skill.name);
            }
        }
        let names: Vec<String> = skills.iter().map(|s| s.name.clone()).collect();
        self.packages.push(Package {
            content_hash: content_hash(&source.component),
            manifest: source.manifest,
            compiled,
        });
        for skill in skills {
            self.skills.insert(skill.name.clone(), skill);
        }
        self.generation += 1;
        crate::log::debug(&format!("loaded {label}: {}", names.join(", ")));
        Ok(names)
    }
}

fn check_description(package: &str, d: PackageDescription, index: usize) -> Result<Vec<Skill>> {
    if d.skills.is_empty() {
        bail!("package `{package}` declares no skills");
    }
    d.skills
        .into_iter()
        .map(|s| check_skill(package, s, index))
        .collect()
}

fn check_skill(package: &str, s: SkillDescriptor, index: usize) -> Result<Skill> {
    let prefix = format!("{package}.");
    if !s.name.starts_with(&prefix) || s.name.len() == prefix.len() {
        bail!(
            "package `{package}` may only register skills named `{package}.<name>`, not `{}`",
            s.name
        );
    }
    let permissions =
        Permissions::parse(&s.permissions).map_err(|e| anyhow!("skill `{}`: {e}", s.name))?;
    let input = parse_schema(&s.name, "input", &s.input_schema)?;
    if input.source.get("type").and_then(Value::as_str) != Some("object") {
        bail!(
            "skill `{}`: the input schema must have \"type\": \"object\"",
            s.name
        );
    }
    let output = parse_schema(&s.name, "output", &s.output_schema)?;
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
            open_world: s.annotations.open_world,
        },
        package: index,
    })
}

fn parse_schema(skill: &str, which: &str, text: &str) -> Result<Schema> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| anyhow!("skill `{skill}`: the {which} schema is not JSON: {e}"))?;
    Schema::compile(value)
        .map_err(|e| anyhow!("skill `{skill}`: the {which} schema is invalid: {e}"))
}
