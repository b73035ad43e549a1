//! Grants: what a package may reach outside the world — network by URL pattern, files by
//! named volume, secrets by name, state by quota. A package declares them in its manifest's
//! `[grants]`; the host's configuration says what each package is given (`[packages.NAME.grants]`,
//! with `[volumes]` and `[secrets]` saying where volumes and secret values live). A declared
//! grant the host does not give refuses the package at load (`package.overclaim`); at run time
//! each family is checked here, in one function each, against both the declaration and what
//! the host gives now (a reloaded configuration narrows loaded packages at once).

pub mod credentials;
mod host;
pub mod network;
pub mod path;
pub mod secrets;

pub use host::{HostGrants, RawSecret, Secret};
pub use network::{Host, Scheme, UrlPattern};

use crate::policy::{Permission, Permissions};
use serde::Deserialize;
use serde_json::{Value, json};

/// A package's grants, in the four families.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grants {
    /// URL patterns the package may send HTTP requests to.
    pub network: Vec<UrlPattern>,
    /// Named volumes, each read-only or writable.
    pub files: Vec<FileGrant>,
    /// Secret names visible to the guest as environment variables (sorted, no repeats).
    pub secrets: Vec<String>,
    /// Its own key-value state, within this quota.
    pub state: Option<StateQuota>,
}

/// `read:NAME` or `write:NAME` (writable implies readable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileGrant {
    pub volume: String,
    pub write: bool,
}

/// The most keys, and bytes of keys and values together, a package's state may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateQuota {
    pub keys: u64,
    pub bytes: u64,
}

/// `[grants]` as written, in a manifest or under `[packages.NAME]` in the configuration.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RawGrants {
    #[serde(default)]
    network: Vec<String>,
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    secrets: Vec<String>,
    state: Option<RawState>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawState {
    keys: i64,
    bytes: i64,
}

