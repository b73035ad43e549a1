//! `cargo bench -p limina --bench outbound`: what a granted HTTP fetch costs through the whole
//! pipeline — validation, policy, the `weather` package's Python guest, the grant and address
//! checks, the request over `wasi:http`, tracing and charging — against the same request made
//! by native Rust, against the same local server, in one run. Prints medians and the overhead
//! per request; needs `packages/weather/weather.wasm` from `cargo xtask build-guests`.

use limina::config::Config;
use limina::packages::PackageSource;
use limina::policy::{Permission, PolicyConfig, Profiles};
use limina::registry::{CallControl, Caller, Invocation, Registry, Response};
use limina::sandbox::{CompileCache, Sandbox};
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;

const SAMPLES: usize = 9;
const BATCH: usize = 20;

#[path = "common.rs"]
mod common;

const FORECAST: &str =
    r#"{"current":{"time":"2026-11-24T12:00","temperature_2m":21.5,"wind_speed_10m":7.25}}"#;

/// A loopback server answering every request with the forecast, one connection per request.
fn serve() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { break };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                    line.clear();
                }
                let mut out = stream;
                let _ = write!(
                    out,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{FORECAST}",
                    FORECAST.len()
                );
            });
        }
    });
    port
}

/// The same request from native Rust: a fresh connection, GET, read the answer whole.
fn native_get(port: u16) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_nodelay(true).unwrap();
    write!(
        s,
        "GET /v1/forecast?latitude=52.52&longitude=13.41&current=temperature_2m,wind_speed_10m HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nx-api-key: bench\r\n\r\n"
    )
    .unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    let text = String::from_utf8_lossy(&answer);
    let body = text.split("\r\n\r\n").nth(1).unwrap();
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(v["current"]["temperature_2m"], 21.5);
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let weather = repo.join("packages/weather");
    if !weather.join("weather.wasm").is_file() {
        eprintln!("packages/weather/weather.wasm is missing: run `cargo xtask build-guests`");
        std::process::exit(1);
    }
    let port = serve();
    let base = format!("http://127.0.0.1:{port}");

    // The package, granted the local server, and the host's configuration giving it.
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("weather");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::copy(weather.join("weather.wasm"), pkg.join("weather.wasm")).unwrap();
    let manifest = std::fs::read_to_string(weather.join("limina.toml"))
        .unwrap()
        .replace(
            r#"network = ["https://api.open-meteo.com/v1"]"#,
            &format!("network = [\"{base}/v1\"]"),
        );
    std::fs::write(pkg.join("limina.toml"), manifest).unwrap();
    std::fs::write(dir.path().join("url"), format!("{base}/v1")).unwrap();
    std::fs::write(dir.path().join("key"), "bench").unwrap();
    let config = Config::parse(&format!(
        "[secrets]\nWEATHER_API_URL = {{ file = \"{}\" }}\nWEATHER_API_KEY = {{ file = \"{}\" }}\n\n[packages.weather.grants]\nnetwork = [\"{base}\"]\nsecrets = [\"WEATHER_API_URL\", \"WEATHER_API_KEY\"]\n",
        dir.path().join("url").display(),
        dir.path().join("key").display()
    ))
    .unwrap();

    let mut registry = Registry::new(
        Sandbox::new(CompileCache::new(CompileCache::default_dir())).unwrap(),
        PolicyConfig::default(),
        *common::realm(100),
    );
    registry.set_host_grants(config.grants);
    registry.load(PackageSource::read(&pkg).unwrap()).unwrap();
    let mut permissions = Profiles::default()
        .get("builder.readWrite")
        .unwrap()
        .permissions;
    permissions.insert(Permission::NetOutbound);
    permissions.insert(Permission::SecretsRead);
    let caller = Caller {
        agent_id: "bench".into(),
        session_id: "bench".into(),
        profile: "builder.readWrite".into(),
        permissions,
    };
    let input = json!({"latitude": 52.52, "longitude": 13.41});
    // As the server runs it: decided on the engine, run detached (the package touches no
    // world), completed on the engine.
    let mut scratch = Some(common::realm(100));
    let mut call = || -> Response {
        match registry.invoke_or_detach(
            &caller,
            "weather.current",
            input.clone(),
            CallControl::default(),
        ) {
            Invocation::Done(r) => r,
            Invocation::Detached(d) => {
                let (back, ran) = d.run(scratch.take().unwrap());
                scratch = Some(back);
                registry.complete(ran)
            }
        }
    };
    // Warm: the instance exists, the connection path is hot.
    for _ in 0..3 {
        let r = call();
        assert!(r.success, "{:?}", r.error);
    }

    let native = common::median_us(SAMPLES, BATCH, || native_get(port));
    let pipeline = common::median_us(SAMPLES, BATCH, || {
        assert!(call().success);
    });
    println!(
        "a granted GET of a small JSON answer from a loopback server, median of {SAMPLES} samples x {BATCH} requests (µs per request)"
    );
    println!("  native Rust (std TcpStream, new connection)   {native:>9.1}   1.00x");
    println!(
        "  weather.current through the whole pipeline    {pipeline:>9.1}   {:.2}x native, +{:.1} µs per request",
        pipeline / native,
        pipeline - native
    );
}
