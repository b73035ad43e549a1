//! A fleet on this machine, as an operator would run one: the image built from this host
//! (`limina_guest_build::image`), pushed to a local registry (Debian's docker-registry) and
//! pulled back; three worlds as pods (`podman kube play`, one pod per world, each on its own
//! volume), each serving MCP over HTTP on a published loopback port behind a bearer token.
//! One world is killed and its pod replaced: it comes back on its volume with the same world
//! hash. The other two are stopped with SIGTERM and checkpoint cleanly (exit 0). A call that
//! holds one world's engine turns its `/healthz` 503.
//!
//! Needs root and apt (podman, buildah, runc, catatonit, docker-registry are installed when
//! missing); CI runs as root.

use crate::http_client::{HttpHost, Reply};
use crate::local_registry::LocalRegistry;
use crate::support::repo;
use limina_guest_build::containers::Containers;
use limina_guest_build::image;
use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const TOKEN: &str = "fleet-test-token-0123456789abcdef";

/// The pods and volumes this test made, removed when it ends (by their names).
struct Fleet {
    containers: Containers,
    pods: Vec<String>,
    volumes: Vec<String>,
    images: Vec<String>,
}

impl Fleet {
    fn podman(&self, args: &[&str]) -> std::process::Output {
        self.containers.podman().args(args).output().unwrap()
    }

