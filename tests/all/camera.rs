//! `camera.capture`: a picture of the world as an image block, checked by its pixels; it runs
//! away from the engine on a snapshot; shots that cannot be taken are refused naming the
//! field, and change nothing; the official Python (2.3) and TypeScript (2.4) clients receive
//! the picture and decode it.

use crate::support::{Client, error_of};
use base64::Engine as _;
use serde_json::{Value, json};

/// 160 × 120 from 10 m up the z axis looking at the origin (60° vertical field of view: a
/// point (x, y, 0) lands at (80 + 10.39·x, 60 − 10.39·y)).
fn shot() -> Value {
    json!({"position": [0, 0, 10], "lookAt": [0, 0, 0], "width": 160, "height": 120})
}

/// A decoded PNG: width, height and RGB bytes.
pub(crate) fn decode_png(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .unwrap();
    let mut rgb = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut rgb).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    (info.width, info.height, rgb)
}

/// The pixel at (`x`, `y`) of a decoded picture `width` wide.
pub(crate) fn pixel(rgb: &[u8], width: u32, x: u32, y: u32) -> [u8; 3] {
    let at = ((y * width + x) * 3) as usize;
    [rgb[at], rgb[at + 1], rgb[at + 2]]
}

/// Whether `c` is clearly red: its red channel far above the others.
pub(crate) fn red(c: [u8; 3]) -> bool {
    c[0] > 120 && c[1] < 40 && c[2] < 40
}

/// The scene the picture tests show: a red box of 2 m at the origin and a green sphere of
/// 2 m at (4, 2, 0).
fn builder() -> Client {
    let mut c = Client::session("builder.readWrite", &[]);
    c.call_ok(
        "scene.createEntity",
        json!({"shape": "box", "size": 2, "color": 0xff0000, "position": [0, 0, 0]}),
    );
    c.call_ok(
        "scene.createEntity",
        json!({"shape": "sphere", "size": 2, "color": 0x00ff00, "position": [4, 2, 0]}),
    );
    c
}

#[test]
fn a_picture_shows_a_known_entity_where_the_lens_puts_it() {
    let mut c = builder();
    let r = c.call("camera.capture", shot());
    assert_eq!(r["isError"], false, "{r}");
    let content = r["content"].as_array().unwrap();
    let kinds: Vec<&str> = content
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["text", "image"], "{r}");
    assert_eq!(content[1]["mimeType"], "image/png");
    let png = base64::engine::general_purpose::STANDARD
        .decode(content[1]["data"].as_str().unwrap())
        .unwrap();
    let out = &r["structuredContent"];
    assert_eq!(
        (
            &out["width"],
            &out["height"],
            &out["bytes"],
            &out["entitiesInView"]
        ),
        (&json!(160), &json!(120), &json!(png.len()), &json!(2)),
        "{out}"
    );
    let (width, height, rgb) = decode_png(&png);
    assert_eq!((width, height), (160, 120));
    // The red box's front face spans 80 ± 11 pixels; the green sphere sits at (121.6, 39.2).
    for (x, y) in [(80, 60), (71, 52), (89, 68)] {
        assert!(red(pixel(&rgb, width, x, y)), "red at ({x}, {y})");
    }
    for (x, y) in [(66, 60), (94, 60), (80, 46), (80, 74), (5, 5)] {
        assert!(!red(pixel(&rgb, width, x, y)), "nothing red at ({x}, {y})");
    }
    let green = pixel(&rgb, width, 121, 39);
    assert!(green[1] > 100 && green[0] < 40, "green sphere: {green:?}");
    // Seen from the other side (x mirrored), the sphere moves to the left half.
    let behind = json!({"position": [0, 0, -10], "lookAt": [0, 0, 0], "width": 160, "height": 120});
    let r = c.call("camera.capture", behind);
    let png = base64::engine::general_purpose::STANDARD
        .decode(r["content"][1]["data"].as_str().unwrap())
        .unwrap();
    let (_, _, rgb) = decode_png(&png);
    // Its side away from the sun is darker, but green.
    let green = pixel(&rgb, width, 38, 39);
    assert!(
        green[1] > green[0] + 20 && green[1] > green[2] + 20,
        "mirrored sphere: {green:?}"
    );
}

