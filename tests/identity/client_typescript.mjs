// The official TypeScript MCP client v2 completing the MCP authorization flow against Limina
// with client credentials: 401 → protected resource metadata → the provider's metadata → a
// token for this server (RFC 8707 `resource`) → tools listed and called.
//
//   node client_typescript.mjs URL ISSUER CLIENT_ID CLIENT_SECRET MODE
//
// MODE is `legacy` (initialize, 2025-11-25) or `2026-07-28` (pinned). Prints one JSON line:
// what it saw, and every URL it fetched (so the test sees the discovery happen).

import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [url, issuer, clientId, clientSecret, mode] = process.argv.slice(2);
const fetched = [];
const recording = (input, init) => {
  const target = typeof input === "string" ? input : input.url ?? String(input);
  fetched.push(`${init?.method ?? "GET"} ${target}`);
  return fetch(input, init);
};
const provider = new ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer });
const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: recording });
const client = new Client(
  { name: "limina-identity-test", version: "0" },
  { versionNegotiation: { mode: mode === "legacy" ? "legacy" : { pin: mode } } },
);
await client.connect(transport);
const tools = await client.listTools();
const made = await client.callTool({ name: "scene.createEntity", arguments: { position: [1, 2, 3] } });
const trace = await client.callTool({ name: "trace.tail", arguments: { type: "skill.executed" } });
console.log(
  JSON.stringify({
    protocol_version: client.getNegotiatedProtocolVersion(),
    tools: tools.tools.map((t) => t.name),
    made: made.structuredContent ?? null,
    made_error: made.isError ?? false,
    made_text: made.content?.[0]?.text ?? null,
    events: trace.structuredContent?.events ?? [],
    token_scope: provider.tokens()?.scope ?? null,
    fetched,
  }),
);
await client.close();
