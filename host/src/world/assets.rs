//! Assets loaded from the configured assets folder (glTF/GLB), and the resources they became.
//! Only files inside the folder are reachable: relative ids, no `..`, no links that lead out.

use super::entity::{BodyKind, EntitySpec, Shape};
use super::journal::Undo;
use super::{World, WorldError, entity_id, parse_entity_id};
use crate::limits::MAX_ASSET_BYTES;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// The assets folder when none is configured, relative to the working directory.
const DEFAULT_ASSETS_DIR: &str = "assets";

/// A glTF asset placed in the world, as a renderer would load it.
#[derive(Debug, Clone, PartialEq)]
pub struct GltfResource {
    /// The id it was asked for.
    pub asset_id: String,
    /// Its path relative to the assets folder, `/`-separated.
    pub source: String,
    /// File size.
    pub bytes: u64,
    /// Name of the first scene's first root node, when it has one.
    pub root_name: Option<String>,
    /// Nodes.
    pub object_count: u32,
    pub mesh_count: u32,
    pub material_count: u32,
    pub texture_count: u32,
}

/// The assets folder and the resources loaded from it, by entity number.
#[derive(Debug)]
pub struct Assets {
    root: PathBuf,
    pub(super) resources: BTreeMap<u64, GltfResource>,
}

impl Default for Assets {
    fn default() -> Self {
        Assets {
            root: PathBuf::from(DEFAULT_ASSETS_DIR),
            resources: BTreeMap::new(),
        }
    }
}

/// The inverse of one asset change: put back the resource an entity had (`None`: none).
pub(super) struct AssetUndo {
    number: u64,
    before: Option<Box<GltfResource>>,
}

impl World {
    /// Sets the folder `load_gltf` reads from.
    pub fn set_assets_dir(&mut self, dir: PathBuf) {
        self.assets.root = dir;
    }

    /// The folder `load_gltf` reads from.
    pub fn assets_dir(&self) -> &Path {
        &self.assets.root
    }

    /// Parses a glTF/GLB file from the assets folder and places it as a new render-only
    /// entity at `position`; returns the entity id and what the file holds.
    pub fn load_gltf(
        &mut self,
        asset_id: &str,
        position: [f64; 3],
    ) -> Result<(String, GltfResource), WorldError> {
        let (path, source) = resolve(&self.assets.root, asset_id)?;
        let bytes = read_asset(&path, asset_id)?;
        let resource = summarize(asset_id, source, &bytes)?;
        let id = self.create_entity(&EntitySpec {
            shape: Shape::Box,
            collider: None,
            size: 1.0,
            color: 0xff_ffff,
            position,
            body: BodyKind::None,
            friction: 0.5,
            restitution: 0.0,
        })?;
        let number = parse_entity_id(&id).expect("create_entity issues ent_<n> ids");
        let before = self.assets.resources.insert(number, resource.clone());
        self.record(Undo::Asset(AssetUndo {
            number,
            before: before.map(Box::new),
        }));
        Ok((id, resource))
    }

    /// The resource an entity was loaded from, if any.
    pub fn resource(&self, id: &str) -> Option<&GltfResource> {
        let (number, _) = self.lookup(id)?;
        self.assets.resources.get(&number)
    }

    /// Every loaded resource with its entity id, in id order.
    pub fn resources(&self) -> impl Iterator<Item = (String, &GltfResource)> {
        self.assets
            .resources
            .iter()
            .filter(|(n, _)| self.by_number.contains_key(n))
            .map(|(n, r)| (entity_id(*n), r))
    }

    /// Drops a destroyed entity's resource (journaled, so a rollback brings it back).
    pub(super) fn forget_resource(&mut self, number: u64) {
        if let Some(before) = self.assets.resources.remove(&number) {
            self.record(Undo::Asset(AssetUndo {
                number,
                before: Some(Box::new(before)),
            }));
        }
    }

