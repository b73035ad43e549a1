//! `limina pkg inspect FILE`: what a component (or a package folder) holds — its skills with
//! their schemas, its hooks, what it imports and exports, and for a folder its manifest and
//! whether its hash and signature verify.

use anyhow::{Context, Result};
use limina::limits::PackageLimits;
use limina::packages::{PackageSource, SignatureCheck};
use limina::sandbox::bindings::limina::skill::types::HookPhase;
use limina::sandbox::bindings::{PackageDescription, SkillDescriptor};
use limina::sandbox::{CompileCache, Sandbox};
use limina_guest_build::component::{WorldEntry, world_of};
use serde_json::Value;
use std::path::Path;
use std::process::ExitCode;

/// Prints the report; exits 1 when the host would refuse the package as it is.
pub fn run(path: &Path) -> Result<ExitCode> {
    let mut healthy = true;
    // Whether the component may import `wasi:http`: a folder's manifest says (network grants);
    // a bare component is described as if it were granted.
    let mut http = true;
    let (bytes, name, limits, owner) = if path.is_dir() {
        let source = PackageSource::read(path)?;
        healthy &= print_package(&source);
        let m = source.manifest;
        http = !m.grants.network.is_empty();
        (
            source.component.into_owned(),
            m.name.clone(),
            m.limits,
            Some(m.name),
        )
    } else {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!(
            "component {} ({} KiB)",
            path.display(),
            bytes.len().div_ceil(1024)
        );
        (bytes, name, PackageLimits::default(), None)
    };
    match world_of(&bytes) {
        Ok(world) => {
            print_entries("imports", &world.imports);
            print_entries("exports", &world.exports);
        }
        Err(e) => {
            println!("\nnot a component: {e:#}");
            return Ok(ExitCode::from(1));
        }
    }
    match describe(&bytes, &name, &limits, http) {
        Ok(description) => healthy &= print_description(owner.as_deref(), &description),
        Err(e) => {
            println!("\nskills: this host cannot run the component: {e:#}");
            healthy = false;
        }
    }
    Ok(if healthy {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Instantiates the component in a sandbox and asks it to describe itself.
fn describe(
    bytes: &[u8],
    name: &str,
    limits: &PackageLimits,
    http: bool,
) -> Result<PackageDescription> {
    let sandbox = Sandbox::new(CompileCache::new(CompileCache::default_dir()))?;
    sandbox
        .compile_for(bytes, name, http)?
        .instantiate(name, limits)?
        .describe()
}

/// The manifest half of a folder's report; false when the hash or signature fails.
fn print_package(source: &PackageSource) -> bool {
    let m = &source.manifest;
    let mut healthy = true;
    println!("package {} {} ({})", m.name, m.version, m.kind);
    if !m.description.is_empty() {
        println!("  {}", m.description);
    }
    println!("  engine        {}", m.engine);
    println!(
        "  component     {} ({} KiB)",
        source.dir.join(&m.component).display(),
        source.component.len().div_ceil(1024)
    );
    let capabilities = m.capabilities.names();
    println!(
        "  capabilities  {}",
        if capabilities.is_empty() {
            "(none)".to_string()
        } else {
            capabilities.join(", ")
        }
    );
    print_grants(&m.grants);
    println!(
        "  limits        fuel_per_call {}, memory_bytes {}, timeout_ms {}",
        m.limits.fuel_per_call, m.limits.memory_bytes, m.limits.timeout_ms
    );
    let actual = source.content_hash();
    match source.hash_matches() {
        None => println!(
            "  content_hash  not pinned (component is {actual}; `limina pkg build` pins it)"
        ),
        Some(true) => println!("  content_hash  {actual} (matches the component)"),
        Some(false) => {
            healthy = false;
            println!(
                "  content_hash  MISMATCH: limina.toml pins {} but the component is {actual}; \
                 rebuild with `limina pkg build`",
                m.content_hash.as_deref().unwrap_or_default()
            );
        }
    }
    match source.signature() {
        SignatureCheck::Absent => {
            println!("  signature     none (`limina pkg sign --key FILE` adds one)")
        }
        SignatureCheck::Valid { public_key } => {
            println!("  signature     valid, by {public_key}")
        }
        SignatureCheck::Invalid(why) => {
            healthy = false;
            println!(
                "  signature     INVALID: {why}; sign again with `limina pkg sign --key FILE`"
            );
        }
    }
    healthy
}

/// The manifest's `[grants]`: one line per family it declares, or `(none)`.
fn print_grants(g: &limina::grants::Grants) {
    if g.is_empty() {
        println!("  grants        (none: no network, files, secrets or state)");
        return;
    }
    let list = |items: Vec<String>| items.join(", ");
    if !g.network.is_empty() {
        println!(
            "  grants        network {}",
            list(g.network.iter().map(|p| p.text.clone()).collect())
        );
    }
    if !g.files.is_empty() {
        let files = g
            .files
            .iter()
            .map(|f| format!("{}:{}", if f.write { "write" } else { "read" }, f.volume))
            .collect();
        println!("  grants        files {}", list(files));
    }
    if !g.secrets.is_empty() {
        println!("  grants        secrets {}", list(g.secrets.clone()));
    }
    if let Some(s) = g.state {
        println!("  grants        state keys {}, bytes {}", s.keys, s.bytes);
    }
}

fn print_entries(title: &str, entries: &[WorldEntry]) {
    println!("\n{title}:");
    if entries.is_empty() {
        println!("  (none)");
    }
    for entry in entries {
        if entry.functions.is_empty() {
            println!("  {} (types only)", entry.name);
        } else {
            println!("  {}: {}", entry.name, entry.functions.join(", "));
        }
    }
}

/// Skills and hooks; false when a skill is named outside the package's namespace (`package`,
/// when known).
fn print_description(package: Option<&str>, description: &PackageDescription) -> bool {
    let mut healthy = true;
    println!("\nskills ({}):", description.skills.len());
    for skill in &description.skills {
        healthy &= print_skill(package, skill);
    }
    println!("\nhooks ({}):", description.hooks.len());
    for hook in &description.hooks {
        let phase = match hook.phase {
            HookPhase::Before => "before",
            HookPhase::After => "after",
        };
        println!("  {} ({phase}: {})", hook.name, hook.skills.join(", "));
    }
    healthy
}

fn print_skill(package: Option<&str>, skill: &SkillDescriptor) -> bool {
    println!("\n  {} {}", skill.name, skill.version);
    println!("    {}", skill.description);
    let permissions = if skill.permissions.is_empty() {
        "(none)".to_string()
    } else {
        skill.permissions.join(", ")
    };
    println!("    permissions: {permissions}");
    let a = &skill.annotations;
    println!(
        "    annotations: readOnly {}, destructive {}, idempotent {}, openWorld {}",
        a.read_only, a.destructive, a.idempotent, a.open_world
    );
    println!("    input schema:\n{}", indented_json(&skill.input_schema));
    println!(
        "    output schema:\n{}",
        indented_json(&skill.output_schema)
    );
    let Some(package) = package else {
        return true;
    };
    let owned = skill
        .name
        .strip_prefix(package)
        .is_some_and(|rest| rest.starts_with('.'));
    if !owned {
        println!(
            "    REFUSED by hosts: a package named `{package}` may only register `{package}.*` skills"
        );
    }
    owned
}

/// Pretty JSON, indented under a skill; the raw text when it is not JSON.
fn indented_json(text: &str) -> String {
    let pretty = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| text.to_string());
    pretty
        .lines()
        .map(|line| format!("      {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}
