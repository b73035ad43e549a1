//! Discovery for LLM agents (issue 12): every listing shows a session exactly what it may
//! call — its profile's permissions and tool allow-list — and a hidden tool stays refused;
//! published schemas are standard; `skills.search` ranks and `skills.list` pages. Latency,
//! tiers and calibration are in `latency_tiers.rs`.

use crate::support::{Client, error_of, package_dir, repo};
use limina::registry::standardize;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io::Write;

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

pub(crate) fn names(tools: &Value) -> BTreeSet<String> {
    tools
        .as_array()
        .unwrap_or_else(|| panic!("not a list of tools: {tools}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

pub(crate) fn set(items: &[&str]) -> BTreeSet<String> {
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
    // `trace.tail` needs no permission: only the allow-list hides it.
    let (code, message) = error_of(&c.call("trace.tail", json!({"limit": 5})));
    assert_eq!(code, "forbidden");
    assert_eq!(
        message,
        "profile `scout` does not allow the tool `trace.tail`"
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
pub(crate) fn dice_packages(extra: &str) -> tempfile::TempDir {
    let dir = repo().join("packages/dice");
    let packages = package_dir(&dir, &dir.join("dice.wasm"));
    let manifest = packages.path().join("dice/limina.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}\n{extra}")).unwrap();
    packages
}

/// Every tool `tools/list` shows this session, through every page.
pub(crate) fn all_tools(c: &mut Client) -> Vec<Value> {
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
            // Standard is what the host's own rewrite leaves as it is: only draft-07 keywords
            // and standard formats, in every schema position.
            for which in ["inputSchema", "outputSchema"] {
                let mut standard = tool[which].clone();
                standardize(&mut standard);
                if standard != tool[which] {
                    problems.push(format!("{name} {which}: {} is not {standard}", tool[which]));
                }
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
