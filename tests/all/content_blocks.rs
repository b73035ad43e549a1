//! Content blocks (contract 0.2.0): a skill returns a picture, a sound, links and embedded
//! resources besides its structured output; they reach `tools/call` results as MCP content
//! blocks on both protocol revisions, capped per result and traced as kind and size only. A
//! package built against 0.1.0 loads and runs beside it, unchanged.

use crate::support::{Client, error_of, guest_packages};
use base64::Engine as _;
use serde_json::{Value, json};

fn host() -> (tempfile::TempDir, Client) {
    let pkgs = guest_packages(&["pictures", "legacy01"]);
    // A picture of megabytes can outlast the engine's short deadline on a loaded machine,
    // which is not what these tests are about.
    let config = crate::support::long_calls_config();
    let c = Client::session(
        "builder.readWrite",
        &[
            "--packages",
            pkgs.path().to_str().unwrap(),
            "--config",
            &config,
        ],
    );
    (pkgs, c)
}

fn decode(block: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(block["data"].as_str().expect("a data block"))
        .unwrap()
}

fn entities(c: &mut Client) -> usize {
    c.call_ok("scene.queryEntities", json!({}))["entities"]
        .as_array()
        .unwrap()
        .len()
}

fn executed(c: &mut Client) -> Vec<Value> {
    c.call_ok(
        "trace.tail",
        json!({"type": "skill.executed", "limit": 100}),
    )["events"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn an_image_reaches_the_result_as_a_block_and_the_trace_as_kind_and_size() {
    let (_pkgs, mut c) = host();
    let r = c.call(
        "pictures.draw",
        json!({"width": 4, "height": 3, "color": 0xff0000}),
    );
    assert_eq!(r["isError"], false, "{r}");
    let content = r["content"].as_array().unwrap();
    assert_eq!(content.len(), 2, "{r}");
    assert_eq!(content[0]["type"], "text");
    assert_eq!(
        serde_json::from_str::<Value>(content[0]["text"].as_str().unwrap()).unwrap(),
        r["structuredContent"]
    );
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["mimeType"], "image/png");
    let png = decode(&content[1]);
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&png[12..16], b"IHDR");
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 4);
    assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 3);
    assert_eq!(r["structuredContent"]["bytes"], png.len());
    let events = executed(&mut c);
    let drawn = events
        .iter()
        .find(|e| e["payload"]["skill"] == "pictures.draw")
        .expect("the call is traced");
    assert_eq!(
        drawn["payload"]["content"],
        json!([{"kind": "image", "mimeType": "image/png", "bytes": png.len()}])
    );
    assert!(
        !drawn
            .to_string()
            .contains(content[1]["data"].as_str().unwrap()),
        "the trace holds no bytes"
    );
}

#[test]
fn every_kind_of_block_goes_out_in_order() {
    let (_pkgs, mut c) = host();
    let r = c.call_ok_raw(json!({"width": 1, "height": 1, "extras": true}));
    let kinds: Vec<&str> = r["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "text",
            "image",
            "audio",
            "resource_link",
            "resource",
            "text"
        ]
    );
    let audio = &r["content"][2];
    assert_eq!(audio["mimeType"], "audio/wav");
    assert_eq!(&decode(audio)[..4], b"RIFF");
    assert_eq!(
        r["content"][3],
        json!({"type": "resource_link", "uri": "limina://pkg/pictures/palette", "name": "Palette"})
    );
    assert_eq!(
        r["content"][4],
        json!({"type": "resource", "resource": {"uri": "limina://pkg/pictures/legend", "mimeType": "text/plain", "text": "red is hot"}})
    );
    assert_eq!(
        r["content"][5],
        json!({"type": "text", "text": "a plain square"})
    );
    let traced = executed(&mut c)
        .into_iter()
        .find(|e| e["payload"]["skill"] == "pictures.draw")
        .unwrap();
    let kinds: Vec<&Value> = traced["payload"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["kind"])
        .collect();
    assert_eq!(
        kinds,
        [
            &json!("image"),
            &json!("audio"),
            &json!("resource_link"),
            &json!("resource"),
            &json!("text")
        ]
    );
}

#[test]
fn a_result_over_the_content_cap_is_refused_naming_it_and_changes_nothing() {
    let (_pkgs, mut c) = host();
    c.call_ok("pictures.draw", json!({"width": 2, "height": 2}));
    let drawn = |c: &mut Client| {
        executed(c)
            .iter()
            .filter(|e| e["payload"]["skill"] == "pictures.draw")
            .count()
    };
    let (before_entities, before_drawn) = (entities(&mut c), drawn(&mut c));
    // 1500 × 1000 RGB, stored uncompressed: about 4.5 MB, over the 4 MiB cap.
    let r = c.call("pictures.draw", json!({"width": 1500, "height": 1000}));
    let (code, message) = error_of(&r);
    assert_eq!(code, "handler_error", "{message}");
    // The PNG: signature, IHDR, IDAT (zlib header, stored blocks of ≤ 65535 bytes with a
    // 5-byte header each, the rows, Adler-32), IEND.
    let raw: usize = 1000 * (1 + 3 * 1500);
    let bytes = 8 + 25 + 12 + 2 + 5 * raw.div_ceil(65535) + raw + 4 + 12;
    assert_eq!(
        message,
        format!(
            "`pictures.draw` returned {bytes} bytes of content, over the host's cap of 4194304 bytes per result; return smaller images or sounds, or link to them"
        )
    );
    assert_eq!(
        r["content"].as_array().unwrap().len(),
        1,
        "no blocks on a failure: {r}"
    );
    assert_eq!(
        entities(&mut c),
        before_entities,
        "its entity was rolled back"
    );
    assert_eq!(drawn(&mut c), before_drawn, "nothing recorded as executed");
}

