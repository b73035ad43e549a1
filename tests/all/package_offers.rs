//! Packages serve resources and prompts (contract 0.2.0's `resources` and `prompts`
//! exports), through the host's listings: the example `dice` package serves a notation page,
//! one page per random table (a template whose variable completes), and a prompt that embeds
//! a table's page. Reads and gets are decided and traced like calls; a profile's tool
//! allow-list hides them as it hides the host's own.

use crate::offers::{complete, example_host, listed, prompt_messages, prompt_named, traced};
use crate::support::Client;
use serde_json::json;

const SCOUT: &str =
    "[profiles.scout]\npermissions = [\"scene.read\"]\ntools = [\"scene.*\", \"resource.world\"]\n";

fn dice_host() -> (tempfile::TempDir, tempfile::NamedTempFile, Client) {
    example_host("dice", SCOUT)
}

#[test]
fn a_packages_resources_are_listed_read_and_traced() {
    let (_p, _c, mut c) = dice_host();
    let resources = c.request("resources/list", json!({}));
    assert!(
        listed(&resources, "resources", "uri").contains(&"limina://pkg/dice/notation".to_string()),
        "{resources}"
    );
    let templates = c.request("resources/templates/list", json!({}));
    assert!(
        listed(&templates, "resourceTemplates", "uriTemplate")
            .contains(&"limina://pkg/dice/tables/{table}".to_string()),
        "{templates}"
    );
    let read = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/dice/tables/loot"}),
    );
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["uri"], "limina://pkg/dice/tables/loot", "{read}");
    assert_eq!(contents["mimeType"], "text/markdown");
    let text = contents["text"].as_str().unwrap();
    assert!(text.starts_with("# The loot table (d"), "{text}");
    assert!(text.contains("1. 3 copper coins and a button"), "{text}");
    let notation = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/dice/notation"}),
    );
    assert!(
        notation["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("`NdS+M`"),
        "{notation}"
    );
    let reads = traced(&mut c, "resource.read");
    let loot = reads
        .iter()
        .find(|e| e["payload"]["uri"] == "limina://pkg/dice/tables/loot")
        .expect("the read is traced");
    assert_eq!(loot["payload"]["found"], true);
    assert_eq!(
        loot["payload"]["source"],
        "limina://pkg/dice/tables/{table}"
    );

    // A table the package does not have: not found, naming the URI; traced as not found.
    let missing = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/dice/tables/dragons"}),
    );
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    assert_eq!(
        missing["error"]["data"]["uri"],
        "limina://pkg/dice/tables/dragons"
    );
    let reads = traced(&mut c, "resource.read");
    assert!(
        reads.iter().any(
            |e| e["payload"]["uri"] == "limina://pkg/dice/tables/dragons"
                && e["payload"]["found"] == false
        ),
        "{reads:?}"
    );
}

