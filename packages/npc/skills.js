// `npc`: dialogue helpers for a non-player character, computed from what the calling agent
// perceives. The caller is the NPC: its body is the entity tagged `agent:<agentId>`, and the
// host's `agents.perception()` reports who and what is around it and what was recently
// signalled or said.
//
// Handlers get `(input, host)`: `host.perception()` returns the parsed perception (`null`
// when the caller has no body) and `host.log(level, message)` writes a log line; the SDK's
// entry (bindings/app.js) passes the real imports, tests pass their own. Everything here is a
// pure function of the perception, so the same view always gives the same answer.
import { SkillError, invalidInput, forbidden, notFound, user } from "./bindings/limina.js";

const PERSONALITIES = ["friendly", "gruff", "shy", "formal"];
const MOODS = ["absent", "alone", "calm", "curious", "wary", "crowded"];

/**
 * How each personality takes company: with `crowdAt` agents around it feels crowded, and an
 * agent closer than `personalSpace` metres makes it wary.
 */
const TEMPERAMENT = {
  friendly: { crowdAt: 5, personalSpace: 1.0 },
  gruff: { crowdAt: 3, personalSpace: 2.0 },
  shy: { crowdAt: 2, personalSpace: 3.0 },
  formal: { crowdAt: 4, personalSpace: 1.5 },
};

/** Signals and speech at most this many ticks old count as just happened (~10 s at 16 ms). */
const FRESH_TICKS = 600;
/** Length of a world day in ticks (~10 min at the default 16 ms tick); tick 0 is 06:00. */
const DAY_TICKS = 36_000;
/** Longest quoted speech a greeting repeats, in characters. */
const QUOTE_CHARS = 40;
/** Longest NPC name, in characters: keeps every line within `social.say`'s 280. */
const NAME_CHARS = 60;
/** Longest agent id a line names, in characters. */
const ID_CHARS = 64;

// --- Schemas ------------------------------------------------------------------------------

const personalitySchema = {
  type: "string",
  enum: PERSONALITIES,
  default: "friendly",
  description: "How the NPC talks and how much company it tolerates.",
};

const npcSchema = {
  type: "object",
  properties: {
    name: {
      type: "string",
      minLength: 1,
      maxLength: NAME_CHARS,
      description: "The NPC's name, used when it introduces itself.",
    },
    personality: personalitySchema,
  },
  required: ["name"],
  additionalProperties: false,
  description: "The NPC speaking: the calling agent.",
};

const moodSchema = {
  type: "string",
  enum: MOODS,
  description:
    "absent: no body, perceives nothing; alone: no other agent around; calm: company, " +
    "nothing happening; curious: someone just signalled or spoke; wary: someone is too " +
    "close; crowded: too many agents around.",
};

// --- Reading the perception ---------------------------------------------------------------

/** The caller's perception, or `null` without a body; maps a denied import to `forbidden`. */
function readPerception(host, skill) {
  if (typeof host.perception !== "function") {
    throw new SkillError("handler-error", "the host passed no `perception` import");
  }
  let view;
  try {
    view = host.perception();
  } catch (err) {
    // componentize-qjs throws the WIT world-error, as an Error's `payload` or as is.
    const e = err && typeof err === "object" && "payload" in err ? err.payload : err;
    if (e && e.tag === "forbidden") {
      throw forbidden(
        `\`${skill}\` reads the caller's perception, which needs the permission ` +
          `\`agent.read\`: ${e.val}`,
      );
    }
    if (e && typeof e.tag === "string") {
      throw new SkillError("handler-error", `reading the perception failed (${e.tag}): ${e.val}`);
    }
    throw err;
  }
  if (view === null || view === undefined) return null;
  if (typeof view !== "object" || !Array.isArray(view.nearby)) {
    throw new SkillError("handler-error", "the perception is not an object with `nearby`");
  }
  return view;
}

