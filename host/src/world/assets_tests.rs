//! `load_gltf`: counts from real glTF JSON and GLB files, and the folder's walls.

use super::super::{World, WorldError, WorldSettings};
use std::path::Path;

/// One scene, one node named `Root` with a mesh, one material, no textures. The buffer is
/// external and never fetched: only the document is read.
pub(crate) const TINY_GLTF: &str = r#"{
  "asset": {"version": "2.0"},
  "scene": 0,
  "scenes": [{"nodes": [0]}],
  "nodes": [{"name": "Root", "mesh": 0}, {"name": "Child"}],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
  "materials": [{"name": "Red"}],
  "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                 "min": [0, 0, 0], "max": [1, 1, 0]}],
  "bufferViews": [{"buffer": 0, "byteLength": 36}],
  "buffers": [{"byteLength": 36, "uri": "tri.bin"}]
}"#;

/// `json` wrapped in a GLB container (header + one JSON chunk, padded with spaces).
pub(crate) fn glb(json: &str) -> Vec<u8> {
    let mut chunk = json.as_bytes().to_vec();
    while !chunk.len().is_multiple_of(4) {
        chunk.push(b' ');
    }
    let total = 12 + 8 + chunk.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&chunk);
    out
}

fn world_with(dir: &Path) -> World {
    let mut w = World::new(WorldSettings {
        max_entities: 10,
        tick_seconds: 1.0 / 60.0,
    });
    w.set_assets_dir(dir.to_path_buf());
    w
}

#[test]
fn gltf_and_glb_files_report_their_counts_and_become_entities() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("models")).unwrap();
    std::fs::write(dir.path().join("models/tri.gltf"), TINY_GLTF).unwrap();
    std::fs::write(dir.path().join("tri.glb"), glb(TINY_GLTF)).unwrap();
    let mut w = world_with(dir.path());

    let (id, r) = w.load_gltf("models/tri.gltf", [1.0, 2.0, 3.0]).unwrap();
    assert_eq!(id, "ent_1");
    assert_eq!(r.source, "models/tri.gltf");
    assert_eq!(r.bytes, TINY_GLTF.len() as u64);
    assert_eq!(r.root_name.as_deref(), Some("Root"));
    assert_eq!(
        (
            r.object_count,
            r.mesh_count,
            r.material_count,
            r.texture_count
        ),
        (2, 1, 1, 0)
    );
    assert_eq!(
        w.get_entity(&id).unwrap().transform.position,
        [1.0, 2.0, 3.0]
    );
    assert_eq!(w.resource(&id), Some(&r));

    // An id without an extension finds the .glb.
    let (id2, r2) = w.load_gltf("tri", [0.0; 3]).unwrap();
    assert_eq!(r2.source, "tri.glb");
    assert_eq!(r2.bytes, glb(TINY_GLTF).len() as u64);
    assert_eq!(r2.mesh_count, 1);
    assert_eq!(w.resources().map(|(e, _)| e).collect::<Vec<_>>(), [id, id2]);
}

#[test]
fn paths_out_of_the_folder_are_refused_and_change_nothing() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.gltf"), TINY_GLTF).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.gltf"),
        dir.path().join("link.gltf"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
    std::fs::write(dir.path().join("bad.gltf"), "{not gltf").unwrap();
    let mut w = world_with(dir.path());
    let secret = outside.path().join("secret.gltf");
    for (id, says) in [
        ("../secret.gltf", ".."),
        ("a/../../secret.gltf", ".."),
        (secret.to_str().unwrap(), "absolute"),
        ("/etc/passwd", "absolute"),
        ("link.gltf", "outside"),
        ("out/secret.gltf", "outside"),
        ("missing.gltf", "no asset"),
        ("bad.gltf", "not a valid glTF"),
        ("", "non-empty"),
    ] {
        match w.load_gltf(id, [0.0; 3]) {
            Err(WorldError::Invalid(m)) => {
                assert!(m.contains("`assetId`") && m.contains(says), "{id}: {m}")
            }
            other => panic!("{id}: {other:?}"),
        }
    }
    assert_eq!(w.entity_count(), 0);
}

#[test]
fn a_rolled_back_load_leaves_no_entity_and_no_resource() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tri.gltf"), TINY_GLTF).unwrap();
    let mut w = world_with(dir.path());
    w.begin();
    let (id, _) = w.load_gltf("tri.gltf", [0.0; 3]).unwrap();
    w.rollback();
    assert_eq!(w.entity_count(), 0);
    assert!(w.resource(&id).is_none());
    assert_eq!(w.resources().count(), 0);

    // Destroying a loaded entity and rolling back brings the resource back.
    let (id, r) = w.load_gltf("tri.gltf", [0.0; 3]).unwrap();
    w.begin();
    assert!(w.destroy_entity(&id));
    w.rollback();
    assert_eq!(w.resource(&id), Some(&r));
}

#[test]
fn a_reset_world_keeps_its_assets_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tri.gltf"), TINY_GLTF).unwrap();
    let mut w = world_with(dir.path());
    w.load_gltf("tri.gltf", [0.0; 3]).unwrap();
    w.reset();
    assert_eq!(w.entity_count(), 0);
    assert_eq!(w.resources().count(), 0);
    assert_eq!(w.assets_dir(), dir.path());
    assert_eq!(w.load_gltf("tri.gltf", [0.0; 3]).unwrap().0, "ent_1");
}
