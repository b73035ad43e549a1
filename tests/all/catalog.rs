//! The core skill catalog (`shared/spec/skills.md`) pinned as data: every skill's name,
//! version, category, permissions, input fields (type, required, default, bounds and whether
//! they are exclusive, lengths, enum values), strictness and output fields, checked against
//! what the running host lists, describes, validates and returns.

use crate::support::{Client, error_of};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

mod table;
use table::{ADDITIONS, Entry, Field, Ty, additions_for, catalog, profile};

/// The names of the catalog's skills, for suites that check what a host lists.
pub(crate) fn catalog_names() -> Vec<&'static str> {
    catalog().iter().map(|e| e.name).collect()
}

/// Equal JSON, with numbers compared as numbers (`1` and `1.0` are the same default).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn is_vec3(s: &Value) -> bool {
    s["type"] == "array"
        && s["items"]["type"] == "number"
        && same(&s["minItems"], &json!(3))
        && same(&s["maxItems"], &json!(3))
}

/// Every difference between a field's live schema and the catalog, as readable lines.
fn field_mismatches(skill: &str, f: &Field, s: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut expect = |what: &str, ok: bool| {
        if !ok {
            out.push(format!("{skill}.{}: {what}; schema is {s}", f.name));
        }
    };
    let type_ok = match f.ty {
        Ty::Str => s["type"] == "string",
        Ty::Num => s["type"] == "number",
        Ty::Int => s["type"] == "integer",
        Ty::Bool => s["type"] == "boolean",
        Ty::Obj => s["type"] == "object",
        Ty::Vec3 => is_vec3(s),
        Ty::StrArr => s["type"] == "array" && s["items"]["type"] == "string",
        Ty::NumArr => s["type"] == "array" && s["items"]["type"] == "number",
        Ty::StrOrVec3 => s["anyOf"].as_array().is_some_and(|any| {
            any.len() == 2
                && any
                    .iter()
                    .any(|a| a["type"] == "string" && same(&a["minLength"], &json!(1)))
                && any.iter().any(is_vec3)
        }),
    };
    expect(&format!("type {:?}", f.ty), type_ok);
    let default_ok = match &f.default {
        Some(d) => same(d, &s["default"]),
        None => s.get("default").is_none(),
    };
    expect(&format!("default {:?}", f.default), default_ok);
    let bound = |key: &str, ex_key: &str, b: Option<(f64, bool)>| -> bool {
        let (inc, exc) = (
            s.get(key).and_then(Value::as_f64),
            s.get(ex_key).and_then(Value::as_f64),
        );
        match b {
            None => inc.is_none() && exc.is_none(),
            Some((v, false)) => inc == Some(v) && exc.is_none(),
            Some((v, true)) => exc == Some(v) && inc.is_none(),
        }
    };
    expect(
        &format!("lower bound {:?} (value, exclusive)", f.min),
        bound("minimum", "exclusiveMinimum", f.min),
    );
    // A Rust `u32` field is published with the type's own maximum (issue 12: standard
    // bounds instead of a `uint32` format); that is not a catalog bound.
    let type_limit = f.ty == Ty::Int
        && f.max.is_none()
        && s.get("maximum").and_then(Value::as_f64) == Some(u32::MAX as f64)
        && s.get("exclusiveMaximum").is_none();
    expect(
        &format!("upper bound {:?} (value, exclusive)", f.max),
        type_limit || bound("maximum", "exclusiveMaximum", f.max),
    );
    let (lo, hi) = match f.ty {
        Ty::NumArr => ("minItems", "maxItems"),
        _ => ("minLength", "maxLength"),
    };
    if f.ty != Ty::Vec3 && f.ty != Ty::StrOrVec3 {
        expect(
            &format!("lengths {:?}", f.len),
            s.get(lo).and_then(Value::as_u64) == f.len.0
                && s.get(hi).and_then(Value::as_u64) == f.len.1,
        );
    }
    let want: BTreeSet<String> = f.one_of.iter().map(|v| v.to_string()).collect();
    expect(&format!("enum {:?}", f.one_of), strings(&s["enum"]) == want);
    out
}

