//! The core `ui` skills over MCP: panels as scene data with handles `ui_<n>`, updates that
//! report changes, strict inputs, and refusals that change nothing.

use crate::agent_skills::snapshot;
use crate::support::{Client, error_of};
use serde_json::{Value, json};

fn screen() -> Value {
    json!({"kind": "screen", "corner": "top-left", "marginPx": 8.0, "distance": 1.0, "renderOrder": 2})
}

/// Every panel as the inspector reports it.
fn panels(c: &mut Client) -> Vec<Value> {
    snapshot(c)["world"]["uiPanels"].as_array().unwrap().clone()
}

fn label(c: &mut Client, text: &str) -> String {
    c.call_ok("ui.label", json!({"anchor": screen(), "text": text}))["handle"]
        .as_str()
        .unwrap()
        .to_string()
}

const KIND_SKILLS: [&str; 6] = [
    "ui.label",
    "ui.textBox",
    "ui.speechBubble",
    "ui.thoughtBubble",
    "ui.callout",
    "ui.hudPanel",
];

#[test]
fn every_panel_skill_creates_a_panel_with_handles_in_order() {
    let mut c = Client::session("builder.readWrite", &[]);
    let e = c.call_ok("scene.createEntity", json!({}))["entity"].clone();
    let world = json!({"kind": "world", "entity": e, "offset": [0.0, 1.0, 0.0], "billboard": true, "renderOrder": 1, "depthTest": false});
    let full = json!({
        "anchor": world,
        "style": {"background": "#000", "color": "#fff", "fontSize": 14},
        "text": "hello", "title": "Note", "lines": ["a", "b"],
        "maxWidth": 200.0, "width": 120.0, "maxLines": 3, "pixelScale": 0.01,
        "tail": {"side": "bottom"}, "leader": {"length": 2},
        "lifecycle": {"fade": {"in": 200}, "typewriter": true, "ttl": 5, "queue": "replace", "feed": {"max": 4}},
    });
    let mut handles = Vec::new();
    for skill in KIND_SKILLS {
        handles.push(c.call_ok(skill, full.clone())["handle"].clone());
    }
    let mut with_kind = full.clone();
    with_kind["kind"] = json!("callout");
    with_kind["anchor"] = json!({"kind": "world", "point": [1, 2, 3]});
    handles.push(c.call_ok("ui.panel", with_kind)["handle"].clone());
    let expected: Vec<Value> = (1..=7).map(|n| json!(format!("ui_{n}"))).collect();
    assert_eq!(handles, expected);

    let panels = panels(&mut c);
    let kinds: Vec<_> = panels.iter().map(|p| p["kind"].clone()).collect();
    let want = json!([
        "label",
        "textBox",
        "speechBubble",
        "thoughtBubble",
        "callout",
        "hudPanel",
        "callout"
    ]);
    assert_eq!(json!(kinds), want);
    assert_eq!(panels[0]["handle"], "ui_1");
    assert_eq!(panels[0]["owner"], "tester");
    assert_eq!(panels[0]["spec"], full, "the spec is kept as given");
    assert_eq!(
        panels[6]["spec"]["anchor"],
        json!({"kind": "world", "point": [1.0, 2.0, 3.0]})
    );
    assert!(panels[6]["spec"].get("kind").is_none());
}

#[test]
fn update_reports_whether_anything_changed() {
    let mut c = Client::session("builder.readWrite", &[]);
    let h = label(&mut c, "hi");
    let update = |c: &mut Client, patch: Value| {
        let mut args = patch;
        args["handle"] = json!(h);
        c.call_ok("ui.update", args)
    };
    assert_eq!(
        update(&mut c, json!({"text": "hi"})),
        json!({"ok": true, "changed": false})
    );
    assert_eq!(
        update(&mut c, json!({})),
        json!({"ok": true, "changed": false})
    );
    assert_eq!(
        update(&mut c, json!({"text": "ho"})),
        json!({"ok": true, "changed": true})
    );
    assert_eq!(
        update(
            &mut c,
            json!({"style": {"color": "red"}, "title": "T", "lines": ["x"]})
        ),
        json!({"ok": true, "changed": true})
    );
    assert_eq!(
        update(&mut c, json!({"style": {"color": "red"}})),
        json!({"ok": true, "changed": false})
    );
    assert_eq!(
        c.call_ok("ui.update", json!({"handle": "ui_99", "text": "x"})),
        json!({"ok": false, "changed": false})
    );
    let spec = panels(&mut c)[0]["spec"].clone();
    assert_eq!(spec["text"], "ho");
    assert_eq!(spec["title"], "T");
    assert_eq!(spec["lines"], json!(["x"]));
    assert_eq!(spec["style"], json!({"color": "red"}));
    assert_eq!(spec["anchor"], screen());
}

#[test]
fn remove_is_false_for_unknown_handles_and_handles_are_never_reused() {
    let mut c = Client::session("builder.readWrite", &[]);
    let h = label(&mut c, "a");
    assert_eq!(
        c.call_ok("ui.remove", json!({"handle": h}))["removed"],
        true
    );
    assert_eq!(
        c.call_ok("ui.remove", json!({"handle": h}))["removed"],
        false
    );
    assert_eq!(
        c.call_ok("ui.remove", json!({"handle": "nope"}))["removed"],
        false
    );
    assert_eq!(
        c.call_ok("ui.update", json!({"handle": h, "text": "b"}))["ok"],
        false
    );
    assert_eq!(label(&mut c, "c"), "ui_2");
}