/**
 * What matters to an NPC in a perception: the other agents around it (nearest first, one
 * entry per agent), other entities, and fresh signals and speech by others (newest first).
 */
function survey(view) {
  const self = view.agentId;
  const agents = [];
  const seen = new Set();
  let things = 0;
  for (const e of view.nearby) {
    const id = e.agentId;
    if (typeof id === "string" && id !== "") {
      if (id === self || seen.has(id)) continue; // another body of the same agent
      seen.add(id);
      agents.push({ id, distance: Number(e.distance) || 0 });
    } else {
      things += 1;
    }
  }
  agents.sort((a, b) => a.distance - b.distance); // stable: keeps the host's order on ties
  const now = Number(view.tick) || 0;
  const events = (view.recentEvents ?? [])
    .filter(
      (ev) =>
        ev &&
        ev.actorId !== self &&
        now - (Number(ev.tick) || 0) <= FRESH_TICKS &&
        (isSignal(ev) || isSpeech(ev)),
    )
    .reverse(); // the host lists them oldest first
  return { self, agents, things, events, tick: now, radius: Number(view.radius) || 25 };
}

const isSignal = (ev) => typeof ev.type === "string" && ev.type.startsWith("agent.signal.");
const isSpeech = (ev) => ev.type === "social.said";

function describeEvent(ev) {
  if (isSignal(ev)) return `${ev.type} from ${clip(ev.actorId, ID_CHARS)}`;
  return `speech from ${clip(ev.actorId, ID_CHARS)}`;
}

// --- Mood ---------------------------------------------------------------------------------

const round2 = (x) => Math.round(x * 100) / 100;
const clamp01 = (x) => Math.min(1, Math.max(0, x));
const metres = (d) => `${round2(d)} m`;

/**
 * The NPC's mood from a survey: its name, how stirred it is (0 untroubled .. 1
 * overwhelmed, from crowding, closeness and fresh activity) and why.
 */
function assess(s, personality) {
  const t = TEMPERAMENT[personality];
  const n = s.agents.length;
  const nearest = s.agents[0];
  const crowd = clamp01(n / t.crowdAt);
  const closeness = nearest ? clamp01(1 - nearest.distance / (2 * t.personalSpace)) : 0;
  const activity = clamp01(s.events.length / 4);
  const score = round2(clamp01(0.45 * crowd + 0.3 * closeness + 0.25 * activity));

  const reasons = [];
  if (n === 0) {
    reasons.push(`no other agent within ${metres(s.radius)}`);
  } else {
    reasons.push(
      `${n} other agent${n === 1 ? "" : "s"} within ${metres(s.radius)} ` +
        `(a ${personality} NPC feels crowded at ${t.crowdAt})`,
    );
    reasons.push(
      `nearest agent ${clip(nearest.id, ID_CHARS)} is ${metres(nearest.distance)} away ` +
        `(personal space ${metres(t.personalSpace)})`,
    );
  }
  if (s.things > 0) {
    reasons.push(`${s.things} other entit${s.things === 1 ? "y" : "ies"} nearby`);
  }
  if (s.events.length > 0) {
    const k = s.events.length;
    reasons.push(
      `${k} fresh signal${k === 1 ? "" : "s"} or speech by others, newest ` +
        describeEvent(s.events[0]),
    );
  }

  let mood;
  if (n >= t.crowdAt) mood = "crowded";
  else if (nearest && nearest.distance < t.personalSpace) mood = "wary";
  else if (s.events.length > 0) mood = "curious";
  else if (n === 0) mood = "alone";
  else mood = "calm";
  return { mood, score, reasons };
}

const ABSENT = {
  mood: "absent",
  score: 0,
  reasons: ["the caller has no body in the world (no entity tagged agent:<agentId>), so it perceives nothing"],
};

// --- Greeting -----------------------------------------------------------------------------

