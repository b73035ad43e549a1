//! Build script: embeds files assembled by `cargo xtask build-guests` into the binary.

#[path = "build/viewer.rs"]
mod viewer;

fn main() {
    let manifest_dir = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    viewer::embed(&manifest_dir, &out_dir);
}
