// Native tests of `npc`: `limina pkg test` runs them with `node --test`.
import test from "node:test";
import assert from "node:assert/strict";
import {
  completeArgument,
  exportPackage,
  getPrompt,
  image,
  invokeSkill,
  readResource,
  SkillError,
  withContent,
} from "./bindings/limina.js";
import { prompts, resources, skills } from "./skills.js";

// --- Fake hosts ---------------------------------------------------------------------------

/** A perception as the host's `agents.perception()` reports it (positions are `[x, y, z]`). */
function view({ tick = 100, nearby = [], recentEvents = [] } = {}) {
  return {
    agentId: "mira",
    entity: "ent_1",
    position: [0, 0, 0],
    tick,
    radius: 25,
    nearby,
    recentEvents,
    approaching: null,
  };
}

const agent = (id, distance, entity = `ent_${id}`) => ({
  entity,
  position: [distance, 0, 0],
  distance,
  tags: [`agent:${id}`],
  agentId: id,
});
const thing = (entity, distance) => ({
  entity,
  position: [0, 0, distance],
  distance,
  tags: ["crate"],
  agentId: null,
});
const signal = (actorId, kind, tick = 90) => ({
  id: `evt_${actorId}_${kind}`,
  type: `agent.signal.${kind}`,
  actorId,
  tick,
  payload: {},
});
const speech = (actorId, text, tick = 95) => ({
  id: `evt_${actorId}_said`,
  type: "social.said",
  actorId,
  tick,
  payload: { speaker: actorId, text, handle: "ui_1" },
});

const host = (perception) => ({
  perception: () => structuredClone(perception),
  ctx: { agentId: "mira", sessionId: "s1", profile: "system.readonly", tick: 100, invocationId: "inv_1" },
});

const ALONE = view({ nearby: [thing("ent_9", 4)] });
const PAIR = view({ nearby: [agent("bob", 4), thing("ent_9", 6)] });
const CROWD = view({
  nearby: [agent("bob", 3), agent("cy", 5), agent("dee", 6), agent("eve", 8), agent("fay", 9)],
});
const WAVED = view({ nearby: [agent("bob", 4), agent("cy", 6)], recentEvents: [signal("cy", "wave")] });

const greet = (input, perception) => invokeSkill(skills, "npc.greet", input, host(perception));
const mood = (input, perception) => invokeSkill(skills, "npc.mood", input, host(perception));

const isError = (code) => (err) => err instanceof SkillError && err.code === code;

// --- The schemas --------------------------------------------------------------------------

test("every skill declares strict draft-07 object schemas and agent.read", () => {
  for (const s of skills) {
    assert.match(s.name, /^npc\.[a-z]+$/);
    assert.deepEqual(s.permissions, ["agent.read"]);
    for (const schema of [s.inputSchema, s.outputSchema]) {
      assert.equal(schema.type, "object");
      assert.equal(schema.additionalProperties, false);
      JSON.parse(JSON.stringify(schema));
    }
    assert.deepEqual(s.outputSchema.required, Object.keys(s.outputSchema.properties));
  }
});

// --- npc.greet ----------------------------------------------------------------------------

test("greet without a body calls out to no one", () => {
  const out = greet({ npc: { name: "Mira" } }, null);
  assert.deepEqual(out, { line: "Hello? Is anyone out there?", mood: "absent", addressed: null });
  assert.equal(greet({ npc: { name: "Mira" }, listener: "bob" }, null).addressed, null);
});

test("greet alone talks to itself, in the NPC's voice", () => {
  assert.deepEqual(greet({ npc: { name: "Mira" } }, ALONE), {
    line: "Quiet around here, just me and my thoughts.",
    mood: "alone",
    addressed: null,
  });
  assert.equal(greet({ npc: { name: "Mira", personality: "gruff" } }, ALONE).line, "Good. Nobody to bother me.");
});