impl Grants {
    /// Checks raw grants; an error names the key (`grants.network[0]`, …) and the fix.
    pub fn parse(raw: RawGrants) -> Result<Grants, String> {
        let network = raw
            .network
            .iter()
            .enumerate()
            .map(|(i, t)| UrlPattern::parse(t).map_err(|e| format!("`grants.network[{i}]`: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let files = raw
            .files
            .iter()
            .enumerate()
            .map(|(i, t)| parse_file(t).map_err(|e| format!("`grants.files[{i}]`: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let mut secrets = raw.secrets;
        if let Some((i, bad)) = secrets.iter().enumerate().find(|(_, s)| !valid_secret(s)) {
            return Err(format!(
                "`grants.secrets[{i}]`: `{bad}` is not a secret name; use letters, digits and `_`, not starting with a digit (it is the guest's environment variable)"
            ));
        }
        secrets.sort();
        secrets.dedup();
        let state = match raw.state {
            None => None,
            Some(s) if s.keys > 0 && s.bytes > 0 => Some(StateQuota {
                keys: s.keys as u64,
                bytes: s.bytes as u64,
            }),
            Some(s) => {
                return Err(format!(
                    "`grants.state`: `keys` and `bytes` must both be > 0; got keys = {} and bytes = {}",
                    s.keys, s.bytes
                ));
            }
        };
        Ok(Grants {
            network,
            files,
            secrets,
            state,
        })
    }

    /// No grant in any family.
    pub fn is_empty(&self) -> bool {
        self.network.is_empty()
            && self.files.is_empty()
            && self.secrets.is_empty()
            && self.state.is_none()
    }

    /// The permissions these grants imply for the package: a session must also hold one for
    /// the package's guest to use the family (`net.outbound`, `files.read`, `files.write`,
    /// `secrets.read`, `state.read` and `state.write`).
    pub fn permissions(&self) -> Permissions {
        let mut p = Permissions::NONE;
        if !self.network.is_empty() {
            p.insert(Permission::NetOutbound);
        }
        if !self.files.is_empty() {
            p.insert(Permission::FilesRead);
        }
        if self.files.iter().any(|f| f.write) {
            p.insert(Permission::FilesWrite);
        }
        if !self.secrets.is_empty() {
            p.insert(Permission::SecretsRead);
        }
        if self.state.is_some() {
            p.insert(Permission::StateRead);
            p.insert(Permission::StateWrite);
        }
        p
    }

    /// The first grant declared here that `given` does not cover, described for a person.
    pub fn first_beyond(&self, given: &Grants) -> Option<String> {
        if let Some(p) = self
            .network
            .iter()
            .find(|d| !given.network.iter().any(|g| g.covers(d)))
        {
            return Some(format!("the network grant `{}`", p.text));
        }
        if let Some(f) = self
            .files
            .iter()
            .find(|d| given.volume(&d.volume).is_none_or(|g| d.write && !g.write))
        {
            return Some(format!("the files grant `{}`", file_text(f)));
        }
        if let Some(s) = self.secrets.iter().find(|s| !given.allows_secret(s)) {
            return Some(format!("the secret `{s}`"));
        }
        match (self.state, given.state) {
            (Some(d), None) => Some(format!("state (keys = {}, bytes = {})", d.keys, d.bytes)),
            (Some(d), Some(g)) if d.keys > g.keys || d.bytes > g.bytes => Some(format!(
                "state (keys = {}, bytes = {}) beyond the given keys = {}, bytes = {}",
                d.keys, d.bytes, g.keys, g.bytes
            )),
            _ => None,
        }
    }

    /// The network check: the first pattern a request to `scheme://host:port/path` falls under.
    /// `path` is one [`path::normalize`] returned: only that path may be sent.
    pub fn network_match(
        &self,
        scheme: Scheme,
        host: &Host,
        port: u16,
        path: &str,
    ) -> Option<&UrlPattern> {
        self.network
            .iter()
            .find(|p| p.matches(scheme, host, port, path))
    }

    /// The files check: the grant of a volume, if the package holds one.
    pub fn volume(&self, name: &str) -> Option<&FileGrant> {
        self.files.iter().find(|f| f.volume == name)
    }

    /// The secrets check: whether the package may see the secret `name`.
    pub fn allows_secret(&self, name: &str) -> bool {
        self.secrets
            .binary_search_by(|s| s.as_str().cmp(name))
            .is_ok()
    }

    /// `{network, files, secrets, state}` as written, for listings (`skills.describe`,
    /// `package.list`, `limina pkg inspect`).
    pub fn to_json(&self) -> Value {
        json!({
            "network": self.network.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(),
            "files": self.files.iter().map(file_text).collect::<Vec<_>>(),
            "secrets": self.secrets,
            "state": self.state.map(|s| json!({"keys": s.keys, "bytes": s.bytes})),
        })
    }
}

fn file_text(f: &FileGrant) -> String {
    format!("{}:{}", if f.write { "write" } else { "read" }, f.volume)
}

fn parse_file(text: &str) -> Result<FileGrant, String> {
    let (mode, volume) = text.split_once(':').ok_or_else(|| {
        format!("`{text}` must be `read:NAME` or `write:NAME`, naming a volume (never a host path)")
    })?;
    let write = match mode {
        "read" => false,
        "write" => true,
        other => {
            return Err(format!(
                "`{text}`: the mode `{other}` must be `read` or `write`"
            ));
        }
    };
    if !valid_volume(volume) {
        return Err(format!(
            "`{text}`: a volume is named by lowercase letters, digits, `-` and `_` (a host path belongs in the host's `[volumes]`)"
        ));
    }
    Ok(FileGrant {
        volume: volume.to_string(),
        write,
    })
}

/// A volume name: lowercase letters, digits, `-`, `_`, starting with a letter.
pub fn valid_volume(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z'))
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// A secret name: an environment variable name (letters, digits, `_`, not starting with a digit).
pub fn valid_secret(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && name.len() <= 128
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grants(toml_text: &str) -> Result<Grants, String> {
        let raw: RawGrants = toml::from_str(toml_text).map_err(|e| e.to_string())?;
        Grants::parse(raw)
    }

    const FULL: &str = r#"
network = ["https://api.example.com/v1", "http://*.example.org:8080"]
files = ["read:rules", "write:notes"]
secrets = ["WEATHER_KEY", "API_TOKEN", "WEATHER_KEY"]
state = { keys = 100, bytes = 65536 }
"#;

    #[test]
    fn all_four_families_parse_and_imply_their_permissions() {
        let g = grants(FULL).unwrap();
        assert_eq!(g.network.len(), 2);
        assert_eq!(g.network[1].port, 8080);
        assert_eq!(g.volume("notes").map(|f| f.write), Some(true));
        assert_eq!(g.volume("rules").map(|f| f.write), Some(false));
        assert_eq!(g.secrets, ["API_TOKEN", "WEATHER_KEY"]);
        assert_eq!(
            g.state,
            Some(StateQuota {
                keys: 100,
                bytes: 65536
            })
        );
        assert_eq!(
            g.permissions().names(),
            [
                "net.outbound",
                "files.read",
                "files.write",
                "state.read",
                "state.write",
                "secrets.read"
            ]
        );
        assert!(grants("").unwrap().is_empty());
        assert_eq!(grants("").unwrap().permissions(), Permissions::NONE);
        let json = g.to_json();
        assert_eq!(json["files"], json!(["read:rules", "write:notes"]));
        assert_eq!(json["network"][0], "https://api.example.com/v1");
    }

    #[test]
    fn bad_grants_name_the_key_and_the_fix() {
        for (text, words) in [
            ("network = [\"api.example.com\"]", "`grants.network[0]`"),
            ("files = [\"read:/etc\"]", "`grants.files[0]`"),
            ("files = [\"rules\"]", "`read:NAME` or `write:NAME`"),
            ("files = [\"exec:rules\"]", "mode `exec`"),
            ("secrets = [\"1KEY\"]", "`grants.secrets[0]`"),
            ("secrets = [\"A-B\"]", "not a secret name"),
            ("state = { keys = 0, bytes = 10 }", "`grants.state`"),
            ("state = { keys = 1 }", "bytes"),
            ("sockets = []", "sockets"),
        ] {
            let err = grants(text).unwrap_err();
            assert!(err.contains(words), "{text}: {err}");
        }
    }

    #[test]
    fn a_declaration_beyond_what_is_given_is_named() {
        let declared = grants(FULL).unwrap();
        assert_eq!(declared.first_beyond(&declared), None);
        let wider = grants(
            r#"network = ["https://*.example.com", "http://*.example.org:8080"]
files = ["write:rules", "write:notes"]
secrets = ["API_TOKEN", "WEATHER_KEY", "OTHER"]
state = { keys = 1000, bytes = 65536 }"#,
        )
        .unwrap();
        assert_eq!(declared.first_beyond(&wider), None);
        let cases = [
            (
                FULL.replace("api.example.com/v1", "example.com/v1"),
                "network grant `https://example.com/v1`",
            ),
            (
                FULL.replace("read:rules", "read:secret-files"),
                "files grant `read:secret-files`",
            ),
            (
                FULL.replace("API_TOKEN", "DB_PASSWORD"),
                "secret `DB_PASSWORD`",
            ),
            (FULL.replace("bytes = 65536", "bytes = 65537"), "state"),
        ];
        for (text, words) in cases {
            let beyond = grants(&text).unwrap().first_beyond(&wider).unwrap();
            assert!(beyond.contains(words), "{beyond}");
        }
        let read_only = grants("files = [\"read:notes\"]").unwrap();
        let wants_write = grants("files = [\"write:notes\"]").unwrap();
        assert!(wants_write.first_beyond(&read_only).is_some());
        assert_eq!(read_only.first_beyond(&wants_write), None);
        assert!(declared.first_beyond(&Grants::default()).is_some());
    }

    #[test]
    fn the_network_check_finds_the_pattern_a_request_falls_under() {
        let g = grants(FULL).unwrap();
        let api = Host::parse("api.example.com").unwrap();
        assert_eq!(
            g.network_match(Scheme::Https, &api, 443, "/v1/forecast")
                .map(|p| p.text.as_str()),
            Some("https://api.example.com/v1")
        );
        assert!(
            g.network_match(Scheme::Https, &api, 443, "/admin")
                .is_none()
        );
        assert!(g.allows_secret("WEATHER_KEY"));
        assert!(!g.allows_secret("HOME"));
    }
}
