use crate::mcp::dispatch::server::{Connection, Handled, Server};
use crate::mcp::dispatch::test_server::server;
use crate::mcp::wire::modern::{CAPABILITIES_KEY, VERSION, VERSION_KEY};
use crate::world::{BodyKind, EntitySpec, Shape};
use serde_json::{Value, json};

fn send(server: &mut Server, conn: &mut Connection, method: &str, params: Value) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
    match server.handle(conn, &message.to_string()) {
        Handled::Reply(Some(reply)) => reply,
        Handled::Framed(frame) => serde_json::from_str(frame.as_ref()).unwrap(),
        _ => panic!("no reply to {message}"),
    }
}

fn modern(mut params: Value) -> Value {
    params["_meta"] = json!({VERSION_KEY: VERSION, CAPABILITIES_KEY: {}});
    params
}

fn initialized() -> (Server, Connection) {
    let mut server = server();
    let mut conn = Connection::new(Default::default(), None);
    let init = send(
        &mut server,
        &mut conn,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    let caps = &init["result"]["capabilities"];
    assert_eq!(
        caps["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(caps["prompts"], json!({"listChanged": true}));
    assert!(caps["completions"].is_object());
    (server, conn)
}

fn create(server: &mut Server, x: f64) -> String {
    let world = &mut server.registry_mut().realm_mut().world;
    world
        .create_entity(&EntitySpec {
            shape: Shape::Box,
            collider: None,
            size: 1.0,
            color: 0x00ff00,
            position: [x, 0.0, 0.0],
            body: BodyKind::None,
            friction: 0.5,
            restitution: 0.0,
        })
        .unwrap()
}

/// What the engine would send `conn` after the world's latest changes.
fn owed(server: &mut Server, conn: &mut Connection) -> Vec<Value> {
    let update = server.take_world_update();
    let touched = server.resource_update(update.as_ref());
    server.resource_notes(conn, &touched)
}

fn error(reply: &Value) -> (i64, String) {
    let e = &reply["error"];
    (
        e["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("not an error: {reply}")),
        e["message"].as_str().unwrap().to_string(),
    )
}

#[test]
fn a_session_reads_subscribes_and_hears_one_update_per_tick() {
    let (mut server, mut conn) = initialized();
    let id = create(&mut server, 1.0);
    // Nobody watched yet: the engine drops these changes after the message.
    assert!(server.take_world_update().is_none());
    let listed = send(&mut server, &mut conn, "resources/list", json!({}));
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&"limina://world") && uris.contains(&"limina://entity/ent_1"));
    assert!(
        listed["result"].get("ttlMs").is_none(),
        "no caching fields before 2026-07-28"
    );
    let read = send(
        &mut server,
        &mut conn,
        "resources/read",
        json!({"uri": "limina://entity/ent_1"}),
    );
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "application/json");
    assert!(contents["text"].as_str().unwrap().contains(&id));

    let missing = send(
        &mut server,
        &mut conn,
        "resources/read",
        json!({"uri": "limina://entity/ent_7"}),
    );
    let (code, message) = error(&missing);
    assert_eq!(code, -32002, "2025-11-25's resource-not-found code");
    assert!(message.contains("limina://entity/ent_7"), "{message}");
    assert_eq!(missing["error"]["data"]["uri"], "limina://entity/ent_7");
    let (code, message) = error(&send(&mut server, &mut conn, "resources/read", json!({})));
    assert_eq!(code, -32602);
    assert!(message.contains("`uri`"));

    let subscribed = send(
        &mut server,
        &mut conn,
        "resources/subscribe",
        json!({"uri": "limina://entity/ent_1"}),
    );
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    let (code, _) = error(&send(
        &mut server,
        &mut conn,
        "resources/subscribe",
        json!({"uri": "limina://entity/ent_9"}),
    ));
    assert_eq!(code, -32002);
    assert!(
        owed(&mut server, &mut conn)
            .iter()
            .all(|n| n["method"] != "notifications/resources/updated")
    );

    // Two moves in one tick: one update now, none for the second until the next tick.
    let world = &mut server.registry_mut().realm_mut().world;
    world.set_transform(&id, Some([2.0, 0.0, 0.0]), None, None);
    let first = owed(&mut server, &mut conn);
    assert_eq!(
        first,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "limina://entity/ent_1"}})
        ]
    );
    let world = &mut server.registry_mut().realm_mut().world;
    world.set_transform(&id, Some([3.0, 0.0, 0.0]), None, None);
    assert!(
        owed(&mut server, &mut conn).is_empty(),
        "coalesced within the tick"
    );
    assert!(conn.resources.owes());
    server.registry_mut().realm_mut().world.step();
    let next = owed(&mut server, &mut conn);
    assert_eq!(next.len(), 1, "{next:?}");
    assert!(owed(&mut server, &mut conn).is_empty());

    // A new entity changes the list this session listed.
    create(&mut server, 4.0);
    let notes = owed(&mut server, &mut conn);
    assert!(
        notes
            .iter()
            .any(|n| n["method"] == "notifications/resources/list_changed"),
        "{notes:?}"
    );

    let gone = send(
        &mut server,
        &mut conn,
        "resources/unsubscribe",
        json!({"uri": "limina://entity/ent_1"}),
    );
    assert_eq!(gone["result"], json!({}));
    let (code, message) = error(&send(
        &mut server,
        &mut conn,
        "resources/unsubscribe",
        json!({"uri": "limina://entity/ent_1"}),
    ));
    assert_eq!(code, -32602);
    assert!(message.contains("not subscribed"), "{message}");
    server.registry_mut().realm_mut().world.step();
    let world = &mut server.registry_mut().realm_mut().world;
    world.set_transform(&id, Some([9.0, 0.0, 0.0]), None, None);
    assert!(
        owed(&mut server, &mut conn)
            .iter()
            .all(|n| n["method"] != "notifications/resources/updated")
    );
}

