//! `limina pkg push DIR oci://HOST/REPO:TAG`: a built package uploaded as a WebAssembly
//! component artifact — the component and config blobs (each only when the registry lacks
//! it), then the manifest under the tag — and the digest to pin it by.

use super::artifact::{self, World};
use super::client::Client;
use super::{OciError, OciSettings, Reference, snippet};
use crate::packages::PackageSource;
use hyper::{Method, StatusCode, header};
use std::path::Path;

/// What a push left in the registry.
#[derive(Debug, Clone)]
pub struct Pushed {
    /// The manifest's digest: what `oci://…@sha256:…` pins.
    pub digest: String,
    /// The reference pinned to it.
    pub pinned: Reference,
    /// Bytes uploaded (blobs the registry already held are not sent again).
    pub uploaded: usize,
}

/// Pushes the package in `dir` to `reference`. The package must be built: its limina.toml
/// pins the component's content hash, which every host fetching it checks.
pub fn push(dir: &Path, reference: &Reference, settings: &OciSettings) -> anyhow::Result<Pushed> {
    let source = PackageSource::read(dir)?;
    match source.hash_matches() {
        Some(true) => {}
        Some(false) => anyhow::bail!(
            "the component in {} no longer matches the content_hash its limina.toml pins: \
             run `limina pkg build` (and `limina pkg sign` if it is signed) first",
            dir.display()
        ),
        None => anyhow::bail!(
            "{}/limina.toml pins no content_hash: run `limina pkg build` first",
            dir.display()
        ),
    }
    let text = std::fs::read_to_string(dir.join("limina.toml"))?;
    let world = limina_guest_build::component::world_of(&source.component)?;
    let world = World {
        imports: world.imports.into_iter().map(|e| e.name).collect(),
        exports: world.exports.into_iter().map(|e| e.name).collect(),
    };
    let docs = artifact::assemble(
        &source.component,
        &text,
        &source.manifest.name,
        &source.manifest.version,
        &world,
        &created(),
    );
    let client = settings.client(reference)?;
    let mut uploaded = 0;
    for blob in [&source.component[..], &docs.config[..]] {
        uploaded += upload(&client, reference, blob)?;
    }
    let digest = artifact::digest(&docs.manifest);
    let target = reference.tag.clone().unwrap_or_else(|| digest.clone());
    let answer = client.send(
        Method::PUT,
        &format!("/v2/{}/manifests/{target}", reference.repository),
        &[(
            header::CONTENT_TYPE,
            artifact::MANIFEST_MEDIA_TYPE.to_string(),
        )],
        docs.manifest.clone(),
        64 << 10,
    )?;
    if answer.status != StatusCode::CREATED {
        anyhow::bail!(
            "the registry refused the manifest ({}): {}",
            answer.status,
            snippet(&answer.body)
        );
    }
    if let Some(said) = answer
        .headers
        .get("docker-content-digest")
        .and_then(|v| v.to_str().ok())
        && said != digest
    {
        anyhow::bail!("the registry stored the manifest as {said}, not {digest}");
    }
    uploaded += docs.manifest.len();
    Ok(Pushed {
        pinned: reference.pinned(&digest),
        digest,
        uploaded,
    })
}

/// Uploads one blob unless the repository holds it; returns the bytes sent.
fn upload(client: &Client, reference: &Reference, bytes: &[u8]) -> Result<usize, OciError> {
    let digest = artifact::digest(bytes);
    let repo = &reference.repository;
    let head = client.send(
        Method::HEAD,
        &format!("/v2/{repo}/blobs/{digest}"),
        &[],
        Vec::new(),
        0,
    )?;
    if head.status == StatusCode::OK {
        return Ok(0);
    }
    let started = client.send(
        Method::POST,
        &format!("/v2/{repo}/blobs/uploads/"),
        &[(header::CONTENT_LENGTH, "0".into())],
        Vec::new(),
        64 << 10,
    )?;
    let location = started
        .headers
        .get(header::LOCATION)
        .and_then(|l| l.to_str().ok())
        .filter(|_| started.status == StatusCode::ACCEPTED)
        .ok_or_else(|| {
            OciError::refused(format!(
                "the registry did not start an upload ({}): {}",
                started.status,
                snippet(&started.body)
            ))
        })?;
    let separator = if location.contains('?') { '&' } else { '?' };
    let done = client.send(
        Method::PUT,
        &format!("{location}{separator}digest={digest}"),
        &[(header::CONTENT_TYPE, "application/octet-stream".into())],
        bytes.to_vec(),
        64 << 10,
    )?;
    if done.status != StatusCode::CREATED {
        return Err(OciError::refused(format!(
            "the registry refused the blob {digest} ({}): {}",
            done.status,
            snippet(&done.body)
        )));
    }
    Ok(bytes.len())
}

/// When the artifact was made, RFC 3339 in UTC: `$SOURCE_DATE_EPOCH` when set (reproducible
/// pushes give the same digest), else now.
fn created() -> String {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
    rfc3339(seconds)
}

/// `seconds` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (days to a civil date by the
/// proleptic Gregorian calendar).
fn rfc3339(seconds: i64) -> String {
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn times_are_written_as_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_910_400 + 3_723), "2026-11-29T01:02:03Z");
    }
}
