"""The official Python MCP SDK (1.x) against `limina --mcp-ws`, as a user would connect it:
list the tools, create an entity, read it back. Prints one JSON line the test checks.

    python ws_python.py ws://127.0.0.1:8787
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.websocket import websocket_client


async def main(url):
    async with websocket_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            made = await session.call_tool("scene.createEntity", {"position": [1, 2, 3]})
            found = await session.call_tool("scene.queryEntities", {})
            print(json.dumps({
                "server": init.serverInfo.name,
                "tools": [t.name for t in tools.tools],
                "made": made.structuredContent,
                "made_error": made.isError,
                "found": found.structuredContent,
            }))


asyncio.run(main(sys.argv[1]))