test("greet addresses the one agent around and introduces itself", () => {
  assert.deepEqual(greet({ npc: { name: "Mira" } }, PAIR), {
    line: "Good morning, bob. I'm Mira! Nice to see you.",
    mood: "calm",
    addressed: "bob",
  });
  assert.deepEqual(greet({ npc: { name: "Mira", personality: "formal" } }, PAIR), {
    line: "Good morning, bob. I am Mira, at your service. How may I be of service?",
    mood: "calm",
    addressed: "bob",
  });
});

test("greet hails a crowd as a whole", () => {
  const out = greet({ npc: { name: "Mira" } }, CROWD);
  assert.deepEqual(out, { line: "Good morning, everyone. What a crowd today!", mood: "crowded", addressed: null });
  // A shy NPC finds two agents a crowd already.
  assert.equal(greet({ npc: { name: "Mira", personality: "shy" } }, WAVED).mood, "crowded");
});

test("greet answers whoever just signalled, over the nearest agent", () => {
  assert.deepEqual(greet({ npc: { name: "Mira" } }, WAVED), {
    line: "Good morning, cy. I'm Mira! I saw your wave!",
    mood: "curious",
    addressed: "cy",
  });
});

test("greet repeats fresh speech, clipped, and ignores stale events and its own", () => {
  const long = "have you seen the lighthouse keeper anywhere around the harbour today";
  const spoke = view({ tick: 1000, nearby: [agent("bob", 4)], recentEvents: [speech("bob", long, 990)] });
  const out = greet({ npc: { name: "Mira" } }, spoke);
  assert.equal(out.addressed, "bob");
  assert.equal(out.mood, "curious");
  assert.equal(out.line, 'Good morning, bob. I\'m Mira! I heard you say "have you seen the lighthouse keeper any…"!');

  const stale = view({
    tick: 5000,
    nearby: [agent("bob", 4)],
    recentEvents: [signal("bob", "wave", 100), speech("mira", "hello", 4990)],
  });
  assert.equal(greet({ npc: { name: "Mira" } }, stale).mood, "calm");
});

test("an event from an agent out of sight is remarked on without addressing them", () => {
  const far = view({ nearby: [], recentEvents: [signal("zed", "alarm")] });
  assert.deepEqual(greet({ npc: { name: "Mira", personality: "formal" } }, far), {
    line: "I noticed an alarm just now.",
    mood: "curious",
    addressed: null,
  });
});

test("greet is wary of someone too close and addresses them", () => {
  const close = view({ nearby: [agent("bob", 0.5)], recentEvents: [signal("bob", "poke")] });
  assert.deepEqual(greet({ npc: { name: "Mira", personality: "gruff" } }, close), {
    line: "Mornin', bob. Name's Mira. Back off a step.",
    mood: "wary",
    addressed: "bob",
  });
});

test("greet addresses whoever is too close, over whoever signalled", () => {
  const both = view({ nearby: [agent("cy", 0.8), agent("bob", 5)], recentEvents: [signal("bob", "wave")] });
  assert.deepEqual(greet({ npc: { name: "Mira" } }, both), {
    line: "Good morning, cy. I'm Mira! Oh, you're right there!",
    mood: "wary",
    addressed: "cy",
  });
  // Told to greet bob, it does, and answers his wave rather than telling him to back off.
  assert.deepEqual(greet({ npc: { name: "Mira" }, listener: "bob" }, both), {
    line: "Good morning, bob. I'm Mira! I saw your wave!",
    mood: "wary",
    addressed: "bob",
  });
});

