//! `limina upstream diff NAME` and `limina upstream approve NAME [TOOL…]`: the operator's side
//! of upstream tool pinning (`limina::upstream::pins`), working on the pins kept in the trace
//! folder beside a running host or not.

use crate::Cli;
use anyhow::{Result, anyhow};
use limina::upstream::pins::{self, FIELDS, Pending};
use serde_json::Value;
use std::process::ExitCode;

/// Columns of each side in `diff`.
const WIDTH: usize = 60;

/// Prints every held change of `name` with the approved and listed definitions side by side.
pub fn diff(cli: &Cli, name: &str) -> Result<ExitCode> {
    let trace_dir = trace_dir(cli);
    let file = pins::load(&trace_dir, name).map_err(|e| anyhow!(e))?;
    if file.pending.is_empty() {
        println!(
            "upstream `{name}`: nothing waits for approval ({} tools pinned)",
            file.approved.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    for (tool, pending) in &file.pending {
        let approved = file.approved.get(tool).map(|p| &p.definition);
        print!("{}", describe(tool, pending, approved));
    }
    println!(
        "accept with `limina upstream approve {name} [TOOL…]`, or fix digests in its [[upstream]] entry: pin = {{ tool = \"sha256:…\" }}"
    );
    Ok(ExitCode::SUCCESS)
}

/// Accepts the held changes of `tools` (all when none is named).
pub fn approve(cli: &Cli, name: &str, tools: &[String]) -> Result<ExitCode> {
    let accepted = pins::approve(&trace_dir(cli), name, tools).map_err(|e| anyhow!(e))?;
    println!(
        "upstream `{name}`: approved {}; a running host mounts them within a second",
        accepted.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

fn trace_dir(cli: &Cli) -> std::path::PathBuf {
    cli.trace_dir
        .clone()
        .unwrap_or_else(super::serve::default_trace_dir)
}

/// One held change: what happened, both digests, and each field that changed side by side.
fn describe(tool: &str, pending: &Pending, approved: Option<&Value>) -> String {
    let mut out = String::new();
    let what = match (&pending.from, &pending.to) {
        (None, _) => "added".to_string(),
        (_, None) => "removed".to_string(),
        _ => format!("changed: {}", pending.fields.join(", ")),
    };
    out.push_str(&format!("tool `{tool}` — {what}\n"));
    if pending.pinned_by_config {
        out.push_str("  (its digest is fixed by `pin` in the configuration: update it there)\n");
    }
    out.push_str(&format!(
        "  approved {}\n  listed   {}\n",
        pending.from.as_deref().unwrap_or("none"),
        pending.to.as_deref().unwrap_or("none")
    ));
    let listed = pending.definition.as_ref();
    let fields: Vec<&str> = if pending.fields.is_empty() {
        Vec::new()
    } else {
        FIELDS
            .into_iter()
            .filter(|f| pending.fields.iter().any(|p| p == f))
            .collect()
    };
    for field in fields {
        let side = |d: Option<&Value>| match d.and_then(|d| d.get(field)) {
            None | Some(Value::Null) => "(none)".to_string(),
            Some(Value::String(s)) => s.clone(),
            Some(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
        };
        out.push_str(&format!("  {field}:\n"));
        out.push_str(&side_by_side(&side(approved), &side(listed)));
    }
    out.push('\n');
    out
}

/// Two texts in columns of [`WIDTH`], `approved │ listed`, wrapped; lines that differ are
/// marked `≠`.
fn side_by_side(left: &str, right: &str) -> String {
    let (l, r) = (wrap(left), wrap(right));
    let mut out = format!("    {:<WIDTH$} │ listed now\n", "approved");
    for i in 0..l.len().max(r.len()) {
        let a = l.get(i).map_or("", String::as_str);
        let b = r.get(i).map_or("", String::as_str);
        let mark = if a == b { ' ' } else { '≠' };
        let pad = WIDTH.saturating_sub(a.chars().count());
        out.push_str(&format!("  {mark} {a}{} │ {b}\n", " ".repeat(pad)));
    }
    out
}

fn wrap(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in text.lines() {
        let chars: Vec<char> = line.chars().collect();
        if chars.is_empty() {
            lines.push(String::new());
        }
        for chunk in chars.chunks(WIDTH) {
            lines.push(chunk.iter().collect());
        }
    }
    lines
}
