//! Turning a granted name into addresses: the host resolves every name itself (the guest
//! never does), so what it connects to is what it checked. A seam: the system's resolver by
//! default, names pinned by the operator (`--resolve NAME=ADDRESS`, like curl's) before it, and
//! tests fill the pins so that no test depends on real DNS.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

/// Resolves names to addresses.
pub trait Resolver: Send + Sync {
    /// Every address `name` resolves to (a name, never an IP literal: those skip resolving).
    fn resolve(&self, name: &str) -> Result<Vec<IpAddr>, String>;
}

/// The operating system's resolver (`getaddrinfo`), behind pinned names. Blocking: it runs on
/// a thread of its own (`spawn_blocking`), never on the engine.
#[derive(Debug, Clone, Default)]
pub struct HostResolver {
    pinned: BTreeMap<String, Vec<IpAddr>>,
    /// When set, names not pinned fail instead of asking the system (tests).
    pinned_only: bool,
}

impl HostResolver {
    /// Parses `--resolve NAME=ADDRESS[,ADDRESS…]` entries; the error names the entry.
    pub fn with_pins(entries: &[String]) -> Result<HostResolver, String> {
        let mut pinned: BTreeMap<String, Vec<IpAddr>> = BTreeMap::new();
        for entry in entries {
            let (name, addresses) = entry.split_once('=').ok_or_else(|| {
                format!(
                    "--resolve `{entry}`: write NAME=ADDRESS, e.g. api.example.com=93.184.216.34"
                )
            })?;
            let name = name.trim().trim_end_matches('.').to_ascii_lowercase();
            if name.is_empty() {
                return Err(format!("--resolve `{entry}`: the name is empty"));
            }
            for a in addresses.split(',') {
                let ip: IpAddr = a
                    .trim()
                    .trim_matches(['[', ']'])
                    .parse()
                    .map_err(|_| format!("--resolve `{entry}`: `{a}` is not an IP address"))?;
                pinned.entry(name.clone()).or_default().push(ip);
            }
        }
        Ok(HostResolver {
            pinned,
            pinned_only: false,
        })
    }

    /// Answers only pinned names (every other name fails to resolve).
    pub fn pinned_only(mut self) -> Self {
        self.pinned_only = true;
        self
    }

    pub fn into_shared(self) -> Arc<dyn Resolver> {
        Arc::new(self)
    }
}

impl Resolver for HostResolver {
    fn resolve(&self, name: &str) -> Result<Vec<IpAddr>, String> {
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        if let Some(pinned) = self.pinned.get(&name) {
            return Ok(pinned.clone());
        }
        if self.pinned_only {
            return Err(format!("`{name}` is not among the pinned names"));
        }
        use std::net::ToSocketAddrs;
        let found: Vec<IpAddr> = (name.as_str(), 0)
            .to_socket_addrs()
            .map_err(|e| format!("`{name}` does not resolve: {e}"))?
            .map(|a| a.ip())
            .collect();
        if found.is_empty() {
            return Err(format!("`{name}` resolves to no address"));
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_names_answer_first_and_bad_pins_are_named() {
        let r = HostResolver::with_pins(&["Weather.Test=127.0.0.1,::1".into()])
            .unwrap()
            .pinned_only();
        assert_eq!(
            r.resolve("weather.test.").unwrap(),
            vec![
                "127.0.0.1".parse::<IpAddr>().unwrap(),
                "::1".parse().unwrap()
            ]
        );
        assert!(
            r.resolve("other.test")
                .unwrap_err()
                .contains("not among the pinned")
        );
        for (entry, words) in [
            ("weather.test", "NAME=ADDRESS"),
            ("=1.2.3.4", "the name is empty"),
            ("a.test=localhost", "not an IP address"),
        ] {
            let err = HostResolver::with_pins(&[entry.into()]).unwrap_err();
            assert!(err.contains(words), "{entry}: {err}");
        }
    }
}
