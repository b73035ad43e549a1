//! The book's reference pages are generated from the code, so they cannot drift: every flag
//! from `limina --help` (and each subcommand's), every configuration key from the parser's own
//! list of the keys it accepts, every limit from `host/src/limits.rs` with its reason. A page
//! that differs fails here; `LIMINA_WRITE_REFERENCE=1 cargo test -p limina --test all
//! reference` rewrites it.

use crate::support::repo;
use std::process::Command;

const REGENERATE: &str = "LIMINA_WRITE_REFERENCE=1 cargo test -p limina --test all reference";

/// Compares a generated page with the one in `docs/reference/`, or writes it when asked.
fn check(page: &str, generated: &str) {
    let path = repo().join("docs/reference").join(page);
    if std::env::var_os("LIMINA_WRITE_REFERENCE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, generated).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current != generated {
        let line = current
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(current.lines().count().min(generated.lines().count()))
            + 1;
        panic!(
            "docs/reference/{page} differs from the code from line {line} on; regenerate it \
             with `{REGENERATE}` and commit it"
        );
    }
}

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_limina"))
        .args(args)
        .arg("--help")
        // clap wraps to the terminal; a fixed width keeps the page the same everywhere.
        .env("COLUMNS", "100")
        .output()
        .expect("limina runs");
    assert!(out.status.success(), "limina {args:?} --help failed");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands a help text lists under `Commands:`, `help` left out.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

#[test]
fn the_flag_reference_is_limina_help() {
    let mut page = format!(
        "# Flags\n\nEvery flag of `limina` and of each subcommand, as `--help` prints them \
         (generated: `{REGENERATE}` rewrites this page; a test fails while it differs).\n"
    );
    let mut queue: Vec<Vec<String>> = vec![vec![]];
    while let Some(path) = queue.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        let name = std::iter::once("limina")
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        page.push_str(&format!(
            "\n## `{name}`\n\n```text\n{}\n```\n",
            text.trim_end()
        ));
        // Depth first in the order listed: reversed onto the stack.
        for sub in subcommands(&text).into_iter().rev() {
            let mut next = path.clone();
            next.push(sub);
            queue.push(next);
        }
    }
    check("flags.md", &page);
}