/** The part of the world day at `tick`. */
function timeOfDay(tick) {
  const hour = (6 + (24 * (tick % DAY_TICKS)) / DAY_TICKS) % 24;
  if (hour >= 5 && hour < 12) return "morning";
  if (hour >= 12 && hour < 17) return "afternoon";
  if (hour >= 17 && hour < 21) return "evening";
  return "night";
}

const OPENERS = {
  friendly: { morning: "Good morning", afternoon: "Hi there", evening: "Good evening", night: "Up late" },
  gruff: { morning: "Mornin'", afternoon: "Hm", evening: "Evenin'", night: "Bit late, isn't it" },
  shy: { morning: "Oh, g-good morning", afternoon: "Oh, um, hello", evening: "Oh… good evening", night: "Oh, um, it's late" },
  formal: { morning: "Good morning", afternoon: "Good afternoon", evening: "Good evening", night: "Greetings at this late hour" },
};

const GROUP = { friendly: "everyone", gruff: "you lot", shy: "everyone", formal: "one and all" };

const INTRO = {
  friendly: (name) => `I'm ${name}!`,
  gruff: (name) => `Name's ${name}.`,
  shy: (name) => `I'm… ${name}.`,
  formal: (name) => `I am ${name}, at your service.`,
};

const REMARKS = {
  absent: {
    friendly: "Hello? Is anyone out there?",
    gruff: "Hmph. Talking to nobody again.",
    shy: "…h-hello? Anyone?",
    formal: "Greetings, to whoever may be listening.",
  },
  alone: {
    friendly: "Quiet around here, just me and my thoughts.",
    gruff: "Good. Nobody to bother me.",
    shy: "Nobody here… that's fine.",
    formal: "It appears I am alone.",
  },
  crowded: {
    friendly: "What a crowd today!",
    gruff: "Too many people around here.",
    shy: "So… so many people…",
    formal: "A fine gathering, I must say.",
  },
  wary: {
    friendly: "Oh, you're right there!",
    gruff: "Back off a step.",
    shy: "Y-you're very close…",
    formal: "If you would kindly step back a little.",
  },
  calm: {
    friendly: "Nice to see you.",
    gruff: "What do you want?",
    shy: "N-nice weather, isn't it?",
    formal: "How may I be of service?",
  },
};

/** A remark on the newest fresh event, `mine` when its actor is the one addressed. */
function eventRemark(ev, personality, mine) {
  if (isSpeech(ev)) {
    const said = typeof ev.payload?.text === "string" ? clip(ev.payload.text, QUOTE_CHARS) : "";
    if (said === "") return REMARKS.calm[personality];
    return {
      friendly: mine ? `I heard you say "${said}"!` : `Did someone just say "${said}"?`,
      gruff: mine ? `Heard you the first time.` : `Who's going on about "${said}"?`,
      shy: mine ? `I-I heard you say "${said}"…` : `S-someone said "${said}"…`,
      formal: mine ? `I took note of your words: "${said}".` : `I overheard "${said}".`,
    }[personality];
  }
  const kind = clip(ev.type.slice("agent.signal.".length).replace(/[._-]+/g, " "), 24) || "signal";
  const a = /^[aeiou]/i.test(kind) ? `an ${kind}` : `a ${kind}`;
  return {
    friendly: mine ? `I saw your ${kind}!` : `Was that ${a} just now?`,
    gruff: mine ? `Yeah, I saw your ${kind}.` : `What's all this ${kind} business?`,
    shy: mine ? `Oh, w-was that ${kind} for me?` : `W-was that ${a}?`,
    formal: mine ? `I acknowledge your ${kind}.` : `I noticed ${a} just now.`,
  }[personality];
}

/** `text` cut to `n` characters (code points), with an ellipsis when cut. */
function clip(text, n) {
  const chars = Array.from(String(text ?? "").replace(/\s+/g, " ").trim());
  return chars.length <= n ? chars.join("") : chars.slice(0, n - 1).join("") + "…";
}