#[test]
fn the_tool_offers_the_viewer_app_and_runs_off_the_engine() {
    let mut c = Client::session("builder.readWrite", &[]);
    let tools = c.request("tools/list", json!({}))["result"]["tools"].clone();
    let tool = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "camera.capture")
        .expect("camera.capture is listed")
        .clone();
    assert_eq!(tool["_meta"]["ui"]["resourceUri"], "ui://limina/viewer");
    assert_eq!(tool["_meta"]["permissions"], json!(["scene.read"]));
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    // Only calls that run off the engine may run as tasks; scene reads stay on it.
    assert_eq!(tool["execution"]["taskSupport"], "optional", "{tool}");
    let query = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "scene.queryEntities")
        .unwrap();
    assert_eq!(query["execution"]["taskSupport"], "forbidden");
}

#[test]
fn shots_that_cannot_be_taken_are_refused_naming_the_field_and_change_nothing() {
    let mut c = builder();
    let hash = c.call_ok("world.hash", json!({}));
    let budget = |c: &mut Client| {
        let usage = c.call_ok("audit.usage", json!({}));
        usage["budgets"][0]["budget"].clone()
    };
    let before = budget(&mut c);
    let with = |change: Value| {
        let mut s = shot();
        s.as_object_mut()
            .unwrap()
            .extend(change.as_object().unwrap().clone());
        s
    };
    // Refused by the schema before anything runs: nothing is charged.
    for (change, says) in [
        (json!({"width": 0}), "width"),
        (json!({"height": 4096}), "height"),
        (json!({"fovDegrees": 170}), "fovDegrees"),
    ] {
        let (code, message) = error_of(&c.call("camera.capture", with(change.clone())));
        assert_eq!(code, "invalid_input", "{change}: {message}");
        assert!(message.contains(says), "{change}: {message}");
    }
    assert_eq!(budget(&mut c), before, "schema refusals charge nothing");
    // Refused by the camera, naming the field and the fix.
    for (change, says) in [
        (
            json!({"lookAt": [0, 0, 10]}),
            "`lookAt` must differ from `position`",
        ),
        (
            json!({"width": 2048, "height": 2048}),
            "`width` × `height` must be ≤ 2073600 pixels",
        ),
        (json!({"up": [0, 0, 0]}), "`up` must not be the zero vector"),
    ] {
        let (code, message) = error_of(&c.call("camera.capture", with(change.clone())));
        assert_eq!(code, "invalid_input", "{change}: {message}");
        assert!(message.contains(says), "{change}: {message}");
    }
    assert_eq!(c.call_ok("world.hash", json!({})), hash);
    // A refusal by the camera leaves only its decision in the trace (nothing it did is kept);
    // one by the schema, nothing.
    let events = c.call_ok("trace.tail", json!({"limit": 200}))["events"].clone();
    let camera: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] != "package.loaded" && e.to_string().contains("camera.capture"))
        .map(|e| e["type"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(camera, ["policy.decision"; 3], "{events}");
}

#[test]
fn the_drawing_is_charged_to_the_callers_cpu_budget() {
    // A budget to count against: without one nothing is counted.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limina.toml");
    std::fs::write(&config, "[budgets]\ncpuMs = 600000\n").unwrap();
    let mut c = Client::session("builder.readWrite", &["--config", config.to_str().unwrap()]);
    let used = |c: &mut Client| {
        let usage = c.call_ok("audit.usage", json!({}));
        usage["budgets"][0]["budget"]["cpuMs"]["used"]
            .as_f64()
            .unwrap_or_else(|| panic!("{usage}"))
    };
    let mut charged = |width: u32, height: u32| {
        let before = used(&mut c);
        let shot =
            json!({"position": [0, 0, 10], "lookAt": [0, 0, 0], "width": width, "height": height});
        c.call_ok("camera.capture", shot);
        used(&mut c) - before
    };
    let small = charged(16, 12);
    let large = charged(1920, 1080);
    // Both calls run the same guest code for the same fuel; only the host's drawing and
    // encoding of 10,800 times the pixels (tens of milliseconds) tells them apart.
    assert!(
        large > small + 5.0,
        "a 1920 × 1080 picture charged {large} ms, a 16 × 12 one {small} ms"
    );
}

fn client_args(traces: &std::path::Path) -> Vec<String> {
    let mut args: Vec<String> = [
        env!("CARGO_BIN_EXE_limina"),
        "--mcp-stdio",
        "--profile",
        "builder.readWrite",
        "--trace-dir",
        traces.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    args.extend(crate::support::own_calibration(&[]));
    args
}

/// What an official client saw, and the picture it decoded and wrote.
fn check_client(report: &Value, png: &std::path::Path) {
    assert_eq!(report["is_error"], false, "{report}");
    assert_eq!(report["resource_uri"], "ui://limina/viewer", "{report}");
    assert_eq!(report["kinds"], json!(["text", "image"]), "{report}");
    assert_eq!(report["mime_type"], "image/png");
    assert_eq!(report["structured"]["width"], 160);
    let png = std::fs::read(png).unwrap();
    assert_eq!(report["png_bytes"], png.len());
    let (width, height, rgb) = decode_png(&png);
    assert_eq!((width, height), (160, 120));
    assert!(red(pixel(&rgb, width, 80, 60)), "{report}");
    assert!(!red(pixel(&rgb, width, 100, 60)), "{report}");
    assert!(report["refused"].to_string().contains("width"), "{report}");
}

#[test]
fn the_python_sdk_receives_the_picture_and_decodes_it() {
    let traces = tempfile::tempdir().unwrap();
    let png = traces.path().join("picture.png");
    let mut args = vec!["auto".to_string(), png.display().to_string()];
    args.extend(client_args(traces.path()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = crate::modern::python_script("camera_python.py", &args).0;
    assert_eq!(report["protocol_version"], "2026-07-28", "{report}");
    check_client(&report, &png);
}

#[test]
fn the_typescript_client_receives_the_picture_and_decodes_it() {
    let traces = tempfile::tempdir().unwrap();
    let png = traces.path().join("picture.png");
    let mut args = vec!["legacy".to_string(), png.display().to_string()];
    args.extend(client_args(traces.path()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = crate::modern::typescript_script("camera_typescript.mjs", &args).0;
    check_client(&report, &png);
}

/// A capture off the engine runs on an idle-class worker, its time limit counted in the time
/// that worker ran: one whose limit runs out while it draws is cut with the timeout's code,
/// and the world and the trace keep nothing of it.
#[test]
fn a_capture_past_its_time_limit_is_cut_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limina.toml");
    std::fs::write(
        &config,
        "[budgets]\ncpuMs = 600000\n\n[packages.camera]\ntimeoutMs = 1\n",
    )
    .unwrap();
    let mut c = Client::session("builder.readWrite", &["--config", config.to_str().unwrap()]);
    c.call_ok(
        "scene.createEntity",
        json!({"shape": "box", "size": 2, "color": 0xff0000, "position": [0, 0, 0]}),
    );
    let hash = c.call_ok("world.hash", json!({}));
    let events = |c: &mut Client| c.call_ok("trace.tail", json!({"limit": 200}))["events"].clone();
    let before = events(&mut c).as_array().unwrap().len();
    // Drawing 1920 × 1080 takes far longer than 1 ms of a core.
    let shot = json!({"position": [0, 0, 10], "lookAt": [0, 0, 0], "width": 1920, "height": 1080});
    let r = c.call("camera.capture", shot);
    let (code, message) = error_of(&r);
    assert_eq!(code, "capacity_exceeded", "{message}");
    assert!(
        message.contains("ran past its 1 ms deadline")
            && message.contains("nothing it did to the world was kept"),
        "{message}"
    );
    assert_eq!(r["content"].as_array().unwrap().len(), 1, "no picture: {r}");
    assert_eq!(c.call_ok("world.hash", json!({})), hash);
    // The trace keeps the call's decision and nothing it did (no journal, no execution); its
    // budget was charged the drawing it got through, as any call stopped mid-way.
    let after = events(&mut c);
    let kept: Vec<&str> = after.as_array().unwrap()[before..]
        .iter()
        .filter(|e| e["type"] == "world.journal" || e.to_string().contains("camera.capture"))
        .map(|e| e["type"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(kept, ["policy.decision"], "{after}");
}
