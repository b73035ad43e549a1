//! Embeds the three.js files `cargo xtask build-guests` assembled into `target/viewer/three/`,
//! as `$OUT_DIR/viewer_three.rs`: a list of (served name, bytes). Without them (a build before
//! the guests, or without npm) the list is empty and the viewer page says how to get them.

use std::fmt::Write as _;
use std::path::Path;

pub fn embed(manifest_dir: &Path, out_dir: &Path) {
    let three = manifest_dir.join("../target/viewer/three");
    println!("cargo:rerun-if-changed={}", three.display());
    let mut files = Vec::new();
    collect(&three, &three, &mut files);
    files.sort();
    let mut code = String::from(
        "/// three.js files served under `/viewer/three/`.\npub static THREE: &[(&str, &[u8])] = &[\n",
    );
    for (name, path) in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    std::fs::write(out_dir.join("viewer_three.rs"), code).expect("writing viewer_three.rs");
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, std::path::PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "js") {
            let name = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push((name, path));
        }
    }
}
