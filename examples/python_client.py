"""Connect to Limina with the official MCP Python SDK (`pip install mcp`).

Spawns `limina --mcp-stdio` as a builder, lists the tools, creates an entity and finds it.
Run from the repository root after `cargo xtask build-guests` and `cargo build -p limina`:

    python3 examples/python_client.py
"""

import asyncio
import os

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

LIMINA = os.environ.get("LIMINA_BIN", os.path.join("target", "debug", "limina"))


def structured(result):
    """The structured result; newer SDKs name the field `structured_content`."""
    return getattr(result, "structured_content", None) or result.structuredContent


async def main() -> None:
    server = StdioServerParameters(
        command=LIMINA, args=["--mcp-stdio", "--profile", "builder.readWrite"]
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            tools = await session.list_tools()
            for tool in tools.tools:
                print(f"{tool.name:24} {tool.description}")

            made = await session.call_tool("scene.createEntity", {"position": [3, 4, 0]})
            entity = structured(made)["entity"]
            print("created", entity)

            found = await session.call_tool(
                "scene.queryEntities", {"near": [0, 0, 0], "radius": 10}
            )
            for hit in structured(found)["entities"]:
                print(f"found {hit['entity']} at {hit['position']}, {hit['distance']} m away")

            refused = await session.call_tool("scene.createEntity", {"size": 0})
            print("refused:", refused.content[0].text)


if __name__ == "__main__":
    asyncio.run(main())
