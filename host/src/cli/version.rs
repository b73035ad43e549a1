//! `limina --version`: what exactly runs — the host, the WIT contract it implements, and each
//! core package built into it with the content hash the registry admits it under.

use limina::packages::embedded;
use limina::sandbox::bindings::wit_package;

/// The text `--version` prints.
pub fn text() -> String {
    let mut out = format!(
        "limina {}\nWIT contract: {}\n",
        env!("CARGO_PKG_VERSION"),
        wit_package()
    );
    let packages = embedded::packages();
    if packages.is_empty() {
        out.push_str(
            "core packages built in: none (built before `cargo xtask build-guests`; serving needs --core-dir)\n",
        );
        return out;
    }
    out.push_str("core packages built in (name, version, content hash):\n");
    for package in packages {
        match package.source() {
            Ok(source) => out.push_str(&format!(
                "  {:<8} {:<8} {}\n",
                source.manifest.name,
                source.manifest.version,
                source.content_hash()
            )),
            Err(e) => out.push_str(&format!("  {:<8} unreadable: {e:#}\n", package.folder)),
        }
    }
    out
}