#[test]
fn before_initialize_reads_are_refused_and_listings_use_the_default_profile() {
    let mut server = server();
    let mut conn = Connection::new(Default::default(), None);
    let (code, message) = error(&send(
        &mut server,
        &mut conn,
        "resources/read",
        json!({"uri": "limina://world"}),
    ));
    assert_eq!(code, -32001);
    assert!(message.contains("not initialized"));
    let listed = send(&mut server, &mut conn, "resources/list", json!({}));
    assert!(listed["result"]["resources"].as_array().unwrap().len() >= 4);
}

#[test]
fn the_stateless_revision_caches_reads_refuses_subscribe_and_listens() {
    let mut server = server();
    let mut conn = Connection::new(Default::default(), None);
    create(&mut server, 1.0);
    assert!(server.take_world_update().is_none());
    let listed = send(&mut server, &mut conn, "resources/list", modern(json!({})));
    assert_eq!(listed["result"]["ttlMs"], 0);
    assert_eq!(listed["result"]["cacheScope"], "private");
    assert_eq!(listed["result"]["resultType"], "complete");
    let templates = send(
        &mut server,
        &mut conn,
        "resources/templates/list",
        modern(json!({})),
    );
    let names: Vec<&str> = templates["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"limina://entity/{id}") && names.contains(&"limina://trace/{eventId}"));
    assert!(templates["result"]["ttlMs"].is_u64());
    let app = send(
        &mut server,
        &mut conn,
        "resources/read",
        modern(json!({"uri": "ui://limina/viewer"})),
    );
    assert_eq!(app["result"]["cacheScope"], "public");
    assert_eq!(app["result"]["ttlMs"], crate::limits::APP_TTL_MS);
    assert_eq!(
        app["result"]["contents"][0]["mimeType"],
        "text/html;profile=mcp-app"
    );
    let (code, message) = error(&send(
        &mut server,
        &mut conn,
        "resources/read",
        modern(json!({"uri": "limina://entity/ent_5"})),
    ));
    assert_eq!(code, -32602, "2026-07-28's resource-not-found code");
    assert!(message.contains("limina://entity/ent_5"));
    let (code, message) = error(&send(
        &mut server,
        &mut conn,
        "resources/subscribe",
        modern(json!({"uri": "limina://world"})),
    ));
    assert_eq!(code, -32601);
    assert!(message.contains("subscriptions/listen"), "{message}");

    let listen = json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen", "params": modern(json!({
        "notifications": {"resourceSubscriptions": ["limina://entity/ent_1", "limina://entity/ent_404"], "resourcesListChanged": true}
    }))});
    assert!(matches!(
        server.handle(&mut conn, &listen.to_string()),
        Handled::Reply(None)
    ));
    let ack = server.notifications(&mut conn);
    let honoured = &ack[0]["params"]["notifications"];
    assert_eq!(
        honoured["resourceSubscriptions"],
        json!(["limina://entity/ent_1"]),
        "{ack:?}"
    );
    assert_eq!(honoured["resourcesListChanged"], true);
    let world = &mut server.registry_mut().realm_mut().world;
    world.set_transform("ent_1", Some([2.0, 0.0, 0.0]), None, None);
    let notes = owed(&mut server, &mut conn);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["params"]["uri"], "limina://entity/ent_1");
    assert_eq!(
        notes[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );
    let bad = send(
        &mut server,
        &mut conn,
        "subscriptions/listen",
        modern(json!({"notifications": {"resourceSubscriptions": "limina://world"}})),
    );
    let (code, message) = error(&bad);
    assert_eq!(code, -32602);
    assert!(message.contains("resourceSubscriptions"), "{message}");
}

