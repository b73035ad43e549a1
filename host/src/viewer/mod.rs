//! The browser viewer: `GET /` on the HTTP server serves a page that draws the world live
//! with three.js and shows the newest trace events beside it.
//!
//! The page is an ordinary MCP client of the same server: it opens a session under the
//! viewer's profile (`system.readonly` unless configured), subscribes to the world with
//! `state/subscribe {detail: true}` and reads the session's `GET /mcp` stream, and pages the
//! trace with `trace.tail` (explaining an event with `audit.explain`). It therefore crosses
//! the same Host, Origin and token checks as any client, and can do nothing its read-only
//! session may not. Everything it loads comes from this binary: the page, its script and
//! the pinned three.js files embedded at build time; glTF assets are read from the assets
//! folder under the same path rules as `three.loadGLTF`.

pub mod app;

use crate::grants::path;
use crate::limits::MAX_ASSET_BYTES;
use std::borrow::Cow;
use std::path::PathBuf;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/viewer_three.rs"));
}

const INDEX: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/viewer.js");
const STYLE: &str = include_str!("page/viewer.css");

/// Where the page's files are served from.
pub const PREFIX: &str = "/viewer/";

/// What the viewer needs from the host's settings.
#[derive(Debug, Clone)]
pub struct Viewer {
    /// The profile the page asks for when it opens its session.
    pub profile: String,
    /// The folder glTF assets are served from (`--assets-dir`).
    pub assets_dir: PathBuf,
}

/// A file the viewer serves.
#[derive(Debug)]
pub struct File {
    pub content_type: &'static str,
    pub bytes: Cow<'static, [u8]>,
}

/// Why a viewer path was not served.
#[derive(Debug, PartialEq)]
pub enum Missing {
    /// No such file.
    NotFound(String),
    /// three.js was not embedded at build time.
    NoThree,
}

impl Viewer {
    /// Whether `path` belongs to the viewer (the page or its files). Paths are read under the
    /// path rule (`grants::path`): normalized, or refused — a refused one under [`PREFIX`] is
    /// the viewer's to refuse.
    pub fn serves(path: &str) -> bool {
        match path::normalize(path) {
            Ok(path) => path == "/" || path == "/index.html" || path.starts_with(PREFIX),
            Err(_) => path.starts_with(PREFIX),
        }
    }

    /// Whether `path` is a glTF asset from the assets folder (world data: it needs the same
    /// authorization as `/mcp`), rather than the page's own code. A path the rule refuses
    /// counts as one, so it is authorized before it is refused.
    pub fn is_asset(path: &str) -> bool {
        path::normalize(path).map_or(true, |p| p.starts_with("/viewer/assets/"))
    }

