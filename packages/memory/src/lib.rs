//! `memory`: an agent's long-term memory, over the host's state (an example package).
//!
//! - `memory.remember {text}` keeps a note in the calling agent's own memory;
//! - `memory.recall {query, limit}` returns the agent's notes that share words with the
//!   query, best first (overlap, then recency); an empty query returns the newest;
//! - `memory.forget {id}` removes one.
//!
//! Each agent's notes live in its own scope of the package's state (`Scope::Agent`): the
//! host takes the agent from the session, so no agent reads another's memory. What a call
//! writes is kept only if the call succeeds, and survives restarts of the host.

mod rank;

use limina_sdk::Annotations;
use limina_sdk::prelude::*;
use limina_sdk::state::{self, Scope};

/// Notes an agent may keep; the oldest is forgotten to make room for a new one.
const MAX_MEMORIES: usize = 256;
const NEXT: &str = "next";
const PREFIX: &str = "m/";

#[derive(Serialize, Deserialize)]
struct Memory {
    text: String,
    /// The world tick when it was remembered.
    tick: u64,
}

fn key(seq: u64) -> String {
    format!("{PREFIX}{seq:012}")
}

fn seq_of(key: &str) -> Option<u64> {
    key.strip_prefix(PREFIX)?.parse().ok()
}

#[derive(Deserialize, JsonSchema)]
struct RememberInput {
    /// What to remember, in plain words.
    #[schemars(length(min = 1, max = 2000))]
    text: String,
}

#[derive(Serialize, JsonSchema)]
struct RememberOutput {
    /// The note's id, for `memory.forget`.
    id: String,
    /// Notes the agent now keeps.
    count: u32,
    /// The id of the oldest note, forgotten to make room, if one was.
    forgotten: Option<String>,
}

fn remember(input: RememberInput, ctx: &CallContext) -> Result<RememberOutput, SkillError> {
    let seq: u64 = state::get(Scope::Agent, NEXT)?.unwrap_or(0);
    let mut ids = state::keys(Scope::Agent, PREFIX)?;
    let mut forgotten = None;
    if ids.len() >= MAX_MEMORIES {
        let oldest = ids.remove(0);
        state::delete(Scope::Agent, &oldest)?;
        forgotten = Some(oldest);
    }
    let id = key(seq);
    let memory = Memory {
        text: input.text,
        tick: ctx.tick,
    };
    state::set(Scope::Agent, &id, &memory)?;
    state::set(Scope::Agent, NEXT, &(seq + 1))?;
    Ok(RememberOutput {
        id,
        count: ids.len() as u32 + 1,
        forgotten,
    })
}

fn ten() -> u32 {
    10
}

#[derive(Deserialize, JsonSchema)]
struct RecallInput {
    /// What to look for; empty returns the newest notes.
    #[schemars(length(max = 500))]
    query: String,
    /// At most this many notes.
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 50))]
    limit: u32,
}

#[derive(Serialize, JsonSchema)]
struct Recalled {
    id: String,
    text: String,
    /// The tick it was remembered at.
    tick: u64,
    /// Share of the query's words it holds (0..1) plus up to 0.1 for recency.
    score: f64,
}

#[derive(Serialize, JsonSchema)]
struct RecallOutput {
    memories: Vec<Recalled>,
}

fn recall(input: RecallInput, _ctx: &CallContext) -> Result<RecallOutput, SkillError> {
    let query = rank::terms(&input.query);
    let ids = state::keys(Scope::Agent, PREFIX)?;
    let newest = ids.last().and_then(|k| seq_of(k)).unwrap_or(0);
    let mut found = Vec::new();
    for id in ids {
        let (Some(seq), Some(memory)) = (seq_of(&id), state::get::<Memory>(Scope::Agent, &id)?)
        else {
            continue;
        };
        if let Some(score) = rank::score(&query, &rank::terms(&memory.text), seq, newest) {
            found.push(Recalled {
                id,
                text: memory.text,
                tick: memory.tick,
                score: (score * 1000.0).round() / 1000.0,
            });
        }
    }
    found.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| b.id.cmp(&a.id)));
    found.truncate(input.limit as usize);
    Ok(RecallOutput { memories: found })
}

#[derive(Deserialize, JsonSchema)]
struct ForgetInput {
    /// A note's id, as `memory.remember` or `memory.recall` gave it.
    #[schemars(length(max = 64))]
    id: String,
}

#[derive(Serialize, JsonSchema)]
struct ForgetOutput {
    /// False when the agent kept no such note.
    forgotten: bool,
}

fn forget(input: ForgetInput, _ctx: &CallContext) -> Result<ForgetOutput, SkillError> {
    if seq_of(&input.id).is_none() {
        return Err(SkillError::InvalidInput(format!(
            "`id` must be a note id like `m/000000000001`, got `{}`",
            input.id
        )));
    }
    Ok(ForgetOutput {
        forgotten: state::delete(Scope::Agent, &input.id)?,
    })
}

limina_sdk::export_package!(
    Package::new()
        .skill(
            Skill::new(
                "memory.remember",
                "1.0.0",
                "Remember a note in the calling agent's own long-term memory.",
                remember
            )
            .permissions(&["state.write"])
        )
        .skill(
            Skill::new(
                "memory.recall",
                "1.0.0",
                "Recall the calling agent's notes that share words with a query, best first.",
                recall
            )
            .permissions(&["state.read"])
            .annotations(Annotations {
                read_only: true,
                destructive: false,
                idempotent: true,
                open_world: false,
            })
        )
        .skill(
            Skill::new(
                "memory.forget",
                "1.0.0",
                "Forget one of the calling agent's notes by id.",
                forget
            )
            .permissions(&["state.write"])
        )
        .resource(
            Resource::new(NOTES_URI, "My notes", "text/markdown", |_, _| notes_page().map(Some))
                .description("The calling agent's own notes, oldest first.")
                .permissions(&["state.read"])
        )
        .prompt(
            Prompt::new(
                "memory.reflect",
                "Reflect on what the calling agent remembers about a topic.",
                &[("topic", "What to reflect on", true)],
                reflect
            )
            .permissions(&["state.read"])
        )
);

/// The calling agent's notes as a resource.
const NOTES_URI: &str = "limina://pkg/memory/notes";

/// The calling agent's notes, oldest first, one line each with its id and tick.
fn notes_page() -> Result<String, SkillError> {
    let mut page = String::from("# My notes\n\n");
    let ids = state::keys(Scope::Agent, PREFIX)?;
    if ids.is_empty() {
        page.push_str("(none yet: memory.remember keeps one)\n");
    }
    for id in ids {
        if let Some(memory) = state::get::<Memory>(Scope::Agent, &id)? {
            page.push_str(&format!("- `{id}` (tick {}): {}\n", memory.tick, memory.text));
        }
    }
    Ok(page)
}

/// `memory.reflect`: the agent's notes embedded, and the ask.
fn reflect(
    arguments: &[(String, String)],
    _ctx: &CallContext,
) -> Result<Vec<limina_sdk::PromptMessage>, SkillError> {
    let topic = limina_sdk::argument(arguments, "topic").unwrap_or_default();
    Ok(vec![
        limina_sdk::user(ContentBlock::embedded_text(
            NOTES_URI,
            "text/markdown",
            notes_page()?,
        )),
        limina_sdk::user(ContentBlock::text(format!(
            "From these notes, say in three sentences what you remember about {topic}, and \
             which notes you would forget with memory.forget."
        ))),
    ])
}