#[test]
fn prompts_and_completion_answer_and_refuse_by_name() {
    let (mut server, mut conn) = initialized();
    create(&mut server, 1.0);
    let listed = send(&mut server, &mut conn, "prompts/list", json!({}));
    let prompts = listed["result"]["prompts"].as_array().unwrap();
    let build = prompts.iter().find(|p| p["name"] == "build-scene").unwrap();
    assert_eq!(
        build["arguments"][0],
        json!({"name": "description", "required": true, "description": build["arguments"][0]["description"]})
    );
    let got = send(
        &mut server,
        &mut conn,
        "prompts/get",
        json!({"name": "inspect-entity", "arguments": {"entity": "ent_1"}}),
    );
    assert_eq!(
        got["result"]["messages"][1]["content"]["type"], "resource",
        "{got}"
    );
    for (params, says) in [
        (json!({"name": "build-scene"}), "`description`"),
        (
            json!({"name": "build-scene", "arguments": {"description": 3}}),
            "`arguments.description`",
        ),
        (json!({"name": "nothing"}), "`nothing`"),
        (json!({}), "`name`"),
    ] {
        let (code, message) = error(&send(&mut server, &mut conn, "prompts/get", params.clone()));
        assert_eq!(code, -32602, "{params}");
        assert!(message.contains(says), "{params}: {message}");
    }
    let done = send(
        &mut server,
        &mut conn,
        "completion/complete",
        json!({
        "ref": {"type": "ref/resource", "uri": "limina://entity/{id}"}, "argument": {"name": "id", "value": "ent_"}}),
    );
    assert_eq!(
        done["result"]["completion"],
        json!({"values": ["ent_1"], "total": 1, "hasMore": false})
    );
    let styles = send(
        &mut server,
        &mut conn,
        "completion/complete",
        json!({
        "ref": {"type": "ref/prompt", "name": "build-scene"}, "argument": {"name": "style", "value": "d"},
        "context": {"arguments": {"description": "a well"}}}),
    );
    assert_eq!(styles["result"]["completion"]["values"], json!(["dusk"]));
    for (params, says) in [
        (json!({"argument": {"name": "id", "value": ""}}), "`ref`"),
        (
            json!({"ref": {"type": "ref/prompt", "name": "build-scene"}}),
            "`argument`",
        ),
        (
            json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}}),
            "`nope`",
        ),
        (
            json!({"ref": {"type": "ref/resource", "uri": "limina://moon/{id}"}, "argument": {"name": "id", "value": ""}}),
            "limina://moon/{id}",
        ),
        (
            json!({"ref": {"type": "ref/tool", "name": "x"}, "argument": {"name": "x", "value": ""}}),
            "`ref/tool`",
        ),
    ] {
        let (code, message) = error(&send(
            &mut server,
            &mut conn,
            "completion/complete",
            params.clone(),
        ));
        assert_eq!(code, -32602, "{params}");
        assert!(message.contains(says), "{params}: {message}");
    }
}
