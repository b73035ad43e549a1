//! A Python package serves resources and prompts (the Python SDK's `RESOURCES` and `PROMPTS`,
//! contract 0.2.0): the example `rules` package's index page, one page per rule (a template
//! whose `id` completes) and the `rules.lookUp` prompt, through the host's listings, reads,
//! gets and completion, with the refusals over the wire.

use crate::offers::{complete, example_host, listed, prompt_messages, prompt_named, traced};
use crate::support::Client;
use serde_json::{Value, json};

/// Budgets to watch, and a profile that may call the rules' skills but not read their pages.
const CONFIG: &str = "[budgets]\ncalls = 1000\ncpuMs = 100000\n\n\
    [profiles.searcher]\npermissions = [\"scene.read\"]\ntools = [\"rules.*\", \"audit.usage\", \"world.hash\"]\n";

fn rules_host() -> (tempfile::TempDir, tempfile::NamedTempFile, Client) {
    example_host("rules", CONFIG)
}

fn read(c: &mut Client, uri: &str) -> Value {
    c.request("resources/read", json!({"uri": uri}))
}

fn text_of(reply: &Value) -> String {
    reply["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{reply}"))
        .to_string()
}

/// The session's budget as `audit.usage` reports it (the call itself counts one): the newest
/// session's, after any rebind.
fn budget(c: &mut Client) -> Value {
    let usage = c.call_ok("audit.usage", json!({}));
    let budgets = usage["budgets"].as_array().unwrap();
    budgets.last().unwrap_or_else(|| panic!("{usage}"))["budget"].clone()
}

#[test]
fn rules_serves_its_pages_as_resources_and_a_missing_page_changes_nothing() {
    let (_p, _c, mut c) = rules_host();
    let resources = listed(&c.request("resources/list", json!({})), "resources", "uri");
    assert!(
        resources.contains(&"limina://pkg/rules/index".to_string()),
        "{resources:?}"
    );
    let templates = listed(
        &c.request("resources/templates/list", json!({})),
        "resourceTemplates",
        "uriTemplate",
    );
    assert!(
        templates.contains(&"limina://pkg/rules/rule/{id}".to_string()),
        "{templates:?}"
    );

    let index = text_of(&read(&mut c, "limina://pkg/rules/index"));
    assert!(index.starts_with("# Rules\n"), "{index}");
    assert!(
        index.contains("[Cover](limina://pkg/rules/rule/skirmish.cover)"),
        "{index}"
    );
    let page = read(&mut c, "limina://pkg/rules/rule/skirmish.cover");
    let contents = &page["result"]["contents"][0];
    assert_eq!(contents["uri"], "limina://pkg/rules/rule/skirmish.cover");
    assert_eq!(contents["mimeType"], "text/markdown");
    let text = text_of(&page);
    assert!(text.starts_with("# Cover\n"), "{text}");
    assert!(text.contains("light cover"), "{text}");
    assert!(
        text.contains("(limina://pkg/rules/rule/skirmish.terrain)"),
        "{text}"
    );

    // A rule the package does not have: resource-not-found on both revisions, naming the URI.
    let hash = c.call_ok("world.hash", json!({}));
    let missing_reads = |c: &mut Client| {
        traced(c, "resource.read")
            .iter()
            .filter(|e| e["payload"]["uri"] == "limina://pkg/rules/rule/core.nope")
            .map(|e| e["payload"]["found"].clone())
            .collect::<Vec<_>>()
    };
    assert!(missing_reads(&mut c).is_empty());
    let before = budget(&mut c);
    let classic = read(&mut c, "limina://pkg/rules/rule/core.nope");
    assert_eq!(classic["error"]["code"], -32002, "{classic}");
    assert_eq!(
        classic["error"]["data"]["uri"],
        "limina://pkg/rules/rule/core.nope"
    );
    let after = budget(&mut c);
    // A read is billed as the one call it is (the package ran to look), nothing more.
    assert_eq!(
        after["calls"]["used"],
        before["calls"]["used"].as_u64().unwrap() + 2,
        "{before} → {after}"
    );
    let modern = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/rules/rule/core.nope", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }}),
    );
    assert_eq!(modern["error"]["code"], -32602, "{modern}");
    assert!(
        modern["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`limina://pkg/rules/rule/core.nope`"),
        "{modern}"
    );
    assert_eq!(
        c.call_ok("world.hash", json!({})),
        hash,
        "the world is unchanged"
    );
    // Each read is traced, as not found; nothing else the package did is.
    assert_eq!(missing_reads(&mut c), [json!(false), json!(false)]);
    assert!(traced(&mut c, "rules.*").is_empty());
    // More than one segment is no rule id: not the template's, so not found either.
    let nested = read(&mut c, "limina://pkg/rules/rule/core/checks");
    assert_eq!(nested["error"]["code"], -32002, "{nested}");
}

