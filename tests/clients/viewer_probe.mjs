// Drives the host's viewer page in headless Chromium for tests/all/viewer.rs.
// Usage: node viewer_probe.mjs CHROMIUM URL
// Reads one JSON command per line on stdin, answers one JSON line each on stdout:
//   {"op": "wait", "expr": JS, "timeoutMs": N}  → {"ok": true, "value": ...} once expr is truthy
//   {"op": "eval", "expr": JS}                   → {"ok": true, "value": ...}
//   {"op": "screenshot", "path": FILE}           → {"ok": true}
import { chromium } from 'playwright-core';
import readline from 'node:readline';

const [, , executablePath, url] = process.argv;
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
// The page's CSP forbids eval, which playwright's string predicates use; the tests check
// the CSP header on their own.
const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, bypassCSP: true });
const problems = [];
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
page.on('request', (r) => { if (!r.url().startsWith(new URL(url).origin)) problems.push(`request off the host: ${r.url()}`); });
await page.goto(url);

const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const cmd = JSON.parse(line);
  try {
    if (cmd.op === 'wait') {
      const handle = await page.waitForFunction(cmd.expr, null, { timeout: cmd.timeoutMs ?? 20000, polling: 50 });
      say({ ok: true, value: await handle.jsonValue(), problems });
    } else if (cmd.op === 'eval') {
      say({ ok: true, value: await page.evaluate(cmd.expr), problems });
    } else if (cmd.op === 'screenshot') {
      await page.screenshot({ path: cmd.path });
      say({ ok: true, problems });
    } else {
      say({ ok: false, error: `unknown op ${cmd.op}` });
    }
  } catch (e) {
    let state = null;
    try { state = await page.evaluate('JSON.stringify({s: document.getElementById("status")?.textContent, n: window.liminaView?.entityCount})'); } catch {}
    say({ ok: false, error: e.message, state, problems });
  }
}
await browser.close();
