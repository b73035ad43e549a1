//! Turning guests' core wasm modules into components with `wit-component`, and showing what
//! a component imports and exports.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};
use wit_component::{ComponentEncoder, DecodedWasm};
use wit_parser::{Resolve, WorldItem, WorldKey};

use crate::files;

/// Encodes the core module at `module` as a component at `output`, unless `output` is already
/// newer than the module. Returns whether it encoded.
pub fn encode_if_stale(module: &Path, output: &Path) -> Result<bool> {
    if files::is_up_to_date(module, output) {
        return Ok(false);
    }
    let bytes = fs::read(module).with_context(|| format!("reading {}", module.display()))?;
    let component = ComponentEncoder::default()
        .module(&bytes)
        .with_context(|| {
            format!(
                "{} carries no usable component type section",
                module.display()
            )
        })?
        .validate(true)
        .encode()
        .with_context(|| format!("encoding {} as a component", module.display()))?;
    files::write_atomic(output, &component)?;
    Ok(true)
}

/// One imported or exported interface (or bare function) of a component.
pub struct WorldEntry {
    /// `limina:skill/scene@0.1.0`, or a plain name.
    pub name: String,
    /// The functions the component actually uses from it.
    pub functions: Vec<String>,
}

/// The imports and exports of a component, as decoded from its bytes.
pub fn world_of(bytes: &[u8]) -> Result<(Vec<WorldEntry>, Vec<WorldEntry>)> {
    let DecodedWasm::Component(resolve, world) = wit_component::decode(bytes)? else {
        bail!("this is a WIT package, not a component");
    };
    let world = &resolve.worlds[world];
    Ok((
        entries(&resolve, world.imports.iter()),
        entries(&resolve, world.exports.iter()),
    ))
}

/// Names the interfaces and functions of one side of a world.
fn entries<'a>(
    resolve: &Resolve,
    items: impl Iterator<Item = (&'a WorldKey, &'a WorldItem)>,
) -> Vec<WorldEntry> {
    items
        .map(|(key, item)| WorldEntry {
            name: resolve.name_world_key(key),
            functions: match item {
                WorldItem::Interface { id, .. } => {
                    resolve.interfaces[*id].functions.keys().cloned().collect()
                }
                WorldItem::Function(func) => vec![func.name.clone()],
                _ => Vec::new(),
            },
        })
        .collect()
}

/// Prints a component's imports and exports (to stderr, like everything xtask says).
pub fn inspect(path: &Path) -> Result<()> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let (imports, exports) = world_of(&bytes)?;
    eprintln!("{} ({} bytes)", path.display(), bytes.len());
    for (label, entries) in [("import", imports), ("export", exports)] {
        for entry in entries {
            eprintln!("  {label} {}", entry.name);
            for function in entry.functions {
                eprintln!("      {function}");
            }
        }
    }
    Ok(())
}