function personalityOf(npc) {
  const p = npc?.personality ?? "friendly";
  if (!PERSONALITIES.includes(p)) {
    throw invalidInput(`\`npc.personality\` must be one of ${PERSONALITIES.join(", ")}, got \`${p}\``);
  }
  return p;
}

function greetHandler(input, host) {
  const npc = input.npc ?? {};
  const name = typeof npc.name === "string" ? npc.name.trim().replace(/\s+/g, " ") : "";
  if (name === "") throw invalidInput("`npc.name` must not be blank");
  if (Array.from(name).length > NAME_CHARS) {
    throw invalidInput(`\`npc.name\` must be at most ${NAME_CHARS} characters`);
  }
  const personality = personalityOf(npc);
  const listener = input.listener;
  if (listener !== undefined && (typeof listener !== "string" || listener.trim() === "")) {
    throw invalidInput("`listener` must be a non-blank agent id");
  }

  const view = readPerception(host, "npc.greet");
  if (view === null) {
    // No body: nobody to see or address, but the NPC can still call out.
    return { line: REMARKS.absent[personality], mood: "absent", addressed: null };
  }

  const s = survey(view);
  const { mood } = assess(s, personality);
  let addressed = null;
  if (listener !== undefined) {
    if (listener === s.self) throw invalidInput("`listener` is the NPC itself; name another agent");
    if (!s.agents.some((a) => a.id === listener)) {
      throw notFound(
        `\`listener\` ${listener} is not among the agents ${name} perceives within ` +
          `${metres(s.radius)}; approach them first`,
      );
    }
    addressed = listener;
  } else {
    // Whoever is too close; else whoever just signalled or spoke, if they are around; else
    // the nearest agent. A crowd is greeted as a whole unless someone in it just spoke up.
    const around = new Set(s.agents.map((a) => a.id));
    const actor = s.events.find((ev) => around.has(ev.actorId))?.actorId;
    if (mood === "wary") addressed = s.agents[0].id;
    else if (actor !== undefined) addressed = actor;
    else if (s.agents.length > 0 && mood !== "crowded") addressed = s.agents[0].id;
  }
  const tooClose = mood === "wary" && (addressed === null || addressed === s.agents[0].id);

  // Opener by time of day, then whom it is for: one agent (with an introduction), a group,
  // or no one (an NPC alone talks to itself).
  const opener = OPENERS[personality][timeOfDay(s.tick)];
  const parts = [];
  if (addressed !== null) parts.push(`${opener}, ${clip(addressed, ID_CHARS)}.`, INTRO[personality](name));
  else if (s.agents.length > 0) parts.push(`${opener}, ${GROUP[personality]}.`);

  // Then a remark: on whoever is too close, else on the newest fresh signal or speech,
  // else on the company.
  const news = s.events[0];
  if (tooClose) parts.push(REMARKS.wary[personality]);
  else if (news !== undefined) parts.push(eventRemark(news, personality, news.actorId === addressed));
  else parts.push(REMARKS[mood === "wary" || mood === "curious" ? "calm" : mood][personality]);
  host.log?.("debug", `npc.greet: ${name} (${personality}, ${mood}) greets ${addressed ?? "no one in particular"}`);
  // A clipped name or quote already ends in an ellipsis: no full stop after it.
  const line = parts.join(" ").replace(/…\.(?=\s|$)/g, "…");
  return { line, mood, addressed };
}

function moodHandler(input, host) {
  const personality = personalityOf(input.npc);
  const view = readPerception(host, "npc.mood");
  if (view === null) return { ...ABSENT, reasons: [...ABSENT.reasons] };
  return assess(survey(view), personality);
}

// --- Skills -------------------------------------------------------------------------------

