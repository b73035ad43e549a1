use super::*;
use crate::policy::{PolicyConfig, Profile, Profiles};
use crate::realm::{Realm, Rng};
use crate::sandbox::{CompileCache, Sandbox};
use crate::trace::Tracer;
use crate::world::{BodyKind, EntitySpec, Shape, World, WorldSettings};

pub(crate) fn registry() -> Registry {
    let mut profiles = Profiles::default();
    profiles.insert(Profile {
        name: "world.only".into(),
        permissions: [Permission::SceneRead, Permission::AgentRead]
            .into_iter()
            .collect(),
        tools: Some(vec!["resource.world".into(), "prompt.*".into()]),
        max_latency_tier: None,
    });
    profiles.insert(Profile {
        name: "blind".into(),
        permissions: Permissions::NONE,
        tools: None,
        max_latency_tier: None,
    });
    let realm = Realm {
        world: World::new(WorldSettings {
            max_entities: 1000,
            tick_seconds: 1.0 / 60.0,
        }),
        tracer: Tracer::new(256),
        rng: Rng::seeded(1),
        state: crate::state::StateStore::in_memory(),
    };
    let sandbox = Sandbox::new(CompileCache::new(None)).unwrap();
    let policy = PolicyConfig {
        profiles,
        ..PolicyConfig::default()
    };
    Registry::new(sandbox, policy, realm)
}

use crate::policy::{Permission, Permissions};

pub(crate) fn caller(registry: &mut Registry, profile: &str) -> Caller {
    let permissions = registry.profiles().get(profile).unwrap().permissions;
    let caller = Caller {
        agent_id: format!("agent-{profile}"),
        session_id: format!("s-{profile}"),
        profile: profile.into(),
        permissions,
    };
    registry.admit_session(&caller).unwrap();
    caller
}

pub(crate) fn make(registry: &mut Registry, n: usize) {
    let world = &mut registry.realm_mut().world;
    for i in 0..n {
        world
            .create_entity(&EntitySpec {
                shape: Shape::Box,
                collider: None,
                size: 1.0,
                color: 0xff0000,
                position: [i as f64, 0.0, 0.0],
                body: BodyKind::None,
                friction: 0.5,
                restitution: 0.0,
            })
            .unwrap();
    }
    world.take_changes();
}

fn uris(page: &Page<ResourceInfo>) -> Vec<&str> {
    page.items.iter().map(|r| r.uri.as_str()).collect()
}

#[test]
fn listings_page_through_every_source_and_resume_at_the_cursor() {
    let mut r = registry();
    make(&mut r, 7);
    let builder = caller(&mut r, "builder.readWrite");
    let first = r.list_resources(&builder, None, 4).unwrap();
    assert_eq!(
        uris(&first),
        [
            "limina://world",
            "limina://world/scene",
            "limina://agents",
            "limina://panels"
        ]
    );
    let mut all = uris(&first)
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>();
    let mut cursor = first.next.clone();
    while let Some(c) = cursor {
        let page = r.list_resources(&builder, Some(&c), 4).unwrap();
        assert!(page.items.len() <= 4);
        all.extend(uris(&page).iter().map(|s| s.to_string()));
        cursor = page.next;
    }
    assert_eq!(all.len(), 5 + 7, "{all:?}");
    assert_eq!(all[4], APP_URI);
    assert_eq!(all[5], "limina://entity/ent_1");
    assert_eq!(all[11], "limina://entity/ent_7");
    // A cursor naming an entity that has gone since still resumes after it.
    let page = r.list_resources(&builder, Some("entity:3"), 100).unwrap();
    assert_eq!(uris(&page)[0], "limina://entity/ent_4");
    for bad in ["nonsense", "planet:1", "", "entity:x:y", "world:-1"] {
        let e = r.list_resources(&builder, Some(bad), 4).err().unwrap();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(e.message.contains(&format!("`{bad}`")), "{}", e.message);
    }
}

