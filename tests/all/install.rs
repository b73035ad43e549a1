//! What a new user does with the one file `cargo xtask dist` makes: copy it into an empty
//! folder on a machine with no build tree, no cache and an empty home, point an MCP client at
//! it, and get the whole catalog (the 46 skills of the nine core packages and the host).
//!
//! The file here is this test build's own `limina` (`CARGO_BIN_EXE_limina`), copied: it embeds
//! the core packages exactly as the release `target/dist/limina` does (the same build script),
//! and building a release binary inside the test suite would take longer than the whole suite.
//! It runs with a cleared environment — `HOME` and `XDG_*` point at empty temporary folders,
//! no `LIMINA_*` is set, its working folder is the temporary one — and, where a mount
//! namespace can be made, the checkout itself is hidden behind an empty tmpfs, so nothing
//! leads it back to the build tree.

use crate::support::{Client, last_json_line, repo, text};
use limina::packages::{PackageSource, content_hash};
use limina::policy::Permission;
use limina_guest_build::clients::PYTHON_SDK;
use limina_guest_build::tools::venv_python;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

/// The core packages, by the prefix of their skills' names.
const CORE: [&str; 9] = [
    "agent", "audio", "camera", "ecs", "physics", "scene", "social", "three", "ui",
];

/// An empty machine: a temporary folder holding the copied binary, a home and XDG folders.
struct Machine {
    root: tempfile::TempDir,
    /// Whether `XDG_*` are set (else only `HOME`, and the defaults under it apply).
    xdg: bool,
}

impl Machine {
    fn new(xdg: bool) -> Machine {
        let root = tempfile::tempdir().unwrap();
        for dir in [
            "bin",
            "home",
            "xdg/cache",
            "xdg/state",
            "xdg/config",
            "xdg/data",
        ] {
            fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        fs::copy(env!("CARGO_BIN_EXE_limina"), root.path().join("bin/limina")).unwrap();
        Machine { root, xdg }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.path().join(relative)
    }

    fn binary(&self) -> PathBuf {
        self.path("bin/limina")
    }

    /// `program` with the machine's environment only, started in the machine's folder, with
    /// this checkout hidden where that can be done (see [`hidden_build_tree`]). Arguments
    /// added to the command go to `program`.
    fn command(&self, program: &Path) -> Command {
        let mut command = match hidden_build_tree() {
            Some(unshare) => {
                let mut command = Command::new("unshare");
                command.args(unshare).args([
                    "--mount",
                    "--",
                    "sh",
                    "-c",
                    "mount -t tmpfs limina-test \"$0\" && exec \"$@\"",
                ]);
                command.arg(repo()).arg(program);
                command
            }
            None => Command::new(program),
        };
        command
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", self.path("home"))
            .current_dir(self.root.path());
        if self.xdg {
            for (var, dir) in [
                ("XDG_CACHE_HOME", "xdg/cache"),
                ("XDG_STATE_HOME", "xdg/state"),
                ("XDG_CONFIG_HOME", "xdg/config"),
                ("XDG_DATA_HOME", "xdg/data"),
            ] {
                command.env(var, self.path(dir));
            }
        }
        command
    }

    /// Starts `limina --mcp-stdio` once (see [`exchange`]) and returns its log.
    fn start_once(&self) -> String {
        exchange(self.command(&self.binary()).arg("--mcp-stdio")).1
    }

    /// The compiled components in `dir`, with their modification times.
    fn compiled(&self, dir: &str) -> Vec<(String, SystemTime)> {
        let Ok(entries) = fs::read_dir(self.path(dir)) else {
            return Vec::new();
        };
        let mut files: Vec<(String, SystemTime)> = entries
            .map(|e| e.unwrap())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".cwasm"))
            .map(|e| {
                let modified = e.metadata().unwrap().modified().unwrap();
                (e.file_name().to_string_lossy().into_owned(), modified)
            })
            .collect();
        files.sort();
        files
    }
}

/// How to start a process that cannot see this checkout: in a mount namespace of its own
/// (`unshare`, as root or in a user namespace) with an empty tmpfs over the repository, so
/// that the build tree the binary was built in — its `target/core` included — is out of
/// reach. `None` (said once on stderr) where namespaces are not allowed; the binary then runs
/// beside the build tree, and the checks that the core came from the binary still hold
/// (`--version`, the compiled cache, no reload from a folder).
fn hidden_build_tree() -> Option<&'static [&'static str]> {
    static HOW: std::sync::OnceLock<Option<&'static [&'static str]>> = std::sync::OnceLock::new();
    *HOW.get_or_init(|| {
        let candidates: [&'static [&'static str]; 2] = [&[], &["--user", "--map-root-user"]];
        let found = candidates.into_iter().find(|unshare| {
            Command::new("unshare")
                .args(*unshare)
                .args(["--mount", "--", "sh", "-c"])
                .arg("mount -t tmpfs limina-test \"$0\" && test ! -e \"$0/Cargo.toml\"")
                .arg(repo())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        });
        if found.is_none() {
            eprintln!(
                "install: cannot hide the checkout in a mount namespace here; the copied binary runs beside it"
            );
        }
        found
    })
}

