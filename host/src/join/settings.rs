//! The configuration a host serves with, as the handshake carries it: the serving host's
//! serves every client, so a joining process compares its own flags with it and says once,
//! on stderr, what differs and what applies instead. Nothing diverges silently.

use serde::{Deserialize, Serialize};

/// What decides how a world is served: packages, configuration, watching, the default
/// profile and the world's limits. Paths are absolute (canonical where they exist), so two
/// processes started in different folders compare equal when they name the same thing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// `--packages` folders.
    pub packages: Vec<String>,
    /// `--config`, and the SHA-256 of its content when it could be read.
    pub config: Option<String>,
    pub config_digest: Option<String>,
    /// `--core-dir` (or `$LIMINA_CORE_DIR`); none: the core built into the binary.
    pub core_dir: Option<String>,
    pub watch: bool,
    /// `--profile`: what the host's own clients get when they name none.
    pub profile: String,
    pub max_entities: usize,
    pub tick_ms: u64,
    pub manual_clock: bool,
}

/// How to show a list of folders.
fn folders(list: &[String]) -> String {
    if list.is_empty() {
        "none".to_string()
    } else {
        list.join(", ")
    }
}

fn or_none(value: &Option<String>, none: &str) -> String {
    value.clone().unwrap_or_else(|| none.to_string())
}

impl Settings {
    /// Each way `mine` (this joining process's flags) differs from `server`'s, as a sentence
    /// naming the flag, both values and what applies.
    pub fn differences(mine: &Settings, server: &Settings) -> Vec<String> {
        let mut out = Vec::new();
        let mut note = |flag: &str, ours: String, theirs: String| {
            out.push(format!(
                "{flag}: this process was given {ours}, the serving host runs with {theirs}; the serving host's applies to every client"
            ));
        };
        if mine.packages != server.packages {
            note(
                "--packages",
                folders(&mine.packages),
                folders(&server.packages),
            );
        }
        if mine.config != server.config || mine.config_digest != server.config_digest {
            let same_path = mine.config == server.config;
            let theirs = or_none(&server.config, "no --config (the built-in defaults)");
            let theirs = if same_path {
                format!("{theirs} as it was when that host started (the file has changed since)")
            } else {
                theirs
            };
            note(
                "--config",
                or_none(&mine.config, "no --config (the built-in defaults)"),
                theirs,
            );
        }
        if mine.core_dir != server.core_dir {
            note(
                "--core-dir",
                or_none(&mine.core_dir, "the built-in core packages"),
                or_none(&server.core_dir, "the built-in core packages"),
            );
        }
        if mine.watch != server.watch {
            let say = |w: bool| if w { "--watch" } else { "no --watch" }.to_string();
            note("--watch", say(mine.watch), say(server.watch));
        }
        if mine.max_entities != server.max_entities {
            note(
                "--max-entities",
                mine.max_entities.to_string(),
                server.max_entities.to_string(),
            );
        }
        if mine.tick_ms != server.tick_ms || mine.manual_clock != server.manual_clock {
            let clock = |s: &Settings| {
                if s.manual_clock {
                    "--manual-clock".to_string()
                } else {
                    format!("--tick-ms {}", s.tick_ms)
                }
            };
            note("the world clock", clock(mine), clock(server));
        }
        if mine.profile != server.profile {
            out.push(format!(
                "--profile: this process gives its own clients `{}` when they name no profile (the serving host's own default is `{}`); the profiles themselves are the serving host's",
                mine.profile, server.profile
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Settings {
        Settings {
            profile: "builder.readWrite".into(),
            max_entities: 10_000,
            tick_ms: 16,
            ..Settings::default()
        }
    }

    #[test]
    fn equal_settings_have_no_differences() {
        assert!(Settings::differences(&base(), &base()).is_empty());
    }

    #[test]
    fn each_difference_names_the_flag_both_values_and_what_applies() {
        let mine = Settings {
            packages: vec!["/home/me/pkgs".into()],
            watch: true,
            profile: "system.readonly".into(),
            ..base()
        };
        let server = Settings {
            config: Some("/etc/limina.toml".into()),
            config_digest: Some("ab".into()),
            manual_clock: true,
            ..base()
        };
        let lines = Settings::differences(&mine, &server);
        assert_eq!(lines.len(), 5, "{lines:#?}");
        assert!(lines[0].starts_with("--packages: this process was given /home/me/pkgs, the serving host runs with none; the serving host's applies"), "{}", lines[0]);
        assert!(lines[1].contains("--config: this process was given no --config (the built-in defaults), the serving host runs with /etc/limina.toml"), "{}", lines[1]);
        assert!(
            lines[2].contains(
                "--watch: this process was given --watch, the serving host runs with no --watch"
            ),
            "{}",
            lines[2]
        );
        assert!(lines[3].contains("the world clock: this process was given --tick-ms 16, the serving host runs with --manual-clock"), "{}", lines[3]);
        assert!(
            lines[4].contains("gives its own clients `system.readonly`"),
            "{}",
            lines[4]
        );
    }

    #[test]
    fn the_same_config_path_with_other_content_says_the_file_changed() {
        let mine = Settings {
            config: Some("/c.toml".into()),
            config_digest: Some("new".into()),
            ..base()
        };
        let server = Settings {
            config_digest: Some("old".into()),
            ..mine.clone()
        };
        let lines = Settings::differences(&mine, &server);
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].contains("as it was when that host started"),
            "{}",
            lines[0]
        );
    }
}
