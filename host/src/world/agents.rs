//! Agents in the world: their bodies, movement toward targets, and what they signalled or
//! said.
//!
//! An agent's body is the entity tagged `agent:<agentId>` (the lowest-numbered one when
//! several carry the tag), so whoever may create entities and tag them decides who has a body;
//! `social.act` alone never creates one. Movement is advanced in `World::step`.

use super::entity::{EntityFilter, EntityInfo};
use super::journal::Undo;
use super::oplog::Op;
use super::{World, WorldError};
use crate::limits::{
    HEARD_PREVIEW_CHARS, HEARD_WINDOW, MAX_HEARD_KIND_CHARS, MAX_HEARD_PAYLOAD_BYTES,
};
use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};

/// How fast an approaching agent walks, in metres per second.
pub const WALK_SPEED: f64 = 2.0;
/// How close `approach` gets when the caller names no distance, in metres.
pub const DEFAULT_TALK_DISTANCE: f64 = 1.5;
/// The farthest `approach` may be asked to stop, in metres.
pub const MAX_TALK_DISTANCE: f64 = 50.0;
/// How far an agent sees other entities, in metres.
pub const PERCEPTION_RADIUS: f64 = 25.0;
/// Most nearby entities a perception lists (the nearest ones).
const PERCEIVED_ENTITIES: usize = 32;
/// Most recent events a perception lists (the newest ones).
const PERCEIVED_EVENTS: usize = 16;
/// Where a speech bubble floats above its speaker's body.
const BUBBLE_OFFSET: [f64; 3] = [0.0, 1.5, 0.0];

/// The tag that makes an entity `agent_id`'s body.
pub fn body_tag(agent_id: &str) -> String {
    format!("agent:{agent_id}")
}

/// Where an approaching agent is heading.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum ApproachTarget {
    /// An entity, followed as it moves.
    Entity(String),
    /// A fixed point.
    Point([f64; 3]),
}

/// An approach in progress.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Movement {
    /// The entity walking: the agent's body when the approach began. It walks while it
    /// still carries the agent's tag.
    pub body: String,
    pub target: ApproachTarget,
    pub talk_distance: f64,
    pub started_tick: u64,
}

/// A signal or a line of speech, as agents perceive it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Heard {
    /// The trace event that recorded it.
    pub event_id: String,
    /// The trace event type, e.g. `agent.signal.wave` or `social.said`.
    pub kind: String,
    pub actor_id: String,
    pub tick: u64,
    #[serde(with = "super::json_text")]
    pub payload: Value,
}

/// Agent state: approaches in progress, speech bubbles, and recent signals and speech.
#[derive(Debug, Default)]
pub struct Agents {
    pub(super) movements: BTreeMap<String, Movement>,
    /// Each agent's speech bubble, reused by every `say`.
    pub(super) bubbles: BTreeMap<String, String>,
    pub(super) heard: VecDeque<Heard>,
}

/// The inverse of one agent-state mutation.
#[derive(Debug)]
pub(super) enum AgentUndo {
    Movement(String, Option<Movement>),
    Bubble(String, Option<String>),
    /// A `Heard` was pushed at the back, evicting this one from the front.
    Heard(Option<Heard>),
}

impl Agents {
    pub(super) fn undo(&mut self, undo: AgentUndo) {
        match undo {
            AgentUndo::Movement(agent, before) => set(&mut self.movements, agent, before),
            AgentUndo::Bubble(agent, before) => set(&mut self.bubbles, agent, before),
            AgentUndo::Heard(evicted) => {
                self.heard.pop_back();
                if let Some(h) = evicted {
                    self.heard.push_front(h);
                }
            }
        }
    }

    /// The approach `agent_id` is making, if any.
    pub fn movement(&self, agent_id: &str) -> Option<&Movement> {
        self.movements.get(agent_id)
    }

    /// Recent signals and speech, oldest first.
    pub fn heard(&self) -> impl Iterator<Item = &Heard> {
        self.heard.iter()
    }
}

fn set<V>(map: &mut BTreeMap<String, V>, key: String, value: Option<V>) {
    match value {
        Some(v) => map.insert(key, v),
        None => map.remove(&key),
    };
}

impl World {
    /// The agent state, read-only.
    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    /// `agent_id`'s body: the lowest-numbered entity tagged `agent:<agent_id>`.
    pub fn agent_body(&self, agent_id: &str) -> Option<EntityInfo> {
        let number = *self.tagged.carrying(&body_tag(agent_id))?.first()?;
        self.get_entity(&super::entity_id(number))
    }

    /// Starts moving `agent_id`'s body toward `target`, replacing any approach in progress.
    /// False (and standing still) when it has no body, the target entity does not exist or
    /// is already within `talk_distance`.
    pub fn approach(
        &mut self,
        agent_id: &str,
        target: ApproachTarget,
        talk_distance: Option<f64>,
    ) -> Result<bool, WorldError> {
        let op = || Op::Approach {
            agent: agent_id.into(),
            target: target.clone(),
            talk_distance,
        };
        self.logged(self.wants_op().then(op), |w| {
            w.approach_now(agent_id, target, talk_distance)
        })
    }

