//! The core `three` skills: transforms from Euler angles, materials, lighting with its
//! defaults, glTF/GLB assets read only from inside the assets folder, and refusals that
//! change nothing.

use crate::core_in_process::Host;
use crate::support::{Client, error_of};
use limina::world::Lighting;
use serde_json::{Value, json};
use std::path::Path;

fn entity(c: &mut Client, input: Value) -> String {
    c.call_ok("scene.createEntity", input)["entity"]
        .as_str()
        .unwrap()
        .to_string()
}

fn entities(c: &mut Client) -> Vec<Value> {
    c.call_ok("scene.queryEntities", json!({}))["entities"]
        .as_array()
        .unwrap()
        .clone()
}

fn host_entity(h: &mut Host) -> String {
    h.call_ok("scene.createEntity", json!({"color": 0x123456}))["entity"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn set_transform_turns_euler_radians_into_a_quaternion_and_keeps_absent_parts() {
    let mut h = Host::with(&["scene", "three"]);
    let e = host_entity(&mut h);
    let half_turn_z = std::f64::consts::FRAC_PI_2;
    let out = h.call_ok(
        "three.setTransform",
        json!({"entity": e, "rotationEuler": [0, 0, half_turn_z], "scale": [2, 2, 2]}),
    );
    assert_eq!(out, json!({"ok": true}));
    let t = h.world().get_entity(&e).unwrap().transform;
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let want = [0.0, 0.0, s, s];
    assert!(
        (0..4).all(|i| (t.rotation[i] - want[i]).abs() < 1e-9),
        "{:?}",
        t.rotation
    );
    assert_eq!(t.scale, [2.0, 2.0, 2.0]);
    assert_eq!(
        t.position, [0.0; 3],
        "position was not given, so it is kept"
    );

    // XYZ order, as three.js (ZYX would give z = -0.5).
    h.call_ok(
        "three.setTransform",
        json!({"entity": e, "rotationEuler": [half_turn_z, half_turn_z, 0]}),
    );
    let r = h.world().get_entity(&e).unwrap().transform.rotation;
    assert!(
        (r[0] - 0.5).abs() < 1e-9 && (r[1] - 0.5).abs() < 1e-9,
        "{r:?}"
    );
    assert!(
        (r[2] - 0.5).abs() < 1e-9 && (r[3] - 0.5).abs() < 1e-9,
        "{r:?}"
    );
}

#[test]
fn set_transform_moves_entities_over_mcp_and_unknown_ones_are_not_ok() {
    let mut c = Client::session("builder.readWrite", &[]);
    let e = entity(&mut c, json!({}));
    let out = c.call_ok(
        "three.setTransform",
        json!({"entity": e, "position": [4, 5, 6]}),
    );
    assert_eq!(out, json!({"ok": true}));
    assert_eq!(entities(&mut c)[0]["position"], json!([4.0, 5.0, 6.0]));
    let out = c.call_ok(
        "three.setTransform",
        json!({"entity": "ent_7", "position": [1, 1, 1]}),
    );
    assert_eq!(out, json!({"ok": false}));
    let (code, message) = error_of(&c.call(
        "three.setTransform",
        json!({"entity": e, "rotationEuler": [1, 2]}),
    ));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("`rotationEuler`"), "{message}");
}

#[test]
fn set_material_changes_only_the_given_fields() {
    let mut h = Host::with(&["scene", "three"]);
    let e = host_entity(&mut h);
    let before = h.world().material(&e).unwrap();
    assert_eq!(before.color, 0x123456);
    let out = h.call_ok(
        "three.setMaterial",
        json!({"entity": e, "roughness": 0.25, "castShadow": true}),
    );
    assert_eq!(out, json!({"ok": true}));
    let m = h.world().material(&e).unwrap();
    assert_eq!(m.color, 0x123456);
    assert_eq!((m.roughness, m.metalness), (0.25, before.metalness));
    assert!(m.cast_shadow && !m.receive_shadow);
    h.call_ok(
        "three.setMaterial",
        json!({"entity": e, "color": 0xff0000, "metalness": 1, "receiveShadow": true}),
    );
    let m = h.world().material(&e).unwrap();
    assert_eq!((m.color, m.roughness, m.metalness), (0xff0000, 0.25, 1.0));
    assert!(m.cast_shadow && m.receive_shadow);
    let out = h.call_ok("three.setMaterial", json!({"entity": "ent_50", "color": 0}));
    assert_eq!(out, json!({"ok": false}));
}

#[test]
fn out_of_range_material_values_are_invalid_input_naming_the_field() {
    let mut c = Client::session("builder.readWrite", &[]);
    let e = entity(&mut c, json!({}));
    for (args, field) in [
        (json!({"entity": e, "roughness": 1.5}), "roughness"),
        (json!({"entity": e, "metalness": -0.1}), "metalness"),
        (json!({"entity": e, "color": 0x1000000}), "color"),
        (json!({"entity": e, "castShadow": "yes"}), "castShadow"),
    ] {
        let (code, message) = error_of(&c.call("three.setMaterial", args.clone()));
        assert_eq!(code, "invalid_input", "{args}");
        assert!(message.contains(&format!("`{field}`")), "{args}: {message}");
    }
    // The edges are accepted.
    let out = c.call_ok(
        "three.setMaterial",
        json!({"entity": e, "roughness": 0, "metalness": 1, "color": 0xffffff, "extra": 1}),
    );
    assert_eq!(out["ok"], true);
}

#[test]
fn set_lighting_fills_every_default_and_takes_given_values() {
    let mut h = Host::with(&["three"]);
    h.call_ok(
        "three.setLighting",
        json!({"ambientIntensity": 7, "castShadow": true, "direction": [0, 1, 0]}),
    );
    let l = *h.world().lighting();
    assert_eq!(l.ambient_intensity, 7.0);
    assert!(l.cast_shadow);
    assert_eq!(l.direction, [0.0, 1.0, 0.0]);
    let out = h.call_ok("three.setLighting", json!({}));
    assert_eq!(out, json!({"ok": true}));
    let l = *h.world().lighting();
    let want = Lighting {
        ambient_color: 0x404060,
        ambient_intensity: 1.2,
        directional_color: 0xffffff,
        directional_intensity: 3.0,
        direction: [5.0, 9.0, 6.0],
        cast_shadow: false,
        shadow_map_size: 2048,
        shadow_camera_extent: 20.0,
        shadow_camera_near: 0.5,
        shadow_camera_far: 120.0,
        shadow_bias: -0.0008,
    };
    assert_eq!(l, want, "an empty call restores the catalog defaults");
}

#[test]
fn lighting_ranges_are_checked_inclusive_or_exclusive_as_the_catalog_says() {
    let mut c = Client::session("builder.readWrite", &[]);
    for (args, field) in [
        (json!({"ambientIntensity": 10.5}), "ambientIntensity"),
        (json!({"directionalIntensity": -1}), "directionalIntensity"),
        (json!({"shadowMapSize": 255}), "shadowMapSize"),
        (json!({"shadowMapSize": 4097}), "shadowMapSize"),
        (json!({"shadowMapSize": 1024.5}), "shadowMapSize"),
        (json!({"shadowCameraExtent": 0}), "shadowCameraExtent"),
        (json!({"shadowCameraExtent": 500.1}), "shadowCameraExtent"),
        (json!({"shadowCameraNear": 0}), "shadowCameraNear"),
        (json!({"shadowCameraFar": -5}), "shadowCameraFar"),
        (json!({"shadowBias": 0.011}), "shadowBias"),
        (json!({"direction": [1, 2]}), "direction"),
    ] {
        let (code, message) = error_of(&c.call("three.setLighting", args.clone()));
        assert_eq!(code, "invalid_input", "{args}");
        assert!(message.contains(&format!("`{field}`")), "{args}: {message}");
    }
    let edges = json!({
        "ambientIntensity": 0, "directionalIntensity": 10, "shadowMapSize": 256,
        "shadowCameraExtent": 500, "shadowBias": -0.01, "unknownKey": true
    });
    assert_eq!(c.call_ok("three.setLighting", edges), json!({"ok": true}));
    assert_eq!(
        c.call_ok(
            "three.setLighting",
            json!({"shadowMapSize": 4096, "shadowBias": 0.01})
        ),
        json!({"ok": true})
    );
}

#[test]
fn a_player_limited_session_may_not_change_transforms_materials_or_lighting() {
    let mut c = Client::session("builder.readWrite", &[]);
    let e = entity(&mut c, json!({"position": [1, 2, 3]}));
    c.rebind("player.limited", "player");
    for (skill, args) in [
        (
            "three.setTransform",
            json!({"entity": e, "position": [9, 9, 9]}),
        ),
        ("three.setMaterial", json!({"entity": e, "color": 0})),
        ("three.setLighting", json!({})),
        ("three.loadGLTF", json!({"assetId": "x.glb"})),
    ] {
        let (code, message) = error_of(&c.call(skill, args));
        assert_eq!(code, "forbidden", "{skill}");
        assert_eq!(message, "missing permission: scene.write", "{skill}");
    }
    let all = entities(&mut c);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["position"], json!([1.0, 2.0, 3.0]));
}