    pub(super) fn undo_asset(&mut self, undo: AssetUndo) {
        match undo.before {
            Some(r) => self.assets.resources.insert(undo.number, *r),
            None => self.assets.resources.remove(&undo.number),
        };
    }
}

fn invalid(message: String) -> WorldError {
    WorldError::Invalid(message)
}

/// The file `asset_id` names inside `root`, and its `/`-separated relative path. An id
/// without an extension may name `<id>.glb` or `<id>.gltf`.
/// The file an asset id names inside `root`, under the same rules as `three.loadGLTF`
/// (relative, no `..`, no links out); the viewer serves assets through it.
pub fn resolve_asset(root: &Path, asset_id: &str) -> Result<PathBuf, WorldError> {
    resolve(root, asset_id).map(|(path, _)| path)
}

fn resolve(root: &Path, asset_id: &str) -> Result<(PathBuf, String), WorldError> {
    if asset_id.is_empty() || asset_id.contains('\0') {
        return Err(invalid(
            "`assetId` must be a non-empty path relative to the assets folder".into(),
        ));
    }
    let mut parts = Vec::new();
    for component in Path::new(asset_id).components() {
        match component {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(invalid(format!(
                    "`assetId` must not contain `..`, got `{asset_id}`"
                )));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(invalid(format!(
                    "`assetId` must be a path relative to the assets folder, not an absolute path; got `{asset_id}`"
                )));
            }
        }
    }
    let root = root.canonicalize().map_err(|e| {
        invalid(format!(
            "the assets folder {} cannot be read ({e}); start the host with --assets-dir DIR",
            root.display()
        ))
    })?;
    let relative = parts.join("/");
    let mut candidates = vec![relative.clone()];
    if Path::new(&relative).extension().is_none() {
        candidates.push(format!("{relative}.glb"));
        candidates.push(format!("{relative}.gltf"));
    }
    for source in candidates {
        let Ok(real) = root.join(&source).canonicalize() else {
            continue;
        };
        // A symbolic link anywhere on the way may point elsewhere: judge where it lands.
        if !real.starts_with(&root) {
            return Err(invalid(format!(
                "`assetId` `{asset_id}` leads outside the assets folder through a link"
            )));
        }
        if !real.is_file() {
            return Err(invalid(format!("`assetId` `{asset_id}` is not a file")));
        }
        return Ok((real, source));
    }
    Err(invalid(format!(
        "`assetId`: no asset `{asset_id}` in the assets folder"
    )))
}

fn read_asset(path: &Path, asset_id: &str) -> Result<Vec<u8>, WorldError> {
    let size = std::fs::metadata(path)
        .map_err(|e| invalid(format!("`assetId` `{asset_id}` cannot be read: {e}")))?
        .len();
    if size > MAX_ASSET_BYTES {
        return Err(invalid(format!(
            "`assetId` `{asset_id}` is {size} bytes, over the {MAX_ASSET_BYTES} byte limit"
        )));
    }
    std::fs::read(path).map_err(|e| invalid(format!("`assetId` `{asset_id}` cannot be read: {e}")))
}

/// Parses (and validates) the glTF JSON or GLB container and counts what it holds.
/// External buffers and images are not fetched: the counts come from the document.
fn summarize(asset_id: &str, source: String, bytes: &[u8]) -> Result<GltfResource, WorldError> {
    let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| {
        invalid(format!(
            "`assetId` `{asset_id}` is not a valid glTF/GLB file: {e}"
        ))
    })?;
    let doc = &gltf.document;
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let root_name = doc
        .scenes()
        .next()
        .and_then(|s| s.nodes().next())
        .and_then(|n| n.name().map(str::to_string));
    Ok(GltfResource {
        asset_id: asset_id.to_string(),
        source,
        bytes: bytes.len() as u64,
        root_name,
        object_count: count(doc.nodes().len()),
        mesh_count: count(doc.meshes().len()),
        material_count: count(doc.materials().len()),
        texture_count: count(doc.textures().len()),
    })
}

#[cfg(test)]
#[path = "assets_tests.rs"]
mod tests;
