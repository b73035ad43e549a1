//! The host's side of grants, from its configuration: where each named volume lives, where
//! each secret's value comes from, and what each package is given.
//!
//! ```toml
//! [volumes]
//! rules = "/srv/limina/rules"            # a host directory, mounted as /rules in the guest
//!
//! [secrets]
//! WEATHER_KEY = { env = "LIMINA_WEATHER_KEY" }   # or { file = "/etc/limina/weather-key" }
//!
//! [packages.weather.grants]              # the same shape as a manifest's [grants]
//! network = ["https://api.open-meteo.com/v1"]
//! secrets = ["WEATHER_KEY"]
//! ```

use super::{Grants, RawGrants, valid_secret, valid_volume};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use toml::Spanned;

/// Volumes, secrets and per-package grants, as configured. Empty by default: no package is
/// given anything.
#[derive(Debug, Clone, Default)]
pub struct HostGrants {
    volumes: BTreeMap<String, PathBuf>,
    secrets: BTreeMap<String, Secret>,
    packages: BTreeMap<String, Grants>,
}

/// A secret's value. Its `Debug` never shows it, so it cannot leak through a log of the
/// configuration.
#[derive(Clone, PartialEq)]
pub struct Secret(String);

impl Secret {
    /// The value itself: only for handing to a guest granted it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// `NAME = { env = "VAR" }` or `NAME = { file = "path" }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSecret {
    env: Option<String>,
    file: Option<PathBuf>,
}

static NO_GRANTS: std::sync::LazyLock<Grants> = std::sync::LazyLock::new(Grants::default);

impl HostGrants {
    /// Checks the configuration's `[volumes]`, `[secrets]` and each `[packages.NAME.grants]`,
    /// reading every secret's value now (a missing variable or file stops the start-up rather
    /// than a call later). Errors carry the span of what is wrong.
    pub fn parse(
        volumes: BTreeMap<String, Spanned<String>>,
        secrets: BTreeMap<String, Spanned<RawSecret>>,
        packages: Vec<(String, Spanned<RawGrants>)>,
    ) -> Result<HostGrants, (Range<usize>, String)> {
        let mut out = HostGrants::default();
        for (name, path) in volumes {
            let span = path.span();
            if !valid_volume(&name) {
                return Err((
                    span,
                    format!(
                        "`volumes.{name}`: a volume is named by lowercase letters, digits, `-` and `_`, starting with a letter"
                    ),
                ));
            }
            let path = PathBuf::from(path.into_inner());
            if path.as_os_str().is_empty() {
                return Err((span, format!("`volumes.{name}` must be a host directory")));
            }
            out.volumes.insert(name, path);
        }
        for (name, raw) in secrets {
            let span = raw.span();
            if !valid_secret(&name) {
                return Err((
                    span,
                    format!(
                        "`secrets.{name}`: a secret is named like an environment variable (letters, digits, `_`)"
                    ),
                ));
            }
            let value = read_secret(&name, raw.into_inner()).map_err(|e| (span, e))?;
            out.secrets.insert(name, value);
        }
        for (package, raw) in packages {
            let span = raw.span();
            let grants = Grants::parse(raw.into_inner())
                .map_err(|e| (span.clone(), format!("`packages.{package}`: {e}")))?;
            if let Some(f) = grants
                .files
                .iter()
                .find(|f| !out.volumes.contains_key(&f.volume))
            {
                return Err((
                    span,
                    format!(
                        "`packages.{package}.grants`: the volume `{}` is not defined; add it under `[volumes]` with its host directory",
                        f.volume
                    ),
                ));
            }
            if let Some(s) = grants
                .secrets
                .iter()
                .find(|s| !out.secrets.contains_key(*s))
            {
                return Err((
                    span,
                    format!(
                        "`packages.{package}.grants`: the secret `{s}` is not defined; add it under `[secrets]` with `env` or `file`"
                    ),
                ));
            }
            out.packages.insert(package, grants);
        }
        Ok(out)
    }

    /// What the host gives `package` (nothing when the configuration does not name it).
    pub fn given(&self, package: &str) -> &Grants {
        self.packages.get(package).unwrap_or(&NO_GRANTS)
    }

    /// Why `declared` is more than the host gives `package`, if it is: the reason of a
    /// `package.overclaim` refusal.
    pub fn overclaim(&self, package: &str, declared: &Grants) -> Option<String> {
        declared.first_beyond(self.given(package)).map(|what| {
            format!(
                "package `{package}` declares {what}, which the host does not give it; remove it from the manifest's `[grants]` or give it under `[packages.{package}.grants]` in the host configuration"
            )
        })
    }

