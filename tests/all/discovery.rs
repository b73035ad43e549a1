//! Discovery for LLM agents (issue 12): every listing shows a session exactly what it may
//! call — its profile's permissions and tool allow-list — and a hidden tool stays refused.

use crate::support::{Client, error_of, guest_packages, package_dir, repo};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io::Write;
use std::time::Duration;

/// A configuration with two allow-listed profiles: `scout` (the issue's example) and `reader`,
/// whose allow-list names `scene.*` while its permissions only read.
const CONFIG: &str = r#"
[profiles.scout]
permissions = ["scene.read"]
tools = ["scene.query*", "skills.*"]

[profiles.reader]
permissions = ["scene.read"]
tools = ["scene.*", "skills.*"]
"#;

pub(crate) fn config_file(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file
}

fn names(tools: &Value) -> BTreeSet<String> {
    tools
        .as_array()
        .unwrap_or_else(|| panic!("not a list of tools: {tools}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// What the scout profile may call.
const SCOUT_SEES: [&str; 5] = [
    "scene.queryEntities",
    "skills.describe",
    "skills.list",
    "skills.search",
    "skills.setLatencyTier",
];

#[test]
fn an_allow_listed_profile_sees_only_its_tools_in_every_listing() {
    let cfg = config_file(CONFIG);
    let mut c = Client::spawn(&[
        "--config",
        cfg.path().to_str().unwrap(),
        "--profile",
        "scout",
    ]);
    // Before `initialize`, listings are for the server's default profile.
    let early = c.request("tools/list", json!({}));
    assert_eq!(
        names(&early["result"]["tools"]),
        set(&SCOUT_SEES),
        "{early}"
    );
    c.rebind("scout", "npc");
    let want = set(&SCOUT_SEES);
    let listed = c.request("tools/list", json!({}));
    assert_eq!(names(&listed["result"]["tools"]), want, "tools/list");
    assert!(listed["result"].get("nextCursor").is_none());
    let aliased = c.request("listTools", json!({}));
    assert_eq!(names(&aliased["result"]["tools"]), want, "listTools");
    let skills = c.call_ok("skills.list", json!({}));
    assert_eq!(names(&skills["tools"]), want, "skills.list");
    let found = c.call_ok(
        "skills.search",
        json!({"query": "trace audit reload step world entity skills list", "limit": 100}),
    );
    let found = names(&found["results"]);
    assert!(
        !found.is_empty() && found.is_subset(&want),
        "skills.search found {found:?}"
    );

    // Permissions narrow an allow-list: `reader` names `scene.*` but cannot write.
    c.rebind("reader", "npc2");
    let listed = c.request("tools/list", json!({}));
    assert_eq!(
        names(&listed["result"]["tools"]),
        want,
        "reader: tools/list"
    );
}

#[test]
fn a_hidden_tool_called_by_name_is_forbidden_and_changes_nothing() {
    let cfg = config_file(CONFIG);
    let mut c = Client::session(
        "builder.readWrite",
        &["--config", cfg.path().to_str().unwrap()],
    );
    c.rebind("scout", "npc");
    let (code, message) = error_of(&c.call("world.step", json!({"ticks": 5})));
    assert_eq!(code, "forbidden");
    assert_eq!(
        message,
        "profile `scout` does not allow the tool `world.step`"
    );
    let (code, message) = error_of(&c.call("scene.createEntity", json!({})));
    assert_eq!(code, "forbidden");
    assert_eq!(message, "missing permission: scene.write");
    let aliased = c.request(
        "callTool",
        json!({"name": "dev.reload", "input": {"target": "data"}}),
    );
    assert_eq!(aliased["error"]["code"], -32001, "{aliased}");
    assert_eq!(aliased["error"]["data"]["error"]["code"], "forbidden");
    // Nothing happened: the world did not step and holds no entity.
    c.rebind("builder.readWrite", "builder");
    let snapshot = c.call_ok("inspector.snapshot", json!({"limit": 0}));
    assert_eq!(snapshot["world"]["tick"], 0, "{snapshot}");
    assert_eq!(snapshot["page"]["totalEntities"], 0, "{snapshot}");
}

#[test]
fn skills_describe_of_a_hidden_tool_says_it_is_not_available_without_its_schema() {
    let cfg = config_file(CONFIG);
    let mut c = Client::session("scout", &["--config", cfg.path().to_str().unwrap()]);
    for hidden in ["trace.tail", "scene.createEntity", "world.step"] {
        let result = c.call("skills.describe", json!({"name": hidden}));
        let (code, message) = error_of(&result);
        assert_eq!(code, "forbidden", "{hidden}");
        assert_eq!(
            message,
            format!(
                "`{hidden}` is not available to this session (profile `scout`); skills.list shows the ones it may call"
            )
        );
        let text = result.to_string();
        for field in [
            "afterSeq",
            "position",
            "ticks",
            "input_schema",
            "properties",
        ] {
            assert!(
                !text.contains(field),
                "{hidden}: the answer leaks `{field}`: {text}"
            );
        }
    }
    let (code, message) = error_of(&c.call("skills.describe", json!({"name": "nope.nothing"})));
    assert_eq!(code, "invalid_input");
    assert!(
        message.contains("no skill named `nope.nothing`"),
        "{message}"
    );
    let visible = c.call_ok("skills.describe", json!({"name": "scene.queryEntities"}));
    assert_eq!(visible["input_schema"]["type"], "object");
}

/// The `dice` example package alone in a fresh folder, with `extra` appended to its manifest.
fn dice_packages(extra: &str) -> tempfile::TempDir {
    let dir = repo().join("packages/dice");
    let packages = package_dir(&dir, &dir.join("dice.wasm"));
    let manifest = packages.path().join("dice/limina.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}\n{extra}")).unwrap();
    packages
}

/// Every tool `tools/list` shows this session, through every page.
fn all_tools(c: &mut Client) -> Vec<Value> {
    let mut tools = Vec::new();
    let mut params = json!({});
    loop {
        let reply = c.request("tools/list", params);
        let result = &reply["result"];
        tools.extend(result["tools"].as_array().expect("tools").iter().cloned());
        match result.get("nextCursor") {
            Some(next) => params = json!({"cursor": next}),
            None => return tools,
        }
    }
}

fn latency_of(c: &mut Client, name: &str) -> Value {
    let tools = all_tools(c);
    let tool = tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not listed"));
    tool["_meta"]["latency"].clone()
}

/// JSON Schema draft-07 keywords (with `$defs` and `deprecated` from later drafts).
const KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$ref",
    "$comment",
    "$defs",
    "$anchor",
    "title",
    "description",
    "default",
    "readOnly",
    "writeOnly",
    "examples",
    "deprecated",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "additionalItems",
    "items",
    "maxItems",
    "minItems",
    "uniqueItems",
    "contains",
    "maxProperties",
    "minProperties",
    "required",
    "additionalProperties",
    "definitions",
    "properties",
    "patternProperties",
    "dependencies",
    "propertyNames",
    "const",
    "enum",
    "type",
    "format",
    "contentMediaType",
    "contentEncoding",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
];

const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Every non-standard keyword or format in a schema, as `path: what`.
fn nonstandard(schema: &Value, path: &str, out: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    for (key, value) in map {
        let here = format!("{path}/{key}");
        if !KEYWORDS.contains(&key.as_str()) {
            out.push(format!("{here}: keyword `{key}`"));
            continue;
        }
        match key.as_str() {
            "format" if !value.as_str().is_some_and(|f| FORMATS.contains(&f)) => {
                out.push(format!("{here}: format {value}"))
            }
            "properties" | "patternProperties" | "definitions" | "$defs" | "dependencies" => {
                for (name, child) in value.as_object().into_iter().flatten() {
                    nonstandard(child, &format!("{here}/{name}"), out);
                }
            }
            "items"
            | "additionalItems"
            | "additionalProperties"
            | "contains"
            | "propertyNames"
            | "if"
            | "then"
            | "else"
            | "not"
            | "allOf"
            | "anyOf"
            | "oneOf" => match value {
                Value::Array(list) => {
                    for (i, child) in list.iter().enumerate() {
                        nonstandard(child, &format!("{here}/{i}"), out);
                    }
                }
                child => nonstandard(child, &here, out),
            },
            _ => {}
        }
    }
}

#[test]
fn published_schemas_use_only_standard_keywords_and_formats() {
    let dice = dice_packages("");
    let mut seen = BTreeSet::new();
    let mut problems = Vec::new();
    // Between them these profiles may call every core skill; dice is the README's example.
    for profile in ["builder.readWrite", "social.actor"] {
        let mut c = Client::session(profile, &["--packages", dice.path().to_str().unwrap()]);
        for tool in all_tools(&mut c) {
            let name = tool["name"].as_str().unwrap().to_string();
            for which in ["inputSchema", "outputSchema"] {
                nonstandard(&tool[which], &format!("{name} {which}"), &mut problems);
            }
            let described = c.call_ok("skills.describe", json!({"name": name}));
            assert_eq!(described["input_schema"], tool["inputSchema"], "{name}");
            seen.insert(name);
        }
    }
    assert!(
        seen.len() >= 45 + 2,
        "every core skill was checked: {}",
        seen.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn an_unsigned_field_is_published_with_its_bounds_instead_of_a_format() {
    let dice = dice_packages("");
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", dice.path().to_str().unwrap()],
    );
    let tools = all_tools(&mut c);
    let field = |skill: &str, name: &str| {
        let tool = tools.iter().find(|t| t["name"] == skill).unwrap();
        tool["inputSchema"]["properties"][name].clone()
    };
    // `ui.label`'s `maxLines` is a Rust `u32` that must be > 0: schemars wrote
    // `format: "uint32"`, published as the bounds it stands for.
    let max_lines = field("ui.label", "maxLines");
    assert_eq!(max_lines["type"], "integer", "{max_lines}");
    assert!(max_lines.get("format").is_none(), "{max_lines}");
    assert_eq!(
        max_lines["exclusiveMinimum"], 0,
        "the declared bound stays: {max_lines}"
    );
    assert_eq!(max_lines["maximum"], 4294967295u64, "{max_lines}");
    // A declared range tighter than the type stays as declared.
    let count = field("dice.rollTable", "count");
    assert!(count.get("format").is_none(), "{count}");
    assert_eq!(
        (count["minimum"].as_f64(), count["maximum"].as_f64()),
        (Some(1.0), Some(20.0))
    );
    // And the bound holds: past it is `invalid_input` naming the field.
    let (code, message) = error_of(&c.call(
        "ui.label",
        json!({"anchor": {"kind": "screen"}, "text": "hi", "maxLines": 4294967296u64}),
    ));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("`maxLines`"), "{message}");
}

#[test]
fn tools_list_and_skills_describe_report_each_skills_measured_latency() {
    let mut c = Client::session("builder.readWrite", &[]);
    let untouched = latency_of(&mut c, "scene.destroyEntity");
    assert_eq!(
        untouched,
        json!({"p50Ms": null, "p99Ms": null, "cpuP50Ms": null, "samples": 0, "errorRate": 0.0, "tier": "fast", "source": "none"})
    );
    for _ in 0..12 {
        c.call_ok("scene.queryEntities", json!({}));
    }
    let measured = latency_of(&mut c, "scene.queryEntities");
    assert_eq!(measured["samples"], 12, "{measured}");
    assert_eq!(measured["source"], "measured", "{measured}");
    assert_eq!(measured["errorRate"], 0.0, "{measured}");
    assert_eq!(measured["tier"], "fast", "{measured}");
    let (p50, p99) = (
        measured["p50Ms"].as_f64().unwrap(),
        measured["p99Ms"].as_f64().unwrap(),
    );
    assert!(p50 > 0.0 && p99 >= p50 && p99 < 1000.0, "{measured}");
    assert!(
        measured["cpuP50Ms"].as_f64().is_some_and(|c| c > 0.0),
        "a guest burns fuel: {measured}"
    );
    let described = c.call_ok("skills.describe", json!({"name": "scene.queryEntities"}));
    assert_eq!(described["latency"]["samples"], 12, "{described}");
    assert_eq!(described["latency"]["tier"], "fast");
    // A refused call never reached the skill, so it is not a sample.
    let (code, _) = error_of(&c.call("scene.queryEntities", json!({"radius": -1})));
    assert_eq!(code, "invalid_input");
    assert_eq!(latency_of(&mut c, "scene.queryEntities")["samples"], 12);
    // Host built-ins are measured too, with no guest CPU.
    let step = latency_of(&mut c, "skills.describe");
    assert_eq!(step["samples"], 1, "{step}");
    assert_eq!(step["cpuP50Ms"], 0.0, "{step}");
}

#[test]
fn a_skill_failing_over_thirty_percent_of_its_calls_is_shown_one_tier_slower() {
    let packages = guest_packages(&["crasher"]);
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", packages.path().to_str().unwrap()],
    );
    for _ in 0..10 {
        let (code, _) = error_of(&c.call("crasher.buildThenPanic", json!({})));
        assert_eq!(code, "handler_error");
    }
    let latency = latency_of(&mut c, "crasher.buildThenPanic");
    assert_eq!(latency["errorRate"], 1.0, "{latency}");
    assert_eq!(latency["samples"], 10, "{latency}");
    assert_eq!(
        latency["tier"], "standard",
        "fast by time, one slower for failing: {latency}"
    );
}