export const skills = [
  {
    name: "npc.greet",
    version: "1.0.0",
    category: "npc",
    description:
      "Write a greeting line in an NPC's voice (the calling agent is the NPC) that fits what " +
      "it perceives: who is near, who just signalled or spoke, how crowded it is, the time of day.",
    permissions: ["agent.read"],
    inputSchema: {
      type: "object",
      properties: {
        npc: npcSchema,
        listener: {
          type: "string",
          minLength: 1,
          maxLength: 128,
          description:
            "Agent id to address; it must be among the agents the NPC perceives. Without it " +
            "the NPC addresses whoever just signalled or spoke, else the nearest agent, or a " +
            "crowd as a whole.",
        },
      },
      required: ["npc"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        line: {
          type: "string",
          minLength: 1,
          maxLength: 280,
          description: "What the NPC says; short enough for `social.say`.",
        },
        mood: moodSchema,
        addressed: {
          type: ["string", "null"],
          description: "The agent id greeted; null for a group, for no one, or without a body.",
        },
      },
      required: ["line", "mood", "addressed"],
      additionalProperties: false,
    },
    handler: greetHandler,
  },
  {
    name: "npc.mood",
    version: "1.0.0",
    category: "npc",
    description:
      "Tell how an NPC (the calling agent) feels about its surroundings: alone, calm, curious, " +
      "wary or crowded, with a 0-1 score of how stirred it is and the reasons, from its perception.",
    permissions: ["agent.read"],
    inputSchema: {
      type: "object",
      properties: {
        npc: {
          type: "object",
          properties: {
            name: {
              type: "string",
              minLength: 1,
              maxLength: NAME_CHARS,
              description: "Accepted so the same `npc` object serves npc.greet; unused here.",
            },
            personality: personalitySchema,
          },
          additionalProperties: false,
          description: "The NPC: the calling agent.",
        },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        mood: moodSchema,
        score: {
          type: "number",
          minimum: 0,
          maximum: 1,
          description: "How stirred the NPC is: 0 untroubled, 1 overwhelmed.",
        },
        reasons: {
          type: "array",
          items: { type: "string" },
          minItems: 1,
          description: "What the mood comes from, in plain words.",
        },
      },
      required: ["mood", "score", "reasons"],
      additionalProperties: false,
    },
    handler: moodHandler,
  },
];

// --- Pages and prompts --------------------------------------------------------------------

/** The page on how each personality takes company, from the same table the skills use. */
function personalitiesPage() {
  const rows = PERSONALITIES.map((p) => {
    const t = TEMPERAMENT[p];
    return `| ${p} | ${t.crowdAt} agents | ${metres(t.personalSpace)} |`;
  });
  return [
    "# NPC personalities",
    "",
    "| personality | crowded at | personal space |",
    "| --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}

const personalities = (_argument, prefix) => PERSONALITIES.filter((p) => p.startsWith(prefix));

/** `npc.playScene`: play the calling agent as an NPC for one exchange, with the skills. */
function playScene(args) {
  const personality = args.personality || "friendly";
  if (!PERSONALITIES.includes(personality)) {
    throw invalidInput(
      `\`personality\` must be one of ${PERSONALITIES.join(", ")}, not \`${personality}\``,
    );
  }
  return [
    user(
      `You are ${args.name}, a ${personality} NPC. Call npc.mood with personality ` +
        `"${personality}", then npc.greet with npc {name: "${args.name}", personality: ` +
        `"${personality}"}, and say the line with social.say. Stay in character.`,
    ),
  ];
}

export const resources = [
  {
    uri: "limina://pkg/npc/personalities",
    name: "NPC personalities",
    description: "How many agents crowd each personality and how much space it wants.",
    read: personalitiesPage,
  },
];

export const prompts = [
  {
    name: "npc.playScene",
    title: "Play an NPC",
    description: "Play the calling agent as an NPC for one exchange: its mood, then a greeting.",
    arguments: [
      { name: "name", description: "The NPC's name", required: true },
      { name: "personality", description: "friendly, gruff, shy or formal (default friendly)" },
    ],
    get: playScene,
    complete: personalities,
  },
];