/// Every difference between a skill's live input schema and the catalog.
fn schema_mismatches(e: &Entry, schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if schema["type"] != "object" {
        out.push(format!(
            "{}: input schema is not an object: {schema}",
            e.name
        ));
    }
    let props = &schema["properties"];
    let want: BTreeSet<String> = e.fields.iter().map(|f| f.name.to_string()).collect();
    if keys(props) != want {
        out.push(format!(
            "{}: fields {:?}, catalog {:?}",
            e.name,
            keys(props),
            want
        ));
    }
    let required: BTreeSet<String> = e
        .fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name.to_string())
        .collect();
    if strings(&schema["required"]) != required {
        out.push(format!(
            "{}: required {:?}, catalog {:?}",
            e.name,
            strings(&schema["required"]),
            required
        ));
    }
    let strict = schema["additionalProperties"] == json!(false);
    if strict != e.strict() {
        out.push(format!(
            "{}: strict {strict}, catalog {}",
            e.name,
            e.strict()
        ));
    }
    for f in &e.fields {
        if let Some(s) = props.get(f.name) {
            out.extend(field_mismatches(e.name, f, s));
        }
    }
    out
}

/// Every difference between a declared output schema and the catalog's output column.
fn output_mismatches(e: &Entry, schema: &Value) -> Vec<String> {
    let all: BTreeSet<String> = e
        .outputs
        .iter()
        .map(|o| o.trim_end_matches('?').to_string())
        .collect();
    let required: BTreeSet<String> = e
        .outputs
        .iter()
        .filter(|o| !o.ends_with('?'))
        .map(|o| o.to_string())
        .collect();
    let mut out = Vec::new();
    if keys(&schema["properties"]) != all {
        out.push(format!(
            "{}: output fields {:?}, catalog {all:?}",
            e.name,
            keys(&schema["properties"])
        ));
    }
    if strings(&schema["required"]) != required {
        out.push(format!(
            "{}: required outputs {:?}, catalog {required:?}",
            e.name,
            strings(&schema["required"])
        ));
    }
    // An optional output is left out, never `null`.
    for o in e.outputs.iter().filter(|o| o.ends_with('?')) {
        let s = &schema["properties"][o.trim_end_matches('?')];
        if s["type"]
            .as_array()
            .is_some_and(|t| t.contains(&json!("null")))
        {
            out.push(format!(
                "{}.{o}: an optional output must not be nullable: {s}",
                e.name
            ));
        }
    }
    out
}

/// `tools/list` through every page.
fn tools_list(c: &mut Client) -> Vec<Value> {
    let mut tools = Vec::new();
    let mut cursor: Option<Value> = None;
    loop {
        let params = match &cursor {
            Some(cur) => json!({"cursor": cur}),
            None => json!({}),
        };
        let reply = c.request("tools/list", params);
        let result = &reply["result"];
        tools.extend(result["tools"].as_array().expect("tools").iter().cloned());
        match result.get("nextCursor") {
            Some(next) if !next.is_null() => cursor = Some(next.clone()),
            _ => return tools,
        }
    }
}

