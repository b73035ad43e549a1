//! The catalog of `shared/spec/skills.md` transcribed as data: per skill its name, version,
//! category, permissions, input fields and output fields, with a sample input.

use serde_json::{Value, json};

/// The JSON type of an input field, in the catalog's notation.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Ty {
    Str,
    Num,
    Int,
    Bool,
    /// `[number, number, number]`, exactly three.
    Vec3,
    Obj,
    StrArr,
    NumArr,
    /// `string(min1) | Vec3`.
    StrOrVec3,
}

/// One input field as the catalog gives it.
#[derive(Clone, Debug)]
pub(super) struct Field {
    pub(super) name: &'static str,
    pub(super) ty: Ty,
    pub(super) required: bool,
    pub(super) default: Option<Value>,
    /// Lower bound and whether it is exclusive.
    pub(super) min: Option<(f64, bool)>,
    /// Upper bound and whether it is exclusive.
    pub(super) max: Option<(f64, bool)>,
    /// `minLength`/`maxLength` of a string, `minItems`/`maxItems` of a `number[]`.
    pub(super) len: (Option<u64>, Option<u64>),
    pub(super) one_of: &'static [&'static str],
}

fn req(name: &'static str, ty: Ty) -> Field {
    Field {
        name,
        ty,
        required: true,
        default: None,
        min: None,
        max: None,
        len: (None, None),
        one_of: &[],
    }
}

fn opt(name: &'static str, ty: Ty) -> Field {
    Field {
        required: false,
        ..req(name, ty)
    }
}

impl Field {
    fn default(mut self, v: Value) -> Self {
        self.default = Some(v);
        self
    }
    /// `(a..b)`: both bounds inclusive.
    fn range(mut self, a: f64, b: f64) -> Self {
        self.min = Some((a, false));
        self.max = Some((b, false));
        self
    }
    /// `>=a`.
    fn at_least(mut self, a: f64) -> Self {
        self.min = Some((a, false));
        self
    }
    /// `>a`.
    fn above(mut self, a: f64) -> Self {
        self.min = Some((a, true));
        self
    }
    /// `<b`.
    fn below(mut self, b: f64) -> Self {
        self.max = Some((b, true));
        self
    }
    /// `<=b`.
    fn at_most(mut self, b: f64) -> Self {
        self.max = Some((b, false));
        self
    }
    fn len(mut self, min: Option<u64>, max: Option<u64>) -> Self {
        self.len = (min, max);
        self
    }
    fn one_of(mut self, values: &'static [&'static str]) -> Self {
        self.one_of = values;
        self
    }
}

/// One skill as the catalog gives it, with an input that passes its schema (`$event` stands
/// for a real trace event id) and whether that input must also succeed.
pub(super) struct Entry {
    pub(super) name: &'static str,
    pub(super) version: &'static str,
    pub(super) category: &'static str,
    pub(super) permissions: &'static [&'static str],
    pub(super) fields: Vec<Field>,
    /// Output fields; a trailing `?` marks an optional one.
    pub(super) outputs: &'static [&'static str],
    pub(super) sample: Value,
    pub(super) succeeds: bool,
}

impl Entry {
    /// ui, audio and social inputs are strict; the other categories ignore unknown keys.
    pub(super) fn strict(&self) -> bool {
        matches!(self.category, "ui" | "audio" | "social")
    }
}

fn entry(
    name: &'static str,
    permissions: &'static [&'static str],
    fields: Vec<Field>,
    outputs: &'static [&'static str],
    sample: Value,
) -> Entry {
    let category = match name.split('.').next().unwrap() {
        c @ ("scene" | "ecs" | "three" | "physics" | "agent" | "ui" | "audio" | "social"
        | "camera") => c,
        _ => "system",
    };
    Entry {
        name,
        version: "1.0.0",
        category,
        permissions,
        fields,
        outputs,
        sample,
        succeeds: true,
    }
}

const BUSES: &[&str] = &["master", "sfx", "ambience", "voice"];
const MAX_RGB: f64 = 16_777_215.0;