#[test]
fn a_read_is_decided_and_traced_and_a_missing_one_says_so() {
    let mut r = registry();
    make(&mut r, 1);
    let builder = caller(&mut r, "builder.readWrite");
    let before = r.realm().tracer.count();
    let entity = r.read_resource(&builder, "limina://entity/ent_1").unwrap();
    assert_eq!(entity.mime_type, "application/json");
    let value: Value = serde_json::from_str(&entity.text).unwrap();
    assert_eq!(value["material"]["color"], 0xff0000);
    assert_eq!((entity.ttl_ms, entity.public), (0, false));
    let events: Vec<_> = r.realm().tracer.recent().skip(before as usize).collect();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0].kind, "policy.decision");
    assert_eq!(events[0].payload["cap"], "resource.entity");
    assert_eq!(events[0].payload["boundary"], "resource");
    assert_eq!(events[1].kind, "resource.read");
    assert_eq!(events[1].caused_by, [events[0].id.clone()]);
    assert_eq!(events[1].payload["uri"], "limina://entity/ent_1");

    for missing in [
        "limina://entity/ent_9",
        "limina://entity/",
        "limina://nowhere",
        "ui://else",
    ] {
        let hash = r.realm().world.state_hash();
        let e = r.read_resource(&builder, missing).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound, "{missing}");
        assert!(e.message.contains(&format!("`{missing}`")), "{}", e.message);
        assert_eq!(r.realm().world.state_hash(), hash);
    }
    let summary: Value =
        serde_json::from_str(&r.read_resource(&builder, "limina://world").unwrap().text).unwrap();
    assert_eq!(summary["counts"]["entities"], 1);
    assert!(summary["lighting"]["ambientIntensity"].is_number());
}

#[test]
fn profiles_and_allow_lists_hide_what_a_session_may_not_read() {
    let mut r = registry();
    make(&mut r, 2);
    let narrow = caller(&mut r, "world.only");
    let listed = r.list_resources(&narrow, None, 100).unwrap();
    assert_eq!(uris(&listed), ["limina://world", "limina://world/scene"]);
    assert!(r.resource_templates(&narrow).is_empty());
    let before = r.realm().tracer.count();
    let e = r
        .read_resource(&narrow, "limina://entity/ent_1")
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Forbidden);
    assert!(e.message.contains("resource.entity"), "{}", e.message);
    let events: Vec<_> = r.realm().tracer.recent().skip(before as usize).collect();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, "policy.denied");
    assert_eq!(events[0].payload["rule"], "tool.denied");

    let blind = caller(&mut r, "blind");
    let e = r.read_resource(&blind, "limina://agents").unwrap_err();
    assert_eq!(e.code, ErrorCode::Forbidden);
    assert!(e.message.contains("agent.read"), "{}", e.message);
    let listed = r.list_resources(&blind, None, 100).unwrap();
    // Needing no permission: the trace (templates only) and the viewer app.
    assert_eq!(uris(&listed), [APP_URI]);
    assert!(r.may_read_uri(&blind, "limina://world").is_err());
    assert!(
        r.complete_template(&blind, "limina://entity/{id}", "id", "", 10)
            .is_none()
    );
    assert!(r.template_has("limina://entity/{id}", "id"));
    assert!(!r.template_has("limina://entity/{id}", "entity"));
}

#[test]
fn templates_complete_their_variables() {
    let mut r = registry();
    make(&mut r, 12);
    let builder = caller(&mut r, "builder.readWrite");
    let ids = r
        .complete_template(&builder, "limina://entity/{id}", "id", "ent_1", 100)
        .unwrap();
    assert_eq!(ids, ["ent_1", "ent_10", "ent_11", "ent_12"]);
    let capped = r
        .complete_template(&builder, "limina://entity/{id}", "id", "", 5)
        .unwrap();
    assert_eq!(capped.len(), 5);
    assert!(
        r.complete_template(&builder, "limina://entity/{id}", "name", "", 5)
            .is_none()
    );
    r.read_resource(&builder, "limina://world").unwrap();
    let events = r
        .complete_template(&builder, "limina://trace/{eventId}", "eventId", "evt_", 2)
        .unwrap();
    // The newest first: the read, then its decision.
    let newest = r.realm().tracer.newest().unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0], newest.id);
}

#[test]
fn changes_touch_the_entities_and_the_summaries_they_belong_to() {
    let mut r = registry();
    make(&mut r, 2);
    let issued = r.realm().world.last_issued();
    let world = &mut r.realm_mut().world;
    world.set_transform("ent_1", Some([5.0, 0.0, 0.0]), None, None);
    let moved = world.take_changes();
    let touched = r.touched_resources(&moved, issued);
    assert!(
        touched.contains(&"limina://entity/ent_1".to_string()),
        "{touched:?}"
    );
    assert!(touched.contains(&"limina://world/scene".to_string()));
    assert!(
        !touched.contains(&"limina://world".to_string()),
        "counts did not change"
    );
    assert!(!r.resource_list_changed(&moved, issued));
    make(&mut r, 0);
    let world = &mut r.realm_mut().world;
    assert!(world.destroy_entity("ent_2"));
    let gone = world.take_changes();
    let touched = r.touched_resources(&gone, issued);
    assert!(touched.contains(&"limina://entity/ent_2".to_string()));
    assert!(touched.contains(&"limina://world".to_string()));
    assert!(r.resource_list_changed(&gone, issued));
}
