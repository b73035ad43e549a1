// Limina's approval gate with the official TypeScript client v2 pinned to 2026-07-28: its
// `elicitation/create` handler plays the person (allows the first question, declines the
// second), and the client answers the host's `input_required` results with it.
// `node approval_typescript.mjs stdio LIMINA_BINARY ARGS...` or `... http URL`. One JSON line.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [mode, ...rest] = process.argv.slice(2);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(rest[0]));
const client = new Client(
  { name: "limina-approval-test", version: "0" },
  {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  },
);
const questions = [];
client.setRequestHandler("elicitation/create", async (request) => {
  questions.push({ message: request.params.message, schema: request.params.requestedSchema });
  return questions.length === 1
    ? { action: "accept", content: { approve: true } }
    : { action: "decline" };
});
await client.connect(transport);
const allowed = await client.callTool({ name: "scene.createEntity", arguments: { position: [4, 5, 6] } });
const declined = await client.callTool({ name: "scene.createEntity", arguments: { position: [7, 8, 9] } });
const found = await client.callTool({ name: "scene.queryEntities", arguments: {} });
console.log(
  JSON.stringify({
    protocol_version: client.getNegotiatedProtocolVersion(),
    questions,
    allowed_error: allowed.isError,
    allowed: allowed.structuredContent,
    declined_error: declined.isError,
    declined_text: declined.content?.[0]?.text ?? null,
    found: found.structuredContent,
  }),
);
await client.close();