/// The fields every panel-creating ui skill shares.
fn panel_fields() -> Vec<Field> {
    vec![
        req("anchor", Ty::Obj),
        opt("style", Ty::Obj),
        opt("text", Ty::Str),
        opt("title", Ty::Str),
        opt("lines", Ty::StrArr),
        opt("maxWidth", Ty::Num).above(0.0),
        opt("width", Ty::Num).above(0.0),
        opt("maxLines", Ty::Int).above(0.0),
        opt("pixelScale", Ty::Num).above(0.0),
        opt("tail", Ty::Obj),
        opt("leader", Ty::Obj),
        opt("lifecycle", Ty::Obj),
    ]
}

/// The catalog, transcribed.
pub(super) fn catalog() -> Vec<Entry> {
    use Ty::*;
    let screen = json!({"anchor": {"kind": "screen"}});
    let mut panel = vec![req("kind", Str).one_of(&[
        "label",
        "textBox",
        "speechBubble",
        "thoughtBubble",
        "callout",
        "hudPanel",
    ])];
    panel.extend(panel_fields());
    let mut entries = vec![
        // scene
        entry(
            "scene.createEntity",
            &["scene.write"],
            vec![
                opt("shape", Str)
                    .one_of(&["box", "sphere"])
                    .default(json!("box")),
                opt("collider", Str).one_of(&["box", "sphere", "capsule"]),
                opt("size", Num).above(0.0).at_most(50.0).default(json!(1)),
                opt("color", Int)
                    .range(0.0, MAX_RGB)
                    .default(json!(0xffffff)),
                opt("position", Vec3).default(json!([0, 0, 0])),
                opt("dynamic", Bool).default(json!(false)),
                opt("static", Bool).default(json!(false)),
                opt("friction", Num).range(0.0, 10.0).default(json!(0.5)),
                opt("restitution", Num).range(0.0, 2.0).default(json!(0)),
            ],
            &["entity"],
            json!({}),
        ),
        entry(
            "scene.destroyEntity",
            &["scene.write"],
            vec![req("entity", Str)],
            &["removed"],
            json!({"entity": "ent_999"}),
        ),
        entry(
            "scene.queryEntities",
            &["scene.read"],
            vec![
                opt("near", Vec3),
                opt("radius", Num).above(0.0),
                opt("tag", Str),
            ],
            &["entities"],
            json!({"near": [0, 0, 0], "radius": 5}),
        ),
        // ecs
        entry(
            "ecs.updateComponent",
            &["ecs.modify"],
            vec![
                req("entity", Str),
                req("component", Str).one_of(&["position", "rotation", "scale"]),
                req("value", NumArr).len(Some(3), Some(4)),
            ],
            &["ok"],
            json!({"entity": "ent_1", "component": "position", "value": [0, 5, 0]}),
        ),
        entry(
            "ecs.addComponent",
            &["ecs.modify"],
            vec![req("entity", Str), req("component", Str).len(Some(1), None)],
            &["ok"],
            json!({"entity": "ent_1", "component": "crate"}),
        ),
        entry(
            "ecs.removeComponent",
            &["ecs.modify"],
            vec![req("entity", Str), req("component", Str).len(Some(1), None)],
            &["ok"],
            json!({"entity": "ent_1", "component": "crate"}),
        ),
        // three
        entry(
            "three.setTransform",
            &["scene.write"],
            vec![
                req("entity", Str),
                opt("position", Vec3),
                opt("rotationEuler", Vec3),
                opt("scale", Vec3),
            ],
            &["ok"],
            json!({"entity": "ent_1", "rotationEuler": [0, 1.5, 0]}),
        ),
        entry(
            "three.setMaterial",
            &["scene.write"],
            vec![
                req("entity", Str),
                opt("color", Int).range(0.0, MAX_RGB),
                opt("roughness", Num).range(0.0, 1.0),
                opt("metalness", Num).range(0.0, 1.0),
                opt("castShadow", Bool),
                opt("receiveShadow", Bool),
            ],
            &["ok"],
            json!({"entity": "ent_1", "color": 0xff0000}),
        ),
        entry(
            "three.setLighting",
            &["scene.write"],
            vec![
                opt("ambientColor", Int).default(json!(0x404060)),
                opt("ambientIntensity", Num)
                    .range(0.0, 10.0)
                    .default(json!(1.2)),
                opt("directionalColor", Int).default(json!(0xffffff)),
                opt("directionalIntensity", Num)
                    .range(0.0, 10.0)
                    .default(json!(3)),
                opt("direction", Vec3).default(json!([5, 9, 6])),
                opt("castShadow", Bool).default(json!(false)),
                opt("shadowMapSize", Int)
                    .range(256.0, 4096.0)
                    .default(json!(2048)),
                opt("shadowCameraExtent", Num)
                    .above(0.0)
                    .at_most(500.0)
                    .default(json!(20)),
                opt("shadowCameraNear", Num).above(0.0).default(json!(0.5)),
                opt("shadowCameraFar", Num).above(0.0).default(json!(120)),
                opt("shadowBias", Num)
                    .range(-0.01, 0.01)
                    .default(json!(-0.0008)),
            ],
            &["ok"],
            json!({}),
        ),
        Entry {
            // Needs an asset folder; `three_skills` loads real files.
            succeeds: false,
            ..entry(
                "three.loadGLTF",
                &["scene.write"],
                vec![
                    req("assetId", Str),
                    opt("position", Vec3).default(json!([0, 0, 0])),
                ],
                &["entity", "resource"],
                json!({"assetId": "models/none.glb"}),
            )
        },
        // physics
        entry(
            "physics.applyImpulse",
            &["physics.write"],
            vec![req("entity", Str), req("impulse", Vec3)],
            &["ok"],
            json!({"entity": "ent_1", "impulse": [0, 1, 0]}),
        ),
        entry(
            "physics.raycast",
            &["physics.read"],
            vec![
                req("origin", Vec3),
                req("direction", Vec3),
                opt("maxDistance", Num).above(0.0).default(json!(1000)),
            ],
            &["hit", "distance?", "point?", "entity?"],
            json!({"origin": [0, 20, 0], "direction": [0, -1, 0]}),
        ),
        entry(
            "physics.collisionEvents",
            &["physics.read"],
            vec![],
            &["events"],
            json!({}),
        ),
        // agent
        entry(
            "agent.emitEvent",
            &["agent.write"],
            vec![
                req("type", Str).len(Some(1), None),
                opt("payload", Obj).default(json!({})),
            ],
            &["eventId"],
            json!({"type": "greeting", "payload": {"to": "all"}}),
        ),
        entry(
            "agent.getPerception",
            &["agent.read"],
            vec![],
            &["perception"],
            json!({}),
        ),
        // system
        // Paging (`limit`, `offset`, `total`, `nextOffset`) is issue 12's addition.
        entry(
            "skills.list",
            &[],
            vec![
                opt("limit", Int).range(1.0, 1000.0),
                opt("offset", Int).at_least(0.0).default(json!(0)),
            ],
            &["tools", "total", "nextOffset?"],
            json!({}),
        ),
        entry(
            "skills.describe",
            &[],
            vec![req("name", Str)],
            // `latency` is issue 12's addition: the skill's measured latency; `grants` issue
            // 18's: what its package may reach outside the world.
            &[
                "name",
                "version",
                "category",
                "description",
                "input_schema",
                "latency",
                "grants",
            ],
            json!({"name": "scene.createEntity"}),
        ),
        entry(
            "trace.tail",
            &[],
            vec![
                opt("afterSeq", Int).at_least(-1.0),
                opt("limit", Int).range(0.0, 1000.0),
                opt("actorId", Str),
                opt("type", Str),
            ],
            &["events", "nextAfterSeq"],
            json!({"limit": 5}),
        ),
        entry(
            "trace.explainEvent",
            &[],
            vec![req("eventId", Str)],
            &["event", "parents", "children"],
            json!({"eventId": "$event"}),
        ),
        entry(
            "trace.export",
            &[],
            // Issue 13 adds the range: by sequence number or by time.
            vec![
                req("name", Str).len(Some(1), None),
                opt("fromSeq", Int).at_least(1.0),
                opt("toSeq", Int).at_least(1.0),
                opt("since", Str),
                opt("until", Str),
            ],
            &["name", "events", "bytes"],
            json!({"name": "catalog.jsonl"}),
        ),
        entry(
            "inspector.snapshot",
            &["scene.read", "ecs.read", "physics.read", "agent.read"],
            vec![
                opt("afterEntity", Str),
                opt("limit", Int).range(0.0, 500.0).default(json!(100)),
            ],
            &[
                "page",
                "world",
                "entities",
                "agents",
                "skills",
                "permissions",
                "resources",
                "trace",
            ],
            json!({"limit": 2}),
        ),
        Entry {
            version: "2.0.0",
            ..entry(
                "dev.reload",
                &["scene.write"],
                vec![
                    // The catalog lists skill|scene|data; the packages issue (#4) adds `package`.
                    req("target", Str).one_of(&["skill", "package", "scene", "data"]),
                    opt("name", Str).len(Some(1), None),
                    opt("reason", Str).len(None, Some(200)),
                ],
                &["ok", "target", "invalidated", "reason?"],
                json!({"target": "data", "reason": "catalog test"}),
            )
        },
        entry(
            "audit.explain",
            &[],
            vec![req("eventId", Str)],
            &[
                "eventId",
                "eventType",
                "found",
                "decision",
                "provenance",
                "causalTrace",
            ],
            json!({"eventId": "$event"}),
        ),
        entry(
            "audit.query",
            &[],
            vec![
                opt("decision", Str)
                    .one_of(&["allow", "deny", "all"])
                    .default(json!("all")),
                opt("cap", Str),
                opt("rule", Str),
                opt("agentId", Str),
                opt("sessionId", Str),
                opt("package", Str),
                opt("limit", Int).range(0.0, 2000.0).default(json!(200)),
            ],
            &["summary", "decisions"],
            json!({"decision": "allow", "limit": 3}),
        ),
        entry(
            "audit.usage",
            &[],
            vec![opt("sessionId", Str)],
            &["perSessionCap", "quotas", "budgets"],
            json!({}),
        ),
        entry(
            "package.list",
            &[],
            vec![opt("name", Str)],
            &["packages"],
            json!({}),
        ),
        Entry {
            // Nothing is installed here; `hot_reload` and the admission suite load packages.
            succeeds: false,
            ..entry(
                "package.load",
                &["agent.write"],
                vec![
                    req("ref", Str),
                    req("agentId", Str),
                    req("sessionId", Str),
                    req("profile", Str),
                ],
                &[
                    "ok",
                    "ref",
                    "agentId",
                    "rule",
                    "rejectReason",
                    "reason",
                    "loadEventId",
                ],
                json!({"ref": "none", "agentId": "tester", "sessionId": "s", "profile": "builder.readWrite"}),
            )
        },
        // camera (issue #44; not in the shared spec's table yet)
        entry(
            "camera.capture",
            &["scene.read"],
            vec![
                req("position", Vec3),
                req("lookAt", Vec3),
                opt("width", Int).range(1.0, 2048.0).default(json!(640)),
                opt("height", Int).range(1.0, 2048.0).default(json!(480)),
                opt("up", Vec3).default(json!([0, 1, 0])),
                opt("fovDegrees", Num)
                    .above(1.0)
                    .below(170.0)
                    .default(json!(60)),
                opt("background", Int)
                    .range(0.0, MAX_RGB)
                    .default(json!(0x1d2433)),
                opt("panels", Bool).default(json!(true)),
            ],
            &[
                "mimeType",
                "width",
                "height",
                "bytes",
                "tick",
                "entitiesInView",
                "anchorsMarked",
            ],
            json!({"position": [0, 0, 10], "lookAt": [0, 0, 0], "width": 8, "height": 8}),
        ),
        // ui
        entry(
            "ui.panel",
            &["ui.write"],
            panel,
            &["handle"],
            json!({"kind": "label", "anchor": {"kind": "screen"}, "text": "hi"}),
        ),
    ];
    for name in [
        "ui.label",
        "ui.textBox",
        "ui.speechBubble",
        "ui.thoughtBubble",
        "ui.callout",
        "ui.hudPanel",
    ] {
        entries.push(entry(
            name,
            &["ui.write"],
            panel_fields(),
            &["handle"],
            screen.clone(),
        ));
    }
    entries.extend([
        entry(
            "ui.update",
            &["ui.write"],
            vec![
                req("handle", Str),
                opt("text", Str),
                opt("title", Str),
                opt("style", Obj),
                opt("lines", StrArr),
            ],
            &["ok", "changed"],
            json!({"handle": "ui_1", "text": "changed"}),
        ),
        entry(
            "ui.remove",
            &["ui.write"],
            vec![req("handle", Str)],
            &["removed"],
            json!({"handle": "ui_99"}),
        ),
        // audio
        entry(
            "audio.play",
            &["audio.play"],
            vec![
                req("freq", Num).above(0.0),
                req("secs", Num).above(0.0).at_most(10.0),
                opt("bus", Str).one_of(BUSES),
                opt("volume", Num).range(0.0, 1.0),
            ],
            &["handle"],
            json!({"freq": 440, "secs": 1}),
        ),
        entry(
            "audio.ambient",
            &["audio.play"],
            vec![
                opt("bus", Str).one_of(BUSES),
                opt("volume", Num).range(0.0, 1.0),
            ],
            &["handle"],
            json!({}),
        ),
        entry(
            "audio.playAt",
            &["audio.play"],
            vec![
                req("freq", Num).above(0.0),
                req("secs", Num).above(0.0).at_most(10.0),
                req("position", Vec3),
                opt("bus", Str).one_of(BUSES),
                opt("volume", Num).range(0.0, 1.0),
                opt("maxDistance", Num).at_least(0.0),
            ],
            &["handle"],
            json!({"freq": 220, "secs": 0.5, "position": [1, 0, 1]}),
        ),
        entry(
            "audio.speak",
            &["audio.play"],
            vec![
                req("text", Str).len(Some(1), Some(500)),
                req("position", Vec3),
                opt("volume", Num).range(0.0, 1.0),
            ],
            &["handle"],
            json!({"text": "hello", "position": [0, 0, 0]}),
        ),
        entry(
            "audio.stop",
            &["audio.play"],
            vec![req("handle", Str)],
            &["ok"],
            json!({"handle": "aud_99"}),
        ),
        entry(
            "audio.setVolume",
            &["audio.play"],
            vec![req("handle", Str), req("volume", Num).range(0.0, 1.0)],
            &["ok"],
            json!({"handle": "aud_1", "volume": 0.5}),
        ),
        entry(
            "audio.setBusVolume",
            &["audio.play"],
            vec![
                req("bus", Str).one_of(BUSES),
                req("volume", Num).range(0.0, 1.0),
            ],
            &["ok"],
            json!({"bus": "sfx", "volume": 0.25}),
        ),
        // social
        entry(
            "social.approach",
            &["social.act"],
            vec![
                req("target", StrOrVec3),
                opt("talkDistance", Num).above(0.0).at_most(50.0),
            ],
            &["approaching", "target"],
            json!({"target": [3, 0, 0], "talkDistance": 1}),
        ),
        entry(
            "social.say",
            &["social.act"],
            vec![
                req("text", Str).len(Some(1), Some(280)),
                opt("actorId", Str),
            ],
            &["said", "speaker", "handle"],
            json!({"text": "hello", "actorId": "someone-else"}),
        ),
    ]);
    entries
}

