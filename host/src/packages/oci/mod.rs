//! Packages from an OCI registry: `limina pkg push DIR oci://HOST/REPO:TAG` uploads a package
//! as a WebAssembly component artifact ([`artifact`]); `oci://HOST/REPO@sha256:…` in
//! `--packages`, `[oci] packages` or `package.load` fetches one.
//!
//! A fetch is pulled by digest and checked before anything else sees it: the manifest's
//! sha256 is the pinned digest, each blob's sha256 is its descriptor's, the component's
//! sha256 is the `content_hash` its limina.toml pins and, when `trustedKeys` is set, the
//! limina.toml carries a valid ed25519 attestation by one of them. What passed is kept by
//! digest ([`store`]), so a pinned package loads again with the registry out of reach. Every
//! refusal says why ([`OciError`]); a host whose registry is unreachable keeps serving what
//! it has.

mod artifact;
mod client;
mod push;
mod reference;
mod settings;
mod store;

pub use artifact::{CONFIG_MEDIA_TYPE, LAYER_MEDIA_TYPE, MANIFEST_MEDIA_TYPE};
pub use push::{Pushed, push};
pub use reference::Reference;
pub use settings::{OciSettings, RawOci, parse as parse_settings};

use super::{PackageSource, SignatureCheck};
use crate::limits::MAX_COMPONENT_BYTES;
use artifact::{Descriptor, MAX_DOCUMENT_BYTES};
use client::Client;
use hyper::{Method, StatusCode, header};
use std::fmt;

/// Why a registry package was not had.
#[derive(Debug, Clone, PartialEq)]
pub struct OciError {
    pub kind: OciErrorKind,
    pub message: String,
}

/// The kinds of refusal, each with its rule name (`package.load`'s `rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OciErrorKind {
    /// The registry cannot be reached (connection, name, time).
    Unreachable,
    /// The reference or the configuration forbids it (a tag where a digest is demanded).
    Unpinned,
    /// What the registry answered is not a sound package (digests, shape, content hash).
    Refused,
    /// Not signed, or not by a trusted key, while `trustedKeys` is set.
    Untrusted,
}

impl OciErrorKind {
    /// The rule name a refusal is reported under.
    pub fn rule(self) -> &'static str {
        match self {
            OciErrorKind::Unreachable => "registry.unreachable",
            OciErrorKind::Unpinned => "registry.digest",
            OciErrorKind::Refused => "registry.refused",
            OciErrorKind::Untrusted => "package.signature",
        }
    }
}

impl OciError {
    fn new(kind: OciErrorKind, message: impl Into<String>) -> OciError {
        OciError {
            kind,
            message: message.into(),
        }
    }
    pub(crate) fn unreachable(message: impl Into<String>) -> OciError {
        OciError::new(OciErrorKind::Unreachable, message)
    }
    pub(crate) fn refused(message: impl Into<String>) -> OciError {
        OciError::new(OciErrorKind::Refused, message)
    }
}

impl fmt::Display for OciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.kind.rule())
    }
}

impl std::error::Error for OciError {}

