"""The official Python MCP SDK completing the MCP authorization flow against Limina with client
credentials: 401 -> protected resource metadata -> the provider's metadata -> a token for this
server (RFC 8707 `resource`) -> tools listed and called.

    python client_python.py URL ISSUER CLIENT_ID CLIENT_SECRET MODE

MODE is `legacy` (initialize, 2025-11-25) or `auto` (probes `server/discover`, 2026-07-28).
Prints one JSON line: what it saw, and every URL it fetched (so the test sees the discovery)."""

import asyncio
import json
import sys

from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


class Memory:
    """Tokens and client information kept for this run only."""

    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


async def main() -> None:
    url, issuer, client_id, secret, mode = sys.argv[1:6]
    storage = Memory()
    provider = ClientCredentialsOAuthProvider(
        server_url=url, storage=storage, client_id=client_id, client_secret=secret, issuer=issuer
    )
    fetched = []

    async def record(request):
        fetched.append(f"{request.method} {request.url}")

    http = create_mcp_http_client(auth=provider)
    http.event_hooks["request"].append(record)
    async with http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode) as client:
            session = client.session
            tools = await client.list_tools()
            made = await client.call_tool("scene.createEntity", {"position": [1, 2, 3]})
            trace = await client.call_tool("trace.tail", {"type": "skill.executed"})
            print(
                json.dumps(
                    {
                        "protocol_version": session.protocol_version,
                        "tools": [t.name for t in tools.tools],
                        "made": made.structured_content,
                        "made_error": made.is_error,
                        "made_text": made.content[0].text if made.content else None,
                        "events": (trace.structured_content or {}).get("events", []),
                        "token_scope": storage.tokens.scope if storage.tokens else None,
                        "fetched": fetched,
                    }
                )
            )


asyncio.run(main())
