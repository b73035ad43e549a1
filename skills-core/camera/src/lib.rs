//! Core `camera` skill: a picture of the world from a viewpoint, as a PNG image block beside
//! what it shows. The host draws it (`limina:skill/camera`) from a snapshot of the world,
//! away from the engine, so taking one never holds up other clients.

use limina_sdk::Vec3;
use limina_sdk::host::camera;
use limina_sdk::prelude::*;

fn vec3(p: [f64; 3]) -> Vec3 {
    Vec3 {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

fn up() -> [f64; 3] {
    [0.0, 1.0, 0.0]
}
fn width() -> u32 {
    640
}
fn height() -> u32 {
    480
}
fn fov() -> f64 {
    60.0
}
fn background() -> u32 {
    0x1d2433
}
fn yes() -> bool {
    true
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CaptureInput {
    /// Where the camera stands, [x, y, z] in metres.
    position: [f64; 3],
    /// The point at the centre of the picture, [x, y, z] in metres; not the position itself.
    look_at: [f64; 3],
    /// Picture width in pixels (width × height at most 1920 × 1080 pixels).
    #[serde(default = "width")]
    #[schemars(range(min = 1, max = 2048))]
    width: u32,
    /// Picture height in pixels.
    #[serde(default = "height")]
    #[schemars(range(min = 1, max = 2048))]
    height: u32,
    /// Which way is up in the picture, [x, y, z].
    #[serde(default = "up")]
    up: [f64; 3],
    /// Vertical field of view in degrees.
    #[serde(default = "fov")]
    #[schemars(extend("exclusiveMinimum" = 1, "exclusiveMaximum" = 170))]
    fov_degrees: f64,
    /// Colour where nothing is drawn, as 0xRRGGBB.
    #[serde(default = "background")]
    #[schemars(range(min = 0, max = 0xffffff))]
    background: u32,
    /// Whether UI panels' anchors are marked (white squares in the world, bars on the screen).
    #[serde(default = "yes")]
    panels: bool,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CaptureOutput {
    /// Always `image/png`: the picture is the result's image block.
    mime_type: String,
    width: u32,
    height: u32,
    /// Size of the PNG in bytes.
    bytes: u32,
    /// The world tick the picture shows.
    tick: u64,
    /// Entities at least partly in view.
    entities_in_view: u32,
    /// UI panel anchors marked in the picture.
    anchors_marked: u32,
}

fn capture(
    input: CaptureInput,
    _ctx: &CallContext,
) -> Result<WithContent<CaptureOutput>, SkillError> {
    let picture = camera::capture(camera::Shot {
        position: vec3(input.position),
        look_at: vec3(input.look_at),
        up: vec3(input.up),
        fov_degrees: input.fov_degrees,
        width: input.width,
        height: input.height,
        background: input.background,
        panels: input.panels,
    })?;
    let output = CaptureOutput {
        mime_type: "image/png".into(),
        width: picture.width,
        height: picture.height,
        bytes: picture.png.len() as u32,
        tick: picture.tick,
        entities_in_view: picture.entities_in_view,
        anchors_marked: picture.anchors_marked,
    };
    Ok(WithContent::new(output).block(ContentBlock::png(picture.png)))
}

limina_sdk::export_package!(
    Package::new().skill(
        Skill::with_content(
            "camera.capture",
            "1.0.0",
            "Take a PNG picture of the world from a position looking at a point, showing the entities with their shapes, sizes, colours and materials under the scene's lighting and marking UI panels' anchors; it is drawn on the CPU from a snapshot, so it never holds up other clients.",
            capture,
        )
        .permissions(&["scene.read"]),
    )
);
