// The official TypeScript MCP SDK (1.x) against `limina --mcp-http`: list the tools, create
// an entity. Prints one JSON line the test checks.
//
//     node http_typescript.mjs http://127.0.0.1:8788/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const client = new Client({ name: "limina-ts-test", version: "0.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
await client.connect(transport);
const tools = await client.listTools();
const made = await client.callTool({ name: "scene.createEntity", arguments: { position: [4, 5, 6] } });
console.log(JSON.stringify({
  server: client.getServerVersion().name,
  session: transport.sessionId,
  tools: tools.tools.map((t) => t.name),
  made: made.structuredContent,
  made_error: made.isError,
}));
await transport.terminateSession();
await client.close();
