//! `cargo bench -p limina --bench outbound`: what a granted HTTP fetch costs through the whole
//! pipeline — validation, policy, the guest, the grant and address checks, the request over
//! `wasi:http`, tracing and charging — against the same request made by native Rust, against
//! the same local server, in one run. Two guests: `rustfetch` (Rust, the SDK's
//! `limina_sdk::http`) and the `weather` example (Python, `limina_http`). Prints medians and
//! the overhead per request; needs `target/components/rustfetch.wasm` and
//! `packages/weather/weather.wasm` from `cargo xtask build-guests`.

use limina::call::CallControl;
use limina::config::Config;
use limina::packages::PackageSource;
use limina::policy::Permissions;
use limina::registry::{Caller, Invocation, Registry, Response};
use limina::sandbox::{CompileCache, Sandbox};
use serde_json::{Value, json};
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

/// A loaded package and how to call it as the server does: decided on the engine, run
/// detached (neither package touches the world), completed on the engine.
struct Bench {
    registry: Registry,
    caller: Caller,
    skill: &'static str,
    input: Value,
    scratch: Option<Box<limina::realm::Realm>>,
}

impl Bench {
    /// `package` (a folder holding its manifest and component) under `config`, called by a
    /// session of the profile `outbound`.
    fn new(package: &Path, config: &str, skill: &'static str, input: Value) -> Bench {
        let config = Config::parse(config).unwrap();
        let mut registry = Registry::new(
            Sandbox::new(CompileCache::new(CompileCache::default_dir())).unwrap(),
            config.policy,
            *common::realm(100),
        );
        registry.set_host_grants(config.grants);
        registry.set_ceilings(config.ceilings);
        registry
            .load(PackageSource::read(package).unwrap())
            .unwrap();
        let caller = Caller {
            agent_id: "bench".into(),
            session_id: "bench".into(),
            profile: "outbound".into(),
            permissions: Permissions::parse(&["net.outbound", "secrets.read"]).unwrap(),
        };
        let mut bench = Bench {
            registry,
            caller,
            skill,
            input,
            scratch: Some(common::realm(100)),
        };
        // Warm: the instance exists, the connection path is hot.
        for _ in 0..3 {
            let r = bench.call();
            assert!(r.success, "{skill}: {:?}", r.error);
        }
        bench
    }

    fn call(&mut self) -> Response {
        match self.registry.invoke_or_detach(
            &self.caller,
            self.skill,
            self.input.clone(),
            CallControl::default(),
        ) {
            Invocation::Done(r) => r,
            Invocation::Detached(d) => {
                let (back, ran) = d.run(self.scratch.take().unwrap());
                self.scratch = Some(back);
                self.registry.complete(ran)
            }
        }
    }
}

/// The host's part of every configuration: the profile, and no short engine deadline (a
/// benchmark measures, it does not cut).
const PROFILE: &str = "[limits]\nengineCallMs = 1000\n\n[profiles.outbound]\npermissions = [\"net.outbound\", \"secrets.read\"]\n";

/// A package folder in `dir`: `from`'s manifest with its network grant replaced by `network`,
/// and `component`.
fn package(dir: &Path, name: &str, from: &Path, component: &Path, grant: &str, network: &str) {
    let pkg = dir.join(name);
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::copy(component, pkg.join(format!("{name}.wasm"))).unwrap();
    let manifest = std::fs::read_to_string(from.join("limina.toml"))
        .unwrap()
        .replace(grant, &format!("network = [\"{network}\"]"));
    std::fs::write(pkg.join("limina.toml"), manifest).unwrap();
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let weather = repo.join("packages/weather");
    let rustfetch = repo.join("tests/guests/rustfetch");
    let rustfetch_wasm = repo.join("target/components/rustfetch.wasm");
    for built in [weather.join("weather.wasm"), rustfetch_wasm.clone()] {
        if !built.is_file() {
            eprintln!(
                "{} is missing: run `cargo xtask build-guests`",
                built.display()
            );
            std::process::exit(1);
        }
    }
    let port = serve();
    let base = format!("http://127.0.0.1:{port}");
    let dir = tempfile::tempdir().unwrap();

    // rustfetch: the SDK's Rust client, granted the local server.
    package(
        dir.path(),
        "rustfetch",
        &rustfetch,
        &rustfetch_wasm,
        r#"network = ["http://127.0.0.1:9"]"#,
        &base,
    );
    let url = format!(
        "{base}/v1/forecast?latitude=52.52&longitude=13.41&current=temperature_2m,wind_speed_10m"
    );
    let mut rust = Bench::new(
        &dir.path().join("rustfetch"),
        &format!("{PROFILE}\n[packages.rustfetch.grants]\nnetwork = [\"{base}\"]\n"),
        "rustfetch.get",
        json!({"url": url}),
    );

    // weather: the Python example, its API base and key given as secrets.
    package(
        dir.path(),
        "weather",
        &weather,
        &weather.join("weather.wasm"),
        r#"network = ["https://api.open-meteo.com/v1"]"#,
        &format!("{base}/v1"),
    );
    std::fs::write(dir.path().join("url"), format!("{base}/v1")).unwrap();
    std::fs::write(dir.path().join("key"), "bench").unwrap();
    let mut python = Bench::new(
        &dir.path().join("weather"),
        &format!(
            "{PROFILE}\n[secrets]\nWEATHER_API_URL = {{ file = \"{}\" }}\nWEATHER_API_KEY = {{ file = \"{}\" }}\n\n[packages.weather.grants]\nnetwork = [\"{base}\"]\nsecrets = [\"WEATHER_API_URL\", \"WEATHER_API_KEY\"]\n",
            dir.path().join("url").display(),
            dir.path().join("key").display()
        ),
        "weather.current",
        json!({"latitude": 52.52, "longitude": 13.41}),
    );

    let native = common::median_us(SAMPLES, BATCH, || native_get(port));
    let through_rust = common::median_us(SAMPLES, BATCH, || {
        let r = rust.call();
        assert!(
            r.success && r.result.as_ref().unwrap()["status"] == 200,
            "{r:?}"
        );
    });
    let through_python = common::median_us(SAMPLES, BATCH, || {
        let r = python.call();
        assert!(r.success, "{:?}", r.error);
    });
    println!(
        "a granted GET of a small JSON answer from a loopback server, median of {SAMPLES} samples x {BATCH} requests (µs per request)"
    );
    println!(
        "  {:<42}  {native:>9.1}   1.00x",
        "native Rust (std TcpStream, new connection)"
    );
    for (name, us) in [
        ("rustfetch.get (Rust, limina_sdk::http)", through_rust),
        ("weather.current (Python, limina_http)", through_python),
    ] {
        println!(
            "  {name:<42}  {us:>9.1}   {:.2}x native, +{:.1} µs per request",
            us / native,
            us - native
        );
    }
}
