use crate::call::ErrorCode;
use crate::registry::resources::tests::{caller, make, registry};
use std::collections::BTreeMap;

fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn a_session_sees_the_prompts_its_profile_lets_it_get() {
    let mut r = registry();
    let builder = caller(&mut r, "builder.readWrite");
    let names = |r: &crate::registry::Registry, c| -> Vec<String> {
        r.list_prompts(c, None, 100)
            .unwrap()
            .items
            .into_iter()
            .map(|p| p.name)
            .collect()
    };
    assert_eq!(
        names(&r, &builder),
        ["build-scene", "explain-event", "inspect-entity"]
    );
    let reader = caller(&mut r, "system.readonly");
    assert_eq!(names(&r, &reader), ["explain-event", "inspect-entity"]);
    let page = r.list_prompts(&builder, None, 2).unwrap();
    assert_eq!(page.next.as_deref(), Some("explain-event"));
    let rest = r.list_prompts(&builder, page.next.as_deref(), 2).unwrap();
    assert_eq!(rest.items[0].name, "inspect-entity");
    assert!(rest.next.is_none());
    let bad = r.list_prompts(&builder, Some("nope"), 2).err().unwrap();
    assert_eq!(bad.code, ErrorCode::InvalidInput);
}

#[test]
fn a_prompt_embeds_what_it_is_about_and_refuses_bad_arguments_changing_nothing() {
    let mut r = registry();
    make(&mut r, 3);
    let builder = caller(&mut r, "builder.readWrite");
    let got = r
        .get_prompt(&builder, "inspect-entity", &args(&[("entity", "ent_2")]))
        .unwrap();
    assert_eq!(got.messages.len(), 2);
    let resource = &got.messages[1]["content"]["resource"];
    assert_eq!(resource["uri"], "limina://entity/ent_2");
    assert!(resource["text"].as_str().unwrap().contains("\"ent_2\""));
    let built = r
        .get_prompt(
            &builder,
            "build-scene",
            &args(&[("description", "a well"), ("style", "dusk")]),
        )
        .unwrap();
    let text = built.messages[0]["content"]["text"].as_str().unwrap();
    assert!(
        text.contains("a well") && text.contains("dusk look"),
        "{text}"
    );

    let hash = r.realm().world.state_hash();
    let cases = [
        (
            "build-scene",
            args(&[]),
            ErrorCode::InvalidInput,
            "`description`",
        ),
        (
            "build-scene",
            args(&[("description", "x"), ("colour", "red")]),
            ErrorCode::InvalidInput,
            "`colour`",
        ),
        (
            "inspect-entity",
            args(&[("entity", "ent_99")]),
            ErrorCode::InvalidInput,
            "`entity`",
        ),
        ("summon", args(&[]), ErrorCode::NotFound, "`summon`"),
    ];
    for (name, given, code, says) in cases {
        let e = r.get_prompt(&builder, name, &given).unwrap_err();
        assert_eq!(e.code, code, "{name}: {}", e.message);
        assert!(e.message.contains(says), "{name}: {}", e.message);
    }
    assert_eq!(r.realm().world.state_hash(), hash);

    let reader = caller(&mut r, "system.readonly");
    let e = r
        .get_prompt(&reader, "build-scene", &args(&[("description", "a well")]))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Forbidden);
    assert!(e.message.contains("scene.write"), "{}", e.message);
}

#[test]
fn prompt_arguments_complete() {
    let mut r = registry();
    make(&mut r, 11);
    let builder = caller(&mut r, "builder.readWrite");
    assert_eq!(
        r.complete_prompt(&builder, "inspect-entity", "entity", "ent_1", 10)
            .unwrap(),
        ["ent_1", "ent_10", "ent_11"]
    );
    assert_eq!(
        r.complete_prompt(&builder, "build-scene", "style", "st", 10)
            .unwrap(),
        ["stone"]
    );
    assert!(
        r.complete_prompt(&builder, "build-scene", "colour", "", 10)
            .is_none()
    );
    let reader = caller(&mut r, "system.readonly");
    assert!(
        r.complete_prompt(&reader, "build-scene", "style", "", 10)
            .is_none()
    );
}
