// The Limina world viewer as an MCP App. It runs inside the client (a sandboxed frame) and
// speaks only to it, over postMessage: `ui/initialize`, the tool inputs and results the
// client pushes, and `resources/read` / `tools/call`, which the client relays to the host.
// It draws `limina://world/scene` on a 2D canvas and reads it again about once a second
// while visible, so it follows the world live; `window.liminaApp` holds what it knows.
(() => {
  'use strict';
  const SCENE = 'limina://world/scene';
  const POLL_MS = 1000;
  const state = {
    initialized: false, hostContext: null, toolInput: null, toolResult: null,
    scene: null, reads: 0, calls: 0, frames: 0, errors: [], lastCall: null,
    highlight: null, projected: {}, tornDown: false,
  };
  window.liminaApp = state;

  // --- the postMessage bridge (JSON-RPC 2.0 with the client) ---
  let nextId = 1;
  const waiting = new Map();
  const post = (message) => window.parent.postMessage(message, '*');
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    post({ jsonrpc: '2.0', id, method, params });
  });
  const notify = (method, params) => post({ jsonrpc: '2.0', method, params });
  const answer = (id, result) => post({ jsonrpc: '2.0', id, result });

  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const m = event.data;
    if (!m || m.jsonrpc !== '2.0') return;
    if (m.method === undefined && m.id !== undefined) {
      const w = waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id);
      if (m.error) w.reject(new Error(`${m.error.code}: ${m.error.message}`));
      else w.resolve(m.result);
      return;
    }
    switch (m.method) {
      case 'ui/notifications/tool-input': state.toolInput = m.params; break;
      case 'ui/notifications/tool-input-partial': break;
      case 'ui/notifications/tool-result': onToolResult(m.params); break;
      case 'ui/notifications/tool-cancelled': say(`the call was cancelled: ${m.params?.reason ?? ''}`); break;
      case 'ui/notifications/host-context-changed': applyContext({ ...state.hostContext, ...m.params }); break;
      case 'ui/resource-teardown': state.tornDown = true; answer(m.id, {}); break;
      case 'ping': answer(m.id, {}); break;
      default:
        if (m.id !== undefined) post({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } });
    }
  });

  const statusEl = document.getElementById('status');
  const lastEl = document.getElementById('last');
  const stepEl = document.getElementById('step');
  const say = (text) => { lastEl.textContent = text; };

  function applyContext(context) {
    state.hostContext = context || {};
    if (context?.theme) document.documentElement.style.colorScheme = context.theme;
    const vars = context?.styles?.variables || {};
    for (const [k, v] of Object.entries(vars)) if (v) document.documentElement.style.setProperty(k, v);
  }

  function onToolResult(result) {
    state.toolResult = result;
    const data = result?.structuredContent;
    const name = state.hostContext?.toolInfo?.tool?.name;
    if (result?.isError) {
      say(`${name ?? 'the call'} failed: ${result.content?.[0]?.text ?? ''}`);
    } else {
      state.highlight = typeof data?.entity === 'string' ? data.entity : state.highlight;
      say(`${name ?? 'result'}: ${JSON.stringify(data ?? result?.content?.[0]?.text ?? {})}`);
    }
    refresh();
  }

  async function refresh() {
    if (!state.initialized || state.tornDown) return;
    try {
      const read = await request('resources/read', { uri: SCENE });
      state.scene = JSON.parse(read.contents[0].text);
      state.reads += 1;
      statusEl.textContent = `tick ${state.scene.tick} · ${state.scene.totalEntities} entities` +
        (state.scene.truncated ? ` (first ${state.scene.entities.length} drawn)` : '');
      draw();
    } catch (e) {
      state.errors.push(String(e.message || e));
      statusEl.textContent = `cannot read the world: ${e.message || e}`;
    }
  }

  async function step() {
    stepEl.disabled = true;
    try {
      const result = await request('tools/call', { name: 'world.step', arguments: { ticks: 30 } });
      state.calls += 1;
      state.lastCall = result;
      say(result.isError ? `world.step failed: ${result.content?.[0]?.text ?? ''}` : `world.step: now at tick ${result.structuredContent?.tick ?? '?'}`);
      await refresh();
    } catch (e) {
      state.errors.push(String(e.message || e));
      say(`world.step could not be sent: ${e.message || e}`);
    } finally {
      stepEl.disabled = false;
    }
  }
  stepEl.addEventListener('click', step);

  // --- drawing: a perspective camera orbiting the scene, painter's order ---
  const canvas = document.getElementById('view');
  const ctx = canvas.getContext('2d');
  const camera = { yaw: 0.7, pitch: 0.55, distance: 0, target: [0, 0, 0] };
  let fitted = false;

  function fit(entities) {
    if (fitted || entities.length === 0) return;
    let lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    for (const e of entities) for (let i = 0; i < 3; i++) { lo[i] = Math.min(lo[i], e.pos[i]); hi[i] = Math.max(hi[i], e.pos[i]); }
    camera.target = lo.map((l, i) => (l + hi[i]) / 2);
    const span = Math.max(4, ...hi.map((h, i) => h - lo[i]));
    camera.distance = span * 1.8;
    fitted = true;
  }

  function basis() {
    const cp = Math.cos(camera.pitch), sp = Math.sin(camera.pitch);
    const cy = Math.cos(camera.yaw), sy = Math.sin(camera.yaw);
    const d = camera.distance || 12;
    const eye = [camera.target[0] + d * cp * sy, camera.target[1] + d * sp, camera.target[2] + d * cp * cy];
    const f = norm(sub(camera.target, eye));
    const r = norm(cross(f, [0, 1, 0]));
    const u = cross(r, f);
    return { eye, f, r, u };
  }
  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const norm = (a) => { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; };
  function rotate(q, v) {
    const [x, y, z, w] = q || [0, 0, 0, 1];
    const t = [2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])];
    return [v[0] + w * t[0] + (y * t[2] - z * t[1]), v[1] + w * t[1] + (z * t[0] - x * t[2]), v[2] + w * t[2] + (x * t[1] - y * t[0])];
  }

  function project(b, p, w, h) {
    const rel = sub(p, b.eye);
    const z = dot(rel, b.f);
    if (z < 0.05) return null;
    const scale = (h * 0.9) / z;
    return [w / 2 + dot(rel, b.r) * scale, h / 2 - dot(rel, b.u) * scale, z];
  }

  function shade(color, lit) {
    const c = [(color >> 16) & 255, (color >> 8) & 255, color & 255].map((v) => Math.min(255, Math.round(v * lit)));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  }

  const FACES = [[0, 1, 3, 2, [-1, 0, 0]], [4, 6, 7, 5, [1, 0, 0]], [0, 4, 5, 1, [0, -1, 0]], [2, 3, 7, 6, [0, 1, 0]], [0, 2, 6, 4, [0, 0, -1]], [1, 5, 7, 3, [0, 0, 1]]];

  function draw() {
    const scene = state.scene;
    const w = canvas.width = canvas.clientWidth || 640;
    const h = canvas.height = canvas.clientHeight || 400;
    ctx.fillStyle = getComputedStyle(document.body).backgroundColor || '#14161a';
    ctx.fillRect(0, 0, w, h);
    if (!scene) return;
    const entities = scene.entities || [];
    fit(entities);
    const b = basis();
    const light = scene.lighting || {};
    const sun = norm(light.direction || [5, 9, 6]);
    const ambient = Math.min(1, 0.25 + 0.25 * (light.ambientIntensity ?? 1.2));
    const direct = Math.min(1, 0.2 * (light.directionalIntensity ?? 3));
    grid(b, w, h);
    const drawn = [];
    state.projected = {};
    for (const e of entities) {
      const centre = project(b, e.pos, w, h);
      if (!centre) continue;
      state.projected[e.id] = [centre[0], centre[1]];
      drawn.push([centre[2], e, centre]);
    }
    drawn.sort((a, c) => c[0] - a[0]);
    for (const [, e, centre] of drawn) {
      const color = e.material?.color ?? 0xffffff;
      const half = (e.size ?? 1) / 2;
      const s = e.scale || [1, 1, 1];
      if (e.shape === 'sphere') {
        const edge = project(b, [e.pos[0] + b.r[0] * half * s[0], e.pos[1] + b.r[1] * half * s[0], e.pos[2] + b.r[2] * half * s[0]], w, h);
        const radius = edge ? Math.max(1, Math.hypot(edge[0] - centre[0], edge[1] - centre[1])) : 1;
        ctx.fillStyle = shade(color, ambient + direct * 0.7);
        ctx.beginPath(); ctx.arc(centre[0], centre[1], radius, 0, 2 * Math.PI); ctx.fill();
      } else {
        const corners = [];
        for (let i = 0; i < 8; i++) {
          const local = [(i & 4 ? 1 : -1) * half * s[0], (i & 2 ? 1 : -1) * half * s[1], (i & 1 ? 1 : -1) * half * s[2]];
          const r = rotate(e.rot, local);
          corners.push([e.pos[0] + r[0], e.pos[1] + r[1], e.pos[2] + r[2]]);
        }
        const flat = corners.map((c) => project(b, c, w, h));
        if (flat.some((p) => !p)) continue;
        for (const [a, c, d, f, n] of FACES) {
          const normal = rotate(e.rot, n);
          if (dot(normal, sub(corners[a], b.eye)) >= 0) continue;
          ctx.fillStyle = shade(color, ambient + direct * Math.max(0, dot(normal, sun)));
          ctx.beginPath();
          ctx.moveTo(flat[a][0], flat[a][1]); ctx.lineTo(flat[c][0], flat[c][1]);
          ctx.lineTo(flat[d][0], flat[d][1]); ctx.lineTo(flat[f][0], flat[f][1]);
          ctx.closePath(); ctx.fill();
        }
      }
      if (e.id === state.highlight) {
        ctx.strokeStyle = '#ffd400'; ctx.lineWidth = 2;
        ctx.beginPath(); ctx.arc(centre[0], centre[1], 6 + 120 / centre[2], 0, 2 * Math.PI); ctx.stroke();
      }
    }
    labels(scene, b, w, h);
    state.frames += 1;
  }

  function grid(b, w, h) {
    const c = camera.target, n = 10, step = Math.max(1, Math.round((camera.distance || 12) / 8));
    ctx.strokeStyle = 'rgba(128,128,128,0.25)'; ctx.lineWidth = 1;
    for (let i = -n; i <= n; i++) {
      for (const [p, q] of [[[c[0] + i * step, 0, c[2] - n * step], [c[0] + i * step, 0, c[2] + n * step]], [[c[0] - n * step, 0, c[2] + i * step], [c[0] + n * step, 0, c[2] + i * step]]]) {
        const a = project(b, p, w, h), d = project(b, q, w, h);
        if (!a || !d) continue;
        ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(d[0], d[1]); ctx.stroke();
      }
    }
  }

  function labels(scene, b, w, h) {
    const byId = new Map((scene.entities || []).map((e) => [e.id, e]));
    ctx.font = '12px system-ui, sans-serif';
    for (const panel of scene.panels || []) {
      const spec = panel.spec || {}, anchor = spec.anchor || {};
      const text = spec.text || spec.title || (spec.lines || []).join(' · ') || panel.kind;
      let at = null;
      if (anchor.kind === 'world') {
        const base = anchor.entity ? byId.get(anchor.entity)?.pos : anchor.point;
        if (base) {
          const o = anchor.offset || [0, 1, 0];
          at = project(b, [base[0] + o[0], base[1] + o[1], base[2] + o[2]], w, h);
        }
      } else if (anchor.kind === 'screen') {
        const corner = anchor.corner || 'top-left';
        at = [corner.includes('right') ? w - 8 - ctx.measureText(text).width : 8, corner.includes('bottom') ? h - 10 : 18];
      }
      if (!at) continue;
      const width = ctx.measureText(text).width + 10;
      ctx.fillStyle = 'rgba(20,22,26,0.8)'; ctx.fillRect(at[0] - 5, at[1] - 13, width, 18);
      ctx.fillStyle = '#f2f2f2'; ctx.fillText(text, at[0], at[1]);
    }
  }

  // --- orbit with the pointer, zoom with the wheel ---
  let dragging = null;
  canvas.addEventListener('pointerdown', (e) => { dragging = [e.clientX, e.clientY]; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener('pointerup', () => { dragging = null; });
  canvas.addEventListener('pointermove', (e) => {
    if (!dragging) return;
    camera.yaw -= (e.clientX - dragging[0]) * 0.01;
    camera.pitch = Math.max(0.05, Math.min(1.5, camera.pitch + (e.clientY - dragging[1]) * 0.01));
    dragging = [e.clientX, e.clientY];
    draw();
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    camera.distance = Math.max(2, (camera.distance || 12) * (e.deltaY > 0 ? 1.1 : 0.9));
    draw();
  }, { passive: false });

  // --- start: the handshake, then read the world while visible ---
  async function start() {
    try {
      const init = await request('ui/initialize', {
        protocolVersion: '2026-01-26',
        appInfo: { name: 'limina-viewer', version: '1' },
        appCapabilities: { availableDisplayModes: ['inline'] },
      });
      applyContext(init?.hostContext);
      state.initialized = true;
      notify('ui/notifications/initialized', {});
      notify('ui/notifications/size-changed', { width: document.body.scrollWidth, height: document.body.scrollHeight });
      statusEl.textContent = 'reading the world…';
      await refresh();
      setInterval(() => { if (document.visibilityState === 'visible') refresh(); }, POLL_MS);
    } catch (e) {
      state.errors.push(String(e.message || e));
      statusEl.textContent = `the client did not start the app: ${e.message || e}`;
    }
  }
  start();
})();
