//! One agent of the crowd: its body in the world (an entity tagged `agent:<id>`, so
//! perception finds it), then calls at a steady rate in a fixed mix — moves of its body,
//! queries around it, perceptions, a memory written, a third-party package's skill — each
//! timed and checked.

use super::channel::{Channel, Reply};
use super::tally::{Kind, Tally};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::Instant;

/// The mix, out of ten calls.
const MIX: [Kind; 10] = [
    Kind::Move,
    Kind::Query,
    Kind::Move,
    Kind::Perceive,
    Kind::Move,
    Kind::Remember,
    Kind::Move,
    Kind::Query,
    Kind::Perceive,
    Kind::ThirdParty,
];

/// What every agent is told.
#[derive(Clone)]
pub struct Orders {
    /// Calls per second.
    pub rate: f64,
    /// When calls start and stop (every agent has its body by then).
    pub start: Instant,
    pub stop: Instant,
    /// Check every reply's content, not only that it is no error (the smoke run).
    pub strict: bool,
}

/// A small deterministic generator (splitmix64), one per agent.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The tool error or JSON-RPC error a reply carries, as text.
fn error_of(reply: &Value) -> Option<String> {
    if let Some(error) = reply.get("error") {
        return Some(format!(
            "rpc {}: {}",
            error["code"],
            error["message"].as_str().unwrap_or("")
        ));
    }
    let result = reply.get("result")?;
    if result["isError"] == true {
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or("isError without text");
        return Some(text.to_string());
    }
    None
}

/// The structured result of a successful call, or why there is none.
fn structured(reply: Reply) -> Result<Value, String> {
    let reply = reply?;
    if let Some(why) = error_of(&reply) {
        return Err(why);
    }
    Ok(reply["result"]["structuredContent"].clone())
}

/// An agent with its body placed.
pub struct Agent {
    id: String,
    channel: Channel,
    entity: String,
    at: [f64; 3],
    rng: Rng,
}

impl Agent {
    /// Places agent `id`'s body at a random spot of the square and tags it as its body.
    pub async fn arrive(
        id: String,
        seed: u64,
        mut channel: Channel,
        side: f64,
    ) -> Result<Agent, String> {
        let mut rng = Rng(seed);
        let at = [rng.unit() * side, 0.5, rng.unit() * side];
        let made = structured(
            channel
                .call("scene.createEntity", json!({"position": at, "size": 0.5}))
                .await,
        )?;
        let entity = made["entity"]
            .as_str()
            .ok_or_else(|| format!("scene.createEntity gave no entity: {made}"))?
            .to_string();
        let tag = json!({"entity": entity, "component": format!("agent:{id}")});
        structured(channel.call("ecs.addComponent", tag).await)?;
        Ok(Agent {
            id,
            channel,
            entity,
            at,
            rng,
        })
    }

    /// Calls at `orders.rate` from `orders.start` to `orders.stop`, one in flight; a call
    /// that overruns its slot delays the next, never bunches them.
    pub async fn live(mut self, orders: &Orders, tally: &mut Tally) {
        let period = Duration::from_secs_f64(1.0 / orders.rate);
        let mut next = orders.start + period.mul_f64(self.rng.unit());
        let mut turn = (self.rng.next() % MIX.len() as u64) as usize;
        while next < orders.stop {
            tokio::time::sleep_until(next).await;
            let kind = MIX[turn % MIX.len()];
            turn += 1;
            let begun = Instant::now();
            match self.act(kind, orders.strict).await {
                Ok(()) => tally.done(kind, begun.elapsed()),
                Err(why) => tally.failed(kind, &why),
            }
            next = (next + period).max(Instant::now());
        }
    }

    async fn act(&mut self, kind: Kind, strict: bool) -> Result<(), String> {
        match kind {
            Kind::Move => {
                let step = |r: &mut Rng| (r.unit() - 0.5) * 2.0;
                let to = [
                    self.at[0] + step(&mut self.rng),
                    0.5,
                    self.at[2] + step(&mut self.rng),
                ];
                let args = json!({"entity": self.entity, "position": to});
                let out = structured(self.channel.call("three.setTransform", args).await)?;
                if strict && out["ok"] != true {
                    return Err(format!("three.setTransform did not move the body: {out}"));
                }
                self.at = to;
            }
            Kind::Query => {
                let args = json!({"near": self.at, "radius": 3.0});
                let out = structured(self.channel.call("scene.queryEntities", args).await)?;
                let found = out["entities"]
                    .as_array()
                    .ok_or("scene.queryEntities gave no list")?;
                if strict && !found.iter().any(|e| e["entity"] == self.entity.as_str()) {
                    return Err(format!(
                        "scene.queryEntities around the body missed it: {out}"
                    ));
                }
            }
            Kind::Perceive => {
                let out = structured(self.channel.call("agent.getPerception", json!({})).await)?;
                let seen = &out["perception"];
                if strict
                    && (seen["entity"] != self.entity.as_str()
                        || seen["agentId"] != self.id.as_str())
                {
                    return Err(format!(
                        "agent.getPerception is not the agent's own: {seen}"
                    ));
                }
            }
            Kind::Remember => {
                let text = format!("{} stood at {:.1}, {:.1}", self.id, self.at[0], self.at[2]);
                let out = structured(
                    self.channel
                        .call("memory.remember", json!({"text": text}))
                        .await,
                )?;
                if strict && !out["id"].is_string() {
                    return Err(format!("memory.remember gave no note id: {out}"));
                }
            }
            Kind::ThirdParty => {
                let out = structured(
                    self.channel
                        .call("dice.roll", json!({"expression": "2d6"}))
                        .await,
                )?;
                let total = out["total"].as_i64().unwrap_or(0);
                if strict && !(2..=12).contains(&total) {
                    return Err(format!("dice.roll 2d6 gave {out}"));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_errors_and_rpc_errors_are_failures_with_their_text() {
        let tool = json!({"result": {"isError": true, "content": [{"type": "text", "text": "forbidden: no"}]}});
        assert_eq!(error_of(&tool).as_deref(), Some("forbidden: no"));
        let rpc = json!({"error": {"code": -32602, "message": "bad"}});
        assert_eq!(error_of(&rpc).as_deref(), Some("rpc -32602: bad"));
        let fine = json!({"result": {"structuredContent": {"ok": true}}});
        assert_eq!(structured(Ok(fine)).unwrap(), json!({"ok": true}));
    }
}
