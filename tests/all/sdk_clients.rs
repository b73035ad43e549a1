//! The official MCP SDKs' WebSocket clients connect to `limina --mcp-ws` as they are: the
//! Python SDK's `websocket_client` and the TypeScript SDK's `WebSocketClientTransport` (both
//! offer the `mcp` subprotocol). The SDKs are pinned and installed on first use.

use crate::support::last_json_line;
use crate::support::repo;
use crate::ws_client::WsHost;
use limina_guest_build::clients::{PYTHON_SDK, TYPESCRIPT_SDK};
use limina_guest_build::tools::venv_python;
use serde_json::Value;
use std::process::Command;

fn check(report: &Value, position: [f64; 3]) {
    assert_eq!(report["server"], "limina");
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
    assert_eq!(report["made_error"], false, "{report}");
    let entity = report["made"]["entity"].as_str().unwrap();
    let found = report["found"]["entities"].as_array().unwrap();
    let mine = found
        .iter()
        .find(|e| e["entity"] == entity)
        .expect("the entity it made");
    let got: Vec<f64> = mine["position"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(got, position);
}

#[test]
fn the_official_python_sdk_connects_over_websocket_as_it_is() {
    let sdk = PYTHON_SDK.ensure().expect("installing the Python MCP SDK");
    let host = WsHost::start(&["--profile", "builder.readWrite"]);
    let out = Command::new(venv_python(&sdk))
        .arg(repo().join("tests/clients/ws_python.py"))
        .arg(&host.url)
        .output()
        .unwrap();
    check(&last_json_line(&out), [1.0, 2.0, 3.0]);
}

#[test]
fn the_official_typescript_sdk_connects_over_websocket_as_it_is() {
    let sdk = TYPESCRIPT_SDK
        .ensure()
        .expect("installing the TypeScript MCP SDK");
    let host = WsHost::start(&["--profile", "builder.readWrite"]);
    // ESM resolves packages from the script's folder: run a copy beside the SDK's modules.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(sdk.join("node_modules"), dir.path().join("node_modules")).unwrap();
    let script = dir.path().join("ws_typescript.mjs");
    std::fs::copy(repo().join("tests/clients/ws_typescript.mjs"), &script).unwrap();
    let out = Command::new("node")
        .arg("--experimental-websocket")
        .arg(&script)
        .arg(&host.url)
        .output()
        .unwrap();
    check(&last_json_line(&out), [4.0, 5.0, 6.0]);
}
