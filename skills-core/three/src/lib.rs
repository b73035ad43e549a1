//! Core `three` skills: the scene description a three.js renderer reads — transforms,
//! materials, lighting — and glTF assets from the host's assets folder.

use limina_sdk::host::{assets, render, scene};
use limina_sdk::prelude::*;
use limina_sdk::{Quat, Vec3};

fn vec3(p: [f64; 3]) -> Vec3 {
    Vec3 {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

#[derive(Serialize, JsonSchema)]
struct OkOutput {
    /// False when the entity does not exist (setLighting always answers true).
    ok: bool,
}

#[derive(Deserialize, JsonSchema)]
struct SetTransformInput {
    /// Id of the entity, `ent_<n>`.
    entity: String,
    /// New position [x, y, z] in metres.
    #[serde(default)]
    position: Option<[f64; 3]>,
    /// New rotation as Euler angles [x, y, z] in radians, applied in XYZ order.
    #[serde(default, rename = "rotationEuler")]
    rotation_euler: Option<[f64; 3]>,
    /// New scale [x, y, z].
    #[serde(default)]
    scale: Option<[f64; 3]>,
}

/// The quaternion of XYZ-ordered Euler angles (three.js's default order).
fn quat_from_euler_xyz([x, y, z]: [f64; 3]) -> Quat {
    let (s1, c1) = (x / 2.0).sin_cos();
    let (s2, c2) = (y / 2.0).sin_cos();
    let (s3, c3) = (z / 2.0).sin_cos();
    Quat {
        x: s1 * c2 * c3 + c1 * s2 * s3,
        y: c1 * s2 * c3 - s1 * c2 * s3,
        z: c1 * c2 * s3 + s1 * s2 * c3,
        w: c1 * c2 * c3 - s1 * s2 * s3,
    }
}

fn set_transform(input: SetTransformInput, _ctx: &CallContext) -> Result<OkOutput, SkillError> {
    let ok = scene::set_transform(
        &input.entity,
        input.position.map(vec3),
        input.rotation_euler.map(quat_from_euler_xyz),
        input.scale.map(vec3),
    )?;
    Ok(OkOutput { ok })
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SetMaterialInput {
    /// Id of the entity, `ent_<n>`.
    entity: String,
    /// Colour as 0xRRGGBB.
    #[serde(default)]
    #[schemars(range(min = 0, max = 0xffffff))]
    color: Option<u32>,
    /// 0 is mirror-smooth, 1 fully rough.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    roughness: Option<f64>,
    /// 0 is non-metal, 1 metal.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1))]
    metalness: Option<f64>,
    /// Whether the entity casts shadows.
    #[serde(default)]
    cast_shadow: Option<bool>,
    /// Whether shadows fall on the entity.
    #[serde(default)]
    receive_shadow: Option<bool>,
}

fn set_material(input: SetMaterialInput, _ctx: &CallContext) -> Result<OkOutput, SkillError> {
    let patch = render::MaterialPatch {
        color: input.color,
        roughness: input.roughness,
        metalness: input.metalness,
        cast_shadow: input.cast_shadow,
        receive_shadow: input.receive_shadow,
    };
    Ok(OkOutput {
        ok: render::set_material(&input.entity, patch)?,
    })
}

fn ambient_color() -> i64 {
    0x404060
}
fn ambient_intensity() -> f64 {
    1.2
}
fn white() -> i64 {
    0xffffff
}
fn three() -> f64 {
    3.0
}
fn direction() -> [f64; 3] {
    [5.0, 9.0, 6.0]
}
fn shadow_map_size() -> u32 {
    2048
}
fn twenty() -> f64 {
    20.0
}
fn half() -> f64 {
    0.5
}
fn hundred_twenty() -> f64 {
    120.0
}
fn shadow_bias() -> f64 {
    -0.0008
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SetLightingInput {
    /// Ambient light colour as 0xRRGGBB.
    // The catalog types the lighting colours as plain integers; the range is checked below,
    // naming the field.
    #[serde(default = "ambient_color")]
    ambient_color: i64,
    /// Ambient light intensity.
    #[serde(default = "ambient_intensity")]
    #[schemars(range(min = 0, max = 10))]
    ambient_intensity: f64,
    /// Directional (sun) light colour as 0xRRGGBB.
    #[serde(default = "white")]
    directional_color: i64,
    /// Directional light intensity.
    #[serde(default = "three")]
    #[schemars(range(min = 0, max = 10))]
    directional_intensity: f64,
    /// Where the directional light shines from, [x, y, z] relative to the origin.
    #[serde(default = "direction")]
    direction: [f64; 3],
    /// Whether the directional light casts shadows.
    #[serde(default)]
    cast_shadow: bool,
    /// Shadow map edge in texels.
    #[serde(default = "shadow_map_size")]
    #[schemars(range(min = 256, max = 4096))]
    shadow_map_size: u32,
    /// Half-width of the shadow camera's box, in metres.
    #[serde(default = "twenty")]
    #[schemars(range(max = 500), extend("exclusiveMinimum" = 0))]
    shadow_camera_extent: f64,
    /// Near plane of the shadow camera, in metres.
    #[serde(default = "half")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    shadow_camera_near: f64,
    /// Far plane of the shadow camera, in metres.
    #[serde(default = "hundred_twenty")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    shadow_camera_far: f64,
    /// Depth bias against shadow acne.
    #[serde(default = "shadow_bias")]
    #[schemars(range(min = -0.01, max = 0.01))]
    shadow_bias: f64,
}

/// A colour given as a plain integer, checked to be 0xRRGGBB.
fn rgb(field: &str, value: i64) -> Result<u32, SkillError> {
    u32::try_from(value)
        .ok()
        .filter(|c| *c <= 0xffffff)
        .ok_or_else(|| {
            SkillError::InvalidInput(format!(
                "`{field}` must be a colour 0xRRGGBB, from 0 to 16777215 (0xffffff), got {value}"
            ))
        })
}

fn set_lighting(input: SetLightingInput, _ctx: &CallContext) -> Result<OkOutput, SkillError> {
    render::set_lighting(render::Lighting {
        ambient_color: rgb("ambientColor", input.ambient_color)?,
        ambient_intensity: input.ambient_intensity,
        directional_color: rgb("directionalColor", input.directional_color)?,
        directional_intensity: input.directional_intensity,
        direction: vec3(input.direction),
        cast_shadow: input.cast_shadow,
        shadow_map_size: input.shadow_map_size,
        shadow_camera_extent: input.shadow_camera_extent,
        shadow_camera_near: input.shadow_camera_near,
        shadow_camera_far: input.shadow_camera_far,
        shadow_bias: input.shadow_bias,
    })?;
    Ok(OkOutput { ok: true })
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct LoadGltfInput {
    /// Path of a .gltf or .glb file inside the host's assets folder, e.g. `models/tree.glb`.
    asset_id: String,
    /// Where to place it, [x, y, z] in metres.
    #[serde(default)]
    position: [f64; 3],
}

#[derive(Serialize, JsonSchema)]
enum ResourceKind {
    #[serde(rename = "gltf")]
    Gltf,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct GltfResource {
    kind: ResourceKind,
    asset_id: String,
    /// The file's path relative to the assets folder.
    source: String,
    /// File size in bytes.
    bytes: u64,
    /// Name of the first scene's first root node.
    #[serde(skip_serializing_if = "Option::is_none")]
    root_name: Option<String>,
    /// Number of nodes.
    object_count: u32,
    mesh_count: u32,
    material_count: u32,
    texture_count: u32,
}

#[derive(Serialize, JsonSchema)]
struct LoadGltfOutput {
    /// The new entity's id, `ent_<n>`.
    entity: String,
    /// What the file holds.
    resource: GltfResource,
}

fn load_gltf(input: LoadGltfInput, _ctx: &CallContext) -> Result<LoadGltfOutput, SkillError> {
    let (entity, s) = assets::load_gltf(&input.asset_id, vec3(input.position))?;
    Ok(LoadGltfOutput {
        entity,
        resource: GltfResource {
            kind: ResourceKind::Gltf,
            asset_id: input.asset_id,
            source: s.source,
            bytes: s.bytes,
            root_name: s.root_name,
            object_count: s.object_count,
            mesh_count: s.mesh_count,
            material_count: s.material_count,
            texture_count: s.texture_count,
        },
    })
}

limina_sdk::export_package!(
    Package::new()
        .skill(
            Skill::new(
                "three.setTransform",
                "1.0.0",
                "Move, rotate (Euler angles in radians, XYZ order) or scale an entity; only the given parts change, and ok is false if the entity does not exist.",
                set_transform,
            )
            .permissions(&["scene.write"]),
        )
        .skill(
            Skill::new(
                "three.setMaterial",
                "1.0.0",
                "Change an entity's material colour, roughness, metalness or shadow flags; only the given fields change, and ok is false if the entity does not exist.",
                set_material,
            )
            .permissions(&["scene.write"]),
        )
        .skill(
            Skill::new(
                "three.setLighting",
                "1.0.0",
                "Replace the scene lighting (ambient light and one directional sun light with its shadow settings); omitted fields take their defaults.",
                set_lighting,
            )
            .permissions(&["scene.write"]),
        )
        .skill(
            Skill::new(
                "three.loadGLTF",
                "1.0.0",
                "Load a glTF or GLB model from the host's assets folder and place it as a new entity; returns the entity id and the model's node, mesh, material and texture counts.",
                load_gltf,
            )
            .permissions(&["scene.write"]),
        )
);
