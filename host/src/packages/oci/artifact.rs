//! A package as an OCI artifact, in the WebAssembly component layout other registries' tools
//! recognise (the CNCF TAG Runtime "Wasm OCI artifact" layout, as `wkg` and `oci-wasm` write
//! it): an OCI image manifest whose config is `application/vnd.wasm.config.v0+json`
//! (architecture `wasm`, os `wasip2`, the layer digests, the component's imports and exports)
//! and whose one layer is the component itself, `application/wasm`. The package's
//! `limina.toml` — its name, version, grants, pinned content hash and attestation — rides in
//! the manifest's annotations, so the manifest digest covers it and tools that know nothing
//! of Limina still see one plain component.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The manifest's media type.
pub const MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// The config's media type (Wasm OCI artifact layout, version 0).
pub const CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";
/// The component layer's media type.
pub const LAYER_MEDIA_TYPE: &str = "application/wasm";
/// The annotation holding the package's `limina.toml`.
pub const PACKAGE_MANIFEST_ANNOTATION: &str = "io.limina.package.manifest";
/// Largest manifest or config accepted from a registry.
pub const MAX_DOCUMENT_BYTES: usize = 4 << 20;

/// `sha256:<hex>` of `bytes`: how OCI names content.
pub fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// The documents a push uploads: the config and manifest bytes (the component is the layer).
pub struct Documents {
    pub config: Vec<u8>,
    pub manifest: Vec<u8>,
}

/// What the artifact says of itself, for the config's `component` field.
pub struct World {
    pub imports: Vec<String>,
    pub exports: Vec<String>,
}

/// The config and manifest for `component` with `package_manifest` (a limina.toml's text).
/// `created` is an RFC 3339 time.
pub fn assemble(
    component: &[u8],
    package_manifest: &str,
    name: &str,
    version: &str,
    world: &World,
    created: &str,
) -> Documents {
    let layer = digest(component);
    let config = serde_json::to_vec(&json!({
        "created": created,
        "architecture": "wasm",
        "os": "wasip2",
        "layerDigests": [layer],
        "component": {"imports": world.imports, "exports": world.exports},
    }))
    .expect("JSON values serialize");
    let manifest = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": MANIFEST_MEDIA_TYPE,
        "config": {"mediaType": CONFIG_MEDIA_TYPE, "digest": digest(&config), "size": config.len()},
        "layers": [{
            "mediaType": LAYER_MEDIA_TYPE,
            "digest": layer,
            "size": component.len(),
            "annotations": {"org.opencontainers.image.title": format!("{name}.wasm")},
        }],
        "annotations": {
            "org.opencontainers.image.title": name,
            "org.opencontainers.image.version": version,
            "org.opencontainers.image.created": created,
            PACKAGE_MANIFEST_ANNOTATION: package_manifest,
        },
    }))
    .expect("JSON values serialize");
    Documents { config, manifest }
}

/// A descriptor: what a manifest says of one blob.
#[derive(Debug, Clone, PartialEq)]
pub struct Descriptor {
    pub digest: String,
    pub size: u64,
}

/// A manifest checked to be a Limina package in the Wasm component layout.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub config: Descriptor,
    pub layer: Descriptor,
    /// The package's `limina.toml` text.
    pub package_manifest: String,
}

/// Checks a manifest's shape: the media types of the layout, one component layer, the
/// package manifest annotation. The error names what is wrong.
pub fn parse(manifest: &[u8]) -> Result<Parsed, String> {
    let value: Value = serde_json::from_slice(manifest)
        .map_err(|e| format!("the registry's manifest is not JSON: {e}"))?;
    if value["schemaVersion"] != 2 {
        return Err("the manifest's schemaVersion is not 2".into());
    }
    if let Some(media) = value["mediaType"].as_str()
        && media != MANIFEST_MEDIA_TYPE
    {
        return Err(format!(
            "the manifest is a `{media}`, not an OCI image manifest ({MANIFEST_MEDIA_TYPE}): \
             a multi-platform index or another kind of artifact is not a Limina package"
        ));
    }
    let config = descriptor(&value["config"], "config")?;
    if value["config"]["mediaType"] != CONFIG_MEDIA_TYPE {
        return Err(format!(
            "the manifest's config is `{}`, not `{CONFIG_MEDIA_TYPE}`: this is not a WebAssembly component artifact",
            value["config"]["mediaType"].as_str().unwrap_or("?")
        ));
    }
    let layers = value["layers"].as_array().cloned().unwrap_or_default();
    let wasm: Vec<&Value> = layers
        .iter()
        .filter(|l| l["mediaType"] == LAYER_MEDIA_TYPE)
        .collect();
    if wasm.len() != 1 {
        return Err(format!(
            "the manifest has {} `{LAYER_MEDIA_TYPE}` layers; a package has exactly one component",
            wasm.len()
        ));
    }
    let layer = descriptor(wasm[0], "layer")?;
    let package_manifest = value["annotations"][PACKAGE_MANIFEST_ANNOTATION]
        .as_str()
        .ok_or_else(|| {
            format!(
                "the manifest carries no `{PACKAGE_MANIFEST_ANNOTATION}` annotation: the component \
                 was pushed by a tool other than `limina pkg push` and has no limina.toml"
            )
        })?
        .to_string();
    Ok(Parsed {
        config,
        layer,
        package_manifest,
    })
}