/// The keys the parser accepts where `probe` puts an unknown one, read from its refusal
/// (serde's "unknown field `x`, expected one of `a`, `b`").
fn keys_at(probe: &str) -> Vec<String> {
    let err = limina::config::Config::parse(probe)
        .err()
        .unwrap_or_else(|| panic!("the probe was accepted:\n{probe}"));
    assert!(
        err.contains("unknown field `zzProbe`"),
        "the probe was not refused as an unknown key: {err}\n{probe}"
    );
    let list = err.split_once("expected").map_or("", |(_, l)| l);
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Each section of the configuration: its key at the top, how it is written, where the book
/// explains it, and a file that puts an unknown key into it.
const SECTIONS: &[(&str, &str, &str, &str)] = &[
    ("maxSessions", "", "policy.md", ""),
    ("requireSignatures", "", "packages.md", ""),
    ("trustedKeys", "", "packages.md", ""),
    (
        "profiles",
        "[profiles.NAME]",
        "policy.md",
        "[profiles.p]\nzzProbe = 1\n",
    ),
    (
        "quotas",
        "[[quotas]]",
        "policy.md",
        "[[quotas]]\nzzProbe = 1\n",
    ),
    (
        "budgets",
        "[budgets]",
        "policy.md",
        "[budgets]\nzzProbe = 1\n",
    ),
    (
        "packages",
        "[packages.NAME]",
        "policy.md",
        "[packages.p]\nzzProbe = 1\n",
    ),
    (
        "packages",
        "[packages.NAME.grants]",
        "grants.md",
        "[packages.p.grants]\nzzProbe = 1\n",
    ),
    (
        "latency",
        "[latency]",
        "discovery.md",
        "[latency]\nzzProbe = 1\n",
    ),
    (
        "trace",
        "[trace]",
        "observability.md",
        "[trace]\nzzProbe = 1\n",
    ),
    ("files", "[files]", "grants.md", "[files]\nzzProbe = 1\n"),
    ("volumes", "[volumes] NAME = \"PATH\"", "grants.md", ""),
    (
        "secrets",
        "[secrets.NAME]",
        "grants.md",
        "[secrets.S]\nzzProbe = 1\n",
    ),
    ("limits", "[limits]", "world.md", "[limits]\nzzProbe = 1\n"),
    (
        "network",
        "[network]",
        "transports.md",
        "[network]\nzzProbe = 1\n",
    ),
    (
        "network",
        "[[network.tokens]]",
        "transports.md",
        "[[network.tokens]]\nzzProbe = 1\n",
    ),
    ("world", "[world]", "world.md", "[world]\nzzProbe = 1\n"),
    (
        "approve",
        "[[approve]]",
        "policy.md",
        "[[approve]]\nzzProbe = 1\n",
    ),
    (
        "outbound",
        "[outbound]",
        "grants.md",
        "[outbound]\nzzProbe = 1\n",
    ),
    (
        "upstream",
        "[[upstream]]",
        "upstream.md",
        "[[upstream]]\nzzProbe = 1\n",
    ),
    ("oci", "[oci]", "operations.md", "[oci]\nzzProbe = 1\n"),
    (
        "identity",
        "[identity]",
        "identity.md",
        "[identity]\nzzProbe = 1\n",
    ),
];

#[test]
fn the_configuration_reference_is_every_key_the_parser_accepts() {
    let top = keys_at("zzProbe = 1\n");
    let missing: Vec<_> = top
        .iter()
        .filter(|k| !SECTIONS.iter().any(|(key, ..)| key == k))
        .collect();
    assert!(
        missing.is_empty(),
        "the configuration has keys this reference does not describe yet: {missing:?}; add \
         each to SECTIONS in tests/all/reference.rs (with a probe if it is a table)"
    );
    let mut page = format!(
        "# Configuration keys\n\nEvery key `--config FILE` accepts, read from the parser itself \
         (generated: `{REGENERATE}` rewrites this page; a test fails while it differs). A key \
         not listed is refused at start with its line. The chapter named beside each section \
         says what its keys do.\n\n| section | keys | explained in |\n|---|---|---|\n"
    );
    let top_level: Vec<String> = SECTIONS
        .iter()
        .filter(|s| s.1.is_empty())
        .map(|s| format!("`{}`", s.0))
        .collect();
    page.push_str(&format!(
        "| top level | {} | [policy](../policy.md), [packages](../packages.md) |\n",
        top_level.join(", ")
    ));
    for (key, written, chapter, probe) in SECTIONS {
        if written.is_empty() {
            continue;
        }
        assert!(top.contains(&key.to_string()), "`{key}` is no longer a key");
        let keys = if probe.is_empty() {
            "names of your choosing".to_string()
        } else {
            keys_at(probe)
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let title = chapter.trim_end_matches(".md");
        page.push_str(&format!(
            "| `{written}` | {keys} | [{title}](../{chapter}) |\n"
        ));
    }
    check("config.md", &page);
}

/// Every `pub const` of `host/src/limits.rs` with its doc comment.
fn limits(source: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut doc = Vec::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if let Some(d) = t.strip_prefix("///") {
            doc.push(d.trim().to_string());
            continue;
        }
        if let Some(decl) = t.strip_prefix("pub const ") {
            let mut decl = decl.to_string();
            while !decl.trim_end().ends_with(';') {
                decl.push(' ');
                decl.push_str(lines.next().expect("a const ends").trim());
            }
            let (name, rest) = decl.split_once(':').expect("a const has a type");
            let value = rest.split_once('=').expect("a const has a value").1;
            out.push((
                name.trim().to_string(),
                value.trim().trim_end_matches(';').trim().to_string(),
                doc.join(" "),
            ));
        }
        doc.clear();
    }
    out
}

#[test]
fn the_limits_reference_is_limits_rs() {
    let source = std::fs::read_to_string(repo().join("host/src/limits.rs")).unwrap();
    let limits = limits(&source);
    assert!(
        limits.iter().any(|(n, ..)| n == "MAX_COMPONENT_BYTES"),
        "limits.rs was not read"
    );
    let mut page = format!(
        "# Limits\n\nEvery limit of the host, as `host/src/limits.rs` states it, with its reason \
         (generated: `{REGENERATE}` rewrites this page; a test fails while it differs). The \
         configuration changes some of them: see [the configuration keys](config.md).\n\n\
         | limit | value | why |\n|---|---|---|\n"
    );
    for (name, value, why) in limits {
        let cell = |s: &str| s.replace('|', "\\|");
        page.push_str(&format!(
            "| `{name}` | `{}` | {} |\n",
            cell(&value),
            cell(&why)
        ));
    }
    check("limits.md", &page);
}