#[test]
fn a_declared_latency_stands_in_until_enough_calls_are_measured() {
    let dice = dice_packages("[latency]\np50_ms = 800\nmax_ms = 2000\n");
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", dice.path().to_str().unwrap()],
    );
    let declared = latency_of(&mut c, "dice.roll");
    assert_eq!(declared["source"], "declared", "{declared}");
    assert_eq!(
        (declared["p50Ms"].clone(), declared["p99Ms"].clone()),
        (json!(800.0), json!(2000.0))
    );
    assert_eq!(declared["tier"], "standard", "{declared}");
    let found = c.call_ok("skills.search", json!({"query": "roll dice"}));
    assert_eq!(found["results"][0]["tier"], "standard", "{found}");
    for _ in 0..10 {
        c.call_ok("dice.roll", json!({"expression": "2d6"}));
    }
    let measured = latency_of(&mut c, "dice.roll");
    assert_eq!(measured["source"], "measured", "{measured}");
    assert_eq!(measured["tier"], "fast", "{measured}");
}

#[test]
fn skills_search_ranks_what_a_request_means_first() {
    let dice = dice_packages("");
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", dice.path().to_str().unwrap()],
    );
    let first = |c: &mut Client, query: &str| {
        let found = c.call_ok("skills.search", json!({"query": query}));
        found["results"][0]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(first(&mut c, "roll dice"), "dice.roll");
    assert_eq!(first(&mut c, "move a body"), "physics.applyImpulse");
    assert_eq!(first(&mut c, "speech bubble"), "ui.speechBubble");
    let found = c.call_ok("skills.search", json!({"query": "entity", "limit": 3}));
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{found}");
    for r in results {
        assert!(r["score"].as_f64().unwrap() > 0.0, "{r}");
        assert_eq!(r["tier"], "fast", "{r}");
        assert!(r["description"].as_str().unwrap().ends_with('.'), "{r}");
    }
    let scores: Vec<f64> = results
        .iter()
        .map(|r| r["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let physics = c.call_ok(
        "skills.search",
        json!({"query": "entity body move", "category": "physics"}),
    );
    let physics = physics["results"].as_array().unwrap();
    assert!(!physics.is_empty());
    assert!(
        physics.iter().all(|r| r["category"] == "physics"),
        "{physics:?}"
    );
    let nothing = c.call_ok("skills.search", json!({"query": "xylophone quartz"}));
    assert_eq!(nothing["results"], json!([]));
}

#[test]
fn skills_search_and_list_refuse_bad_paging_naming_the_field() {
    let mut c = Client::session("builder.readWrite", &[]);
    let before = c.call_ok("skills.list", json!({}));
    for (skill, input, field) in [
        ("skills.search", json!({"query": ""}), "query"),
        ("skills.search", json!({}), "query"),
        (
            "skills.search",
            json!({"query": "roll", "limit": 0}),
            "limit",
        ),
        (
            "skills.search",
            json!({"query": "roll", "limit": 101}),
            "limit",
        ),
        ("skills.list", json!({"limit": 0}), "limit"),
        ("skills.list", json!({"offset": -1}), "offset"),
    ] {
        let (code, message) = error_of(&c.call(skill, input.clone()));
        assert_eq!(code, "invalid_input", "{skill} {input}");
        assert!(message.contains(field), "{skill} {input}: {message}");
    }
    assert_eq!(
        c.call_ok("skills.list", json!({})),
        before,
        "nothing changed"
    );
}

#[test]
fn skills_list_pages_with_limit_and_offset() {
    let mut c = Client::session("builder.readWrite", &[]);
    let all = c.call_ok("skills.list", json!({}));
    let total = all["total"].as_u64().unwrap() as usize;
    assert_eq!(all["tools"].as_array().unwrap().len(), total);
    assert!(all.get("nextOffset").is_none(), "{all}");
    let mut paged = Vec::new();
    let mut offset = 0;
    loop {
        let page = c.call_ok("skills.list", json!({"limit": 7, "offset": offset}));
        assert_eq!(page["total"], total);
        let tools = page["tools"].as_array().unwrap();
        assert!(tools.len() <= 7);
        paged.extend(tools.iter().cloned());
        match page.get("nextOffset") {
            Some(next) => {
                assert_eq!(next, &json!(offset + 7));
                offset = next.as_u64().unwrap() as usize;
            }
            None => break,
        }
    }
    assert_eq!(Value::from(paged), all["tools"]);
    let past = c.call_ok("skills.list", json!({"offset": total + 5}));
    assert_eq!(past["tools"], json!([]));
    assert!(past.get("nextOffset").is_none());
}

/// An NPC capped at `fast` with a 3-tool allow-list, beside packages where `dice` declares
/// itself slow (p50 800 ms: `standard`).
const NPC: &str = r#"
[profiles.npc]
permissions = ["scene.read"]
tools = ["dice.roll", "scene.queryEntities", "skills.list"]
maxLatencyTier = "fast"
"#;

const SLOW_DICE: &str = "[latency]\np50_ms = 800\nmax_ms = 2000\n";

fn initialize(c: &mut Client, params: Value) -> Value {
    let mut p = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}});
    p.as_object_mut()
        .unwrap()
        .extend(params.as_object().unwrap().clone());
    c.request("initialize", p)
}

