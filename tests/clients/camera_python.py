"""Takes a picture with `camera.capture` through the official Python SDK's `Client` over stdio
(argv: `legacy|auto OUT.png LIMINA_BINARY ARGS...`): makes a red box at the origin, finds the
tool's MCP App (`_meta.ui.resourceUri`), asks for a 160 x 120 picture from 10 m up the z axis,
decodes the image block's base64 into OUT.png, and asks for a picture of width 0. Prints one
JSON line with what it saw."""

import asyncio
import base64
import json
import sys
import warnings

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

warnings.simplefilter("ignore")


def text_of(result):
    return " ".join(getattr(block, "text", "") for block in result.content)


async def main() -> None:
    mode, out = sys.argv[1], sys.argv[2]
    server = StdioServerParameters(command=sys.argv[3], args=sys.argv[4:])
    async with Client(server, mode=mode) as client:
        await client.call_tool("scene.createEntity",
                               {"shape": "box", "size": 2, "color": 0xFF0000, "position": [0, 0, 0]})
        tools = (await client.list_tools()).tools
        tool = next(t.model_dump(by_alias=True) for t in tools if t.name == "camera.capture")
        shot = await client.call_tool("camera.capture", {
            "position": [0, 0, 10], "lookAt": [0, 0, 0], "width": 160, "height": 120})
        images = [b for b in shot.content if b.type == "image"]
        png = base64.b64decode(images[0].data, validate=True)
        with open(out, "wb") as f:
            f.write(png)
        try:
            bad = await client.call_tool("camera.capture", {
                "position": [0, 0, 10], "lookAt": [0, 0, 0], "width": 0})
            refused = {"is_error": bad.is_error, "text": text_of(bad)}
        except MCPError as e:
            refused = {"code": e.error.code, "message": e.error.message}
        print(json.dumps({
            "protocol_version": client.session.protocol_version,
            "resource_uri": (tool.get("_meta") or {}).get("ui", {}).get("resourceUri"),
            "is_error": shot.is_error,
            "structured": shot.structured_content,
            "kinds": [b.type for b in shot.content],
            "mime_type": images[0].mime_type,
            "png_bytes": len(png),
            "refused": refused,
        }))


asyncio.run(main())
