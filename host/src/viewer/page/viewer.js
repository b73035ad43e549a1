// The world viewer: an MCP client of this server (read-only session) that draws the world
// with three.js from `state/snapshot` and `state/delta`, and lists the newest trace events.
// Everything it loads is served by the host itself.
import * as THREE from '/viewer/three/three.module.js';
import { OrbitControls } from '/viewer/three/addons/controls/OrbitControls.js';
import { GLTFLoader } from '/viewer/three/addons/loaders/GLTFLoader.js';

const PROTOCOL = '2025-11-25';
const PROFILE = document.querySelector('meta[name="limina-profile"]').content;
// A bearer token, when the server needs one, travels in the URL's fragment (never sent to
// the server as part of the URL): open the page at /#token=...
const TOKEN = new URLSearchParams(location.hash.slice(1)).get('token');
// The trace is paged with `trace.tail`, itself a traced call: read it soon after the world
// changed, otherwise now and then, so that watching adds little to the audit trail.
const TRACE_POLL_MS = 500;
const TRACE_IDLE_MS = 5000;
const SELF = 'viewer';
const MAX_ROWS = 400;

const $ = (id) => document.getElementById(id);
const status = (text, error = false) => {
  $('status').textContent = text;
  $('status').classList.toggle('error', error);
};

// ---- MCP over Streamable HTTP -------------------------------------------------------------

let sessionId = null;
let nextId = 1;

function headers(extra = {}) {
  const h = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...extra };
  if (sessionId) {
    h['Mcp-Session-Id'] = sessionId;
    h['MCP-Protocol-Version'] = PROTOCOL;
  }
  if (TOKEN) h.Authorization = `Bearer ${TOKEN}`;
  return h;
}

// Splits an SSE body into the JSON messages its `data:` lines carry.
async function* sseMessages(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n/g, '\n');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
      if (data) yield JSON.parse(data);
    }
  }
}

