// Takes a picture with `camera.capture` through the official TypeScript client v2 over stdio
// (`node camera_typescript.mjs legacy|modern OUT.png LIMINA ARGS...`): makes a red box at the
// origin, finds the tool's MCP App (`_meta.ui.resourceUri`), asks for a 160 x 120 picture from
// 10 m up the z axis, decodes the image block's base64 into OUT.png, and asks for a picture of
// width 0. Prints one JSON line with what it saw.

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { writeFileSync } from "node:fs";

const [mode, out, command, ...args] = process.argv.slice(2);
const client = new Client(
  { name: "limina-camera-test", version: "0" },
  mode === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
);
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));

await client.callTool({ name: "scene.createEntity", arguments: { shape: "box", size: 2, color: 0xff0000, position: [0, 0, 0] } });
const tool = (await client.listTools()).tools.find((t) => t.name === "camera.capture");
const shot = await client.callTool({
  name: "camera.capture",
  arguments: { position: [0, 0, 10], lookAt: [0, 0, 0], width: 160, height: 120 },
});
const image = shot.content.find((b) => b.type === "image");
const png = Buffer.from(image.data, "base64");
writeFileSync(out, png);
let refused;
try {
  const bad = await client.callTool({ name: "camera.capture", arguments: { position: [0, 0, 10], lookAt: [0, 0, 0], width: 0 } });
  refused = { is_error: bad.isError, text: bad.content.map((b) => b.text ?? "").join(" ") };
} catch (e) {
  refused = { code: e.code, message: e.message };
}
console.log(JSON.stringify({
  protocol_version: client.getNegotiatedProtocolVersion?.() ?? null,
  resource_uri: tool?._meta?.ui?.resourceUri ?? null,
  is_error: shot.isError ?? false,
  structured: shot.structuredContent,
  kinds: shot.content.map((b) => b.type),
  mime_type: image.mimeType,
  png_bytes: png.length,
  refused,
}));
await client.close();