/// A minimal valid glTF: one scene whose root node `Root` holds the mesh, a second node, one
/// material, no textures. Its buffer is external and never fetched.
const TINY_GLTF: &str = r#"{
  "asset": {"version": "2.0"},
  "scene": 0,
  "scenes": [{"nodes": [0]}],
  "nodes": [{"name": "Root", "mesh": 0, "children": [1]}, {"name": "Leaf"}],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
  "materials": [{"name": "Red", "pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]}}],
  "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                 "min": [0, 0, 0], "max": [1, 1, 0]}],
  "bufferViews": [{"buffer": 0, "byteLength": 36}],
  "buffers": [{"byteLength": 36, "uri": "tri.bin"}]
}"#;

/// `json` in a GLB container: 12-byte header, then one JSON chunk padded with spaces.
fn glb(json: &str) -> Vec<u8> {
    let mut chunk = json.as_bytes().to_vec();
    while !chunk.len().is_multiple_of(4) {
        chunk.push(b' ');
    }
    let total = (12 + 8 + chunk.len()) as u32;
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total.to_le_bytes());
    out.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&chunk);
    out
}

/// An assets folder with `models/tri.gltf`, `tri.glb`, a broken file and a link leading out,
/// plus the folder outside it.
fn assets() -> (tempfile::TempDir, tempfile::TempDir) {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.gltf"), TINY_GLTF).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("models")).unwrap();
    std::fs::write(root.join("models/tri.gltf"), TINY_GLTF).unwrap();
    std::fs::write(root.join("tri.glb"), glb(TINY_GLTF)).unwrap();
    std::fs::write(root.join("broken.glb"), b"glTF\x02\0\0\0garbage").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.gltf"), root.join("escape.gltf"))
        .unwrap();
    (dir, outside)
}