#[test]
fn an_image_whose_bytes_are_not_its_media_type_is_refused() {
    let (_pkgs, mut c) = host();
    let before = entities(&mut c);
    for (mime, why) in [
        (
            "image/gif",
            "media type `image/gif` is not one the host passes on; use image/png or image/jpeg",
        ),
        (
            "image/jpeg",
            "its bytes are not image/jpeg (they lack its signature)",
        ),
    ] {
        let r = c.call(
            "pictures.draw",
            json!({"width": 1, "height": 1, "mime": mime}),
        );
        let (code, message) = error_of(&r);
        assert_eq!(code, "handler_error");
        assert_eq!(
            message,
            format!("`pictures.draw` returned content block 0 (image): {why}")
        );
    }
    assert_eq!(entities(&mut c), before);
}

#[test]
fn a_2026_07_28_result_carries_the_same_blocks() {
    let pkgs = guest_packages(&["pictures"]);
    // A stateless request runs under the host's `--profile`.
    let mut c = Client::spawn(&[
        "--profile",
        "builder.readWrite",
        "--packages",
        pkgs.path().to_str().unwrap(),
    ]);
    let reply = c.request(
        "tools/call",
        json!({
            "name": "pictures.draw",
            "arguments": {"width": 2, "height": 1},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
            },
        }),
    );
    let result = &reply["result"];
    assert_eq!(result["isError"], false, "{reply}");
    assert_eq!(result["content"][1]["type"], "image", "{reply}");
    assert_eq!(
        u32::from_be_bytes(decode(&result["content"][1])[16..20].try_into().unwrap()),
        2
    );
}

#[test]
fn a_package_built_against_0_1_0_loads_and_runs_beside_0_2_0() {
    let (_pkgs, mut c) = host();
    let tools = c.request("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"legacy01.place") && names.contains(&"pictures.draw"),
        "{names:?}"
    );
    let before = entities(&mut c);
    let r = c.call("legacy01.place", json!({"x": 2.5}));
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"]["count"], before + 1);
    assert_eq!(
        r["content"].as_array().unwrap().len(),
        1,
        "a 0.1.0 result has its text only"
    );
    let id = r["structuredContent"]["id"].as_str().unwrap().to_string();
    let all = c.call_ok("scene.queryEntities", json!({}))["entities"].clone();
    let placed = all
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["entity"] == id.as_str())
        .unwrap_or_else(|| panic!("{id} not in {all}"));
    assert_eq!(placed["position"], json!([2.5, 0.0, 0.0]));
}

trait DrawRaw {
    fn call_ok_raw(&mut self, arguments: Value) -> Value;
}

impl DrawRaw for Client {
    /// `pictures.draw`'s whole result, which must be a success.
    fn call_ok_raw(&mut self, arguments: Value) -> Value {
        let r = self.call("pictures.draw", arguments);
        assert_eq!(r["isError"], false, "{r}");
        r
    }
}

#[test]
fn a_javascript_skill_returns_an_image_and_a_link() {
    let dir = crate::support::repo().join("tests/guests-js/sketcher");
    let (_pkgs, mut c) = crate::support::package_host(
        &dir,
        &crate::support::repo().join("target/components/sketcher.wasm"),
    );
    let r = c.call("sketcher.strip", json!({}));
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["content"][1]["type"], "image", "{r}");
    assert_eq!(r["content"][1]["mimeType"], "image/png");
    let png = decode(&r["content"][1]);
    assert_eq!(r["structuredContent"]["bytes"], png.len());
    // The picture the skill drew: red, then blue.
    let (width, height, rgb) = crate::camera::decode_png(&png);
    assert_eq!((width, height), (2, 1));
    assert_eq!(rgb, [255, 0, 0, 0, 0, 255]);
    assert_eq!(
        r["content"][2],
        json!({"type": "resource_link", "uri": "limina://pkg/sketcher/palette", "name": "Palette", "mimeType": "text/plain"})
    );
}

#[test]
fn a_python_skill_returns_an_image_and_a_link() {
    let dir = crate::support::repo().join("tests/guests-python/painter");
    let (_pkgs, mut c) = crate::support::package_host(
        &dir,
        &crate::support::repo().join("target/components/painter.wasm"),
    );
    let r = c.call("painter.pixel", json!({}));
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["content"][1]["type"], "image", "{r}");
    assert_eq!(r["content"][1]["mimeType"], "image/png");
    let png = decode(&r["content"][1]);
    assert_eq!(r["structuredContent"]["bytes"], png.len());
    assert_eq!(&png[12..16], b"IHDR");
    assert_eq!(
        r["content"][2],
        json!({"type": "resource_link", "uri": "limina://pkg/painter/palette", "name": "Palette"})
    );
}