/// Checks a config blob against the layer it must describe.
pub fn check_config(config: &[u8], layer: &Descriptor) -> Result<(), String> {
    let value: Value =
        serde_json::from_slice(config).map_err(|e| format!("the config is not JSON: {e}"))?;
    if value["architecture"] != "wasm" || value["os"] != "wasip2" {
        return Err(format!(
            "the config says architecture `{}` and os `{}`; a component is `wasm` on `wasip2`",
            value["architecture"].as_str().unwrap_or("?"),
            value["os"].as_str().unwrap_or("?")
        ));
    }
    if let Some(listed) = value["layerDigests"].as_array()
        && listed.iter().all(|d| d.as_str() != Some(&layer.digest))
    {
        return Err(format!(
            "the config's layerDigests do not list the component layer {}",
            layer.digest
        ));
    }
    Ok(())
}

fn descriptor(value: &Value, what: &str) -> Result<Descriptor, String> {
    let digest = value["digest"]
        .as_str()
        .filter(|d| {
            d.strip_prefix("sha256:")
                .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        })
        .ok_or_else(|| format!("the manifest's {what} has no sha256 digest"))?;
    let size = value["size"]
        .as_u64()
        .ok_or_else(|| format!("the manifest's {what} has no size"))?;
    Ok(Descriptor {
        digest: digest.to_ascii_lowercase(),
        size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> World {
        World {
            imports: vec!["limina:skill/log@0.1.0".into()],
            exports: vec!["limina:skill/package@0.1.0".into()],
        }
    }

    #[test]
    fn an_assembled_artifact_parses_back_to_its_parts() {
        let docs = assemble(
            b"\0asm component",
            "name = \"dice\"\n",
            "dice",
            "1.0.0",
            &world(),
            "2026-11-28T00:00:00Z",
        );
        let parsed = parse(&docs.manifest).unwrap();
        assert_eq!(parsed.layer.digest, digest(b"\0asm component"));
        assert_eq!(parsed.layer.size, 14);
        assert_eq!(parsed.config.digest, digest(&docs.config));
        assert_eq!(parsed.package_manifest, "name = \"dice\"\n");
        check_config(&docs.config, &parsed.layer).unwrap();
        let other = Descriptor {
            digest: digest(b"other"),
            size: 5,
        };
        assert!(
            check_config(&docs.config, &other)
                .unwrap_err()
                .contains("layerDigests")
        );
    }

    #[test]
    fn manifests_of_other_shapes_are_refused_saying_why() {
        let docs = assemble(b"c", "x", "dice", "1.0.0", &world(), "t");
        let mut value: Value = serde_json::from_slice(&docs.manifest).unwrap();
        let with = |edit: &dyn Fn(&mut Value)| {
            let mut v = value.clone();
            edit(&mut v);
            parse(&serde_json::to_vec(&v).unwrap()).unwrap_err()
        };
        assert!(
            with(&|v| v["config"]["mediaType"] = json!("application/vnd.oci.image.config.v1+json"))
                .contains("not a WebAssembly component artifact")
        );
        assert!(with(&|v| v["layers"][0]["mediaType"] = json!("application/vnd.oci.image.layer.v1.tar")).contains("0 `application/wasm` layers"));
        assert!(
            with(&|v| v["annotations"] = json!({})).contains("no `io.limina.package.manifest`")
        );
        assert!(
            with(&|v| v["mediaType"] = json!("application/vnd.oci.image.index.v1+json"))
                .contains("multi-platform index")
        );
        value["schemaVersion"] = json!(1);
        assert!(
            parse(&serde_json::to_vec(&value).unwrap())
                .unwrap_err()
                .contains("schemaVersion")
        );
    }
}
