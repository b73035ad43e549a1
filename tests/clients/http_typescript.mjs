// The official TypeScript MCP SDK (1.x) against `limina --mcp-http`: list the tools, create
// an entity, get progress for a long call and hear `tools/list_changed` after a package
// reload. Prints one JSON line the test checks.
//
//     node http_typescript.mjs http://127.0.0.1:8788/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const client = new Client({ name: "limina-ts-test", version: "0.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
await client.connect(transport);
const tools = await client.listTools();
const made = await client.callTool({ name: "scene.createEntity", arguments: { position: [4, 5, 6] } });
const progress = [];
let listChanged = null;
if (tools.tools.some((t) => t.name === "slow.steps")) {
  const heard = new Promise((resolve) => {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve(true));
    setTimeout(() => resolve(false), 10_000);
  });
  await client.callTool({ name: "slow.steps", arguments: { steps: 3 } }, undefined, {
    onprogress: (p) => progress.push([p.progress, p.total, p.message]),
  });
  await client.callTool({ name: "dev.reload", arguments: { target: "package", name: "slow" } });
  listChanged = await heard;
}
console.log(JSON.stringify({
  server: client.getServerVersion().name,
  session: transport.sessionId,
  tools: tools.tools.map((t) => t.name),
  made: made.structuredContent,
  made_error: made.isError,
  progress,
  list_changed: listChanged,
}));
await transport.terminateSession();
await client.close();