/// The catalog's permission profiles.
pub(super) fn profile(name: &str) -> &'static [&'static str] {
    match name {
        "builder.readWrite" => &[
            "scene.read",
            "scene.write",
            "ecs.read",
            "ecs.modify",
            "physics.read",
            "physics.write",
            "agent.read",
            "agent.write",
            "ui.write",
            "audio.play",
        ],
        "social.actor" => &[
            "scene.read",
            "ecs.read",
            "physics.read",
            "agent.read",
            "agent.write",
            "social.act",
            "audio.play",
        ],
        other => panic!("no profile {other} in this table"),
    }
}

/// System skills the host adds beyond the catalog (the manual clock's step, which moves every body; issue
/// 12: ranked search, a session's latency tier and calibration; issue 19: the kept world's
/// checkpoint, hash and export).
/// Each with the permissions it needs.
pub(super) const ADDITIONS: [(&str, &[&str]); 7] = [
    ("world.step", &["physics.write"]),
    ("skills.search", &[]),
    ("skills.setLatencyTier", &[]),
    ("skills.calibrate", &["scene.write"]),
    ("world.checkpoint", &["scene.write"]),
    ("world.hash", &["scene.read"]),
    ("world.export", &["scene.read"]),
];

/// The additions a profile granting `granted` may call.
pub(super) fn additions_for(granted: &[&str]) -> Vec<String> {
    ADDITIONS
        .iter()
        .filter(|(_, needs)| needs.iter().all(|p| granted.contains(p)))
        .map(|(name, _)| name.to_string())
        .collect()
}
