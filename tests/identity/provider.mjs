// A real OpenID provider for the identity tests: `oidc-provider` (certified), configured to
// issue JWT access tokens (RFC 9068) for a resource indicator (RFC 8707) by the client
// credentials grant, opaque ones for one client (for introspection), and to introspect.
//
//   node provider.mjs RESOURCE KEYS_FILE
//
// Prints one JSON line: {"issuer": "...", "admin": "..."}. Its signing key (PKCS#8 and SPKI
// PEM, kid) is written to KEYS_FILE so a test can forge tokens with the provider's own key.
// `POST {admin}/rotate` replaces the key with a fresh one (the old one leaves the key set), as
// a provider's key rotation does; `POST {admin}/stop` ends the process.

import http from "node:http";
import { writeFileSync } from "node:fs";
import Provider from "oidc-provider";
import { exportJWK, exportPKCS8, exportSPKI, generateKeyPair } from "jose";

const [resource, keysFile] = process.argv.slice(2);
if (!resource || !keysFile) {
  console.error("usage: node provider.mjs RESOURCE KEYS_FILE");
  process.exit(2);
}

// Each client is an agent of the tests: its scopes and groups decide its profile.
const clients = [
  { client_id: "builder-bot", client_secret: "builder-secret-0123456789", scope: "mcp limina:build" },
  { client_id: "reader-bot", client_secret: "reader-secret-0123456789", scope: "mcp" },
  { client_id: "no-mcp-bot", client_secret: "no-mcp-secret-0123456789", scope: "limina:build" },
  { client_id: "opaque-bot", client_secret: "opaque-secret-0123456789", scope: "mcp limina:build" },
  // The host's own client, for introspection only.
  { client_id: "limina-host", client_secret: "host-secret-0123456789" },
].map((c) => ({
  ...c,
  grant_types: c.client_id === "limina-host" ? [] : ["client_credentials"],
  redirect_uris: [],
  response_types: [],
  token_endpoint_auth_method: "client_secret_basic",
}));
const groups = { "builder-bot": ["builders"], "reader-bot": ["readers"] };

let generation = 0;
async function freshKey() {
  generation += 1;
  const { publicKey, privateKey } = await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
  const kid = `key-${generation}-${Date.now()}`;
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  writeFileSync(
    keysFile,
    JSON.stringify({ kid, pkcs8: await exportPKCS8(privateKey), spki: await exportSPKI(publicKey) }),
  );
  return jwk;
}

const server = http.createServer();
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const issuer = `http://127.0.0.1:${server.address().port}`;

async function makeProvider() {
  const key = await freshKey();
  const provider = new Provider(issuer, {
    clients,
    jwks: { keys: [key] },
    scopes: ["mcp", "limina:build"],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        allowedPolicy: async (_ctx, client) => client.clientId === "limina-host",
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf ?? resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator, client) => ({
          scope: "mcp limina:build",
          audience: indicator,
          accessTokenTTL: 300,
          accessTokenFormat: client.clientId === "opaque-bot" ? "opaque" : "jwt",
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
    ttl: { ClientCredentials: 300 },
    extraTokenClaims: async (_ctx, token) => ({ groups: groups[token.clientId] ?? [] }),
  });
  // Tokens are asked for over plain http on loopback only.
  provider.proxy = false;
  return provider;
}

let current = (await makeProvider()).callback();
server.on("request", (req, res) => current(req, res));

const admin = http.createServer(async (req, res) => {
  if (req.method === "POST" && req.url === "/rotate") {
    current = (await makeProvider()).callback();
    res.end("rotated\n");
  } else if (req.method === "POST" && req.url === "/stop") {
    res.end("stopping\n");
    process.exit(0);
  } else {
    res.statusCode = 404;
    res.end();
  }
});
await new Promise((ok) => admin.listen(0, "127.0.0.1", ok));

console.log(JSON.stringify({ issuer, admin: `http://127.0.0.1:${admin.address().port}` }));
// The test ends the process by closing its stdin (or killing it).
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
