"""Drives Limina with the official Python SDK's 2026-07-28 `Client` in its default mode (it
probes `server/discover` and would fall back to `initialize` only on a legacy server), over
stdio (argv: `stdio LIMINA_BINARY ARGS...`) or Streamable HTTP (argv: `http URL`). Prints one
JSON line with what it saw."""

import asyncio
import json
import sys

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters


async def main() -> None:
    if sys.argv[1] == "stdio":
        server = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:])
    else:
        server = sys.argv[2]
    async with Client(server) as client:
        session = client.session
        tools = await client.list_tools()
        made = await client.call_tool("scene.createEntity", {"position": [1, 2, 3]})
        found = await client.call_tool("scene.queryEntities", {})
        refused = await client.call_tool("scene.createEntity", {"position": "up"})
        trace = await client.call_tool("trace.tail", {"type": "skill.executed"})
        print(
            json.dumps(
                {
                    "protocol_version": session.protocol_version,
                    "initialized": session.initialize_result is not None,
                    "discovered": session.discover_result is not None,
                    "server": session.server_info.name if session.server_info else None,
                    "tools": len(tools.tools),
                    "made": made.structured_content,
                    "made_error": made.is_error,
                    "found": found.structured_content,
                    "refused_error": refused.is_error,
                    "refused_text": refused.content[0].text if refused.content else None,
                    "sessions": sorted(
                        {e.get("sessionId", "") for e in trace.structured_content["events"]}
                    ),
                    "events": trace.structured_content["events"],
                }
            )
        )


asyncio.run(main())
