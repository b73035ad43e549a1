//! Core `ui` skills: panels, labels, text boxes, speech and thought bubbles, callouts and HUD
//! panels as scene data (the host has no renderer; clients draw what the state reports).
//! Inputs are strict: an unknown key is `invalid_input`.

use limina_sdk::host::ui;
use limina_sdk::prelude::*;
use serde_json::{Map, Value};

mod anchor;
use anchor::Anchor;

/// Visual style as a free-form object, e.g. `{background, color, fontSize, padding,
/// borderRadius, opacity}`; `ui.update` merges it key by key.
type UiStyle = Map<String, Value>;

/// When and how a panel appears, types and goes away.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Lifecycle {
    /// Fade in/out settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fade: Option<Value>,
    /// Typewriter reveal of the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    typewriter: Option<Value>,
    /// How long the panel lives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ttl: Option<Value>,
    /// Queueing of successive messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    queue: Option<Value>,
    /// Feed (scrolling log) settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    feed: Option<Value>,
}

/// Declares a strict panel input with the fields every panel kind shares, plus `$extra`.
macro_rules! panel_input {
    ($(#[$meta:meta])* $name:ident { $($extra:tt)* }) => {
        $(#[$meta])*
        #[derive(Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields, rename_all = "camelCase")]
        struct $name {
            $($extra)*
            /// Where the panel sits: in the world (on an entity or a point) or on the screen.
            anchor: Anchor,
            /// Visual style, a free-form object such as `{background, color, fontSize,
            /// padding, borderRadius, opacity}`.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            style: Option<UiStyle>,
            /// Body text.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            text: Option<String>,
            /// Heading above the text.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            title: Option<String>,
            /// Lines of text, shown one per row.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            lines: Option<Vec<String>>,
            /// Widest the panel may grow, in pixels.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(extend("exclusiveMinimum" = 0))]
            max_width: Option<f64>,
            /// Fixed width, in pixels.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(extend("exclusiveMinimum" = 0))]
            width: Option<f64>,
            /// Most lines shown; older ones scroll away.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(extend("exclusiveMinimum" = 0))]
            max_lines: Option<u32>,
            /// World units per pixel of a world-anchored panel.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(extend("exclusiveMinimum" = 0))]
            pixel_scale: Option<f64>,
            /// The pointer of a bubble or callout toward its anchor.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            tail: Option<Map<String, Value>>,
            /// The leader line of a callout.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            leader: Option<Map<String, Value>>,
            /// Fade, typewriter, ttl, queue and feed settings.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            lifecycle: Option<Lifecycle>,
        }
    };
}

/// The six kinds of panel.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "camelCase")]
enum Kind {
    Label,
    TextBox,
    SpeechBubble,
    ThoughtBubble,
    Callout,
    HudPanel,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Label => "label",
            Kind::TextBox => "textBox",
            Kind::SpeechBubble => "speechBubble",
            Kind::ThoughtBubble => "thoughtBubble",
            Kind::Callout => "callout",
            Kind::HudPanel => "hudPanel",
        }
    }
}

panel_input!(PanelInput {
    /// Which kind of panel to create.
    #[serde(skip_serializing)]
    kind: Kind,
});

panel_input!(SpecInput {});

#[derive(Serialize, JsonSchema)]
struct HandleOutput {
    /// The panel's handle, `ui_<n>`.
    handle: String,
}

fn create(kind: Kind, spec: &impl Serialize) -> Result<HandleOutput, SkillError> {
    let spec = serde_json::to_string(spec).map_err(|e| SkillError::HandlerError(e.to_string()))?;
    Ok(HandleOutput {
        handle: ui::create_panel(kind.as_str(), &spec)?,
    })
}

fn panel(input: PanelInput, _ctx: &CallContext) -> Result<HandleOutput, SkillError> {
    create(input.kind, &input)
}

/// A handler creating a panel of one fixed kind.
fn of_kind(kind: Kind) -> impl Fn(SpecInput, &CallContext) -> Result<HandleOutput, SkillError> {
    move |input, _ctx| create(kind, &input)
}

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateInput {
    /// The panel to change, `ui_<n>`.
    #[serde(skip_serializing)]
    handle: String,
    /// New body text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    /// New heading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    /// Style keys to change; the others are kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    style: Option<UiStyle>,
    /// New lines of text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lines: Option<Vec<String>>,
}

#[derive(Serialize, JsonSchema)]
struct UpdateOutput {
    /// False when no panel has this handle.
    ok: bool,
    /// Whether anything about the panel changed.
    changed: bool,
}

fn update(input: UpdateInput, _ctx: &CallContext) -> Result<UpdateOutput, SkillError> {
    let patch =
        serde_json::to_string(&input).map_err(|e| SkillError::HandlerError(e.to_string()))?;
    let (ok, changed) = ui::update_panel(&input.handle, &patch)?;
    Ok(UpdateOutput { ok, changed })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RemoveInput {
    /// The panel to remove, `ui_<n>`.
    handle: String,
}

#[derive(Serialize, JsonSchema)]
struct RemoveOutput {
    /// False when no panel had this handle.
    removed: bool,
}

fn remove(input: RemoveInput, _ctx: &CallContext) -> Result<RemoveOutput, SkillError> {
    Ok(RemoveOutput {
        removed: ui::remove_panel(&input.handle)?,
    })
}

fn kind_skill(name: &str, kind: Kind, description: &str) -> Skill {
    Skill::new(name, "1.0.0", description, of_kind(kind)).permissions(&["ui.write"])
}

limina_sdk::export_package!(
    Package::new()
        .skill(
            Skill::new(
                "ui.panel",
                "1.0.0",
                "Create a UI panel of any kind (label, textBox, speechBubble, thoughtBubble, callout or hudPanel) anchored to an entity, a world point or a screen corner; returns its handle.",
                panel,
            )
            .permissions(&["ui.write"]),
        )
        .skill(kind_skill(
            "ui.label",
            Kind::Label,
            "Put a short text label on an entity, a world point or the screen; returns its handle.",
        ))
        .skill(kind_skill(
            "ui.textBox",
            Kind::TextBox,
            "Show a box of text (a title and several lines) in the world or on the screen; returns its handle.",
        ))
        .skill(kind_skill(
            "ui.speechBubble",
            Kind::SpeechBubble,
            "Show a speech bubble with a tail pointing at whoever speaks, usually anchored to their entity; returns its handle.",
        ))
        .skill(kind_skill(
            "ui.thoughtBubble",
            Kind::ThoughtBubble,
            "Show a thought bubble over an entity to reveal what it is thinking; returns its handle.",
        ))
        .skill(kind_skill(
            "ui.callout",
            Kind::Callout,
            "Point out an entity or place with a callout box joined to it by a leader line; returns its handle.",
        ))
        .skill(kind_skill(
            "ui.hudPanel",
            Kind::HudPanel,
            "Show a heads-up panel fixed to a screen corner, such as a score, objective or message feed; returns its handle.",
        ))
        .skill(
            Skill::new(
                "ui.update",
                "1.0.0",
                "Change the text, title, lines or style of an existing UI panel by handle; reports whether it exists and whether anything changed.",
                update,
            )
            .permissions(&["ui.write"]),
        )
        .skill(
            Skill::new(
                "ui.remove",
                "1.0.0",
                "Remove a UI panel by handle; removed is false if there was no such panel.",
                remove,
            )
            .permissions(&["ui.write"]),
        )
);