fn session_with_assets(root: &Path) -> Client {
    Client::session(
        "builder.readWrite",
        &["--assets-dir", root.to_str().unwrap()],
    )
}

#[test]
fn load_gltf_parses_gltf_and_glb_and_reports_their_counts() {
    let (dir, _outside) = assets();
    let mut c = session_with_assets(dir.path());
    let out = c.call_ok(
        "three.loadGLTF",
        json!({"assetId": "models/tri.gltf", "position": [1, 2, 3]}),
    );
    assert_eq!(
        out,
        json!({
            "entity": "ent_1",
            "resource": {
                "kind": "gltf", "assetId": "models/tri.gltf", "source": "models/tri.gltf",
                "bytes": TINY_GLTF.len(), "rootName": "Root", "objectCount": 2,
                "meshCount": 1, "materialCount": 1, "textureCount": 0
            }
        })
    );
    assert_eq!(entities(&mut c)[0]["position"], json!([1.0, 2.0, 3.0]));

    let out = c.call_ok("three.loadGLTF", json!({"assetId": "./tri.glb"}));
    assert_eq!(out["entity"], "ent_2");
    let r = &out["resource"];
    assert_eq!(r["source"], "tri.glb");
    assert_eq!(r["bytes"], glb(TINY_GLTF).len());
    assert_eq!(
        (
            &r["objectCount"],
            &r["meshCount"],
            &r["materialCount"],
            &r["textureCount"]
        ),
        (&json!(2), &json!(1), &json!(1), &json!(0))
    );
    assert_eq!(entities(&mut c)[1]["position"], json!([0.0, 0.0, 0.0]));
}

#[test]
fn load_gltf_refuses_paths_out_of_the_assets_folder_and_bad_files() {
    let (dir, outside) = assets();
    let mut c = session_with_assets(dir.path());
    let secret = outside.path().join("secret.gltf");
    for (asset, says) in [
        ("../x", ".."),
        ("models/../../secret.gltf", ".."),
        ("/etc/passwd", "absolute"),
        (secret.to_str().unwrap(), "absolute"),
        ("escape.gltf", "outside"),
        ("missing.glb", "no asset"),
        ("broken.glb", "not a valid glTF"),
        ("models", "not a file"),
    ] {
        let (code, message) = error_of(&c.call("three.loadGLTF", json!({"assetId": asset})));
        assert_eq!(code, "invalid_input", "{asset}");
        assert!(
            message.contains("`assetId`") && message.contains(says),
            "{asset}: {message}"
        );
    }
    assert!(entities(&mut c).is_empty(), "refused loads create nothing");
    // The next entity still gets the next id: nothing was issued by the refusals.
    assert_eq!(entity(&mut c, json!({})), "ent_1");
}

#[test]
fn load_gltf_without_an_assets_folder_says_how_to_configure_one() {
    let empty = tempfile::tempdir().unwrap();
    let missing = empty.path().join("nope");
    let mut c = session_with_assets(&missing);
    let (code, message) = error_of(&c.call("three.loadGLTF", json!({"assetId": "a.glb"})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("--assets-dir"), "{message}");
}
