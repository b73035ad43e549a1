//! The container image: built from scratch around one `limina` binary, with the libraries it
//! links (as `ldd` lists them), a non-root user, `/data` as the volume for the trace, world,
//! state and the writable compiled cache, the ports, and the core packages compiled ahead of
//! time (`limina precompile`) so a fresh container answers at once.
//!
//! The context is staged in a folder of its own and built with `buildah bud` (chroot
//! isolation: the build runs nothing, it only copies files) at a fixed timestamp, so the same
//! binary makes the same image. The precompiled folder is kept per binary hash and reused.

use crate::containers::Containers;
use crate::process;
use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The user the host runs as inside the image (not root; no name clashes with a host's).
pub const UID: u32 = 10001;
/// The HTTP port the image serves MCP on by default (and the probes ask).
pub const HTTP_PORT: u16 = 8788;
/// The WebSocket port, exposed for `--mcp-ws`.
pub const WS_PORT: u16 = 8787;
/// Where the binary lives in the image.
pub const BINARY: &str = "/usr/local/bin/limina";
/// Where the precompiled components live in the image.
pub const PRECOMPILED: &str = "/opt/limina/precompiled";

/// What was built.
#[derive(Debug, Clone)]
pub struct Built {
    /// The image's tag.
    pub tag: String,
    /// The image id (sha256 of its configuration).
    pub id: String,
    /// Its size unpacked, in bytes (`podman image inspect`'s Size).
    pub size: u64,
}

/// Builds the image `tag` around `binary`, staging its context in `work`.
pub fn build(containers: &Containers, binary: &Path, tag: &str, work: &Path) -> Result<Built> {
    let context = work.join("context");
    if context.exists() {
        fs::remove_dir_all(&context).with_context(|| format!("clearing {}", context.display()))?;
    }
    let rootfs = context.join("rootfs");
    let bin = rootfs.join(BINARY.trim_start_matches('/'));
    fs::create_dir_all(bin.parent().unwrap())?;
    // The symbol table is for debuggers; the image carries the code only.
    process::run_quietly(
        Command::new("strip")
            .arg("--strip-all")
            .arg("-o")
            .arg(&bin)
            .arg(binary),
    )?;
    for library in linked_libraries(&bin)? {
        let into = rootfs.join(library.strip_prefix("/").unwrap_or(&library));
        fs::create_dir_all(into.parent().unwrap())?;
        // The file itself, not a symlink to it (the image has no /lib symlinks of its own).
        fs::copy(&library, &into)
            .with_context(|| format!("copying {} into the image", library.display()))?;
    }
    let etc = rootfs.join("etc");
    fs::create_dir_all(&etc)?;
    fs::write(
        etc.join("passwd"),
        format!(
            "root:x:0:0:root:/root:/sbin/nologin\nlimina:x:{UID}:{UID}:limina:/data:/sbin/nologin\n"
        ),
    )?;
    fs::write(etc.join("group"), format!("root:x:0:\nlimina:x:{UID}:\n"))?;
    let tmp = rootfs.join("tmp");
    fs::create_dir_all(&tmp)?;
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o1777))?;
    fs::create_dir_all(context.join("data"))?;
    let precompiled = precompiled(&bin, work)?;
    let staged = context.join("precompiled");
    copy_dir(&precompiled, &staged)?;
    fs::write(context.join("Containerfile"), containerfile())?;
    process::run_quietly(
        containers
            .buildah()
            .args([
                "bud",
                "--isolation",
                "chroot",
                "--timestamp",
                "0",
                "--quiet",
            ])
            .args(["-f", "Containerfile", "-t", tag, "."])
            .current_dir(&context),
    )
    .context("building the image with buildah")?;
    let inspect = process::output_text(containers.podman().args([
        "image",
        "inspect",
        "--format",
        "{{.Id}} {{.Size}}",
        tag,
    ]))?;
    let (id, size) = inspect
        .trim()
        .split_once(' ')
        .context("podman image inspect printed no id and size")?;
    Ok(Built {
        tag: tag.to_string(),
        id: id.to_string(),
        size: size.parse().context("the image size")?,
    })
}