#[test]
fn a_packages_prompt_is_listed_got_and_completed() {
    let (_p, _c, mut c) = dice_host();
    let prompt = prompt_named(&mut c, "dice.narrate");
    assert_eq!(prompt["arguments"][0]["name"], "table");
    assert_eq!(prompt["arguments"][0]["required"], true);
    let messages = prompt_messages(&mut c, "dice.narrate", json!({"table": "weather"}));
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(messages[0]["content"]["type"], "resource");
    assert_eq!(
        messages[0]["content"]["resource"]["uri"],
        "limina://pkg/dice/tables/weather"
    );
    assert!(
        messages[1]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("dice.rollTable"),
        "{messages:?}"
    );
    assert!(
        traced(&mut c, "prompt.get")
            .iter()
            .any(|e| e["payload"]["prompt"] == "dice.narrate" && e["payload"]["ok"] == true)
    );

    // The package refuses a table it does not have; the host passes its message on.
    let bad = c.request(
        "prompts/get",
        json!({"name": "dice.narrate", "arguments": {"table": "dragons"}}),
    );
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("unknown table `dragons`; the tables are encounter, loot, weather"),
        "{bad}"
    );
    // A missing required argument is refused by the host before the package runs.
    let missing = c.request(
        "prompts/get",
        json!({"name": "dice.narrate", "arguments": {}}),
    );
    assert_eq!(missing["error"]["code"], -32602, "{missing}");

    for (reference, argument) in [
        (
            json!({"type": "ref/prompt", "name": "dice.narrate"}),
            "table",
        ),
        (
            json!({"type": "ref/resource", "uri": "limina://pkg/dice/tables/{table}"}),
            "table",
        ),
    ] {
        let done = complete(&mut c, &reference, argument, "w");
        assert_eq!(
            done["result"]["completion"]["values"],
            json!(["weather"]),
            "{done}"
        );
    }
    // A variable the template does not have is refused by the host, naming it, as an
    // argument the prompt does not take is.
    for reference in [
        json!({"type": "ref/prompt", "name": "dice.narrate"}),
        json!({"type": "ref/resource", "uri": "limina://pkg/dice/tables/{table}"}),
    ] {
        let done = complete(&mut c, &reference, "sides", "");
        assert_eq!(done["error"]["code"], -32602, "{done}");
        let message = done["error"]["message"].as_str().unwrap();
        assert!(message.contains("`sides`"), "{message}");
    }
}

#[test]
fn a_profile_that_may_not_read_them_sees_none_and_is_refused() {
    let (_p, _c, mut c) = dice_host();
    c.rebind("scout", "scout");
    let resources = c.request("resources/list", json!({}));
    assert!(
        !listed(&resources, "resources", "uri")
            .iter()
            .any(|u| u.starts_with("limina://pkg/")),
        "{resources}"
    );
    let templates = c.request("resources/templates/list", json!({}));
    assert_eq!(
        templates["result"]["resourceTemplates"],
        json!([]),
        "{templates}"
    );
    assert_eq!(
        c.request("prompts/list", json!({}))["result"]["prompts"],
        json!([])
    );
    let read = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/dice/notation"}),
    );
    assert_eq!(read["error"]["code"], -32001, "{read}");
    assert!(
        read["error"]["message"]
            .as_str()
            .unwrap()
            .contains("resource.dice"),
        "{read}"
    );
    let got = c.request(
        "prompts/get",
        json!({"name": "dice.narrate", "arguments": {"table": "loot"}}),
    );
    assert_eq!(got["error"]["code"], -32001, "{got}");
    let done = c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "dice.narrate"}, "argument": {"name": "table", "value": ""}}),
    );
    // Hidden: for this session the prompt does not exist.
    assert_eq!(done["error"]["code"], -32602, "{done}");
}

#[test]
fn memory_serves_the_calling_agents_own_notes_and_a_reflect_prompt() {
    let (_pkgs, _config, mut c) = example_host(
        "memory",
        "[profiles.keeper]\npermissions = [\"scene.read\", \"state.read\", \"state.write\"]\n\n\
         [packages.memory.grants]\nstate = { keys = 10000, bytes = 4194304 }\n",
    );
    c.rebind("keeper", "mara");
    c.call_ok("memory.remember", json!({"text": "the well is poisoned"}));
    let read = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/memory/notes"}),
    );
    let text = read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{read}"));
    assert!(text.contains("the well is poisoned"), "{text}");
    let got = c.request(
        "prompts/get",
        json!({"name": "memory.reflect", "arguments": {"topic": "the well"}}),
    );
    assert_eq!(
        got["result"]["messages"][0]["content"]["resource"]["uri"], "limina://pkg/memory/notes",
        "{got}"
    );
    assert!(
        got["result"]["messages"][0]["content"]["resource"]["text"]
            .as_str()
            .unwrap()
            .contains("the well is poisoned")
    );
    // Another agent reads its own (empty) notes, not these.
    c.rebind("keeper", "stranger");
    let theirs = c.request(
        "resources/read",
        json!({"uri": "limina://pkg/memory/notes"}),
    );
    let text = theirs["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(
        !text.contains("poisoned") && text.contains("none yet"),
        "{text}"
    );
}