async function rpc(method, params = {}) {
  const id = nextId++;
  const response = await fetch('/mcp', { method: 'POST', headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
  if (!sessionId) sessionId = response.headers.get('Mcp-Session-Id');
  const type = response.headers.get('Content-Type') || '';
  let message = null;
  if (type.includes('text/event-stream')) {
    for await (const m of sseMessages(response.body)) if (m.id === id) message = m;
  } else {
    const text = await response.text();
    try { message = JSON.parse(text); } catch { throw new Error(`${method}: HTTP ${response.status}: ${text.trim()}`); }
  }
  if (!message) throw new Error(`${method}: no reply`);
  if (message.error) throw new Error(`${method}: ${message.error.message}`);
  return message.result;
}

async function notify(method, params = {}) {
  await fetch('/mcp', { method: 'POST', headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', method, params }) });
}

async function callTool(name, args) {
  const result = await rpc('tools/call', { name, arguments: args });
  if (result.isError) throw new Error(result.content?.[0]?.text || `${name} failed`);
  return result.structuredContent;
}

// ---- The scene ------------------------------------------------------------------------------

const canvas = $('scene');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
renderer.shadowMap.enabled = true;
renderer.shadowMap.type = THREE.PCFSoftShadowMap;
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x1d2029);
const camera = new THREE.PerspectiveCamera(55, 1, 0.1, 2000);
camera.position.set(14, 12, 18);
const controls = new OrbitControls(camera, canvas);
controls.target.set(0, 0, 0);
controls.enableDamping = true;
scene.add(new THREE.GridHelper(100, 100, 0x3a3f50, 0x2a2e3a));

const ambient = new THREE.AmbientLight(0x404060, 0.6);
const sun = new THREE.DirectionalLight(0xffffff, 1.0);
sun.position.set(10, 20, 10);
sun.castShadow = true;
scene.add(ambient, sun, sun.target);

const geometries = {
  box: new THREE.BoxGeometry(1, 1, 1),
  sphere: new THREE.SphereGeometry(0.5, 24, 16),
};

// Entities are drawn instanced: one InstancedMesh per shape and surface (roughness,
// metalness, shadows), colour per instance, so thousands of entities cost a handful of draw
// calls. A batch grows by doubling; a freed slot is hidden (zero scale) and reused.
const HIDDEN = new THREE.Matrix4().makeScale(0, 0, 0);
class Batch {
  constructor(shape, m) {
    this.geometry = geometries[shape] || geometries.box;
    this.material = new THREE.MeshStandardMaterial({ roughness: m.roughness, metalness: m.metalness });
    this.cast = m.castShadow;
    this.receive = m.receiveShadow;
    this.ids = [];
    this.free = [];
    this.used = 0;
    this.mesh = this.make(64, null);
  }

  make(capacity, old) {
    const mesh = new THREE.InstancedMesh(this.geometry, this.material, capacity);
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    mesh.instanceColor = new THREE.InstancedBufferAttribute(new Float32Array(capacity * 3), 3);
    if (old) {
      mesh.instanceMatrix.array.set(old.instanceMatrix.array);
      mesh.instanceColor.array.set(old.instanceColor.array);
      scene.remove(old);
      old.dispose();
    }
    mesh.count = this.used;
    mesh.castShadow = this.cast;
    mesh.receiveShadow = this.receive;
    mesh.frustumCulled = false;
    mesh.userData.batch = this;
    scene.add(mesh);
    return mesh;
  }

  add(id) {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.used++;
      if (slot >= this.mesh.instanceMatrix.count) this.mesh = this.make(this.mesh.instanceMatrix.count * 2, this.mesh);
      this.mesh.count = this.used;
    }
    this.ids[slot] = id;
    return slot;
  }

  set(slot, matrix, color) {
    this.mesh.setMatrixAt(slot, matrix);
    this.mesh.setColorAt(slot, color);
    this.mesh.instanceMatrix.needsUpdate = true;
    this.mesh.instanceColor.needsUpdate = true;
    this.mesh.boundingSphere = null;
  }

  remove(slot) {
    this.mesh.setMatrixAt(slot, HIDDEN);
    this.mesh.instanceMatrix.needsUpdate = true;
    this.ids[slot] = null;
    this.free.push(slot);
  }
}
const batches = new Map();
function batchFor(shape, m) {
  const key = `${shape}|${m.roughness}|${m.metalness}|${m.castShadow}|${m.receiveShadow}`;
  let batch = batches.get(key);
  if (!batch) batches.set(key, (batch = new Batch(shape, m)));
  return batch;
}

const gltfLoader = new GLTFLoader();
if (TOKEN) gltfLoader.setRequestHeader({ Authorization: `Bearer ${TOKEN}` });

// id → { view, position, quaternion, scale, batch + slot (instanced) or group (glTF), label }
const entities = new Map();
// id → trace event ids of the calls that made or moved it (from `causedBy`)
const causes = new Map();
// trace event id → entity ids it changed
const changedBy = new Map();
let lastTick = 0;
let sceneState = { lighting: null, panels: [], agents: [] };

function agentOf(view) {
  const tag = (view.tags || []).find((t) => t.startsWith('agent:'));
  return tag ? tag.slice(6) : null;
}

const matrix = new THREE.Matrix4();
const color = new THREE.Color();
function draw(e) {
  if (e.group) {
    e.group.position.copy(e.position);
    e.group.quaternion.copy(e.quaternion);
    e.group.scale.copy(e.scale);
  } else if (e.batch) {
    matrix.compose(e.position, e.quaternion, e.scale);
    e.batch.set(e.slot, matrix, color.setHex(e.view.material.color));
  }
}

function upsert(view) {
  let e = entities.get(view.id);
  if (!e) {
    e = { view, position: new THREE.Vector3(), quaternion: new THREE.Quaternion(), scale: new THREE.Vector3(1, 1, 1), batch: null, slot: -1, group: null, gltf: null, label: null };
    entities.set(view.id, e);
  }
  if (view.shape !== undefined) e.view = view;
  else e.view = { ...e.view, pos: view.pos, rot: view.rot, scale: view.scale }; // a transform-only change
  const v = e.view;
  e.position.fromArray(v.pos);
  e.quaternion.fromArray(v.rot);
  const size = v.size ?? 1;
  e.scale.set(v.scale[0] * size, v.scale[1] * size, v.scale[2] * size);
  if (v.gltf) {
    if (e.batch) { e.batch.remove(e.slot); e.batch = null; }
    if (!e.group) {
      e.group = new THREE.Group();
      e.group.userData.id = v.id;
      scene.add(e.group);
    }
    if (e.gltf !== v.gltf) loadGltf(e, v.gltf);
  } else if (v.material) {
    const batch = batchFor(v.shape, v.material);
    if (batch !== e.batch) {
      if (e.batch) e.batch.remove(e.slot);
      e.batch = batch;
      e.slot = batch.add(v.id);
    }
  }
  draw(e);
  const agent = agentOf(v);
  if (agent && !e.label) {
    e.label = document.createElement('div');
    e.label.className = 'label';
    $('overlays').append(e.label);
  }
  if (e.label) {
    if (agent) e.label.textContent = agent;
    else { e.label.remove(); e.label = null; }
  }
}

function loadGltf(e, source) {
  e.gltf = source;
  const url = `/viewer/assets/${source.split('/').map(encodeURIComponent).join('/')}`;
  gltfLoader.load(url, (gltf) => {
    if (e.gltf !== source || !e.group) return;
    e.group.clear();
    gltf.scene.traverse((o) => { o.userData.id = e.view.id; o.castShadow = true; o.receiveShadow = true; });
    e.group.add(gltf.scene);
  }, undefined, (err) => console.warn(`glTF ${source}:`, err));
}

function remove(id) {
  const e = entities.get(id);
  if (!e) return;
  if (e.batch) e.batch.remove(e.slot);
  if (e.group) scene.remove(e.group);
  e.label?.remove();
  entities.delete(id);
}

function applyScene(s) {
  sceneState = s;
  const l = s.lighting;
  ambient.color.setHex(l.ambientColor);
  ambient.intensity = l.ambientIntensity;
  sun.color.setHex(l.directionalColor);
  sun.intensity = l.directionalIntensity;
  const d = new THREE.Vector3().fromArray(l.direction);
  if (d.lengthSq() === 0) d.set(0, 1, 0);
  sun.position.copy(d.normalize().multiplyScalar(l.shadowCameraFar / 2));
  sun.castShadow = l.castShadow;
  sun.shadow.mapSize.set(l.shadowMapSize, l.shadowMapSize);
  const c = sun.shadow.camera;
  c.left = c.bottom = -l.shadowCameraExtent;
  c.right = c.top = l.shadowCameraExtent;
  c.near = l.shadowCameraNear;
  c.far = l.shadowCameraFar;
  c.updateProjectionMatrix();
  sun.shadow.bias = l.shadowBias;
  if (sun.shadow.map) { sun.shadow.map.dispose(); sun.shadow.map = null; }
  drawPanels();
}

// UI panels: bubbles and callouts follow their anchor in the world, HUD panels sit in a
// corner of the screen.
const panelElements = new Map();
function drawPanels() {
  const seen = new Set();
  for (const panel of sceneState.panels) {
    seen.add(panel.handle);
    let el = panelElements.get(panel.handle);
    const worldAnchored = panel.spec?.anchor?.kind === 'world';
    if (!el) {
      el = document.createElement('div');
      panelElements.set(panel.handle, el);
      (worldAnchored ? $('overlays') : $('hud')).append(el);
    }
    const corner = panel.spec?.anchor?.corner || (panel.kind === 'hudPanel' ? 'top-right' : 'bottom');
    el.className = worldAnchored ? `bubble ${panel.kind}` : `hud ${corner}`;
    el.textContent = panel.spec?.text ?? panel.spec?.title ?? '';
    el.dataset.handle = panel.handle;
  }
  for (const [handle, el] of panelElements) {
    if (!seen.has(handle)) { el.remove(); panelElements.delete(handle); }
  }
}

const projected = new THREE.Vector3();
function place(el, position, offsetY = 0) {
  projected.set(position.x, position.y + offsetY, position.z).project(camera);
  const visible = projected.z < 1 && Math.abs(projected.x) <= 1.1 && Math.abs(projected.y) <= 1.1;
  el.style.display = visible ? '' : 'none';
  if (!visible) return;
  const x = (projected.x + 1) / 2 * canvas.clientWidth;
  const y = (1 - projected.y) / 2 * canvas.clientHeight;
  el.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) translate(-50%, -100%)`;
}

function placeOverlays() {
  for (const e of entities.values()) if (e.label) place(e.label, e.position, (e.scale.y || 1) * 0.6 + 0.3);
  for (const panel of sceneState.panels) {
    const anchor = panel.spec?.anchor;
    if (anchor?.kind !== 'world') continue;
    const el = panelElements.get(panel.handle);
    const target = anchor.entity ? entities.get(anchor.entity)?.position : null;
    const off = anchor.offset || [0, 0, 0];
    const point = target ? target.clone().add(new THREE.Vector3().fromArray(off)) : new THREE.Vector3().fromArray(anchor.position || [0, 0, 0]);
    if (el) place(el, point, 0);
  }
}

// ---- State sync ---------------------------------------------------------------------------

function remember(eventIds, ids) {
  for (const id of ids) {
    let list = causes.get(id);
    if (!list) causes.set(id, (list = []));
    for (const ev of eventIds) if (!list.includes(ev)) list.push(ev);
  }
  for (const ev of eventIds) {
    const set = changedBy.get(ev) || new Set();
    for (const id of ids) set.add(id);
    changedBy.set(ev, set);
    rowFor.get(ev)?.refresh();
  }
}

function onMessage(message) {
  view.received[message.method] = (view.received[message.method] || 0) + 1;
  const p = message.params;
  if (message.method === 'state/snapshot') {
    for (const id of [...entities.keys()]) remove(id);
    for (const view of p.entities) upsert(view);
    if (p.scene) applyScene(p.scene);
    lastTick = p.tick;
    view.snapshots++;
  } else if (message.method === 'state/delta') {
    for (const v of p.changes) upsert(v);
    for (const id of p.removed) remove(id);
    if (p.scene) applyScene(p.scene);
    if (p.causedBy?.length) remember(p.causedBy, [...p.changes.map((c) => c.id), ...p.removed]);
    lastTick = p.tick;
    view.deltas++;
    worldChanged = true;
  } else if (message.method === 'notifications/tools/list_changed') {
    // Nothing to redraw.
  }
}

async function listen() {
  for (;;) {
    try {
      const response = await fetch('/mcp', { headers: headers({ Accept: 'text/event-stream' }) });
      if (!response.ok) throw new Error(`the event stream answered ${response.status}`);
      // A fresh subscription after (re)connecting: the snapshot resyncs everything.
      rpc('state/subscribe', { detail: true }).catch((e) => status(e.message, true));
      status(`live — ${PROFILE}`);
      for await (const m of sseMessages(response.body)) onMessage(m);
      status('stream ended; reconnecting…', true);
    } catch (e) {
      status(`${e.message}; reconnecting…`, true);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

// ---- Activity -------------------------------------------------------------------------------

let afterSeq = -1;
let worldChanged = true;
let lastPoll = 0;
const rowFor = new Map();
const seenAgents = new Set();
const seenSessions = new Set();
const events = new Map();

function option(select, set, value) {
  if (!value || set.has(value)) return;
  set.add(value);
  const o = document.createElement('option');
  o.value = o.textContent = value;
  select.append(o);
}

function describe(ev) {
  const p = ev.payload || {};
  const skill = p.skill || p.cap || '';
  if (ev.type === 'policy.decision' || ev.type === 'policy.denied') {
    return { what: skill, verdict: p.allow ? 'allow' : 'deny', rule: p.rule, session: p.sessionId };
  }
  return { what: skill ? `${ev.type} ${skill}` : ev.type, verdict: null, rule: null, session: p.sessionId };
}

function visible(ev) {
  if (ev.actorId === SELF) return false; // this page's own reads
  const agent = $('filter-agent').value;
  const session = $('filter-session').value;
  if (agent && ev.actorId !== agent) return false;
  if (session && describe(ev).session !== session && ev.threadId !== session) return false;
  if ($('filter-calls').checked && !/^(policy\.|skill\.|security\.|net\.|session\.)/.test(ev.type)) return false;
  return true;
}

function addRow(ev) {
  events.set(ev.id, ev);
  if (ev.actorId === SELF) return;
  option($('filter-agent'), seenAgents, ev.actorId);
  option($('filter-session'), seenSessions, ev.payload?.sessionId);
  const li = document.createElement('li');
  li.dataset.event = ev.id;
  const refresh = () => {
    const d = describe(ev);
    const changed = [...(changedBy.get(ev.id) || [])];
    li.innerHTML = '';
    const line = document.createElement('div');
    const who = Object.assign(document.createElement('span'), { className: 'who', textContent: ev.actorId });
    const what = Object.assign(document.createElement('span'), { className: 'what', textContent: ` ${d.what} ` });
    line.append(who, what);
    if (d.verdict) line.append(Object.assign(document.createElement('span'), { className: d.verdict, textContent: d.verdict }));
    if (d.rule) line.append(Object.assign(document.createElement('span'), { className: 'rule', textContent: ` ${d.rule}` }));
    if (changed.length) line.append(Object.assign(document.createElement('span'), { className: 'ents', textContent: ` → ${changed.slice(0, 6).join(' ')}${changed.length > 6 ? ' …' : ''}` }));
    li.append(line);
  };
  refresh();
  li.style.display = visible(ev) ? '' : 'none';
  li.addEventListener('click', () => explain(li, ev));
  rowFor.set(ev.id, { refresh });
  const list = $('events');
  list.prepend(li);
  while (list.children.length > MAX_ROWS) {
    const last = list.lastElementChild;
    rowFor.delete(last.dataset.event);
    last.remove();
  }
}

async function explain(li, ev) {
  const open = li.querySelector('pre');
  if (open) { open.remove(); return; }
  const pre = document.createElement('pre');
  pre.textContent = 'explaining…';
  li.append(pre);
  try {
    const answer = await callTool('audit.explain', { eventId: ev.id });
    pre.textContent = JSON.stringify({ event: ev, explanation: answer }, null, 2);
  } catch (e) {
    pre.textContent = `${e.message}\n${JSON.stringify(ev, null, 2)}`;
  }
}

function refilter() {
  for (const li of $('events').children) li.style.display = visible(events.get(li.dataset.event)) ? '' : 'none';
}
for (const id of ['filter-agent', 'filter-session', 'filter-calls']) $(id).addEventListener('change', refilter);

async function pollTrace() {
  for (;;) {
    if (!worldChanged && performance.now() - lastPoll < TRACE_IDLE_MS) {
      await new Promise((r) => setTimeout(r, TRACE_POLL_MS));
      continue;
    }
    worldChanged = false;
    lastPoll = performance.now();
    try {
      const page = await callTool('trace.tail', { afterSeq, limit: 200 });
      for (const ev of page.events) addRow(ev);
      view.events += page.events.length;
      if (page.nextAfterSeq !== null && page.nextAfterSeq !== undefined) afterSeq = page.nextAfterSeq;
      if (page.events.length === 200) continue; // more waiting: read on at once
    } catch (e) {
      console.warn('trace.tail:', e.message);
    }
    await new Promise((r) => setTimeout(r, TRACE_POLL_MS));
  }
}

// ---- Picking an entity ----------------------------------------------------------------------

const raycaster = new THREE.Raycaster();
const pointer = new THREE.Vector2();
let downAt = null;
canvas.addEventListener('pointerdown', (e) => { downAt = [e.clientX, e.clientY]; });
canvas.addEventListener('pointerup', (e) => {
  if (!downAt || Math.hypot(e.clientX - downAt[0], e.clientY - downAt[1]) > 4) return;
  const rect = canvas.getBoundingClientRect();
  pointer.set(((e.clientX - rect.left) / rect.width) * 2 - 1, -((e.clientY - rect.top) / rect.height) * 2 + 1);
  raycaster.setFromCamera(pointer, camera);
  const targets = [...[...batches.values()].map((b) => b.mesh), ...[...entities.values()].filter((x) => x.group).map((x) => x.group)];
  const hit = raycaster.intersectObjects(targets, true)[0];
  if (!hit) return;
  const batch = hit.object.userData.batch;
  const id = batch ? batch.ids[hit.instanceId] : hit.object.userData.id;
  if (id) showEntity(id);
});
$('entity-close').addEventListener('click', () => { $('entity').hidden = true; });

async function showEntity(id) {
  const e = entities.get(id);
  if (!e) return;
  $('entity').hidden = false;
  $('entity-title').textContent = id;
  const facts = $('entity-facts');
  facts.innerHTML = '';
  const v = e.view;
  const fact = (k, val) => facts.append(Object.assign(document.createElement('dt'), { textContent: k }), Object.assign(document.createElement('dd'), { textContent: val }));
  fact('position', v.pos.map((x) => x.toFixed(2)).join(', '));
  fact('shape', `${v.shape} × ${v.size}`);
  fact('color', `#${v.material.color.toString(16).padStart(6, '0')}`);
  if (v.tags?.length) fact('tags', v.tags.join(', '));
  if (v.gltf) fact('glTF', v.gltf);
  const list = $('entity-calls');
  list.innerHTML = '';
  for (const ev of causes.get(id) || []) {
    const li = document.createElement('li');
    li.textContent = ev;
    list.append(li);
    const known = events.get(ev);
    const fill = (event) => { li.textContent = `${event.actorId} ${describe(event).what} (${event.type})`; li.title = event.id; };
    if (known) fill(known);
    else callTool('trace.explainEvent', { eventId: ev }).then((r) => fill(r.event)).catch(() => {});
    li.addEventListener('click', () => { const ev2 = events.get(ev); if (ev2) explain(li, ev2); });
  }
  if (!list.children.length) list.append(Object.assign(document.createElement('li'), { textContent: 'none seen since this page opened' }));
}

// ---- The loop -------------------------------------------------------------------------------

function resize() {
  const w = canvas.clientWidth;
  const h = canvas.clientHeight;
  if (canvas.width !== Math.floor(w * renderer.getPixelRatio()) || canvas.height !== Math.floor(h * renderer.getPixelRatio())) {
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(h, 1);
    camera.updateProjectionMatrix();
  }
}

let lastFrame = performance.now();
renderer.setAnimationLoop((now) => {
  resize();
  controls.update();
  placeOverlays();
  renderer.render(scene, camera);
  view.frames++;
  view.frameMs = view.frameMs * 0.9 + (now - lastFrame) * 0.1;
  lastFrame = now;
});

// What the page drew, for tests and for the curious (read-only).
const view = {
  ready: false,
  // Messages from the session's stream, by method.
  received: {},
  snapshots: 0,
  deltas: 0,
  events: 0,
  frames: 0,
  frameMs: 16,
  get tick() { return lastTick; },
  get entityCount() { return entities.size; },
  // Draw calls of the last frame (instancing keeps them few).
  get drawCalls() { return renderer.info.render.calls; },
  entities() {
    const out = {};
    for (const [id, e] of entities) out[id] = { pos: e.position.toArray(), color: e.view.material?.color, shape: e.view.shape, agent: agentOf(e.view), gltf: e.view.gltf || null };
    return out;
  },
  panels() { return sceneState.panels.map((p) => ({ handle: p.handle, kind: p.kind, text: p.spec?.text })); },
  lighting() { return sceneState.lighting; },
  causes(id) { return causes.get(id) || []; },
  rows() { return [...$('events').children].map((li) => li.textContent); },
  show: showEntity,
};
window.liminaView = view;

async function start() {
  try {
    await rpc('initialize', {
      protocolVersion: PROTOCOL,
      capabilities: {},
      clientInfo: { name: 'limina-viewer', version: '1' },
      profile: PROFILE,
      agentId: SELF,
    });
    await notify('notifications/initialized');
    view.ready = true;
    listen();
    pollTrace();
  } catch (e) {
    status(`cannot open a session: ${e.message}`, true);
    setTimeout(start, 2000);
  }
}
start();
