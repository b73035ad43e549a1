//! TLS for granted `https` requests: rustls with the Mozilla roots compiled in
//! (`webpki-roots`), plus the extra roots the host's configuration names for a private CA (or
//! a test's own): `[outbound] extraRoots = ["ca.pem"]`. An extra root is trusted *in
//! addition* to the web roots; nothing here turns verification off — the server's certificate
//! must chain to a trusted root and name the host the request was granted for.

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use serde::Deserialize;
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, LazyLock};
use toml::Spanned;

/// `[outbound]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct RawOutbound {
    #[serde(default)]
    extra_roots: Vec<Spanned<String>>,
    /// What a credential found in a result does (`crate::grants::credentials`).
    pub(crate) scan_results: Option<Spanned<String>>,
}

/// The roots outbound TLS trusts and the client configuration made from them.
#[derive(Debug, Clone)]
pub struct TlsRoots {
    config: Arc<rustls::ClientConfig>,
    /// How many certificates came from `extraRoots`.
    pub extra: usize,
}

impl Default for TlsRoots {
    /// The web roots alone.
    fn default() -> Self {
        WEB.clone()
    }
}

static WEB: LazyLock<TlsRoots> = LazyLock::new(|| TlsRoots::with_extra(Vec::new()));

impl TlsRoots {
    /// The web roots plus `extra`.
    fn with_extra(extra: Vec<CertificateDer<'static>>) -> TlsRoots {
        let mut roots =
            rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        let count = extra.len();
        // Each was checked by `parse` (add_parsable_certificates would skip a bad one silently).
        for cert in extra {
            let _ = roots.add(cert);
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("ring supports the default TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        TlsRoots {
            config: Arc::new(config),
            extra: count,
        }
    }

    /// The rustls client configuration: these roots, HTTP/1.1.
    pub fn client_config(&self) -> Arc<rustls::ClientConfig> {
        self.config.clone()
    }

    /// Checks `[outbound]` and reads its `extraRoots` (PEM files; relative paths start at
    /// `base`, the configuration file's folder). An error carries the span of the bad value.
    pub(crate) fn parse(
        raw: Option<RawOutbound>,
        base: Option<&Path>,
    ) -> Result<TlsRoots, (Range<usize>, String)> {
        let Some(raw) = raw else {
            return Ok(TlsRoots::default());
        };
        let mut extra = Vec::new();
        for (i, entry) in raw.extra_roots.iter().enumerate() {
            let at = |msg: String| (entry.span(), format!("`outbound.extraRoots[{i}]`: {msg}"));
            let written = entry.get_ref();
            let path = match base {
                Some(base) => base.join(written),
                None => written.into(),
            };
            let bytes = std::fs::read(&path).map_err(|e| {
                at(format!(
                    "cannot read `{}` ({e}): give the path of a PEM file holding the CA's certificate",
                    path.display()
                ))
            })?;
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&bytes)
                .collect::<Result<_, _>>()
                .map_err(|e| at(format!("`{}` is not valid PEM: {e}", path.display())))?;
            if certs.is_empty() {
                return Err(at(format!(
                    "`{}` holds no certificate (a `-----BEGIN CERTIFICATE-----` block)",
                    path.display()
                )));
            }
            for cert in certs {
                // A root store takes only what webpki can use as a trust anchor.
                rustls::RootCertStore::empty()
                    .add(cert.clone())
                    .map_err(|e| {
                        at(format!(
                            "`{}` holds a certificate rustls cannot trust as a root: {e}",
                            path.display()
                        ))
                    })?;
                extra.push(cert);
            }
        }
        Ok(TlsRoots::with_extra(extra))
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn without_outbound_only_the_web_roots_are_trusted() {
        let c = Config::parse("").unwrap();
        assert_eq!(c.outbound.extra, 0);
        let c = Config::parse("[outbound]\n").unwrap();
        assert_eq!(c.outbound.extra, 0);
    }

    #[test]
    fn an_extra_root_is_read_relative_to_the_configuration() {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca = params
            .self_signed(&rcgen::KeyPair::generate().unwrap())
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ca.pem"), ca.pem()).unwrap();
        let path = dir.path().join("limina.toml");
        std::fs::write(&path, "[outbound]\nextraRoots = [\"ca.pem\"]\n").unwrap();
        assert_eq!(Config::load(&path).unwrap().outbound.extra, 1);

        // An https upstream trusts the same roots.
        std::fs::write(
            &path,
            "[outbound]\nextraRoots = [\"ca.pem\"]\n\n[[upstream]]\nname = \"remote\"\n\
             transport = \"http\"\nurl = \"https://mcp.example/mcp\"\n",
        )
        .unwrap();
        let config = Config::load(&path).unwrap();
        assert_eq!(config.upstreams[0].roots.extra, 1);
    }

    #[test]
    fn a_missing_root_file_names_the_key_the_line_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("limina.toml");
        std::fs::write(&path, "\n[outbound]\nextraRoots = [\"nope.pem\"]\n").unwrap();
        let err = Config::load(&path).unwrap_err().to_string();
        assert!(
            err.contains("3:")
                && err.contains("`outbound.extraRoots[0]`: cannot read")
                && err.contains("nope.pem")
                && err.contains("give the path of a PEM file"),
            "{err}"
        );
    }

    #[test]
    fn a_file_without_a_certificate_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ca.pem"), "not a certificate\n").unwrap();
        let path = dir.path().join("limina.toml");
        std::fs::write(&path, "[outbound]\nextraRoots = [\"ca.pem\"]\n").unwrap();
        let err = Config::load(&path).unwrap_err().to_string();
        assert!(
            err.contains("`outbound.extraRoots[0]`") && err.contains("holds no certificate"),
            "{err}"
        );
    }

    #[test]
    fn an_unknown_key_in_outbound_is_refused() {
        let err = Config::parse("[outbound]\ninsecure = true\n").unwrap_err();
        assert!(err.contains("insecure"), "{err}");
    }
}
