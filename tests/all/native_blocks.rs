//! Content blocks from the C and Zig SDKs' glue (contract 0.2.0): the test guests
//! `tests/guests-c/cblocks` and `tests/guests-zig/zblocks` return a picture, a sound, a link,
//! embedded text and bytes and a text block beside their JSON; they reach the `tools/call`
//! result in order with their bytes intact, and a call that fails after adding blocks returns
//! none of them.

use crate::support::{Client, error_of, package_host, repo};
use base64::Engine as _;
use serde_json::{Value, json};

fn host(name: &str, lang: &str) -> (tempfile::TempDir, Client) {
    package_host(
        &repo().join(format!("tests/guests-{lang}/{name}")),
        &repo().join(format!("target/components/{name}.wasm")),
    )
}

fn decode(block: &Value, field: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(block[field].as_str().unwrap_or_else(|| panic!("{block}")))
        .unwrap()
}

fn every_kind_goes_out_in_order(name: &str, lang: &str) {
    let (_dir, mut c) = host(name, lang);
    let skill = format!("{name}.show");
    let r = c.call(&skill, json!({}));
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"], json!({"png": 69, "wav": 46}));
    let content = r["content"].as_array().unwrap();
    let kinds: Vec<&str> = content
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
            "resource",
            "text"
        ],
        "{r}"
    );
    assert_eq!(content[1]["mimeType"], "image/png");
    let png = decode(&content[1], "data");
    assert_eq!(png.len(), 69);
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(content[2]["mimeType"], "audio/wav");
    let wav = decode(&content[2], "data");
    assert_eq!(
        (&wav[..4], &wav[8..12], wav.len()),
        (&b"RIFF"[..], &b"WAVE"[..], 46)
    );
    assert_eq!(
        content[3],
        json!({"type": "resource_link", "uri": format!("limina://pkg/{name}/palette"),
               "name": "Palette", "description": "The colours", "mimeType": "text/plain"})
    );
    assert_eq!(
        content[4],
        json!({"type": "resource", "resource": {"uri": format!("limina://pkg/{name}/legend"),
               "mimeType": "text/plain", "text": "red is hot"}})
    );
    assert_eq!(
        content[5]["resource"]["uri"],
        format!("limina://pkg/{name}/raw")
    );
    assert_eq!(decode(&content[5]["resource"], "blob"), [0, 1, 2, 255]);
    assert_eq!(content[6], json!({"type": "text", "text": "5 blocks"}));

    let failed = c.call(&skill, json!({"fail": true}));
    let (code, message) = error_of(&failed);
    assert_eq!(code, "handler_error");
    assert_eq!(message, "asked to fail after 6 blocks");
    assert_eq!(
        failed["content"].as_array().unwrap().len(),
        1,
        "no blocks on a failure: {failed}"
    );
}

#[test]
fn a_c_skill_returns_every_kind_of_block() {
    every_kind_goes_out_in_order("cblocks", "c");
}

#[test]
fn a_zig_skill_returns_every_kind_of_block() {
    every_kind_goes_out_in_order("zblocks", "zig");
}