#[test]
fn listed_and_described_schemas_match_the_catalog_field_by_field() {
    let catalog = catalog();
    assert_eq!(catalog.len(), 46, "the catalog has 46 skills");
    // `listTools` shows a session the skills it may call; between them these two profiles
    // may call the whole catalog.
    let mut sessions = Vec::new();
    let mut names = BTreeSet::new();
    for profile_name in ["builder.readWrite", "social.actor"] {
        let mut c = Client::session(profile_name, &[]);
        let listed = c.request("listTools", json!({}))["result"]["tools"]
            .as_array()
            .expect("listTools")
            .clone();
        let granted = profile(profile_name);
        let mut allowed: BTreeSet<String> = catalog
            .iter()
            .filter(|e| e.permissions.iter().all(|p| granted.contains(p)))
            .map(|e| e.name.to_string())
            .collect();
        allowed.extend(additions_for(granted));
        let here: BTreeSet<String> = listed
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(here, allowed, "listTools under {profile_name}");
        names.extend(here);
        sessions.push((c, listed));
    }
    let mut want: BTreeSet<String> = catalog.iter().map(|e| e.name.to_string()).collect();
    want.extend(ADDITIONS.iter().map(|(a, _)| a.to_string()));
    assert_eq!(names, want, "listTools names");

    let mut problems = Vec::new();
    for e in &catalog {
        let (c, listed) = sessions
            .iter_mut()
            .find(|(_, listed)| listed.iter().any(|t| t["name"] == e.name))
            .unwrap();
        let tool = listed.iter().find(|t| t["name"] == e.name).unwrap();
        problems.extend(schema_mismatches(e, &tool["input_schema"]));
        let described = c.call_ok("skills.describe", json!({"name": e.name}));
        assert_eq!(
            described["input_schema"], tool["input_schema"],
            "{}: skills.describe and listTools disagree",
            e.name
        );
        assert_eq!(described["version"], e.version, "{}", e.name);
        assert_eq!(described["category"], e.category, "{}", e.name);
        let description = described["description"].as_str().unwrap();
        assert_eq!(description, tool["description"], "{}", e.name);
        assert!(
            description.ends_with('.') && !description.contains('\n') && !description.contains('`'),
            "{}: the description should be one plain sentence: {description}",
            e.name
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn tools_list_meta_and_output_schemas_match_the_catalog_and_skills_list_agrees() {
    let catalog = catalog();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for profile_name in ["builder.readWrite", "social.actor"] {
        let granted = profile(profile_name);
        let mut c = Client::session(profile_name, &[]);
        let tools = tools_list(&mut c);
        let names: BTreeSet<String> = tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        let mut allowed: BTreeSet<String> = catalog
            .iter()
            .filter(|e| e.permissions.iter().all(|p| granted.contains(p)))
            .map(|e| e.name.to_string())
            .collect();
        allowed.extend(additions_for(granted));
        assert_eq!(names, allowed, "tools/list under {profile_name}");

        let listed = c.call_ok("skills.list", json!({}));
        let listed: BTreeSet<String> = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            listed, names,
            "skills.list and tools/list under {profile_name}"
        );

        for tool in &tools {
            assert_eq!(
                tool["inputSchema"]["type"], "object",
                "{}: inputSchema must be an object schema",
                tool["name"]
            );
            let Some(e) = catalog.iter().find(|e| tool["name"] == e.name) else {
                continue;
            };
            seen.insert(e.name);
            let meta = &tool["_meta"];
            let permissions: BTreeSet<String> = strings(&meta["permissions"]);
            let want: BTreeSet<String> = e.permissions.iter().map(|p| p.to_string()).collect();
            if meta["version"] != e.version || meta["category"] != e.category || permissions != want
            {
                problems.push(format!(
                    "{}: _meta {meta}, catalog {} {} {:?}",
                    e.name, e.version, e.category, e.permissions
                ));
            }
            problems.extend(schema_mismatches(e, &tool["inputSchema"]));
            problems.extend(output_mismatches(e, &tool["outputSchema"]));
        }
    }
    assert_eq!(
        seen.len(),
        46,
        "every catalog skill is listed under some profile"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Values that break one field's catalog rule (a bound, a length, an enum) or, for a field
/// with no rule beyond its type, its type.
fn bad_values(f: &Field) -> Vec<Value> {
    let mut bad = Vec::new();
    let int = f.ty == Ty::Int;
    if let Some((v, exclusive)) = f.min {
        bad.push(if exclusive { json!(v) } else { json!(v - 1.0) });
    }
    if let Some((v, exclusive)) = f.max {
        bad.push(if exclusive { json!(v) } else { json!(v + 1.0) });
    }
    if let Some(n) = f.len.0.filter(|n| *n > 0) {
        bad.push(match f.ty {
            Ty::NumArr => json!(vec![1.0; n as usize - 1]),
            _ => json!("x".repeat(n as usize - 1)),
        });
    }
    if let Some(n) = f.len.1 {
        bad.push(match f.ty {
            Ty::NumArr => json!(vec![1.0; n as usize + 1]),
            _ => json!("x".repeat(n as usize + 1)),
        });
    }
    if !f.one_of.is_empty() {
        bad.push(json!("no-such-value"));
    }
    // Integral bounds must be broken by integers; the type is broken separately.
    if int {
        for b in bad.iter_mut() {
            if let Some(x) = b.as_f64() {
                *b = json!(x as i64);
            }
        }
        bad.push(json!(1.5));
    }
    bad.push(match f.ty {
        Ty::Str => json!(42),
        Ty::Num | Ty::Int => json!("7"),
        Ty::Bool => json!("yes"),
        Ty::Vec3 => json!([1, 2]),
        Ty::Obj => json!(5),
        Ty::StrArr => json!([1]),
        Ty::NumArr => json!(["a", "b", "c"]),
        Ty::StrOrVec3 => json!(""),
    });
    if f.ty == Ty::StrOrVec3 {
        bad.push(json!([1, 2]));
    }
    bad
}

/// A host where the test agent has a body (`ent_1`, dynamic), and a real trace event id.
fn prepared() -> (Client, String) {
    let mut c = Client::session("builder.readWrite", &[]);
    let body = c.call_ok(
        "scene.createEntity",
        json!({"dynamic": true, "position": [0, 5, 0]}),
    );
    assert_eq!(body["entity"], "ent_1");
    c.call_ok(
        "ecs.addComponent",
        json!({"entity": "ent_1", "component": "agent:tester"}),
    );
    let event = c.call_ok("agent.emitEvent", json!({"type": "setup"}))["eventId"]
        .as_str()
        .unwrap()
        .to_string();
    (c, event)
}

fn sample(e: &Entry, event: &str) -> Value {
    serde_json::from_str(&e.sample.to_string().replace("$event", event)).unwrap()
}

/// Runs `check` on every catalog skill under the profile that may call it (builder first,
/// then the social actor).
fn for_each_skill(mut check: impl FnMut(&mut Client, &Entry, Value)) {
    let catalog = catalog();
    let (mut c, event) = prepared();
    let (social, others): (Vec<&Entry>, Vec<&Entry>) =
        catalog.iter().partition(|e| e.category == "social");
    for e in others {
        check(&mut c, e, sample(e, &event));
    }
    c.rebind("social.actor", "tester");
    for e in social {
        check(&mut c, e, sample(e, &event));
    }
}

#[test]
fn every_skill_answers_its_sample_with_the_catalog_outputs() {
    let mut problems = Vec::new();
    for_each_skill(|c, e, input| {
        if !e.succeeds {
            return;
        }
        let result = c.call(e.name, input.clone());
        if result["isError"] != false {
            problems.push(format!("{} {input}: {result}", e.name));
            return;
        }
        let out = &result["structuredContent"];
        for key in keys(out) {
            if !e.outputs.iter().any(|o| o.trim_end_matches('?') == key) {
                problems.push(format!("{}: unexpected output `{key}`: {out}", e.name));
            }
        }
        for o in e.outputs.iter().filter(|o| !o.ends_with('?')) {
            if out.get(*o).is_none() {
                problems.push(format!("{}: output `{o}` is missing: {out}", e.name));
            }
        }
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Whether an error message names `field`, alone or as the start of a path (`value.0`).
fn names(message: &str, field: &str) -> bool {
    message.contains(&format!("`{field}`")) || message.contains(&format!("`{field}."))
}

#[test]
fn every_constrained_field_refuses_a_breaking_value_with_invalid_input_naming_it() {
    let mut problems = Vec::new();
    let mut tried = 0;
    for_each_skill(|c, e, base| {
        for f in &e.fields {
            for bad in bad_values(f) {
                let mut input: Map<String, Value> = base.as_object().unwrap().clone();
                input.insert(f.name.to_string(), bad.clone());
                let result = c.call(e.name, Value::Object(input));
                tried += 1;
                if result["isError"] != true {
                    problems.push(format!("{}.{} = {bad} was accepted", e.name, f.name));
                    continue;
                }
                let (code, message) = error_of(&result);
                if code != "invalid_input" || !names(&message, f.name) {
                    problems.push(format!("{}.{} = {bad}: {code}: {message}", e.name, f.name));
                }
            }
        }
    });
    assert!(tried > 150, "only {tried} values tried");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn ui_audio_and_social_refuse_unknown_keys_and_the_other_categories_ignore_them() {
    let mut problems = Vec::new();
    for_each_skill(|c, e, base| {
        let mut input = base.as_object().unwrap().clone();
        input.insert("notInTheCatalog".into(), json!(1));
        let result = c.call(e.name, Value::Object(input));
        let refused = result["isError"] == true
            && result["_meta"]["error"]["code"] == "invalid_input"
            && result["_meta"]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("notInTheCatalog");
        if refused != e.strict() {
            problems.push(format!("{} (strict: {}): {result}", e.name, e.strict()));
        }
        if !e.strict() && e.succeeds && result["isError"] != false {
            problems.push(format!(
                "{}: an unknown key broke the call: {result}",
                e.name
            ));
        }
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
