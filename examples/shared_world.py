"""Two clients, one world, over WebSocket.

A builder and a watcher connect to one `limina --mcp-ws`. The watcher subscribes to the
world's state with an area of interest; the builder builds a few boxes and moves one out of
the area; the watcher prints each `state/delta` as it arrives (changes, removals, and the
trace events of the call that caused them).

    cargo xtask build-guests && cargo build -p limina
    pip install websockets            # the one dependency
    python3 examples/shared_world.py  # starts target/debug/limina --mcp-ws --port 0 itself

Or point it at a running host: `LIMINA_URL=ws://127.0.0.1:8787 python3 examples/shared_world.py`.
"""

import asyncio
import itertools
import json
import os
import re
import subprocess
import sys

import websockets

LIMINA = os.environ.get("LIMINA_BIN", os.path.join("target", "debug", "limina"))


class Client:
    """One MCP session over WebSocket: requests with ids, notifications kept aside."""

    def __init__(self, ws, name):
        self.ws, self.name, self.ids = ws, name, itertools.count(1)
        self.notifications = asyncio.Queue()

    async def request(self, method, params=None):
        rid = next(self.ids)
        await self.ws.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}))
        while True:
            message = json.loads(await self.ws.recv())
            if message.get("id") == rid:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]
            await self.notifications.put(message)

    async def call(self, tool, arguments):
        result = await self.request("tools/call", {"name": tool, "arguments": arguments})
        if result["isError"]:
            raise RuntimeError(result["content"][0]["text"])
        return result["structuredContent"]

    async def initialize(self, profile):
        await self.request("initialize", {"protocolVersion": "2025-11-25", "profile": profile, "agentId": self.name,
                                          "clientInfo": {"name": self.name, "version": "0"}, "capabilities": {}})


async def main(url):
    async with websockets.connect(url, subprotocols=["mcp"]) as a, websockets.connect(url, subprotocols=["mcp"]) as b:
        builder, watcher = Client(a, "builder"), Client(b, "watcher")
        await builder.initialize("builder.readWrite")
        await watcher.initialize("system.readonly")
        await watcher.request("state/subscribe", {"aoi": {"center": [0, 0, 0], "radius": 20}})
        snapshot = await watcher.notifications.get()
        print(f"watcher: snapshot at tick {snapshot['params']['tick']}: {len(snapshot['params']['entities'])} entities")

        boxes = [(await builder.call("scene.createEntity", {"position": [x, 0, 0], "color": 0x3366FF}))["entity"]
                 for x in (0, 4, 8)]
        print(f"builder: made {', '.join(boxes)}")
        await builder.call("three.setTransform", {"entity": boxes[2], "position": [50, 0, 0]})
        print(f"builder: moved {boxes[2]} out of the watcher's area")

        for _ in range(4):
            message = json.loads(await asyncio.wait_for(b.recv(), 5))
            if message.get("method") == "state/delta":
                d = message["params"]
                changes = ", ".join(f"{c['id']} at {c['pos']}" for c in d["changes"]) or "-"
                print(f"watcher: delta tick {d['tick']}: changed {changes}; removed {d['removed'] or '-'}; caused by {d['causedBy']}")


if __name__ == "__main__":
    url = os.environ.get("LIMINA_URL")
    host = None
    if url is None:
        host = subprocess.Popen([LIMINA, "--mcp-ws", "--port", "0", "--network-profile", "builder.readWrite"], stderr=subprocess.PIPE, text=True)
        for line in host.stderr:
            found = re.search(r"ws://\S+", line)
            if found:
                url = found.group(0)
                break
        else:
            sys.exit("the host did not start; build it with `cargo build -p limina`")
    try:
        asyncio.run(main(url))
    finally:
        if host:
            host.terminate()
