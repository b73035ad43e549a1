//! The viewer as an MCP App, rendered the way a client that supports MCP Apps renders it:
//! the official TypeScript client reaches the host over stdio (no port open), and in headless
//! Chromium the official MCP Apps SDK's `AppBridge` hosts the app's `ui://` resource in a
//! sandboxed frame under the CSP it declares, relaying its tool calls and reads to the host.

use crate::support::repo;
use limina_guest_build::clients::{EXT_APPS, NODE_22, node_binary};
use serde_json::Value;
use std::process::Command;

#[test]
fn the_viewer_app_renders_a_tool_result_calls_a_tool_through_the_bridge_and_follows_the_world() {
    let chromium = match limina_guest_build::browser::chromium() {
        Ok(path) => path,
        Err(e) => {
            eprintln!("skipped: no headless Chromium here: {e:#}");
            return;
        }
    };
    let sdk = EXT_APPS.ensure().expect("installing the MCP Apps SDK");
    // ESM resolves packages from the script's folder: run a copy beside the SDK's modules.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(sdk.join("node_modules"), dir.path().join("node_modules")).unwrap();
    let script = dir.path().join("app_bridge_probe.mjs");
    std::fs::copy(repo().join("tests/clients/app_bridge_probe.mjs"), &script).unwrap();
    let traces = tempfile::tempdir().unwrap();
    let mut host = vec![
        env!("CARGO_BIN_EXE_limina").to_string(),
        "--mcp-stdio".into(),
    ];
    host.extend(["--profile", "builder.readWrite", "--trace-dir"].map(String::from));
    host.push(traces.path().to_str().unwrap().into());
    host.extend(crate::support::own_calibration(&[]));
    let node = node_binary(&NODE_22.ensure().expect("installing Node.js 22")).unwrap();
    let out = Command::new(node)
        .arg(&script)
        .arg(chromium)
        .args(&host)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the probe failed: {stderr}");
    let report: Value = crate::support::last_json_line(&out);

    // The scene skills name the app; the app is one self-contained page that loads nothing.
    assert_eq!(report["appUri"], "ui://limina/viewer", "{report}");
    assert_eq!(report["mimeType"], "text/html;profile=mcp-app");
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        tools.contains(&"scene.createEntity") && tools.contains(&"scene.queryEntities"),
        "{tools:?}"
    );
    assert!(
        tools
            .iter()
            .all(|t| t.starts_with("scene.") || t.starts_with("camera.")),
        "only the tools whose results are best seen name it: {tools:?}"
    );
    for list in [
        "connectDomains",
        "resourceDomains",
        "frameDomains",
        "baseUriDomains",
    ] {
        assert_eq!(report["csp"][list], serde_json::json!([]), "{list}");
    }
    assert_eq!(
        report["offHost"],
        serde_json::json!([]),
        "the app loaded nothing from elsewhere"
    );
    assert_eq!(
        report["problems"],
        serde_json::json!([]),
        "no errors in the page"
    );

    // It received the tool's input and result and drew the entity, red, where it is.
    let seen = &report["seen"];
    let entity = report["entity"].as_str().unwrap();
    assert_eq!(seen["toolResult"]["entity"], entity, "{seen}");
    assert_eq!(seen["toolInput"]["arguments"]["color"], 0xff0000);
    assert_eq!(seen["highlight"], entity);
    assert_eq!(seen["tool"], "scene.createEntity");
    assert_eq!(seen["theme"], "dark");
    assert!(seen["drawn"].to_string().contains(entity));
    let pixel: Vec<u64> = seen["pixel"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(
        pixel[0] > 120 && pixel[1] < 60 && pixel[2] < 60,
        "red at the entity's place: {pixel:?}"
    );

    // Its step button called world.step through the bridge; the host ran it.
    assert_eq!(report["isError"], false, "{report}");
    assert!(
        report["stepped"]["tick"].as_u64().unwrap() >= 30,
        "{report}"
    );
    assert!(report["afterStep"].as_u64().unwrap() >= 30);
    let relayed = report["relayed"].to_string();
    assert!(
        relayed.contains("tools/call world.step")
            && relayed.contains("resources/read limina://world/scene"),
        "{relayed}"
    );
    // And it followed a change another call made.
    assert!(report["reads"].as_u64().unwrap() >= 3, "{report}");
    assert_eq!(report["host"]["initialized"], true);
}