#[test]
fn the_look_up_prompt_renders_and_its_argument_and_the_page_id_complete() {
    let (_p, _c, mut c) = rules_host();
    let prompt = prompt_named(&mut c, "rules.lookUp");
    assert_eq!(prompt["title"], "Look up a rule");
    assert_eq!(
        prompt["arguments"],
        json!([
            {"name": "rule", "description": "The rule's id, e.g. skirmish.cover", "required": true},
            {"name": "question", "description": "What to answer with the rule; empty: explain it", "required": false},
        ])
    );

    let messages = prompt_messages(
        &mut c,
        "rules.lookUp",
        json!({"rule": "skirmish.cover", "question": "Does a hedge count?"}),
    );
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0]["role"], "user");
    let embedded = &messages[0]["content"];
    assert_eq!(embedded["type"], "resource");
    assert_eq!(
        embedded["resource"]["uri"],
        "limina://pkg/rules/rule/skirmish.cover"
    );
    assert!(
        embedded["resource"]["text"]
            .as_str()
            .unwrap()
            .starts_with("# Cover\n")
    );
    let ask = messages[1]["content"]["text"].as_str().unwrap();
    assert!(
        ask.starts_with("Answer this with the rule above: Does a hedge count?"),
        "{ask}"
    );
    assert!(
        traced(&mut c, "prompt.get")
            .iter()
            .any(|e| e["payload"]["prompt"] == "rules.lookUp" && e["payload"]["ok"] == true)
    );

    // A rule the package does not have: its refusal, naming the known ids.
    let bad = c.request(
        "prompts/get",
        json!({"name": "rules.lookUp", "arguments": {"rule": "core.nope"}}),
    );
    let message = bad["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`rule` names no rule: `core.nope`") && message.contains("core.checks"),
        "{bad}"
    );
    // The required argument missing, or one it does not take: refused by the host.
    for arguments in [json!({}), json!({"rule": "core.rest", "mood": "grim"})] {
        let refused = c.request(
            "prompts/get",
            json!({"name": "rules.lookUp", "arguments": arguments}),
        );
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }

    for (reference, argument, prefix, values) in [
        (
            json!({"type": "ref/prompt", "name": "rules.lookUp"}),
            "rule",
            "skirmish.t",
            json!(["skirmish.turns", "skirmish.terrain"]),
        ),
        (
            json!({"type": "ref/resource", "uri": "limina://pkg/rules/rule/{id}"}),
            "id",
            "core.r",
            json!(["core.rest"]),
        ),
        (
            json!({"type": "ref/prompt", "name": "rules.lookUp"}),
            "rule",
            "chess",
            json!([]),
        ),
    ] {
        let done = complete(&mut c, &reference, argument, prefix);
        assert_eq!(done["result"]["completion"]["values"], values, "{done}");
    }
}

#[test]
fn a_profile_without_the_pages_sees_none_and_a_refused_read_costs_nothing() {
    let (_p, _c, mut c) = rules_host();
    c.rebind("searcher", "searcher");
    // Its skills stay callable.
    let found = c.call_ok("rules.search", json!({"query": "cover"}));
    assert_eq!(found["results"][0]["id"], "skirmish.cover");
    let resources = listed(&c.request("resources/list", json!({})), "resources", "uri");
    assert!(
        !resources
            .iter()
            .any(|u| u.starts_with("limina://pkg/rules/")),
        "{resources:?}"
    );
    assert_eq!(
        c.request("prompts/list", json!({}))["result"]["prompts"],
        json!([])
    );
    let hash = c.call_ok("world.hash", json!({}));
    let before = budget(&mut c);
    let refused = read(&mut c, "limina://pkg/rules/rule/core.checks");
    assert_eq!(refused["error"]["code"], -32001, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("resource.rules"),
        "{refused}"
    );
    let got = c.request(
        "prompts/get",
        json!({"name": "rules.lookUp", "arguments": {"rule": "core.checks"}}),
    );
    assert_eq!(got["error"]["code"], -32001, "{got}");
    let after = budget(&mut c);
    assert_eq!(
        after["calls"]["used"],
        before["calls"]["used"].as_u64().unwrap() + 1,
        "only the audit call between was counted: {before} → {after}"
    );
    assert_eq!(after["cpuMs"], before["cpuMs"], "no CPU was charged");
    assert_eq!(c.call_ok("world.hash", json!({})), hash);
}