test("greet addresses the listener it is given, once per agent with several bodies", () => {
  const twice = view({ nearby: [agent("bob", 2, "ent_5"), agent("cy", 3), agent("bob", 7, "ent_6")] });
  const out = greet({ npc: { name: "Mira" }, listener: "cy" }, twice);
  assert.equal(out.addressed, "cy");
  assert.equal(out.mood, "calm");
  assert.match(out.line, /^Good morning, cy\. I'm Mira!/);
});

test("the time of day follows the tick", () => {
  const at = (tick) => greet({ npc: { name: "Mira", personality: "formal" } }, { ...PAIR, tick }).line;
  assert.match(at(0), /^Good morning, bob\./);
  assert.match(at(12_000), /^Good afternoon, bob\./); // 14:00
  assert.match(at(19_500), /^Good evening, bob\./); // 19:00
  assert.match(at(27_000), /^Greetings at this late hour, bob\./); // 00:00
  assert.match(at(36_000), /^Good morning, bob\./); // the next day
});

test("greet is deterministic for the same perception", () => {
  for (const p of [null, ALONE, PAIR, CROWD, WAVED]) {
    for (const personality of ["friendly", "gruff", "shy", "formal"]) {
      const input = { npc: { name: "Mira", personality } };
      const a = greet(input, p);
      assert.deepEqual(greet(input, p), a);
      assert.ok(a.line.length >= 1 && a.line.length <= 280);
    }
  }
});

test("every line fits social.say even with the longest names and speech", () => {
  const name = "N".repeat(60);
  const id = "a".repeat(128);
  const p = view({ nearby: [agent(id, 4)], recentEvents: [speech(id, "x".repeat(280))] });
  for (const personality of ["friendly", "gruff", "shy", "formal"]) {
    const out = greet({ npc: { name, personality }, listener: id }, p);
    assert.ok(out.line.length <= 280, `${personality}: ${out.line.length}`);
    assert.doesNotMatch(out.line, /…\./);
  }
});

test("greet refuses a blank name, a bad personality or listener, and itself", () => {
  assert.throws(() => greet({ npc: { name: "   " } }, PAIR), isError("invalid-input"));
  assert.throws(() => greet({ npc: { name: "Mira", personality: "sly" } }, PAIR), isError("invalid-input"));
  assert.throws(() => greet({ npc: { name: "Mira" }, listener: " " }, PAIR), isError("invalid-input"));
  assert.throws(() => greet({ npc: { name: "Mira" }, listener: "mira" }, PAIR), isError("invalid-input"));
});

test("a listener the NPC does not perceive is not found", () => {
  assert.throws(
    () => greet({ npc: { name: "Mira" }, listener: "zed" }, PAIR),
    (err) => isError("not-found")(err) && /zed/.test(err.message) && /approach/.test(err.message),
  );
});

// --- npc.mood -----------------------------------------------------------------------------

test("mood without a body is absent", () => {
  const out = mood({}, null);
  assert.equal(out.mood, "absent");
  assert.equal(out.score, 0);
  assert.equal(out.reasons.length, 1);
});

test("mood alone counts the things around", () => {
  assert.deepEqual(mood({}, ALONE), {
    mood: "alone",
    score: 0,
    reasons: ["no other agent within 25 m", "1 other entity nearby"],
  });
});

test("mood in company is calm, scored from crowding and closeness", () => {
  assert.deepEqual(mood({ npc: { personality: "friendly" } }, PAIR), {
    mood: "calm",
    score: 0.09,
    reasons: [
      "1 other agent within 25 m (a friendly NPC feels crowded at 5)",
      "nearest agent bob is 4 m away (personal space 1 m)",
      "1 other entity nearby",
    ],
  });
});

test("mood in a crowd is crowded, and personality moves the threshold", () => {
  const out = mood({}, CROWD);
  assert.equal(out.mood, "crowded");
  assert.equal(out.score, 0.45);
  assert.equal(mood({ npc: { personality: "gruff" } }, view({ nearby: CROWD.nearby.slice(0, 3) })).mood, "crowded");
  assert.equal(mood({ npc: { personality: "friendly" } }, view({ nearby: CROWD.nearby.slice(0, 3) })).mood, "calm");
});

test("mood after a fresh signal is curious and says whose", () => {
  const out = mood({ npc: { name: "Mira" } }, WAVED);
  assert.equal(out.mood, "curious");
  assert.ok(out.score > mood({}, PAIR).score);
  assert.ok(out.reasons.includes("1 fresh signal or speech by others, newest agent.signal.wave from cy"));
});

test("mood is wary of someone inside its personal space", () => {
  const near = view({ nearby: [agent("bob", 1.8)] });
  assert.equal(mood({ npc: { personality: "friendly" } }, near).mood, "calm");
  assert.equal(mood({ npc: { personality: "shy" } }, near).mood, "wary");
});

test("mood scores stay within 0..1 and repeat for the same perception", () => {
  const busy = view({
    nearby: Array.from({ length: 32 }, (_, i) => agent(`a${i}`, 0.1 + i)),
    recentEvents: Array.from({ length: 16 }, (_, i) => signal(`a${i}`, "shout", 99)),
  });
  for (const p of [ALONE, PAIR, CROWD, WAVED, busy]) {
    const out = mood({}, p);
    assert.ok(out.score >= 0 && out.score <= 1);
    assert.deepEqual(mood({}, p), out);
  }
  assert.equal(mood({ npc: { personality: "shy" } }, busy).score, 1);
});

test("mood refuses an unknown personality", () => {
  assert.throws(() => mood({ npc: { personality: "sly" } }, PAIR), isError("invalid-input"));
});

// --- The host -----------------------------------------------------------------------------

test("a denied perception is forbidden, naming agent.read", () => {
  const denied = {
    perception() {
      const err = new Error("forbidden");
      err.payload = { tag: "forbidden", val: "the session lacks agent.read" };
      throw err;
    },
  };
  for (const name of ["npc.greet", "npc.mood"]) {
    assert.throws(
      () => invokeSkill(skills, name, { npc: { name: "Mira" } }, denied),
      (err) => isError("forbidden")(err) && err.message.includes("agent.read") && err.message.includes(name),
    );
  }
});

test("another world error is a handler error", () => {
  const broken = {
    perception() {
      throw { tag: "invalid", val: "no" };
    },
  };
  assert.throws(() => invokeSkill(skills, "npc.mood", {}, broken), isError("handler-error"));
});

test("an unknown skill is not found", () => {
  assert.throws(() => invokeSkill(skills, "npc.nope", {}), isError("not-found"));
});

// --- Pages and prompts --------------------------------------------------------------------

test("the personalities page tabulates every personality's thresholds", () => {
  const { page } = readResource(resources, "limina://pkg/npc/personalities");
  assert.match(page, /^# NPC personalities\n/);
  assert.match(page, /\| shy \| 2 agents \| 3 m \|/);
  assert.equal(readResource(resources, "limina://pkg/npc/moods").page, null);
});

test("playScene names the NPC and its personality, and refuses an unknown one", () => {
  const [message] = getPrompt(prompts, "npc.playScene", { name: "Mira", personality: "shy" });
  assert.equal(message.role, "user");
  assert.equal(message.content.tag, "text");
  assert.match(message.content.val, /^You are Mira, a shy NPC\./);
  assert.throws(
    () => getPrompt(prompts, "npc.playScene", { name: "Mira", personality: "sly" }),
    isError("invalid-input"),
  );
  assert.deepEqual(completeArgument(prompts, "npc.playScene", "personality", "f"), [
    "friendly",
    "formal",
  ]);
});

test("the SDK's skill export returns the output as JSON with its content blocks", () => {
  const exported = exportPackage([
    { name: "npc.picture", handler: () => withContent({ ok: true }, ["a caption", image([137, 80])]) },
  ]);
  const out = exported.invoke("npc.picture", "{}", {});
  assert.equal(out.structured, '{"ok":true}');
  assert.deepEqual(out.content[0], { tag: "text", val: "a caption" });
  assert.equal(out.content[1].tag, "image");
  assert.equal(out.content[1].val.mimeType, "image/png");
  assert.deepEqual([...out.content[1].val.data], [137, 80]);
  assert.throws(() => exported.invoke("npc.plain", "{}", {}), (e) => e.tag === "not-found");
});
