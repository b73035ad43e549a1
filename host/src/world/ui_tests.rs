//! UI panels: handles, merges, change detection, checks and rollback.

use super::super::*;
use crate::limits::MAX_UI_PANELS;
use serde_json::json;

fn world() -> World {
    World::new(WorldSettings {
        max_entities: 10,
        tick_seconds: 1.0 / 60.0,
    })
}

fn label(text: &str) -> serde_json::Value {
    json!({"anchor": {"kind": "screen", "corner": "top-left"}, "text": text, "style": {"color": "white", "fontSize": 12}})
}

#[test]
fn handles_are_issued_in_order_and_never_reused() {
    let mut w = world();
    assert_eq!(w.create_panel("label", label("a"), "ann").unwrap(), "ui_1");
    assert!(w.remove_panel("ui_1"));
    assert!(!w.remove_panel("ui_1"));
    assert!(!w.remove_panel("bogus"));
    assert_eq!(
        w.create_panel("callout", label("b"), "ann").unwrap(),
        "ui_2"
    );
    let p = w.ui().get("ui_2").unwrap();
    assert_eq!((p.kind.as_str(), p.owner.as_str()), ("callout", "ann"));
    assert_eq!(w.ui().len(), 1);
}

#[test]
fn update_merges_style_by_key_and_reports_whether_anything_changed() {
    let mut w = world();
    let h = w.create_panel("label", label("a"), "ann").unwrap();
    assert_eq!(w.update_panel(&h, json!({"text": "a"})), Ok((true, false)));
    assert_eq!(
        w.update_panel(&h, json!({"style": {"color": "red"}})),
        Ok((true, true))
    );
    let spec = &w.ui().get(&h).unwrap().spec;
    assert_eq!(spec["style"], json!({"color": "red", "fontSize": 12}));
    assert_eq!(spec["text"], "a");
    assert_eq!(
        w.update_panel(&h, json!({"lines": ["x", "y"]})),
        Ok((true, true))
    );
    assert_eq!(
        w.update_panel("ui_99", json!({"text": "z"})),
        Ok((false, false))
    );
}

#[test]
fn unknown_kinds_bad_anchors_and_oversized_specs_are_refused() {
    let mut w = world();
    assert!(matches!(
        w.create_panel("banner", label("a"), "ann"),
        Err(WorldError::Invalid(m)) if m.contains("`kind`")
    ));
    assert!(matches!(
        w.create_panel("label", json!({"anchor": {"kind": "moon"}}), "ann"),
        Err(WorldError::Invalid(m)) if m.contains("`anchor`")
    ));
    assert!(w.create_panel("label", json!([1, 2]), "ann").is_err());
    let huge = "x".repeat(crate::limits::MAX_UI_PANEL_BYTES);
    assert!(w.create_panel("label", label(&huge), "ann").is_err());
    assert!(w.ui().is_empty());
}

#[test]
fn the_panel_cap_is_a_capacity_error() {
    let mut w = world();
    for _ in 0..MAX_UI_PANELS {
        w.create_panel("label", label("a"), "ann").unwrap();
    }
    assert!(matches!(
        w.create_panel("label", label("a"), "ann"),
        Err(WorldError::Capacity(_))
    ));
}

#[test]
fn rollback_undoes_creates_updates_and_removes() {
    let mut w = world();
    let kept = w.create_panel("label", label("a"), "ann").unwrap();
    let gone = w.create_panel("hudPanel", label("b"), "ann").unwrap();
    let before = w.ui().to_json();

    w.begin();
    w.create_panel("textBox", label("c"), "ann").unwrap();
    w.update_panel(&kept, json!({"text": "changed", "style": {"color": "red"}}))
        .unwrap();
    assert!(w.remove_panel(&gone));
    w.rollback();

    assert_eq!(w.ui().to_json(), before);
    // The rolled-back handle stays spent.
    assert_eq!(w.create_panel("label", label("d"), "ann").unwrap(), "ui_4");
}
