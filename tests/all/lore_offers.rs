//! The C example `lore` serves its rules book through contract 0.2.0's exports, built with
//! the C SDK's glue (`limina_resource`, `limina_prompt`, `LIMINA_PACKAGE_WITH`): the contents
//! and each page as resources (a template whose page name completes), and `lore.explain`, a
//! prompt embedding a page. Read over MCP from a host that grants the book's volume.

use crate::files_and_state::host;
use crate::offers::{complete, listed, prompt_messages, prompt_named};
use crate::support::Client;
use serde_json::{Value, json};

const PAGE_TEMPLATE: &str = "limina://pkg/lore/pages/{page}";

fn lore() -> (tempfile::TempDir, tempfile::TempDir, Client) {
    let traces = tempfile::tempdir().unwrap();
    let (packages, c) = host("lore", traces.path(), "reader");
    (traces, packages, c)
}

fn completed(c: &mut Client, reference: Value, argument: &str, value: &str) -> Value {
    complete(c, &reference, argument, value)["result"]["completion"]["values"].clone()
}

#[test]
fn lore_serves_its_contents_and_pages_as_resources_whose_names_complete() {
    let (_t, _p, mut c) = lore();
    let resources = c.request("resources/list", json!({}));
    assert!(
        listed(&resources, "resources", "uri").contains(&"limina://pkg/lore/contents".into()),
        "{resources}"
    );
    let templates = c.request("resources/templates/list", json!({}));
    assert!(
        listed(&templates, "resourceTemplates", "uriTemplate").contains(&PAGE_TEMPLATE.into()),
        "{templates}"
    );

    let contents = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/lore/contents"}),
    );
    let text = contents["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{contents}"));
    assert!(
        text.contains(
            "- [Combat](limina://pkg/lore/pages/combat)\n- [Magic](limina://pkg/lore/pages/magic)"
        ),
        "{text}"
    );

    let page = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/lore/pages/magic"}),
    );
    let read = &page["result"]["contents"][0];
    assert_eq!(read["uri"], "limina://pkg/lore/pages/magic", "{page}");
    assert_eq!(read["mimeType"], "text/markdown");
    let text = read["text"].as_str().unwrap();
    let on_disk =
        std::fs::read_to_string(crate::support::repo().join("packages/lore/book/magic.md"))
            .unwrap();
    assert_eq!(text, on_disk, "the page as the book holds it");

    let template = json!({"type": "ref/resource", "uri": PAGE_TEMPLATE});
    assert_eq!(
        completed(&mut c, template.clone(), "page", "c"),
        json!(["combat"])
    );
    assert_eq!(
        completed(&mut c, template, "page", ""),
        json!(["combat", "magic"])
    );

    // Completion mounts the book only for a caller whose session may read files.
    c.rebind("outsider", "reader");
    assert_eq!(
        completed(
            &mut c,
            json!({"type": "ref/resource", "uri": PAGE_TEMPLATE}),
            "page",
            ""
        ),
        json!([])
    );
    c.rebind("keeper", "reader");

    let reads = c.call_ok("trace.tail", json!({"type": "resource.read", "limit": 100}));
    assert!(
        reads["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["payload"]["uri"] == "limina://pkg/lore/pages/magic"
                && e["payload"]["found"] == true
                && e["payload"]["source"] == PAGE_TEMPLATE),
        "{reads}"
    );
}

#[test]
fn lore_explain_embeds_the_page_and_asks_and_its_page_completes() {
    let (_t, _p, mut c) = lore();
    let explain = prompt_named(&mut c, "lore.explain");
    assert_eq!(explain["title"], "Explain a rule");
    assert_eq!(
        explain["arguments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (
                a["name"].as_str().unwrap(),
                a["required"].as_bool().unwrap()
            ))
            .collect::<Vec<_>>(),
        [("page", true), ("question", false)]
    );

    let messages = prompt_messages(
        &mut c,
        "lore.explain",
        json!({"page": "combat", "question": "Who acts first?"}),
    );
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0]["role"], "user");
    let embedded = &messages[0]["content"];
    assert_eq!(embedded["type"], "resource", "{messages:?}");
    assert_eq!(
        embedded["resource"]["uri"],
        "limina://pkg/lore/pages/combat"
    );
    assert_eq!(embedded["resource"]["mimeType"], "text/markdown");
    assert!(
        embedded["resource"]["text"]
            .as_str()
            .unwrap()
            .starts_with("# Combat\n")
    );
    assert_eq!(
        messages[1]["content"],
        json!({"type": "text", "text": "Using only the rules on the page \"Combat\" above, answer: Who acts first?"})
    );
    let without = c.request(
        "prompts/get",
        json!({"name": "lore.explain", "arguments": {"page": "magic"}}),
    );
    assert!(
        without["result"]["messages"][1]["content"]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{without}"))
            .starts_with("Explain the rules on the page \"Magic\" above")
    );

    let prompt = json!({"type": "ref/prompt", "name": "lore.explain"});
    assert_eq!(
        completed(&mut c, prompt.clone(), "page", "m"),
        json!(["magic"])
    );
    assert_eq!(completed(&mut c, prompt, "question", ""), json!([]));

    let bad = c.request(
        "prompts/get",
        json!({"name": "lore.explain", "arguments": {"page": "dragons"}}),
    );
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no page `dragons` in the book; list them with lore.pages"),
        "{bad}"
    );
}