    /// The host directory of a volume.
    pub fn volume_dir(&self, name: &str) -> Option<&std::path::Path> {
        self.volumes.get(name).map(PathBuf::as_path)
    }

    /// A secret's value.
    pub fn secret(&self, name: &str) -> Option<&Secret> {
        self.secrets.get(name)
    }

    /// Every configured secret value, for redacting what a guest echoes.
    pub fn secret_values(&self) -> impl Iterator<Item = &Secret> {
        self.secrets.values()
    }
}

fn read_secret(name: &str, raw: RawSecret) -> Result<Secret, String> {
    match (raw.env, raw.file) {
        (Some(var), None) => std::env::var(&var).map(Secret).map_err(|_| {
            format!(
                "`secrets.{name}`: the environment variable `{var}` is not set (or not UTF-8); set it before starting the host"
            )
        }),
        (None, Some(path)) => std::fs::read_to_string(&path)
            .map(|v| Secret(v.trim_end_matches(['\r', '\n']).to_string()))
            .map_err(|e| {
                format!(
                    "`secrets.{name}`: cannot read `{}`: {e}",
                    path.display()
                )
            }),
        _ => Err(format!(
            "`secrets.{name}` needs exactly one of `env = \"VARIABLE\"` or `file = \"path\"`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Doc {
        #[serde(default)]
        volumes: BTreeMap<String, Spanned<String>>,
        #[serde(default)]
        secrets: BTreeMap<String, Spanned<RawSecret>>,
        #[serde(default)]
        packages: BTreeMap<String, Pkg>,
    }

    #[derive(Deserialize)]
    struct Pkg {
        grants: Spanned<RawGrants>,
    }

    fn parse(text: &str) -> Result<HostGrants, String> {
        let doc: Doc = toml::from_str(text).map_err(|e| e.to_string())?;
        let packages = doc
            .packages
            .into_iter()
            .map(|(n, p)| (n, p.grants))
            .collect();
        HostGrants::parse(doc.volumes, doc.secrets, packages).map_err(|(_, e)| e)
    }

    #[test]
    fn volumes_secrets_and_package_grants_parse_and_secrets_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let key_file = dir.path().join("key");
        std::fs::write(&key_file, "s3cr3t-from-file\n").unwrap();
        let text = format!(
            r#"
[volumes]
rules = "/srv/rules"
[secrets]
FILE_KEY = {{ file = "{}" }}
PATH_KEY = {{ env = "PATH" }}
[packages.weather.grants]
network = ["https://api.example.com"]
files = ["read:rules"]
secrets = ["FILE_KEY"]
"#,
            key_file.display()
        );
        let g = parse(&text).unwrap();
        assert_eq!(
            g.volume_dir("rules"),
            Some(std::path::Path::new("/srv/rules"))
        );
        assert_eq!(g.secret("FILE_KEY").unwrap().expose(), "s3cr3t-from-file");
        assert_eq!(
            g.secret("PATH_KEY").unwrap().expose(),
            std::env::var("PATH").unwrap()
        );
        assert!(
            !format!("{g:?}").contains("s3cr3t"),
            "Debug shows no secret"
        );
        assert_eq!(g.given("weather").network.len(), 1);
        assert!(g.given("dice").is_empty());
        let declared = Grants::parse(toml::from_str("secrets = [\"PATH_KEY\"]").unwrap()).unwrap();
        let why = g.overclaim("weather", &declared).unwrap();
        assert!(
            why.contains("the secret `PATH_KEY`") && why.contains("[packages.weather.grants]"),
            "{why}"
        );
        assert_eq!(g.overclaim("weather", &g.given("weather").clone()), None);
    }

    #[test]
    fn undefined_volumes_and_secrets_and_unreadable_values_are_refused_by_name() {
        for (text, words) in [
            (
                "[packages.a.grants]\nfiles = [\"read:rules\"]\n",
                "the volume `rules` is not defined",
            ),
            (
                "[packages.a.grants]\nsecrets = [\"KEY\"]\n",
                "the secret `KEY` is not defined",
            ),
            (
                "[secrets]\nKEY = { env = \"LIMINA_TEST_SURELY_UNSET_VARIABLE\" }\n",
                "`LIMINA_TEST_SURELY_UNSET_VARIABLE` is not set",
            ),
            (
                "[secrets]\nKEY = { file = \"/nonexistent/limina/key\" }\n",
                "cannot read `/nonexistent/limina/key`",
            ),
            ("[secrets]\nKEY = {}\n", "exactly one of"),
            ("[volumes]\nRules = \"/x\"\n", "`volumes.Rules`"),
            (
                "[packages.a.grants]\nnetwork = [\"gopher://x\"]\n",
                "`packages.a`: `grants.network[0]`",
            ),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.contains(words), "{text}: {err}");
        }
    }
}
