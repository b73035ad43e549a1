//! Credential shapes in the texts a package returns beside its output (`[outbound]
//! scanResults`): a text block, an embedded text resource. Redacted by default and traced as
//! kind and place, never the value; with `refuse`, the call fails and changes nothing.

use crate::support::{Client, error_of, guest_packages};
use serde_json::{Value, json};

const TOKEN: &str = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";

fn host(extra: &str) -> (tempfile::TempDir, tempfile::TempDir, Client) {
    let pkgs = guest_packages(&["pictures"]);
    // The long-calls limits, so a loaded machine does not cut the call, and the scan's mode.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limina.toml");
    let long = std::fs::read_to_string(crate::support::long_calls_config()).unwrap();
    std::fs::write(&config, format!("{long}{extra}")).unwrap();
    let c = Client::session(
        "builder.readWrite",
        &[
            "--packages",
            pkgs.path().to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
    );
    (pkgs, dir, c)
}

fn found(c: &mut Client) -> Vec<Value> {
    let hits = c.call_ok(
        "trace.tail",
        json!({"type": "security.secret.redacted", "limit": 10}),
    );
    hits["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["payload"].clone())
        .collect()
}

fn entities(c: &mut Client) -> usize {
    c.call_ok("scene.queryEntities", json!({}))["entities"]
        .as_array()
        .unwrap()
        .len()
}

#[test]
fn a_credential_in_a_text_block_or_embedded_text_is_redacted_and_traced_without_its_value() {
    let (_pkgs, _dir, mut c) = host("");
    let caption = format!("the deploy key is {TOKEN} (keep it)");
    let r = c.call(
        "pictures.draw",
        json!({"width": 1, "height": 1, "caption": caption}),
    );
    assert_eq!(r["isError"], false, "{r}");
    let blocks = r["content"].as_array().unwrap();
    let clean = "the deploy key is [redacted:github_token] (keep it)";
    assert_eq!(blocks[2], json!({"type": "text", "text": clean}));
    assert_eq!(blocks[3]["resource"]["text"], clean, "{r}");
    let hit = json!({"where": "content", "kind": "github_token", "skill": "pictures.draw", "action": "redacted"});
    assert_eq!(found(&mut c), vec![hit.clone(), hit]);
    // A caption holding nothing of the kind passes as written.
    let r = c.call(
        "pictures.draw",
        json!({"width": 1, "height": 1, "caption": "ghp_ is how the keys begin"}),
    );
    assert_eq!(r["content"][2]["text"], "ghp_ is how the keys begin", "{r}");
    assert_eq!(found(&mut c).len(), 2, "nothing more found");
}

#[test]
fn with_scan_results_refuse_a_credential_in_content_fails_the_call_and_changes_nothing() {
    let (_pkgs, _dir, mut c) = host("[outbound]\nscanResults = \"refuse\"\n");
    let before = entities(&mut c);
    let r = c.call(
        "pictures.draw",
        json!({"width": 1, "height": 1, "caption": format!("key: {TOKEN}")}),
    );
    let (code, message) = error_of(&r);
    assert_eq!(code, "forbidden");
    assert_eq!(
        message,
        "`pictures.draw` returned what looks like a credential in its content (github_token); `[outbound] scanResults = \"refuse\"` keeps it from the caller"
    );
    assert_eq!(r["content"].as_array().unwrap().len(), 1, "no blocks: {r}");
    assert_eq!(entities(&mut c), before, "its entity was rolled back");
    let payloads = found(&mut c);
    // The text block and the embedded text.
    assert_eq!(payloads.len(), 2, "{payloads:?}");
    assert!(
        payloads.iter().all(|p| p["action"] == "refused"),
        "{payloads:?}"
    );
    let executed = c.call_ok(
        "trace.tail",
        json!({"type": "skill.executed", "limit": 100}),
    );
    assert!(
        !executed.to_string().contains("pictures.draw"),
        "nothing recorded as executed: {executed}"
    );
    // Without a credential the same call passes.
    let r = c.call(
        "pictures.draw",
        json!({"width": 1, "height": 1, "caption": "a red square"}),
    );
    assert_eq!(r["isError"], false, "{r}");
}

const KEY: &str = "AKIAIOSFODNN7EXAMPLE";

/// `lore` (the C example) with a book whose `keys` page holds an access key, read by a
/// profile that may read files.
fn lore(extra: &str) -> (tempfile::TempDir, tempfile::TempDir, Client) {
    let repo = crate::support::repo();
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book");
    std::fs::create_dir(&book).unwrap();
    std::fs::write(
        book.join("keys.md"),
        format!("# Keys\n\nThe vault opens with {KEY}.\n"),
    )
    .unwrap();
    let config = dir.path().join("limina.toml");
    std::fs::write(
        &config,
        format!(
            "[profiles.keeper]\npermissions = [\"scene.read\", \"files.read\"]\n\n[volumes]\nbook = {book:?}\n\n[packages.lore.grants]\nfiles = [\"read:book\"]\n\n{extra}"
        ),
    )
    .unwrap();
    let lore = repo.join("packages/lore");
    let packages = crate::support::package_dir(&lore, &lore.join("lore.wasm"));
    let c = Client::session(
        "keeper",
        &[
            "--packages",
            packages.path().to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--ephemeral-trace",
        ],
    );
    (dir, packages, c)
}

#[test]
fn a_credential_in_a_package_page_or_prompt_is_redacted_and_traced() {
    let (_d, _p, mut c) = lore("");
    let read = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/lore/pages/keys"}),
    );
    let text = read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{read}"));
    assert_eq!(
        text,
        "# Keys\n\nThe vault opens with [redacted:aws_access_key_id].\n"
    );
    let got = c.request(
        "prompts/get",
        json!({"name": "lore.explain", "arguments": {"page": "keys"}}),
    );
    let embedded = got["result"]["messages"][0]["content"]["resource"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{got}"));
    assert!(
        embedded.contains("[redacted:aws_access_key_id]") && !embedded.contains(KEY),
        "{embedded}"
    );
    let kinds = |place: &str, skill: &str| json!({"where": place, "kind": "aws_access_key_id", "skill": skill, "action": "redacted"});
    assert_eq!(
        found(&mut c),
        vec![kinds("resource", "lore"), kinds("prompt", "lore.explain")]
    );
    let trace = c.call_ok("trace.tail", json!({"limit": 1000})).to_string();
    assert!(!trace.contains(KEY), "the key is in the trace");
}

#[test]
fn with_scan_results_refuse_a_package_page_holding_a_credential_is_not_read() {
    let (_d, _p, mut c) = lore("[outbound]\nscanResults = \"refuse\"\n");
    let read = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/lore/pages/keys"}),
    );
    let message = read["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{read}"));
    assert!(
        message.contains(
            "`lore` returned what looks like a credential in its resource (aws_access_key_id)"
        ),
        "{message}"
    );
    assert!(!read.to_string().contains(KEY), "{read}");
    let payloads = found(&mut c);
    assert_eq!(payloads.len(), 1, "{payloads:?}");
    assert_eq!(payloads[0]["action"], "refused");
    // A page without one still reads.
    std::fs::write(_d.path().join("book/plain.md"), "# Plain\n").unwrap();
    let plain = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/lore/pages/plain"}),
    );
    assert_eq!(
        plain["result"]["contents"][0]["text"], "# Plain\n",
        "{plain}"
    );
}