/// Calls this session has been billed: the last one initialized (the session rebound as the
/// reader; a stateless request is billed to a `stateless.*` session of its own).
fn calls_billed(c: &mut Client) -> u64 {
    let usage = c.call_ok("audit.usage", json!({}));
    usage["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|b| b["sessionId"].as_str().unwrap().starts_with("session_"))
        .and_then(|b| b["budget"]["calls"]["used"].as_u64())
        .unwrap_or_else(|| panic!("{usage}"))
}

/// Only the package knows which pages exist, so a read of a missing one runs it: the read is
/// billed as any read is (one call), changes nothing, and is traced as not found.
#[test]
fn a_missing_page_is_not_found_naming_it_and_changes_nothing() {
    let (_t, _p, mut c) = lore();
    let hash = c.call_ok("world.hash", json!({}));
    let executed = |c: &mut Client| {
        c.call_ok(
            "trace.tail",
            json!({"type": "skill.executed", "limit": 1000}),
        )["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| {
                e["payload"]["skill"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with("lore.")
            })
            .count()
    };
    let calls = executed(&mut c);

    let missing = "limina://pkg/lore/pages/dragons";
    let before = calls_billed(&mut c);
    let old = c.request("resources/read", json!({"uri": missing}));
    let missing_cost = calls_billed(&mut c) - before;
    assert_eq!(old["error"]["code"], -32002, "2025-11-25: {old}");
    assert_eq!(old["error"]["data"]["uri"], missing);
    assert!(
        old["error"]["message"].as_str().unwrap().contains(missing),
        "{old}"
    );
    let before = calls_billed(&mut c);
    c.request(
        "resources/read",
        json!({"uri": "limina://pkg/lore/pages/magic"}),
    );
    let found_cost = calls_billed(&mut c) - before;
    assert_eq!(
        missing_cost, found_cost,
        "a missing page costs what a page does"
    );
    assert_eq!(missing_cost, 2, "the read and the audit.usage asking");

    let modern = c.request(
        "resources/read",
        json!({"uri": missing, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }}),
    );
    assert_eq!(modern["error"]["code"], -32602, "2026-07-28: {modern}");
    assert!(
        modern["error"]["message"]
            .as_str()
            .unwrap()
            .contains(missing),
        "{modern}"
    );

    assert_eq!(c.call_ok("world.hash", json!({})), hash, "the world");
    assert_eq!(executed(&mut c), calls, "no skill of the package ran");
    let reads = c.call_ok("trace.tail", json!({"type": "resource.read", "limit": 100}));
    let missed: Vec<&Value> = reads["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["payload"]["uri"] == missing)
        .collect();
    assert!(
        missed.len() == 2 && missed.iter().all(|e| e["payload"]["found"] == false),
        "each read is traced as not found: {reads}"
    );
}

/// A credential in a page the package serves is redacted, and its finding is traced linked to
/// the read: the `resource.read` event is caused by it as well as by the read's decision.
#[test]
fn a_credential_in_a_served_page_is_redacted_and_its_finding_causes_the_read_event() {
    let token = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    let book = tempfile::tempdir().unwrap();
    std::fs::write(
        book.path().join("keys.md"),
        format!("# Keys\n\nkey: {token}\n"),
    )
    .unwrap();
    let traces = tempfile::tempdir().unwrap();
    let (_p, mut c) =
        crate::files_and_state::host_with_book("lore", traces.path(), "reader", book.path());
    let page = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/lore/pages/keys"}),
    );
    let text = page["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(text, "# Keys\n\nkey: [redacted:github_token]\n", "{page}");

    let tail = |c: &mut Client, kind: &str| {
        c.call_ok("trace.tail", json!({"type": kind, "limit": 10}))["events"]
            .as_array()
            .unwrap()
            .clone()
    };
    let found = tail(&mut c, "security.secret.redacted");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        found[0]["payload"],
        json!({"where": "resource", "kind": "github_token", "skill": "lore", "action": "redacted"})
    );
    let reads = tail(&mut c, "resource.read");
    assert_eq!(reads.len(), 1, "{reads:#?}");
    let caused_by = reads[0]["causedBy"].as_array().unwrap();
    assert_eq!(caused_by.len(), 2, "{reads:#?}");
    assert_eq!(caused_by[1], found[0]["id"], "{reads:#?}");
    // The next read finds nothing and is caused by its decision alone.
    c.request(
        "resources/read",
        json!({"uri": "limina://pkg/lore/contents"}),
    );
    let reads = tail(&mut c, "resource.read");
    assert_eq!(
        reads[1]["causedBy"].as_array().unwrap().len(),
        1,
        "{reads:#?}"
    );
}
