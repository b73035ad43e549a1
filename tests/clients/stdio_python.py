"""The official Python MCP SDK (1.x) starting `limina --mcp-stdio` itself, as a desktop
assistant does with the command in its configuration: list every tool (following pages), create
an entity, find it. Prints one JSON line the test checks.

    python stdio_python.py /path/to/limina --mcp-stdio --profile builder.readWrite

The host gets this process's environment and working folder, nothing else.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(command, args):
    server = StdioServerParameters(
        command=command, args=args, env=dict(os.environ), cwd=os.getcwd()
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = []
            cursor = None
            while True:
                page = await session.list_tools(cursor=cursor)
                tools.extend(t.name for t in page.tools)
                cursor = page.nextCursor
                if not cursor:
                    break
            made = await session.call_tool("scene.createEntity", {"position": [7, 8, 9]})
            found = await session.call_tool(
                "scene.queryEntities", {"near": [7, 8, 9], "radius": 1}
            )
            print(json.dumps({
                "server": init.serverInfo.name,
                "tools": tools,
                "made": made.structuredContent,
                "made_error": made.isError,
                "found": found.structuredContent,
            }))


asyncio.run(main(sys.argv[1], sys.argv[2:]))
