// Drives Limina's resources, prompts and completion with the official TypeScript client v2
// over stdio, in either revision (`node resources_typescript.mjs legacy|modern LIMINA ARGS...`:
// `legacy` binds a 2025-11-25 session with `initialize`, `modern` is pinned to 2026-07-28).
// Lists and reads resources, subscribes to an entity and hears it change (resources/subscribe,
// or subscriptions/listen), unsubscribes, lists and gets prompts with arguments, completes,
// and reads something missing. Prints one JSON line with what it saw.

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [mode, command, ...args] = process.argv.slice(2);
const ENTITY = "limina://entity/ent_1";
const client = new Client(
  { name: "limina-resources-test", version: "0" },
  mode === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
);
const updates = [];
const listChanges = [];
client.setNotificationHandler("notifications/resources/updated", (n) => { updates.push(n.params.uri); });
client.setNotificationHandler("notifications/resources/list_changed", () => { listChanges.push(true); });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(check, what) {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}
const move = (x) => client.callTool({ name: "three.setTransform", arguments: { entity: "ent_1", position: [x, 0, 0] } });

const made = await client.callTool({ name: "scene.createEntity", arguments: { color: 0xff0000, position: [1, 2, 3] } });
// Page by page: listResources() without a cursor walks every page itself, so the first
// page is asked for as a plain request.
const uris = [];
let page = await client.request({ method: "resources/list", params: {} }, { cacheMode: "bypass" });
let pages = 1;
uris.push(...page.resources.map((r) => r.uri));
while (page.nextCursor) {
  page = await client.listResources({ cursor: page.nextCursor }, { cacheMode: "bypass" });
  pages += 1;
  uris.push(...page.resources.map((r) => r.uri));
}
// And aggregated by the client: the same resources.
const aggregated = (await client.listResources(undefined, { cacheMode: "bypass" })).resources.map((r) => r.uri);
const templates = await client.listResourceTemplates();
const world = await client.readResource({ uri: "limina://world" }, { cacheMode: "bypass" });
const entity = await client.readResource({ uri: ENTITY }, { cacheMode: "bypass" });
let missing = null;
try {
  await client.readResource({ uri: "limina://entity/ent_999" }, { cacheMode: "bypass" });
} catch (e) {
  missing = { code: e.code, message: e.message };
}

let subscription;
if (mode === "modern") {
  const sub = await client.listen({ resourceSubscriptions: [ENTITY, "limina://entity/ent_404"], resourcesListChanged: true });
  await move(5);
  await client.callTool({ name: "scene.createEntity", arguments: { position: [0, 3, 0] } });
  await until(() => updates.includes(ENTITY) && listChanges.length > 0, "the listen stream's notifications");
  await sub.close();
  subscription = { honored: sub.honoredFilter, updates: [...updates], listChanged: listChanges.length, closed: await sub.closed };
} else {
  await client.subscribeResource({ uri: ENTITY });
  await move(5);
  await until(() => updates.includes(ENTITY), "notifications/resources/updated");
  const heard = [...updates];
  await client.unsubscribeResource({ uri: ENTITY });
  await sleep(200);
  updates.length = 0;
  await move(6);
  await sleep(1000);
  let again = null;
  try {
    await client.unsubscribeResource({ uri: ENTITY });
  } catch (e) {
    again = { code: e.code, message: e.message };
  }
  subscription = { heard, afterUnsubscribe: updates.length, unsubscribeAgain: again };
}

const prompts = await client.listPrompts();
const built = await client.getPrompt({ name: "build-scene", arguments: { description: "a well in a square", style: "dusk" } });
const inspected = await client.getPrompt({ name: "inspect-entity", arguments: { entity: "ent_1" } });
let refused = null;
try {
  await client.getPrompt({ name: "inspect-entity", arguments: { entity: "ent_404" } });
} catch (e) {
  refused = { code: e.code, message: e.message };
}
const ids = await client.complete({ ref: { type: "ref/resource", uri: "limina://entity/{id}" }, argument: { name: "id", value: "ent_" } });
const entities = await client.complete({ ref: { type: "ref/prompt", name: "inspect-entity" }, argument: { name: "entity", value: "ent_1" } });

console.log(JSON.stringify({
  protocol_version: client.getNegotiatedProtocolVersion?.() ?? null,
  capabilities: client.getServerCapabilities(),
  made: made.structuredContent,
  uris,
  pages,
  aggregated,
  templates: templates.resourceTemplates.map((t) => t.uriTemplate),
  world: JSON.parse(world.contents[0].text),
  world_cache: [world.ttlMs ?? null, world.cacheScope ?? null],
  entity: JSON.parse(entity.contents[0].text),
  missing,
  subscription,
  prompts: prompts.prompts.map((p) => ({ name: p.name, arguments: (p.arguments ?? []).map((a) => a.name) })),
  built: built.messages.map((m) => m.content),
  inspected: inspected.messages.map((m) => m.content),
  refused,
  ids: ids.completion.values,
  entities: entities.completion.values,
}));
await client.close();