/// Fetches the package `reference` names, checked as the module says; from the store when a
/// pinned digest is kept there (no network at all).
pub fn fetch(reference: &Reference, settings: &OciSettings) -> Result<PackageSource, OciError> {
    if reference.digest.is_none() && settings.require_digest {
        return Err(OciError::new(
            OciErrorKind::Unpinned,
            format!(
                "`{reference}` names a tag but no digest, and `[oci] requireDigest` is on: pin it \
                 as oci://{}/{}@sha256:… (the digest `limina pkg push` printed)",
                reference.registry, reference.repository
            ),
        ));
    }
    if let Some(digest) = &reference.digest
        && let Some(source) = store::read(settings.cache.as_deref(), digest)
    {
        check_trust(&source, reference, settings)?;
        return Ok(source);
    }
    let client = settings.client(reference)?;
    let manifest = get(
        &client,
        &format!(
            "/v2/{}/manifests/{}",
            reference.repository,
            reference.manifest_ref()
        ),
        &[(header::ACCEPT, artifact::MANIFEST_MEDIA_TYPE.to_string())],
        MAX_DOCUMENT_BYTES,
        reference,
    )?;
    let digest = artifact::digest(&manifest);
    if let Some(pinned) = &reference.digest
        && *pinned != digest
    {
        return Err(OciError::refused(format!(
            "the registry answered `{reference}` with a manifest whose sha256 is {digest}, not \
             the pinned digest; refused"
        )));
    }
    if let Some(source) = store::read(settings.cache.as_deref(), &digest) {
        check_trust(&source, reference, settings)?;
        return Ok(source);
    }
    let parsed = artifact::parse(&manifest).map_err(|why| refused_at(reference, why))?;
    if parsed.config.size > MAX_DOCUMENT_BYTES as u64 {
        return Err(refused_at(reference, "the config is over 4 MiB"));
    }
    if parsed.layer.size > MAX_COMPONENT_BYTES as u64 {
        return Err(refused_at(
            reference,
            format!(
                "the component is {} bytes, over the host's {MAX_COMPONENT_BYTES}",
                parsed.layer.size
            ),
        ));
    }
    let config = blob(&client, reference, &parsed.config)?;
    artifact::check_config(&config, &parsed.layer).map_err(|why| refused_at(reference, why))?;
    let component = blob(&client, reference, &parsed.layer)?;
    let manifest_toml = super::Manifest::parse(&parsed.package_manifest)
        .map_err(|e| refused_at(reference, format!("its limina.toml: {e}")))?;
    let layer_hash = parsed.layer.digest.clone();
    match &manifest_toml.content_hash {
        Some(pinned) if pinned.eq_ignore_ascii_case(&layer_hash) => {}
        Some(pinned) => {
            return Err(refused_at(
                reference,
                format!(
                    "the component's sha256 is {layer_hash}, not the content_hash {pinned} its \
                     limina.toml pins"
                ),
            ));
        }
        None => {
            return Err(refused_at(
                reference,
                "its limina.toml pins no content_hash (`limina pkg build` pins it before a push)",
            ));
        }
    }
    let source = store::keep(
        settings.cache.as_deref(),
        &digest,
        reference,
        &parsed.package_manifest,
        manifest_toml,
        component,
    )
    .map_err(|why| refused_at(reference, why))?;
    check_trust(&source, reference, settings)?;
    Ok(source)
}

/// With `trustedKeys` set, a fetched package must carry a valid attestation by one of them.
fn check_trust(
    source: &PackageSource,
    reference: &Reference,
    settings: &OciSettings,
) -> Result<(), OciError> {
    if settings.trusted_keys.is_empty() {
        return Ok(());
    }
    let name = &source.manifest.name;
    let why = match source.signature() {
        SignatureCheck::Valid { public_key }
            if settings
                .trusted_keys
                .iter()
                .any(|k| k.eq_ignore_ascii_case(&public_key)) =>
        {
            return Ok(());
        }
        SignatureCheck::Valid { public_key } => format!(
            "package `{name}` from `{reference}` is signed by {public_key}, which is not among \
             `trustedKeys`"
        ),
        SignatureCheck::Absent => format!(
            "package `{name}` from `{reference}` is not signed, and this host takes registry \
             packages only signed by one of `trustedKeys`: sign it with `limina pkg sign` and \
             push it again"
        ),
        SignatureCheck::Invalid(why) => {
            format!("package `{name}` from `{reference}`: {why}")
        }
    };
    Err(OciError::new(OciErrorKind::Untrusted, why))
}

fn refused_at(reference: &Reference, why: impl fmt::Display) -> OciError {
    OciError::refused(format!("`{reference}`: {why}"))
}

/// GETs `path`, insisting on 200; a 404 says the reference is not in the registry.
fn get(
    client: &Client,
    path: &str,
    headers: &[(header::HeaderName, String)],
    limit: usize,
    reference: &Reference,
) -> Result<Vec<u8>, OciError> {
    let answer = client.send(Method::GET, path, headers, Vec::new(), limit)?;
    match answer.status {
        StatusCode::OK => Ok(answer.body),
        StatusCode::NOT_FOUND => Err(refused_at(
            reference,
            format!(
                "the registry has no {}",
                path.rsplit('/').next().unwrap_or(path)
            ),
        )),
        status => Err(refused_at(
            reference,
            format!(
                "the registry answered {status} for {path}: {}",
                snippet(&answer.body)
            ),
        )),
    }
}

/// Downloads one blob and checks its size and sha256 against its descriptor.
fn blob(
    client: &Client,
    reference: &Reference,
    descriptor: &Descriptor,
) -> Result<Vec<u8>, OciError> {
    let path = format!("/v2/{}/blobs/{}", reference.repository, descriptor.digest);
    let bytes = get(client, &path, &[], descriptor.size as usize + 1, reference)?;
    let actual = artifact::digest(&bytes);
    if bytes.len() as u64 != descriptor.size || actual != descriptor.digest {
        return Err(refused_at(
            reference,
            format!(
                "the blob {} arrived as {} bytes with sha256 {actual}; refused",
                descriptor.digest,
                bytes.len()
            ),
        ));
    }
    Ok(bytes)
}

/// The first characters of an error body, for messages.
fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    match text.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}
