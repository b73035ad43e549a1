//! `deploy/kubernetes/`: every manifest passes the Kubernetes schemas strictly (PyPI
//! `kubernetes-validate`, pinned, offline), and the validator does refuse a field the schema
//! lacks; the StatefulSet runs the image as its user on its port with flags this host has,
//! and the configuration it mounts is one this host accepts.

use crate::support::{limina_ok, repo, text};
use limina_guest_build::containers::KUBERNETES_VALIDATE;
use limina_guest_build::image;
use std::path::{Path, PathBuf};
use std::process::Command;

fn manifests() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(repo().join("deploy/kubernetes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    found.sort();
    found
}

fn validate(tool: &Path, files: &[PathBuf]) -> std::process::Output {
    // Through the venv's Python: the console script's first line names the folder it was
    // installed in, before the install moved it into place.
    Command::new(limina_guest_build::tools::venv_python(tool))
        .args([
            "-m",
            "kubernetes_validate",
            "--strict",
            "--kubernetes-version",
            "1.33.0",
        ])
        .args(files)
        .output()
        .unwrap()
}

#[test]
fn the_kubernetes_manifests_pass_the_schemas_strictly_and_a_stray_field_does_not() {
    let tool = KUBERNETES_VALIDATE.ensure().unwrap();
    let files = manifests();
    assert!(files.len() >= 5, "{files:?}");
    let out = validate(&tool, &files);
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{said}");
    assert_eq!(
        said.matches(" passed for resource ").count(),
        files.len(),
        "{said}"
    );

    let scratch = tempfile::tempdir().unwrap();
    let stray = scratch.path().join("statefulset.yaml");
    let original =
        std::fs::read_to_string(repo().join("deploy/kubernetes/statefulset.yaml")).unwrap();
    std::fs::write(
        &stray,
        original.replace(
            "  serviceName: limina-world\n",
            "  serviceName: limina-world\n  worldsPerPod: 2\n",
        ),
    )
    .unwrap();
    let out = validate(&tool, &[stray]);
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("worldsPerPod"), "{said}");
}

#[test]
fn the_stateful_set_runs_the_image_as_built_with_flags_and_configuration_this_host_accepts() {
    let set = std::fs::read_to_string(repo().join("deploy/kubernetes/statefulset.yaml")).unwrap();
    assert!(set.contains(&format!("runAsUser: {}", image::UID)));
    assert!(set.contains(&format!("containerPort: {}", image::HTTP_PORT)));
    assert!(set.contains("mountPath: /data"));
    let help = limina_ok(&["--help"]);
    for flag in set.lines().filter_map(|l| l.trim().strip_prefix("- --")) {
        assert!(
            help.contains(&format!("--{flag}")),
            "limina has no --{flag}"
        );
    }

    // The ConfigMap's config.toml, its token file pointed at a real one, loads.
    let map = std::fs::read_to_string(repo().join("deploy/kubernetes/configmap.yaml")).unwrap();
    let (_, body) = map.split_once("config.toml: |\n").unwrap();
    let toml: String = body
        .lines()
        .map(|l| format!("{}\n", l.strip_prefix("    ").unwrap_or(l)))
        .collect();
    let scratch = tempfile::tempdir().unwrap();
    let token = scratch.path().join("token");
    std::fs::write(&token, "0123456789abcdef0123456789abcdef").unwrap();
    assert!(toml.contains("/run/secrets/limina/token"));
    let config = scratch.path().join("config.toml");
    std::fs::write(
        &config,
        toml.replace("/run/secrets/limina/token", token.to_str().unwrap()),
    )
    .unwrap();
    if let Err(e) = limina::config::Config::load(&config) {
        panic!("the ConfigMap's configuration is refused: {e}");
    }
}