/// Runs a `limina --mcp-stdio` command: sends `initialize` and `tools/list`, closes stdin and
/// returns the listed tool names and the host's log once it has exited.
fn exchange(command: &mut Command) -> (Vec<String>, String) {
    use std::io::Write;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ];
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let log = text(&out.stderr);
    assert!(out.status.success(), "limina failed: {log}");
    let replies: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replies.len(), 2, "{replies:?}");
    let tools = replies[1]["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", replies[1]))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    (tools, log)
}

/// The core packages among `tools`, by their skills' prefix.
fn core_packages(tools: &[String]) -> BTreeSet<String> {
    tools
        .iter()
        .filter_map(|t| t.split('.').next())
        .filter(|p| CORE.contains(p))
        .map(str::to_string)
        .collect()
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(
                files_under(&path)
                    .into_iter()
                    .map(|f| format!("{}/{f}", path.file_name().unwrap().to_string_lossy())),
            );
        } else {
            found.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    found
}

/// The core packages as `cargo xtask build-guests` assembled them: name, version, hash.
fn built_core() -> Vec<(String, String, String)> {
    CORE.iter()
        .map(|name| {
            let source = PackageSource::read(&repo().join("target/core").join(name))
                .expect("build the guests first: cargo xtask build-guests");
            let hash = content_hash(&source.component);
            (source.manifest.name, source.manifest.version, hash)
        })
        .collect()
}

#[test]
fn a_copied_binary_serves_the_whole_catalog_to_the_python_sdk_from_an_empty_machine() {
    let sdk = PYTHON_SDK.ensure().expect("installing the Python MCP SDK");
    let machine = Machine::new(true);
    // A profile that may call everything, so that one listing shows the whole core.
    let all: Vec<String> = Permission::ALL
        .iter()
        .map(|p| format!("{:?}", p.as_str()))
        .collect();
    let config = machine.path("xdg/config/limina/config.toml");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    fs::write(
        &config,
        format!("[profiles.all]\npermissions = [{}]\n", all.join(", ")),
    )
    .unwrap();
    let script = machine.path("stdio_python.py");
    fs::copy(repo().join("tests/clients/stdio_python.py"), &script).unwrap();
    let out = machine
        .command(&venv_python(&sdk))
        .arg(&script)
        .arg(machine.binary())
        .args(["--mcp-stdio", "--profile", "all", "--config"])
        .arg(&config)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let report = last_json_line(&out);
    assert_eq!(report["server"], "limina");
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    let catalog = crate::catalog::catalog_names();
    assert_eq!(catalog.len(), 46);
    let missing: Vec<&str> = catalog
        .iter()
        .copied()
        .filter(|name| !tools.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "every skill of the catalog is listed; missing {missing:?} of {tools:?}"
    );
    let packages: BTreeSet<&str> = tools
        .iter()
        .filter_map(|t| t.split('.').next())
        .filter(|p| CORE.contains(p))
        .collect();
    assert_eq!(packages, CORE.into_iter().collect(), "{tools:?}");

    assert_eq!(report["made_error"], false, "{report}");
    let entity = &report["made"]["entity"];
    let found = report["found"]["entities"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(&found[0]["entity"], entity);
    assert_eq!(found[0]["position"], json!([7.0, 8.0, 9.0]));

    // It kept its compiled core and its trace in the XDG folders, and nothing in the home.
    let compiled: BTreeSet<String> = machine
        .compiled("xdg/cache/limina/compiled")
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    for (name, _, hash) in built_core() {
        let hex = hash.strip_prefix("sha256:").unwrap();
        assert!(
            compiled.iter().any(|f| f.starts_with(hex)),
            "{name} ({hash}) was compiled into the cache: {compiled:?}"
        );
    }
    assert!(
        files_under(&machine.path("xdg/state/limina/traces"))
            .iter()
            .any(|f| f.starts_with("segments/") && f.ends_with(".jsonl")),
        "the trace is in $XDG_STATE_HOME/limina/traces"
    );
    assert_eq!(files_under(&machine.path("home")), Vec::<String>::new());
}

#[test]
fn the_first_start_compiles_the_core_and_a_second_start_uses_the_cache() {
    // Only HOME: the cache goes to ~/.cache/limina/compiled.
    let machine = Machine::new(false);
    let cache = "home/.cache/limina/compiled";
    let first = machine.start_once();
    let compiling = |log: &str| {
        log.lines()
            // The compile's own line, not "still compiling …" progress under a slow machine.
            .filter(|l| l.contains("info: compiling package `"))
            .count()
    };
    assert_eq!(
        compiling(&first),
        9,
        "the first start compiles the core:\n{first}"
    );
    assert!(first.contains("from 9 packages ready"), "{first}");
    let cached = machine.compiled(cache);
    assert_eq!(cached.len(), 9, "{cached:?}");

    let second = machine.start_once();
    assert_eq!(
        compiling(&second),
        0,
        "the second start compiles nothing:\n{second}"
    );
    assert!(second.contains("from 9 packages ready"), "{second}");
    assert_eq!(
        machine.compiled(cache),
        cached,
        "the cache was read, not written"
    );
}

#[test]
fn version_names_the_contract_and_each_built_in_package_with_its_content_hash() {
    let machine = Machine::new(true);
    let out = machine
        .command(&machine.binary())
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    let mut lines = printed.lines();
    assert_eq!(
        lines.next(),
        Some(format!("limina {}", env!("CARGO_PKG_VERSION")).as_str())
    );
    let wit = fs::read_to_string(repo().join("wit/skill.wit")).unwrap();
    let package = wit
        .lines()
        .find_map(|l| l.strip_prefix("package "))
        .unwrap()
        .trim_end_matches(';');
    assert_eq!(
        lines.next(),
        Some(format!("WIT contract: {package}").as_str())
    );
    assert_eq!(
        lines.next(),
        Some("core packages built in (name, version, content hash):")
    );
    let listed: Vec<(String, String, String)> = lines
        .map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(fields.len(), 3, "{l}");
            (fields[0].into(), fields[1].into(), fields[2].into())
        })
        .collect();
    assert_eq!(listed, built_core());
}

