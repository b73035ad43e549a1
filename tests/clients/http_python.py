"""The official Python MCP SDK (1.x) against `limina --mcp-http`: list the tools, create an
entity, read it back, get progress for a long call. Prints one JSON line the test checks.

    python http_python.py http://127.0.0.1:8788/mcp
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def main(url):
    progress = []

    async def on_progress(done, total, message):
        progress.append([done, total, message])

    async with streamablehttp_client(url) as (read, write, get_session_id):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            made = await session.call_tool("scene.createEntity", {"position": [1, 2, 3]})
            found = await session.call_tool("scene.queryEntities", {})
            steps = None
            if "slow.steps" in [t.name for t in tools.tools]:
                steps = await session.call_tool("slow.steps", {"steps": 3}, progress_callback=on_progress)
            print(json.dumps({
                "server": init.serverInfo.name,
                "session": get_session_id(),
                "tools": [t.name for t in tools.tools],
                "made": made.structuredContent,
                "made_error": made.isError,
                "found": found.structuredContent,
                "steps": steps.structuredContent if steps else None,
                "progress": progress,
            }))


asyncio.run(main(sys.argv[1]))