fn listed(c: &mut Client) -> BTreeSet<String> {
    all_tools(c)
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_npc_capped_at_fast_sees_exactly_its_allow_listed_tools_that_fit() {
    let dice = dice_packages(SLOW_DICE);
    let cfg = config_file(NPC);
    let mut c = Client::spawn(&[
        "--config",
        cfg.path().to_str().unwrap(),
        "--packages",
        dice.path().to_str().unwrap(),
    ]);
    let refused = initialize(&mut c, json!({"profile": "npc", "latencyTier": "deep"}));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "`latencyTier`: profile `npc` allows at most the `fast` latency tier, not `deep`"
    );
    let bad = initialize(&mut c, json!({"profile": "npc", "latencyTier": "instant"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown latency tier `instant`")
    );
    // Nothing was bound by the refusals.
    let early = c.request(
        "tools/call",
        json!({"name": "skills.list", "arguments": {}}),
    );
    assert_eq!(early["error"]["code"], -32001, "{early}");

    let ok = initialize(&mut c, json!({"profile": "npc", "agentId": "npc"}));
    assert_eq!(ok["result"]["session"]["latencyTier"], "fast", "{ok}");
    assert_eq!(listed(&mut c), set(&["scene.queryEntities", "skills.list"]));
    let skills = c.call_ok("skills.list", json!({}));
    assert_eq!(
        names(&skills["tools"]),
        set(&["scene.queryEntities", "skills.list"])
    );
    // Hidden by its tier only: by default a call by name still runs.
    let rolled = c.call_ok("dice.roll", json!({"expression": "1d6"}));
    assert!(rolled["total"].as_i64().is_some(), "{rolled}");
}

#[test]
fn tier_enforcement_refuse_refuses_a_call_beyond_the_session_tier_and_changes_nothing() {
    let dice = dice_packages(SLOW_DICE);
    let cfg = config_file(&format!("[latency]\ntierEnforcement = \"refuse\"\n{NPC}"));
    let args = [
        "--config",
        cfg.path().to_str().unwrap(),
        "--packages",
        dice.path().to_str().unwrap(),
    ];
    let mut c = Client::session("npc", &args);
    let (code, message) = error_of(&c.call("dice.roll", json!({"expression": "1d6"})));
    assert_eq!(code, "forbidden");
    assert_eq!(
        message,
        "`dice.roll` is in the `standard` latency tier, slower than this session's `fast`; choose a faster skill (skills.search shows tiers) or change the tier with skills.setLatencyTier"
    );
    c.rebind("builder.readWrite", "builder");
    let described = c.call_ok("skills.describe", json!({"name": "dice.roll"}));
    assert_eq!(
        described["latency"]["samples"], 0,
        "the refused call never ran: {described}"
    );
    let usage = c.call_ok(
        "audit.query",
        json!({"decision": "deny", "rule": "latency.tier"}),
    );
    assert_eq!(usage["summary"]["denied"], 1, "{usage}");
}

#[test]
fn a_session_changes_its_tier_with_skills_set_latency_tier_and_hears_list_changed() {
    let dice = dice_packages(SLOW_DICE);
    let cfg = config_file(
        "[profiles.listener]\npermissions = []\ntools = [\"skills.*\"]\nmaxLatencyTier = \"fast\"\n",
    );
    let args = [
        "--config",
        cfg.path().to_str().unwrap(),
        "--packages",
        dice.path().to_str().unwrap(),
    ];
    let mut c = Client::session("builder.readWrite", &args);
    assert!(listed(&mut c).contains("dice.roll"), "deep by default");
    c.notifications.clear();
    let set_fast = c.call_ok("skills.setLatencyTier", json!({"tier": "fast"}));
    assert_eq!(set_fast, json!({"tier": "fast", "maxTier": "deep"}));
    assert!(
        c.wait_notification("notifications/tools/list_changed", Duration::from_secs(5))
            .is_some(),
        "the listing changed"
    );
    let fast = listed(&mut c);
    assert!(
        !fast.contains("dice.roll") && !fast.contains("dice.rollTable"),
        "{fast:?}"
    );
    assert!(fast.contains("scene.createEntity"), "{fast:?}");
    let found = c.call_ok("skills.search", json!({"query": "roll dice"}));
    assert!(!names(&found["results"]).contains("dice.roll"), "{found}");
    c.call_ok("skills.setLatencyTier", json!({"tier": "standard"}));
    assert!(listed(&mut c).contains("dice.roll"));
    let (code, message) = error_of(&c.call("skills.setLatencyTier", json!({"tier": "instant"})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("`tier`"), "{message}");

    // Within a ceiling only.
    c.rebind("listener", "listener");
    let (code, message) = error_of(&c.call("skills.setLatencyTier", json!({"tier": "standard"})));
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "forbidden",
            "profile `listener` allows at most the `fast` latency tier, not `standard`"
        )
    );
    let unchanged = c.call_ok("skills.setLatencyTier", json!({"tier": "fast"}));
    assert_eq!(unchanged, json!({"tier": "fast", "maxTier": "fast"}));
}

#[test]
fn a_skill_changing_tier_announces_list_changed_and_enters_a_fast_listing() {
    let dice = dice_packages(SLOW_DICE);
    let args = ["--packages", dice.path().to_str().unwrap()];
    let mut c = Client::session("builder.readWrite", &args);
    // At `fast`, the dice declared slow are not shown.
    c.call_ok("skills.setLatencyTier", json!({"tier": "fast"}));
    assert!(!listed(&mut c).contains("dice.roll"));
    c.call_ok("skills.setLatencyTier", json!({"tier": "deep"}));
    for _ in 0..9 {
        c.call_ok("dice.roll", json!({"expression": "1d6"}));
    }
    c.notifications.clear();
    // The tenth measured call replaces the declared 800 ms with a fast p50.
    c.call_ok("dice.roll", json!({"expression": "1d6"}));
    assert!(
        c.wait_notification("notifications/tools/list_changed", Duration::from_secs(5))
            .is_some(),
        "a tier change is announced"
    );
    c.call_ok("skills.setLatencyTier", json!({"tier": "fast"}));
    assert!(listed(&mut c).contains("dice.roll"), "now fast");
}

#[test]
fn calibration_measures_package_skills_on_a_scratch_world_and_never_the_live_one() {
    let dice = dice_packages("");
    let mut c = Client::session(
        "builder.readWrite",
        &["--packages", dice.path().to_str().unwrap()],
    );
    c.call_ok(
        "scene.createEntity",
        json!({"position": [1, 2, 3], "dynamic": true}),
    );
    c.call_ok("world.step", json!({"ticks": 3}));
    let before = c.call_ok("inspector.snapshot", json!({}));
    let executed_before = c.call_ok(
        "trace.tail",
        json!({"type": "skill.executed", "limit": 1000}),
    );

    let calibrated = c.call_ok("skills.calibrate", json!({}));
    let rows = calibrated["calibrated"].as_array().unwrap();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} was not calibrated: {calibrated}"))
    };
    for name in [
        "dice.roll",
        "dice.rollTable",
        "scene.createEntity",
        "physics.applyImpulse",
    ] {
        assert_eq!(row(name)["runs"], 10, "{calibrated}");
        assert!(row(name)["p50Ms"].as_f64().is_some(), "{calibrated}");
    }
    assert_eq!(
        row("scene.createEntity")["failed"],
        0,
        "defaults suffice: {calibrated}"
    );
    // `ui.label` needs an anchor no schema default describes: left out, and said so.
    let skipped = calibrated["skipped"].as_array().unwrap();
    assert!(skipped.contains(&json!("ui.label")), "{calibrated}");
    assert!(
        skipped
            .iter()
            .all(|s| !rows.iter().any(|r| &r["name"] == s))
    );
    assert!(
        rows.iter()
            .all(|r| !r["name"].as_str().unwrap().starts_with("skills.")),
        "built-ins are not run"
    );
    let latency = latency_of(&mut c, "dice.roll");
    assert_eq!(
        (latency["samples"].clone(), latency["source"].clone()),
        (json!(10), json!("measured"))
    );

    // The live world did not move: same tick, same entities, and the trace holds no call the
    // calibration made.
    let after = c.call_ok("inspector.snapshot", json!({}));
    assert_eq!(after["world"]["tick"], before["world"]["tick"]);
    assert_eq!(after["page"]["totalEntities"], 1);
    assert_eq!(after["entities"], before["entities"]);
    let executed_after = c.call_ok(
        "trace.tail",
        json!({"type": "skill.executed", "limit": 1000}),
    );
    let skills_of = |v: &Value| -> Vec<String> {
        v["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["payload"]["skill"].as_str().unwrap().to_string())
            .collect()
    };
    let mut expected = skills_of(&executed_before);
    expected.extend(["trace.tail", "skills.calibrate", "inspector.snapshot"].map(String::from));
    assert_eq!(skills_of(&executed_after), expected);
}

#[test]
fn after_calibration_a_slow_skill_drops_out_of_a_fast_listing() {
    // Tiers tight enough that any measured guest call is slower than `fast`.
    let cfg = config_file(&format!(
        "[latency]\nfastMs = 0.0001\nstandardMs = 10000\n{NPC}"
    ));
    let dice = dice_packages("");
    let args = [
        "--config",
        cfg.path().to_str().unwrap(),
        "--packages",
        dice.path().to_str().unwrap(),
    ];
    let mut c = Client::session("npc", &args);
    assert!(
        listed(&mut c).contains("dice.roll"),
        "unmeasured, it is listed"
    );
    let (code, message) = error_of(&c.call("skills.calibrate", json!({})));
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("forbidden", "missing permission: scene.write")
    );
    c.rebind("builder.readWrite", "operator");
    let calibrated = c.call_ok("skills.calibrate", json!({"runs": 10}));
    let roll = calibrated["calibrated"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "dice.roll")
        .unwrap()
        .clone();
    assert_eq!(roll["tier"], "standard", "{roll}");
    c.rebind("npc", "npc");
    // Both guest skills it may call were measured slower than `fast`.
    assert_eq!(listed(&mut c), set(&["skills.list"]));
}
