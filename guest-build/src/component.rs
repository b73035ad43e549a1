//! Turning guests' core wasm modules into components with `wit-component`, and reading what a
//! component imports and exports.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};
use wit_component::{ComponentEncoder, DecodedWasm};
use wit_parser::{Resolve, WorldItem, WorldKey};

use crate::files;

/// Encodes a core module (with the component-type section wit-bindgen embeds) as a
/// validated component. `label` names the module in errors.
pub fn encode(module: &[u8], label: &str) -> Result<Vec<u8>> {
    ComponentEncoder::default()
        .module(module)
        .with_context(|| format!("{label} carries no usable component type section"))?
        .validate(true)
        .encode()
        .with_context(|| format!("encoding {label} as a component"))
}

/// Encodes a core module built against wasi-libc (C, Zig): its `wasi_snapshot_preview1`
/// imports are served by the preview1 reactor adapter, which the host's WASI preview 2 backs.
pub fn encode_wasi(module: &[u8], label: &str) -> Result<Vec<u8>> {
    use wasi_preview1_component_adapter_provider::{
        WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME, WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
    };
    ComponentEncoder::default()
        .module(module)
        .with_context(|| format!("{label} carries no usable component type section"))?
        .adapter(
            WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME,
            WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
        )
        .context("loading the WASI preview1 reactor adapter")?
        .validate(true)
        .encode()
        .with_context(|| format!("encoding {label} as a component"))
}

/// Encodes the core module at `module` as a component at `output`, unless `output` is already
/// newer than the module. Returns whether it encoded.
pub fn encode_if_stale(module: &Path, output: &Path) -> Result<bool> {
    if files::is_up_to_date(module, output) {
        return Ok(false);
    }
    let bytes = fs::read(module).with_context(|| format!("reading {}", module.display()))?;
    let component = encode(&bytes, &module.display().to_string())?;
    files::write_atomic(output, &component)?;
    Ok(true)
}

/// One imported or exported interface (or bare function) of a component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldEntry {
    /// `limina:skill/scene@0.1.0`, or a plain name.
    pub name: String,
    /// The functions the component actually uses from it.
    pub functions: Vec<String>,
}

/// What a component imports and what it exports.
#[derive(Debug, Clone, Default)]
pub struct ComponentWorld {
    /// Interfaces and functions the component needs from its host.
    pub imports: Vec<WorldEntry>,
    /// Interfaces and functions the component provides.
    pub exports: Vec<WorldEntry>,
}

/// The imports and exports of a component, as decoded from its bytes.
pub fn world_of(bytes: &[u8]) -> Result<ComponentWorld> {
    let decoded = wit_component::decode(bytes).context("not a wasm component")?;
    let DecodedWasm::Component(resolve, world) = decoded else {
        bail!("this is a WIT package, not a component");
    };
    let world = &resolve.worlds[world];
    Ok(ComponentWorld {
        imports: entries(&resolve, world.imports.iter()),
        exports: entries(&resolve, world.exports.iter()),
    })
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