#[test]
fn unknown_keys_are_invalid_input_naming_the_key() {
    let mut c = Client::session("builder.readWrite", &[]);
    let mut cases = Vec::new();
    for skill in KIND_SKILLS {
        cases.push((
            skill,
            json!({"anchor": screen(), "colour": "red"}),
            "colour",
        ));
    }
    cases.extend([
        (
            "ui.panel",
            json!({"kind": "label", "anchor": screen(), "size": 3}),
            "size",
        ),
        (
            "ui.label",
            json!({"anchor": {"kind": "world", "entityId": "ent_1"}}),
            "entityId",
        ),
        (
            "ui.label",
            json!({"anchor": {"kind": "screen", "point": [0, 0, 0]}}),
            "point",
        ),
        (
            "ui.label",
            json!({"anchor": {"kind": "world", "corner": "top"}}),
            "corner",
        ),
        (
            "ui.label",
            json!({"anchor": screen(), "lifecycle": {"tll": 5}}),
            "tll",
        ),
        (
            "ui.update",
            json!({"handle": "ui_1", "anchor": screen()}),
            "anchor",
        ),
        (
            "ui.remove",
            json!({"handle": "ui_1", "force": true}),
            "force",
        ),
    ]);
    for (skill, args, key) in cases {
        let (code, message) = error_of(&c.call(skill, args.clone()));
        assert_eq!(code, "invalid_input", "{skill} {args}");
        assert!(
            message.contains(&format!("'{key}'")),
            "{skill} {args}: {message}"
        );
    }
    assert_eq!(label(&mut c, "first"), "ui_1", "nothing was created before");
}

#[test]
fn ranges_kinds_and_required_fields_are_checked() {
    let mut c = Client::session("builder.readWrite", &[]);
    let with = |extra: Value| {
        let mut args = json!({"anchor": screen()});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        args
    };
    for (skill, args, field) in [
        ("ui.label", with(json!({"maxWidth": 0})), "maxWidth"),
        ("ui.label", with(json!({"width": -1})), "width"),
        ("ui.label", with(json!({"maxLines": 0})), "maxLines"),
        ("ui.label", with(json!({"maxLines": 1.5})), "maxLines"),
        ("ui.label", with(json!({"pixelScale": 0})), "pixelScale"),
        ("ui.label", with(json!({"lines": "one"})), "lines"),
        ("ui.label", with(json!({"style": "bold"})), "style"),
        ("ui.label", json!({"text": "no anchor"}), "anchor"),
        (
            "ui.label",
            json!({"anchor": {"kind": "moon"}}),
            "anchor.kind",
        ),
        ("ui.label", json!({"anchor": {"corner": "top"}}), "kind"),
        (
            "ui.label",
            json!({"anchor": {"kind": "world", "point": [1, 2]}}),
            "anchor.point",
        ),
        (
            "ui.label",
            json!({"anchor": {"kind": "screen", "marginPx": -1}}),
            "anchor.marginPx",
        ),
        ("ui.panel", with(json!({"kind": "banner"})), "kind"),
        ("ui.panel", with(json!({})), "kind"),
        ("ui.update", json!({"text": "x"}), "handle"),
        ("ui.remove", json!({}), "handle"),
    ] {
        let (code, message) = error_of(&c.call(skill, args.clone()));
        assert_eq!(code, "invalid_input", "{skill} {args}");
        assert!(message.contains(field), "{skill} {args}: {message}");
    }
    // A panel too big for the host is refused whole.
    let huge = json!({"anchor": screen(), "text": "x".repeat(20_000)});
    let (code, message) = error_of(&c.call("ui.label", huge));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("bytes"), "{message}");
    assert_eq!(label(&mut c, "first"), "ui_1");
}

#[test]
fn a_player_limited_session_is_refused_ui_write_and_nothing_changes() {
    let mut c = Client::session("builder.readWrite", &[]);
    let h = label(&mut c, "kept");
    let before = panels(&mut c);
    c.rebind("player.limited", "player");
    for (skill, args) in [
        ("ui.label", json!({"anchor": screen(), "text": "x"})),
        ("ui.panel", json!({"kind": "hudPanel", "anchor": screen()})),
        ("ui.update", json!({"handle": h, "text": "changed"})),
        ("ui.remove", json!({"handle": h})),
    ] {
        let (code, message) = error_of(&c.call(skill, args));
        assert_eq!(code, "forbidden", "{skill}");
        assert_eq!(message, "missing permission: ui.write");
    }
    let tools = c.request("tools/list", json!({}));
    assert!(
        !tools.to_string().contains("\"ui."),
        "ui skills are not offered to player.limited"
    );
    c.rebind("builder.readWrite", "tester");
    assert_eq!(panels(&mut c), before);
    assert_eq!(
        c.call_ok("ui.update", json!({"handle": h, "text": "kept"})),
        json!({"ok": true, "changed": false})
    );
    assert_eq!(label(&mut c, "next"), "ui_2", "no handle was spent");
}