    fn podman_ok(&self, args: &[&str]) -> String {
        let out = self.podman(args);
        assert!(
            out.status.success(),
            "podman {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        for pod in &self.pods {
            let _ = self.podman(&["pod", "rm", "-f", "-t", "0", pod]);
        }
        for volume in &self.volumes {
            let _ = self.podman(&["volume", "rm", "-f", volume]);
        }
        for image in &self.images {
            let _ = self.podman(&["rmi", "-f", image]);
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One world's pod: its name, volume, port, and what it mounts besides its volume.
struct World {
    pod: String,
    volume: String,
    port: u16,
    /// `--packages` and `--config` from folders on this machine (the stall world's).
    extra: Option<(PathBuf, PathBuf)>,
}

impl World {
    fn yaml(&self, image: &str, secrets: &Path) -> String {
        let mut args = vec![
            "--mcp-http",
            "--bind",
            "0.0.0.0",
            "--port",
            "8788",
            "--auth-token-file",
            "/run/secrets/limina/token",
            "--allow-origin",
            "http://localhost:8788",
            "--profile",
            "builder.readWrite",
            "--manual-clock",
        ];
        let mut mounts = String::new();
        let mut volumes = String::new();
        if let Some((packages, config)) = &self.extra {
            args.extend([
                "--packages",
                "/packages",
                "--config",
                "/etc/limina/host.toml",
            ]);
            mounts.push_str(
                "        - {name: packages, mountPath: /packages, readOnly: true}\n        - {name: config, mountPath: /etc/limina, readOnly: true}\n",
            );
            volumes.push_str(&format!(
                "    - name: packages\n      hostPath: {{path: {}, type: Directory}}\n    - name: config\n      hostPath: {{path: {}, type: Directory}}\n",
                packages.display(),
                config.display()
            ));
        }
        let args: Vec<String> = args.iter().map(|a| format!("\"{a}\"")).collect();
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {pod}\nspec:\n  restartPolicy: Never\n  containers:\n    - name: limina\n      image: {image}\n      args: [{args}]\n      ports:\n        - {{containerPort: 8788, hostPort: {port}, hostIP: 127.0.0.1}}\n      volumeMounts:\n        - {{name: data, mountPath: /data}}\n        - {{name: tokens, mountPath: /run/secrets/limina, readOnly: true}}\n{mounts}  volumes:\n    - name: data\n      persistentVolumeClaim: {{claimName: {volume}}}\n    - name: tokens\n      hostPath: {{path: {secrets}, type: Directory}}\n{volumes}",
            pod = self.pod,
            args = args.join(", "),
            port = self.port,
            volume = self.volume,
            secrets = secrets.display(),
        )
    }

    fn http(&self) -> HttpHost {
        HttpHost::attach(format!("127.0.0.1:{}", self.port))
    }
}

/// POSTs a message with the bearer token (and the session, once there is one).
fn post(world: &World, session: Option<&str>, message: &Value) -> Reply {
    let auth = format!("Bearer {TOKEN}");
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("authorization", auth.as_str()),
    ];
    if let Some(s) = session {
        headers.push(("mcp-session-id", s));
    }
    world
        .http()
        .send("POST", "/mcp", &headers, &message.to_string())
}

fn session(world: &World) -> String {
    let reply = post(
        world,
        None,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fleet", "version": "0"}}}),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.header("mcp-session-id").unwrap().to_string()
}

fn call(world: &World, session: &str, name: &str, arguments: Value) -> Value {
    let reply = post(
        world,
        Some(session),
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": arguments}}),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let answer = reply.json();
    assert_eq!(answer["result"]["isError"], false, "{name}: {answer}");
    answer["result"]["structuredContent"].clone()
}

/// Waits until the world answers `/readyz` 200.
fn wait_ready(world: &World) {
    let started = Instant::now();
    loop {
        // Nothing listens on the published port until the host inside has started.
        let listening = std::net::TcpStream::connect(("127.0.0.1", world.port)).is_ok();
        let reply = listening.then(|| world.http().send("GET", "/readyz", &[], ""));
        if reply.as_ref().is_some_and(|r| r.status == 200) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{} not ready: {reply:?}",
            world.pod
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn world_hash(world: &World) -> String {
    let session = session(world);
    call(world, &session, "world.hash", json!({}))["hash"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn three_worlds_run_as_pods_from_a_pushed_image_survive_a_kill_drain_on_sigterm_and_report_a_stall()
{
    let started = Instant::now();
    let containers = match Containers::ensure(&repo()) {
        Ok(containers) => containers,
        // Only where they cannot be installed (not root, no apt); CI runs as root.
        Err(e) if unsafe { libc::geteuid() } != 0 => {
            eprintln!("fleet test skipped: {e:#}");
            return;
        }
        Err(e) => panic!("podman, buildah and the registry: {e:#}"),
    };
    let run = std::process::id();
    let mut fleet = Fleet {
        containers: containers.clone(),
        pods: Vec::new(),
        volumes: Vec::new(),
        images: Vec::new(),
    };

    // The image, pushed to the local registry and pulled back from it.
    let local = format!("localhost/limina:fleet-{run}");
    fleet.images.push(local.clone());
    let work = repo().join("target/image/fleet-test");
    std::fs::create_dir_all(&work).unwrap();
    let built = image::build(
        &containers,
        Path::new(env!("CARGO_BIN_EXE_limina")),
        &local,
        &work,
    )
    .expect("building the image");
    let registry = LocalRegistry::start();
    let remote = format!("{}/limina:fleet-{run}", registry.address);
    fleet.images.push(remote.clone());
    fleet.podman_ok(&[
        "push",
        "--tls-verify=false",
        &local,
        &format!("docker://{remote}"),
    ]);
    let (status, _) = registry.get(&format!("/v2/limina/manifests/fleet-{run}"));
    assert_eq!(status, 200, "the registry holds the pushed image");
    fleet.podman_ok(&["pull", "--tls-verify=false", &remote]);
    let pulled = fleet.podman_ok(&["image", "inspect", "--format", "{{.Id}}", &remote]);
    assert_eq!(pulled, built.id, "the image pulled back is the one built");

    // The token, and the stall world's package (a call that may hold its engine for 5 s).
    let secrets = tempfile::tempdir().unwrap();
    std::fs::write(secrets.path().join("token"), TOKEN).unwrap();
    let stall_packages = crate::support::package_dir(
        &repo().join("tests/all/engine_stall/spin"),
        &repo().join("target/components/spin.wasm"),
    );
    let stall_config = tempfile::tempdir().unwrap();
    std::fs::write(
        stall_config.path().join("host.toml"),
        "[limits]\nengineCallMs = 6000\n",
    )
    .unwrap();
    // Readable by the image's user.
    for dir in [secrets.path(), stall_packages.path(), stall_config.path()] {
        Command::new("chmod")
            .args(["-R", "a+rX"])
            .arg(dir)
            .status()
            .unwrap();
    }
    let worlds: Vec<World> = (0..3)
        .map(|i| World {
            pod: format!("limina-fleet-{run}-{i}"),
            volume: format!("limina-fleet-{run}-{i}-data"),
            port: free_port(),
            extra: (i == 2).then(|| {
                (
                    stall_packages.path().to_path_buf(),
                    stall_config.path().to_path_buf(),
                )
            }),
        })
        .collect();
    for world in &worlds {
        fleet.pods.push(world.pod.clone());
        fleet.volumes.push(world.volume.clone());
    }
    let plays = tempfile::tempdir().unwrap();
    let play = |world: &World| {
        let file = plays.path().join(format!("{}.yaml", world.pod));
        std::fs::write(&file, world.yaml(&remote, secrets.path())).unwrap();
        fleet.podman_ok(&["kube", "play", file.to_str().unwrap()]);
    };
    for world in &worlds {
        play(world);
    }
    for world in &worlds {
        wait_ready(world);
        // Without the token: refused.
        let bare = world.http().post(
            None,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}),
        );
        assert_eq!(bare.status, 401, "{}", bare.body);
    }

    // Each world is its own: entities made in one are not in another.
    let mut hashes = Vec::new();
    for (i, world) in worlds.iter().enumerate() {
        let session = session(world);
        for n in 0..=i {
            call(
                world,
                &session,
                "scene.createEntity",
                json!({"position": [n as f64, 1.0, 0.0]}),
            );
        }
        hashes.push(world_hash(world));
    }
    assert!(hashes[0] != hashes[1] && hashes[1] != hashes[2]);

    // World 0 is killed; its pod is replaced and comes back on its volume, the same world.
    let killed = &worlds[0];
    fleet.podman_ok(&[
        "kill",
        "--signal",
        "KILL",
        &format!("{}-limina", killed.pod),
    ]);
    fleet.podman_ok(&["pod", "rm", "-f", "-t", "0", &killed.pod]);
    play(killed);
    wait_ready(killed);
    assert_eq!(world_hash(killed), hashes[0], "the world came back intact");

    // A call holding world 2's engine turns its /healthz 503 within the stall limit.
    let stalled = &worlds[2];
    let stall_session = session(stalled);
    let holder = {
        let port = stalled.port;
        let session = stall_session.clone();
        std::thread::spawn(move || {
            let world = World {
                pod: String::new(),
                volume: String::new(),
                port,
                extra: None,
            };
            post(
                &world,
                Some(&session),
                &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "spin.forever", "arguments": {}}}),
            )
        })
    };
    let holding = Instant::now();
    let mut unhealthy = false;
    while holding.elapsed() < Duration::from_millis(4_800) {
        let reply = stalled.http().send("GET", "/healthz", &[], "");
        if reply.status == 503 {
            assert!(reply.body.contains("has not turned"), "{}", reply.body);
            unhealthy = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(unhealthy, "/healthz stayed 200 while the engine was held");
    holder.join().unwrap();

    // Worlds 1 and 2 are stopped with SIGTERM: they drain, checkpoint and exit 0.
    for world in &worlds[1..] {
        let container = format!("{}-limina", world.pod);
        fleet.podman_ok(&["kill", "--signal", "TERM", &container]);
        let stopping = Instant::now();
        loop {
            let state = fleet.podman_ok(&[
                "inspect",
                "--format",
                "{{.State.Status}} {{.State.ExitCode}}",
                &container,
            ]);
            if state.starts_with("exited") {
                assert_eq!(state, "exited 0", "{container}");
                break;
            }
            assert!(
                stopping.elapsed() < Duration::from_secs(20),
                "{container}: {state}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let logs = fleet.podman(&["logs", &container]);
        let logs = String::from_utf8_lossy(&logs.stderr).into_owned()
            + &String::from_utf8_lossy(&logs.stdout);
        assert!(logs.contains("drained in"), "{logs}");
        assert!(logs.contains("world checkpoint (shutdown)"), "{logs}");
    }
    eprintln!("fleet test: {:.1} s", started.elapsed().as_secs_f64());
}
