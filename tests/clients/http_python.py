"""The official Python MCP SDK (1.x) against `limina --mcp-http`: list the tools, create an
entity, read it back, get progress for a long call, and hear `tools/list_changed` on the
session's stream after a package reload. Prints one JSON line the test checks.

    python http_python.py http://127.0.0.1:8788/mcp
"""

import asyncio
import json
import sys

from mcp import ClientSession, types
from mcp.client.streamable_http import streamablehttp_client


async def main(url):
    progress = []
    changed = asyncio.Event()

    async def on_progress(done, total, message):
        progress.append([done, total, message])

    async def on_message(message):
        if isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ToolListChangedNotification
        ):
            changed.set()

    async with streamablehttp_client(url) as (read, write, get_session_id):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            made = await session.call_tool("scene.createEntity", {"position": [1, 2, 3]})
            found = await session.call_tool("scene.queryEntities", {})
            steps = None
            heard_list_changed = None
            if "slow.steps" in [t.name for t in tools.tools]:
                steps = await session.call_tool("slow.steps", {"steps": 3}, progress_callback=on_progress)
                await session.call_tool("dev.reload", {"target": "package", "name": "slow"})
                try:
                    await asyncio.wait_for(changed.wait(), 10)
                    heard_list_changed = True
                except asyncio.TimeoutError:
                    heard_list_changed = False
            print(json.dumps({
                "server": init.serverInfo.name,
                "session": get_session_id(),
                "tools": [t.name for t in tools.tools],
                "made": made.structuredContent,
                "made_error": made.isError,
                "found": found.structuredContent,
                "steps": steps.structuredContent if steps else None,
                "progress": progress,
                "list_changed": heard_list_changed,
            }))


asyncio.run(main(sys.argv[1]))