    /// The file at `path` (one [`Viewer::serves`] accepted), normalized under the path rule
    /// first, so an asset id decoded from it holds no separator or dot segment.
    pub fn file(&self, path: &str) -> Result<File, Missing> {
        let path =
            path::normalize(path).map_err(|refusal| Missing::NotFound(refusal.to_string()))?;
        let path = path.as_str();
        let own = |content_type, text: &'static str| {
            Ok(File {
                content_type,
                bytes: Cow::Borrowed(text.as_bytes()),
            })
        };
        match path {
            "/" | "/index.html" => {
                let page = INDEX.replace("{{PROFILE}}", &html_escape(&self.profile));
                return Ok(File {
                    content_type: "text/html; charset=utf-8",
                    bytes: Cow::Owned(page.into_bytes()),
                });
            }
            "/viewer/viewer.js" => return own("text/javascript; charset=utf-8", SCRIPT),
            "/viewer/viewer.css" => return own("text/css; charset=utf-8", STYLE),
            _ => {}
        }
        if let Some(name) = path.strip_prefix("/viewer/three/") {
            if embedded::THREE.is_empty() {
                return Err(Missing::NoThree);
            }
            return embedded::THREE
                .iter()
                .find(|(served, _)| *served == name)
                .map(|(_, bytes)| File {
                    content_type: "text/javascript; charset=utf-8",
                    bytes: Cow::Borrowed(*bytes),
                })
                .ok_or_else(|| Missing::NotFound(path.to_string()));
        }
        if let Some(id) = path.strip_prefix("/viewer/assets/") {
            return self.asset(id);
        }
        Err(Missing::NotFound(path.to_string()))
    }

    /// A glTF/GLB file from the assets folder, under `three.loadGLTF`'s path rules.
    fn asset(&self, id: &str) -> Result<File, Missing> {
        let id = percent_decode(id).ok_or_else(|| Missing::NotFound(id.to_string()))?;
        let path = crate::world::resolve_asset(&self.assets_dir, &id)
            .map_err(|e| Missing::NotFound(format!("{id}: {e}")))?;
        let too_big = std::fs::metadata(&path).map_or(true, |m| m.len() > MAX_ASSET_BYTES);
        if too_big {
            return Err(Missing::NotFound(format!("{id}: unreadable or too large")));
        }
        let bytes = std::fs::read(&path).map_err(|e| Missing::NotFound(format!("{id}: {e}")))?;
        let content_type = if id.ends_with(".glb") {
            "model/gltf-binary"
        } else {
            "model/gltf+json"
        };
        Ok(File {
            content_type,
            bytes: Cow::Owned(bytes),
        })
    }
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Decodes `%XX` escapes of a URL path; `None` for a malformed one or one that is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn viewer(dir: &std::path::Path) -> Viewer {
        Viewer {
            profile: "system.readonly".into(),
            assets_dir: dir.to_path_buf(),
        }
    }

    #[test]
    fn the_page_names_its_profile_and_loads_only_local_files() {
        let dir = tempfile::tempdir().unwrap();
        let page = viewer(dir.path()).file("/").unwrap();
        let html = String::from_utf8(page.bytes.into_owned()).unwrap();
        assert!(html.contains("system.readonly"), "{html}");
        assert!(!html.contains("{{PROFILE}}"));
        for remote in ["http://", "https://", "//cdn"] {
            assert!(!html.contains(remote), "the page must not load {remote}");
            assert!(
                !SCRIPT.contains(remote),
                "the script must not load {remote}"
            );
        }
        assert!(viewer(dir.path()).file("/viewer/viewer.js").is_ok());
    }

    #[test]
    fn assets_are_served_only_from_inside_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("crate.gltf"),
            b"{\"asset\":{\"version\":\"2.0\"}}",
        )
        .unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.gltf"), b"{}").unwrap();
        let v = viewer(dir.path());
        let file = v.file("/viewer/assets/crate.gltf").unwrap();
        assert_eq!(file.content_type, "model/gltf+json");
        for escape in [
            "../secret.gltf",
            "%2E%2E/secret.gltf",
            "%2Fetc%2Fpasswd",
            "..%5csecret.gltf",
            "..;/secret.gltf",
            "%252e%252e/secret.gltf",
            "missing.gltf",
        ] {
            let path = format!("/viewer/assets/{escape}");
            assert!(
                matches!(v.file(&path), Err(Missing::NotFound(_))),
                "{escape}"
            );
        }
        std::os::unix::fs::symlink(
            outside.path().join("secret.gltf"),
            dir.path().join("link.gltf"),
        )
        .unwrap();
        assert!(
            v.file("/viewer/assets/link.gltf").is_err(),
            "a link out is refused"
        );
    }

    #[test]
    fn paths_are_read_under_the_path_rule() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("crate.gltf"), b"{}").unwrap();
        let v = viewer(dir.path());
        // Dot segments are resolved before anything is decided, so the asset check sees the
        // file that is served.
        let tricked = "/viewer/three/../assets/crate.gltf";
        assert!(Viewer::serves(tricked) && Viewer::is_asset(tricked));
        assert!(v.file(tricked).is_ok());
        assert!(!Viewer::is_asset("/viewer/assets/../viewer.js"));
        assert!(
            Viewer::is_asset("/viewer/%2e%2e/x"),
            "refused paths are authorized first"
        );
        match v.file("/viewer/assets/%2e%2e/crate.gltf") {
            Err(Missing::NotFound(why)) => assert!(why.contains("path.encodedDot"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unknown_paths_are_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let v = viewer(dir.path());
        assert!(matches!(
            v.file("/viewer/nope.js"),
            Err(Missing::NotFound(_))
        ));
        assert!(Viewer::serves("/") && Viewer::serves("/viewer/x") && !Viewer::serves("/mcp"));
    }
}