    fn approach_now(
        &mut self,
        agent_id: &str,
        target: ApproachTarget,
        talk_distance: Option<f64>,
    ) -> Result<bool, WorldError> {
        let talk_distance = talk_distance.unwrap_or(DEFAULT_TALK_DISTANCE);
        if !(talk_distance > 0.0 && talk_distance <= MAX_TALK_DISTANCE) {
            return Err(WorldError::Invalid(format!(
                "`talkDistance` must be > 0 and ≤ {MAX_TALK_DISTANCE}, got {talk_distance}"
            )));
        }
        if let ApproachTarget::Point(p) = &target
            && !p.iter().all(|c| c.is_finite())
        {
            return Err(WorldError::Invalid(
                "`target` must be finite numbers".into(),
            ));
        }
        let body = self.agent_body(agent_id);
        let goal = self.target_position(&target, body.as_ref());
        let movement = match (body, goal) {
            (Some(body), Some(goal)) if distance(body.transform.position, goal) > talk_distance => {
                Some(Movement {
                    body: body.id,
                    target,
                    talk_distance,
                    started_tick: self.tick,
                })
            }
            _ => None,
        };
        let approaching = movement.is_some();
        let before = match movement {
            Some(m) => self.agents.movements.insert(agent_id.to_string(), m),
            None => self.agents.movements.remove(agent_id),
        };
        if before.is_some() || approaching {
            self.record(Undo::Agents(AgentUndo::Movement(
                agent_id.to_string(),
                before,
            )));
        }
        Ok(approaching)
    }

    /// Where a target is now; `None` for a missing entity or the mover's own body.
    fn target_position(
        &self,
        target: &ApproachTarget,
        body: Option<&EntityInfo>,
    ) -> Option<[f64; 3]> {
        match target {
            ApproachTarget::Point(p) => Some(*p),
            ApproachTarget::Entity(id) if body.is_some_and(|b| &b.id == id) => None,
            ApproachTarget::Entity(id) => self.get_entity(id).map(|e| e.transform.position),
        }
    }

    /// Remembers a signal or a line of speech for agents' perception, bounded: a payload over
    /// `MAX_HEARD_PAYLOAD_BYTES` is kept as `{clipped, bytes, preview}` and a long type is
    /// cut (the trace event, named by `event_id`, keeps both whole).
    pub fn hear(&mut self, heard: Heard) {
        self.logged(self.wants_op().then(|| Op::Hear(heard.clone())), |w| {
            w.hear_now(heard)
        })
    }

    fn hear_now(&mut self, mut heard: Heard) {
        if heard.kind.chars().count() > MAX_HEARD_KIND_CHARS {
            heard.kind = heard.kind.chars().take(MAX_HEARD_KIND_CHARS).collect();
        }
        heard.payload = clipped(heard.payload);
        self.agents.heard.push_back(heard);
        let evicted = if self.agents.heard.len() > HEARD_WINDOW {
            self.agents.heard.pop_front()
        } else {
            None
        };
        self.record(Undo::Agents(AgentUndo::Heard(evicted)));
    }

    /// Shows `text` in `agent_id`'s speech bubble, over its body when it has one, else at the
    /// bottom of the screen; returns the bubble's handle (one per agent, reused).
    pub fn say(&mut self, agent_id: &str, text: &str) -> Result<String, WorldError> {
        let op = || Op::Say {
            agent: agent_id.into(),
            text: text.into(),
        };
        self.logged(self.wants_op().then(op), |w| w.say_now(agent_id, text))
    }

    fn say_now(&mut self, agent_id: &str, text: &str) -> Result<String, WorldError> {
        let n = text.chars().count();
        if !(1..=280).contains(&n) {
            return Err(WorldError::Invalid(format!(
                "`text` must be 1 to 280 characters, got {n}"
            )));
        }
        let anchor = match self.agent_body(agent_id) {
            Some(body) => {
                json!({"kind": "world", "entity": body.id, "offset": BUBBLE_OFFSET, "billboard": true})
            }
            None => json!({"kind": "screen", "corner": "bottom"}),
        };
        let spec = json!({"anchor": anchor, "text": text, "speaker": agent_id});
        if let Some(handle) = self.agents.bubbles.get(agent_id).cloned()
            && self.update_panel(&handle, spec.clone())?.0
        {
            return Ok(handle);
        }
        let handle = self.create_panel("speechBubble", spec, agent_id)?;
        let before = self
            .agents
            .bubbles
            .insert(agent_id.to_string(), handle.clone());
        self.record(Undo::Agents(AgentUndo::Bubble(
            agent_id.to_string(),
            before,
        )));
        Ok(handle)
    }

