// Plays an MCP Apps client for the host's viewer app (tests/all/viewer_app.rs), the way a
// desktop assistant does: the official TypeScript client talks to Limina over stdio (no port
// anywhere), and a page in headless Chromium renders the app's `ui://` resource in a
// sandboxed frame under the CSP its `_meta.ui.csp` declares, connected through the official
// MCP Apps SDK's `AppBridge`; the bridge's tool calls and resource reads are relayed to the
// client, and from it to the host.
// Usage: node app_bridge_probe.mjs CHROMIUM LIMINA ARGS...   Prints one JSON line.
import { chromium } from 'playwright-core';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [, , executablePath, command, ...args] = process.argv;
const modules = join(dirname(fileURLToPath(import.meta.url)), 'node_modules');

const client = new Client(
  { name: 'limina-apps-host', version: '0' },
  { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } },
);
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
const tools = (await client.listTools()).tools;
const create = tools.find((t) => t.name === 'scene.createEntity');
const appUri = create?._meta?.ui?.resourceUri;
const read = await client.readResource({ uri: appUri });
const app = read.contents[0];
const csp = app._meta?.ui?.csp ?? {};
const list = (domains, otherwise) => (domains?.length ? domains.join(' ') : otherwise);
// The CSP the MCP Apps specification has a host build from the resource's metadata.
const cspHeader = [
  "default-src 'none'",
  `script-src 'self' 'unsafe-inline' ${list(csp.resourceDomains, '')}`,
  `style-src 'self' 'unsafe-inline' ${list(csp.resourceDomains, '')}`,
  `connect-src 'self' ${list(csp.connectDomains, '')}`,
  `img-src 'self' data: ${list(csp.resourceDomains, '')}`,
  `font-src 'self' ${list(csp.resourceDomains, '')}`,
  `media-src 'self' data: ${list(csp.resourceDomains, '')}`,
  `frame-src ${list(csp.frameDomains, "'none'")}`,
  "object-src 'none'",
  `base-uri ${list(csp.baseUriDomains, "'self'")}`,
].join('; ');
const input = { shape: 'box', size: 2, color: 0xff0000, position: [0, 1, 0] };
const result = await client.callTool({ name: 'scene.createEntity', arguments: input });

// --- module resolution for the host page: every package's entry points by the browser's
// conditions, mapped to the files themselves (so relative imports inside them resolve) ---
function pick(entry) {
  if (typeof entry === 'string') return entry;
  if (!entry || typeof entry !== 'object') return null;
  for (const condition of ['browser', 'import', 'default']) {
    if (condition in entry) {
      const found = pick(entry[condition]);
      if (found) return found;
    }
  }
  return null;
}
function entryPoints(name) {
  const root = join(modules, name);
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const exported = manifest.exports;
  const points = {};
  if (typeof exported === 'string' || (exported && !Object.keys(exported).some((k) => k.startsWith('.')))) {
    points['.'] = pick(exported);
  } else if (exported) {
    for (const [key, entry] of Object.entries(exported)) {
      if (!key.includes('*')) points[key] = pick(entry);
    }
  } else {
    points['.'] = manifest.module || manifest.main || 'index.js';
  }
  return Object.entries(points)
    .filter(([, target]) => target && target.endsWith('js'))
    .map(([key, target]) => [`${name}${key.slice(1)}`, `https://files.test${join(root, target)}`]);
}
const packages = readdirSync(modules)
  .filter((n) => !n.startsWith('.'))
  .flatMap((n) => (n.startsWith('@') ? readdirSync(join(modules, n)).map((m) => `${n}/${m}`) : [n]));
const imports = Object.fromEntries(packages.flatMap(entryPoints));

const hostPage = `<!DOCTYPE html><html><head><meta charset="utf-8">
<script type="importmap">${JSON.stringify({ imports })}</script></head>
<body><script type="module">
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
const setup = window.setup;
const frame = document.createElement('iframe');
frame.setAttribute('sandbox', 'allow-scripts');
frame.style.cssText = 'width: 720px; height: 480px; border: 0';
document.body.appendChild(frame);
const bridge = new AppBridge(null, { name: 'limina-test-host', version: '0' },
  { serverTools: {}, serverResources: {}, logging: {} },
  { hostContext: { theme: 'dark', displayMode: 'inline', availableDisplayModes: ['inline'], toolInfo: { id: 1, tool: setup.tool } } });
bridge.oncalltool = (params) => window.liminaCall(params);
bridge.onreadresource = (params) => window.liminaRead(params);
window.hostState = { initialized: false, sizes: [] };
bridge.onsizechange = (size) => window.hostState.sizes.push(size);
bridge.oninitialized = async () => {
  window.hostState.initialized = true;
  await bridge.sendToolInput({ arguments: setup.input });
  await bridge.sendToolResult(setup.result);
};
await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
frame.src = 'https://app.test/view.html';
</script></body></html>`;

