// The official TypeScript MCP client v2 pinned to 2026-07-28 against Limina, over stdio
// (`node modern_typescript.mjs stdio LIMINA_BINARY ARGS...`) or Streamable HTTP
// (`node modern_typescript.mjs http URL`): list the tools, create an entity, read it back, get
// a refusal. A pinned client never falls back to `initialize`. Prints one JSON line.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [mode, ...rest] = process.argv.slice(2);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(rest[0]));
const client = new Client(
  { name: "limina-test", version: "0" },
  { versionNegotiation: { mode: { pin: "2026-07-28" } } },
);
await client.connect(transport);
const tools = await client.listTools();
const made = await client.callTool({ name: "scene.createEntity", arguments: { position: [1, 2, 3] } });
const found = await client.callTool({ name: "scene.queryEntities", arguments: {} });
const refused = await client.callTool({ name: "scene.createEntity", arguments: { position: "up" } });
const trace = await client.callTool({ name: "trace.tail", arguments: { type: "skill.executed" } });
console.log(
  JSON.stringify({
    protocol_version: client.getNegotiatedProtocolVersion(),
    server: client.getServerVersion()?.name ?? null,
    tools: tools.tools.length,
    made: made.structuredContent,
    made_error: made.isError,
    found: found.structuredContent,
    refused_error: refused.isError,
    refused_text: refused.content?.[0]?.text ?? null,
    events: trace.structuredContent.events,
  }),
);
await client.close();