    /// `agent_id`'s view of the world; `None` when it has no body.
    pub fn perception(&self, agent_id: &str) -> Option<Value> {
        let body = self.agent_body(agent_id)?;
        let here = body.transform.position;
        let mut nearby: Vec<EntityInfo> = self
            .query_entities(&EntityFilter {
                near: Some(here),
                radius: Some(PERCEPTION_RADIUS),
                tag: None,
            })
            .into_iter()
            .filter(|e| e.id != body.id)
            .collect();
        // Nearest first; the query already sorted by id, and the sort is stable.
        nearby.sort_by(|a, b| a.distance.total_cmp(&b.distance));
        nearby.truncate(PERCEIVED_ENTITIES);
        let nearby: Vec<Value> = nearby
            .into_iter()
            .map(|e| {
                let agent = e.tags.iter().find_map(|t| t.strip_prefix("agent:"));
                json!({
                    "entity": e.id,
                    "position": e.transform.position,
                    "distance": e.distance,
                    "tags": e.tags,
                    "agentId": agent,
                })
            })
            .collect();
        let skip = self.agents.heard.len().saturating_sub(PERCEIVED_EVENTS);
        let events: Vec<Value> = self
            .agents
            .heard
            .iter()
            .skip(skip)
            .map(heard_json)
            .collect();
        Some(json!({
            "agentId": agent_id,
            "entity": body.id,
            "position": here,
            "tick": self.tick,
            "radius": PERCEPTION_RADIUS,
            "nearby": nearby,
            "recentEvents": events,
            "approaching": self.agents.movements.get(agent_id).map(movement_json),
        }))
    }

    /// Every agent with a body or an approach in progress, for snapshots and the state sync.
    pub fn agents_json(&self) -> Vec<Value> {
        // Each agent's body is the lowest-numbered entity carrying its tag.
        let bodies: BTreeMap<String, EntityInfo> = self
            .tagged
            .starting_with("agent:")
            .filter_map(|(tag, numbers)| {
                let agent = tag.strip_prefix("agent:")?.to_string();
                let number = *numbers.first()?;
                Some((agent, self.get_entity(&super::entity_id(number))?))
            })
            .collect();
        let mut ids: Vec<&String> = bodies.keys().chain(self.agents.movements.keys()).collect();
        ids.sort();
        ids.dedup();
        ids.into_iter()
            .map(|id| {
                let body = bodies.get(id);
                json!({
                    "agentId": id,
                    "entity": body.map(|b| &b.id),
                    "position": body.map(|b| b.transform.position),
                    "approaching": self.agents.movements.get(id).map(movement_json),
                    "speechBubble": self.agents.bubbles.get(id),
                })
            })
            .collect()
    }

    /// Walks every approaching agent one step; called once per step, after physics. An
    /// approach ends on arrival, or when the body (or its tag) or the target entity is gone.
    pub(super) fn advance_agents(&mut self) {
        let stride = WALK_SPEED * self.settings.tick_seconds as f64;
        let agents: Vec<String> = self.agents.movements.keys().cloned().collect();
        for agent in agents {
            let movement = self.agents.movements[&agent].clone();
            // The remembered body, not a search of every entity: this runs every tick.
            let tag = body_tag(&agent);
            let body = self
                .get_entity(&movement.body)
                .filter(|b| b.tags.contains(&tag));
            let goal = self.target_position(&movement.target, body.as_ref());
            let (Some(body), Some(goal)) = (body, goal) else {
                self.agents.movements.remove(&agent);
                continue;
            };
            let from = body.transform.position;
            let gap = distance(from, goal) - movement.talk_distance;
            if gap > 0.0 {
                let walk = stride.min(gap);
                let d = distance(from, goal);
                let to: [f64; 3] =
                    std::array::from_fn(|i| from[i] + (goal[i] - from[i]) / d * walk);
                if let Some((_, entity)) = self.lookup(&body.id) {
                    let mut transform = body.transform;
                    transform.position = to;
                    self.write_transform(entity, transform);
                }
            }
            if gap <= stride + 1e-9 {
                self.agents.movements.remove(&agent);
            }
        }
    }
}

fn movement_json(m: &Movement) -> Value {
    let target = match &m.target {
        ApproachTarget::Entity(id) => json!(id),
        ApproachTarget::Point(p) => json!(p),
    };
    json!({"target": target, "talkDistance": m.talk_distance, "startedTick": m.started_tick})
}

/// `payload`, or a preview of it when its JSON is over `MAX_HEARD_PAYLOAD_BYTES`.
fn clipped(payload: Value) -> Value {
    let text = payload.to_string();
    if text.len() <= MAX_HEARD_PAYLOAD_BYTES {
        return payload;
    }
    let preview: String = text.chars().take(HEARD_PREVIEW_CHARS).collect();
    json!({"clipped": true, "bytes": text.len(), "preview": preview})
}

fn heard_json(h: &Heard) -> Value {
    json!({
        "id": h.event_id,
        "type": h.kind,
        "actorId": h.actor_id,
        "tick": h.tick,
        "payload": h.payload,
    })
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[cfg(test)]
#[path = "agents_tests.rs"]
mod tests;
