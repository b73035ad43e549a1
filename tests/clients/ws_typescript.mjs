// The official TypeScript MCP SDK (1.x) against `limina --mcp-ws`: list the tools, create an
// entity, read it back. Prints one JSON line the test checks.
//
//     node --experimental-websocket ws_typescript.mjs ws://127.0.0.1:8787
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";

const client = new Client({ name: "limina-ts-test", version: "0.0.0" });
await client.connect(new WebSocketClientTransport(new URL(process.argv[2])));
const tools = await client.listTools();
const made = await client.callTool({ name: "scene.createEntity", arguments: { position: [4, 5, 6] } });
const found = await client.callTool({ name: "scene.queryEntities", arguments: {} });
console.log(JSON.stringify({
  server: client.getServerVersion().name,
  tools: tools.tools.map((t) => t.name),
  made: made.structuredContent,
  made_error: made.isError,
  found: found.structuredContent,
}));
await client.close();