/// The image's recipe. The environment points the host's defaults into `/data` (the trace
/// and world under `state/`, the writable compiled cache under `cache/`) and at the
/// precompiled folder; the default command serves MCP over HTTP on every address with the
/// token mounted at `/run/secrets/limina/token` (it refuses to start without one). The only
/// browser origin named is a loopback one, which is allowed anyway: pages of other sites stay
/// refused until the operator lists theirs.
fn containerfile() -> String {
    format!(
        "FROM scratch\n\
         COPY rootfs/ /\n\
         COPY precompiled/ {PRECOMPILED}/\n\
         COPY --chown={UID}:{UID} data/ /data/\n\
         ENV HOME=/data XDG_STATE_HOME=/data/state LIMINA_CACHE_DIR=/data/cache \
         LIMINA_PRECOMPILED_DIR={PRECOMPILED}\n\
         USER {UID}:{UID}\n\
         WORKDIR /data\n\
         VOLUME /data\n\
         EXPOSE {HTTP_PORT}/tcp {WS_PORT}/tcp\n\
         LABEL org.opencontainers.image.title=limina \
         org.opencontainers.image.description=\"A WASM-sandboxed skill host spoken to over MCP\"\n\
         ENTRYPOINT [\"{BINARY}\"]\n\
         CMD [\"--mcp-http\", \"--bind\", \"0.0.0.0\", \"--port\", \"{HTTP_PORT}\", \
         \"--auth-token-file\", \"/run/secrets/limina/token\", \
         \"--allow-origin\", \"http://localhost:{HTTP_PORT}\"]\n"
    )
}

/// The shared libraries `binary` links, by their paths on this machine (the dynamic loader
/// among them), from `ldd`.
fn linked_libraries(binary: &Path) -> Result<Vec<PathBuf>> {
    let text = process::output_text(Command::new("ldd").arg(binary))?;
    let mut found = Vec::new();
    for line in text.lines() {
        // `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)` or `/lib64/ld-linux….so.2 (0x…)`;
        // the vDSO has no file.
        let path = match line.split_once("=>") {
            Some((_, right)) => right.split_whitespace().next(),
            None => line.split_whitespace().next(),
        };
        match path {
            Some(path) if path.starts_with('/') => found.push(PathBuf::from(path)),
            Some("not") => bail!(
                "{} links a library not found here: {line}",
                binary.display()
            ),
            _ => {}
        }
    }
    if found.is_empty() {
        bail!("ldd listed no libraries for {}", binary.display());
    }
    Ok(found)
}

/// The precompiled folder for `binary`: made by `limina precompile` once per binary (by its
/// sha256) and kept in `work`, older ones removed.
fn precompiled(binary: &Path, work: &Path) -> Result<PathBuf> {
    let bytes = fs::read(binary).with_context(|| format!("reading {}", binary.display()))?;
    let hash = hex::encode(Sha256::digest(&bytes));
    let dir = work.join(format!("precompiled-{}", &hash[..16]));
    let done = dir.join(".complete");
    if done.is_file() {
        return Ok(dir);
    }
    for entry in fs::read_dir(work)? {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("precompiled-") && path.is_dir() {
            fs::remove_dir_all(&path)?;
        }
    }
    crate::say!("compiling the core packages for the image…");
    process::run_quietly(
        Command::new(binary)
            .args(["precompile", "--into"])
            .arg(&dir)
            .env_remove("LIMINA_CORE_DIR"),
    )?;
    fs::write(&done, "")?;
    Ok(dir)
}

/// Copies the files of `from` (one level, no marker files) into a new folder `to`.
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default();
        if path.is_file() && !name.to_string_lossy().starts_with('.') {
            fs::copy(&path, to.join(name))
                .with_context(|| format!("copying {}", path.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recipe_runs_as_the_limina_user_with_data_as_its_volume() {
        let recipe = containerfile();
        assert!(recipe.starts_with("FROM scratch\n"));
        assert!(recipe.contains("USER 10001:10001"));
        assert!(recipe.contains("VOLUME /data"));
        assert!(recipe.contains("LIMINA_PRECOMPILED_DIR=/opt/limina/precompiled"));
    }

    #[test]
    fn the_libraries_ldd_lists_are_found() {
        let libraries = linked_libraries(Path::new("/bin/sh")).unwrap();
        assert!(
            libraries
                .iter()
                .any(|l| l.to_string_lossy().contains("libc.so"))
        );
        assert!(
            libraries
                .iter()
                .any(|l| l.to_string_lossy().contains("ld-linux"))
        );
    }
}