const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-quic'],
});
const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
const problems = [];
const offHost = [];
const relayed = [];
page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
await page.exposeFunction('liminaCall', async (params) => { relayed.push(`tools/call ${params.name}`); return client.callTool(params); });
await page.exposeFunction('liminaRead', async (params) => { relayed.push(`resources/read ${params.uri}`); return client.readResource(params); });
await page.addInitScript((setup) => { window.setup = setup; }, { tool: create, input, result });
await page.route('**/*', async (route) => {
  const request = route.request();
  const url = new URL(request.url());
  if (url.host === 'host.test') return route.fulfill({ contentType: 'text/html', body: hostPage });
  if (url.host === 'app.test' && url.pathname === '/view.html') {
    return route.fulfill({ contentType: 'text/html', headers: { 'content-security-policy': cspHeader }, body: app.text });
  }
  if (url.host === 'files.test' && existsSync(url.pathname)) {
    return route.fulfill({ contentType: 'text/javascript', body: readFileSync(url.pathname, 'utf8') });
  }
  // The app must load nothing; anything else is reported and refused.
  offHost.push(`${request.frame() === page.mainFrame() ? 'host' : 'app'}: ${request.url()}`);
  return route.abort();
});
await page.goto('https://host.test/');

const appFrame = async () => {
  for (let i = 0; i < 300; i++) {
    const frame = page.frames().find((f) => f.url().startsWith('https://app.test/'));
    if (frame) return frame;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the app frame never loaded: problems ${JSON.stringify(problems)}; off host ${JSON.stringify(offHost)}`);
};
const frame = await appFrame();
const until = async (check, what, arg) => {
  for (let i = 0; i < 300; i++) {
    const value = await frame.evaluate(check, arg).catch(() => null);
    if (value) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  const state = await frame.evaluate(() => JSON.stringify({ ...window.liminaApp, scene: undefined })).catch((e) => String(e));
  throw new Error(`timed out waiting for ${what}: ${state}; problems ${JSON.stringify(problems)}; off host ${JSON.stringify(offHost)}`);
};

const entity = result.structuredContent.entity;
await until(() => window.liminaApp?.initialized && window.liminaApp.toolResult && window.liminaApp.scene, 'the app to start and draw');
const seen = await frame.evaluate((id) => {
  const app = window.liminaApp;
  const [x, y] = app.projected[id] || [-1, -1];
  const canvas = document.getElementById('view');
  const scale = canvas.width / canvas.clientWidth;
  const pixel = Array.from(canvas.getContext('2d').getImageData(Math.round(x * scale), Math.round(y * scale), 1, 1).data);
  return {
    toolInput: app.toolInput, toolResult: app.toolResult?.structuredContent, highlight: app.highlight,
    theme: app.hostContext?.theme, tool: app.hostContext?.toolInfo?.tool?.name,
    drawn: app.scene.entities.map((e) => e.id), pixel, frames: app.frames,
  };
}, entity);

await frame.click('#step');
const stepped = await until(() => window.liminaApp.calls === 1 && window.liminaApp.lastCall && window.liminaApp.lastCall, 'the step through the bridge');
const afterStep = await until(() => window.liminaApp.scene.tick >= 30 && window.liminaApp.scene.tick, 'the tick after the step');

// The world changes elsewhere; the app follows it.
const blue = await client.callTool({ name: 'scene.createEntity', arguments: { color: 0x0000ff, position: [3, 1, 0] } });
const blueId = blue.structuredContent.entity;
await until((id) => window.liminaApp.scene.entities.some((e) => e.id === id), 'the app to follow a change made elsewhere', blueId);
const reads = await frame.evaluate(() => window.liminaApp.reads);
const host = await page.evaluate(() => window.hostState);

console.log(JSON.stringify({
  appUri, mimeType: app.mimeType, csp, cspHeader, htmlBytes: app.text.length,
  tools: tools.filter((t) => t._meta?.ui?.resourceUri).map((t) => t.name),
  entity, seen, stepped: stepped.structuredContent, isError: stepped.isError ?? false, afterStep,
  followed: blueId, reads, host, relayed: [...new Set(relayed)], problems, offHost,
}));
await browser.close();
await client.close();
