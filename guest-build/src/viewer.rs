//! The three.js files the host's browser viewer serves: npm `three`, pinned, installed into
//! the cache like every other tool and assembled into `target/viewer/three/`, where the
//! host's build script embeds them, so the page never fetches anything from the network.

use crate::repo::Repo;
use crate::tools::{Registry, Tool};
use anyhow::{Context, Result};
use std::fs;

/// three.js, which the viewer draws the world with.
pub const THREE: Tool = Tool {
    package: "three",
    version: "0.187.0",
    registry: Registry::Npm,
    purpose: "three.js, for the host's browser viewer",
    size: "30 MB",
    with: &[],
};

/// The files the page imports: where each is served under `/viewer/three/`, and where it lies
/// in the npm package. The addons' bare `'three'` import is pointed at the served module as
/// they are assembled, so the page needs no inline import map (its CSP allows none).
pub const FILES: [(&str, &str); 6] = [
    ("three.module.js", "build/three.module.js"),
    ("three.core.js", "build/three.core.js"),
    (
        "addons/controls/OrbitControls.js",
        "examples/jsm/controls/OrbitControls.js",
    ),
    (
        "addons/loaders/GLTFLoader.js",
        "examples/jsm/loaders/GLTFLoader.js",
    ),
    (
        "addons/utils/BufferGeometryUtils.js",
        "examples/jsm/utils/BufferGeometryUtils.js",
    ),
    (
        "addons/utils/SkeletonUtils.js",
        "examples/jsm/utils/SkeletonUtils.js",
    ),
];

/// Installs three.js when missing and copies the served files into `target/viewer/three/`
/// (only those that differ, so the host is not rebuilt for nothing).
pub fn assemble(repo: &Repo) -> Result<()> {
    let package = THREE.ensure()?.join("node_modules").join("three");
    let out = repo.root.join("target").join("viewer").join("three");
    for (served, source) in FILES {
        let from = package.join(source);
        let to = out.join(served);
        let mut bytes = fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
        if served.starts_with("addons/") {
            let text = String::from_utf8(bytes).context("a three.js addon is not UTF-8")?;
            bytes = text
                .replace("from 'three';", "from '/viewer/three/three.module.js';")
                .into_bytes();
        }
        if fs::read(&to).ok().as_deref() == Some(&bytes[..]) {
            continue;
        }
        fs::create_dir_all(to.parent().expect("a file has a folder"))?;
        fs::write(&to, &bytes).with_context(|| format!("writing {}", to.display()))?;
    }
    Ok(())
}