#[test]
fn a_built_in_core_package_cannot_be_reloaded_and_nothing_changes() {
    let mut c = Client::session("builder.readWrite", &[]);
    c.call_ok("scene.createEntity", json!({"position": [1, 2, 3]}));
    let before = c.call_ok("inspector.snapshot", json!({"limit": 100}));
    for input in [
        json!({"target": "package", "name": "scene"}),
        json!({"target": "skill", "name": "scene.createEntity"}),
    ] {
        let r = c.call_ok("dev.reload", input.clone());
        assert_eq!(r["ok"], false, "{input}: {r}");
        let reason = r["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("package `scene` is built into this binary")
                && reason.contains("--core-dir target/core"),
            "{reason}"
        );
    }
    let after = c.call_ok("inspector.snapshot", json!({"limit": 100}));
    assert_eq!(
        after["entities"], before["entities"],
        "the world is unchanged"
    );
    // Each refusal is traced as a failed reload, with its reason.
    for kind in ["dev.package.reload.failed", "dev.skill.reload.failed"] {
        let failed = c.call_ok("trace.tail", json!({"type": kind}));
        let failed = failed["events"].as_array().unwrap();
        assert_eq!(failed.len(), 1, "{kind}: {failed:?}");
        let reason = failed[0]["payload"]["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("built into this binary"),
            "{kind}: {failed:?}"
        );
    }
    let loaded = c.call_ok("trace.tail", json!({"type": "package.loaded"}));
    let scene_loads = loaded["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["payload"]["package"] == "scene")
        .count();
    assert_eq!(scene_loads, 1, "scene was loaded once, at start-up");
    // Still serving the same package.
    c.call_ok("scene.createEntity", json!({"position": [4, 5, 6]}));
}

#[test]
fn core_dir_and_its_variable_still_choose_a_folder_over_the_built_in_core() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("scene");
    fs::create_dir(&scene).unwrap();
    for file in ["limina.toml", "scene.wasm"] {
        fs::copy(
            repo().join("target/core/scene").join(file),
            scene.join(file),
        )
        .unwrap();
    }
    let machine = Machine::new(true);
    // The user's compiled cache, so that this test compiles nothing new.
    let user_cache = limina::sandbox::CompileCache::default_dir().unwrap();
    let host = || {
        let mut command = machine.command(&machine.binary());
        command
            .arg("--cache-dir")
            .arg(&user_cache)
            .arg("--mcp-stdio");
        command
    };
    let only_scene = BTreeSet::from(["scene".to_string()]);
    let (tools, log) = exchange(host().arg("--core-dir").arg(dir.path()));
    assert_eq!(core_packages(&tools), only_scene, "--core-dir");
    assert!(log.contains("from 1 packages ready"), "{log}");
    let (tools, log) = exchange(host().env("LIMINA_CORE_DIR", dir.path()));
    assert_eq!(core_packages(&tools), only_scene, "LIMINA_CORE_DIR");
    assert!(log.contains("not the ones built in"), "{log}");
    let (tools, log) = exchange(&mut host());
    assert!(
        core_packages(&tools).len() > 1,
        "the built-in core: {tools:?}"
    );
    assert!(log.contains("from 9 packages ready"), "{log}");

    // A folder that is not there is refused, naming it, as before.
    let missing = dir.path().join("missing");
    let out = host()
        .arg("--core-dir")
        .arg(&missing)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let log = text(&out.stderr);
    assert!(
        log.contains(&format!(
            "the core packages were not found in {}",
            missing.display()
        )) && log.contains("cargo xtask build-guests"),
        "{log}"
    );
}
