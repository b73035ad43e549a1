"""Build a small scene over MCP and let physics run.

A static floor, a stack of dynamic boxes, lighting and a speech bubble; then the world steps
for two simulated seconds and the script prints where each box came to rest. Standard library
only: it speaks JSON-RPC to `limina --mcp-stdio` over a pipe.

    cargo xtask build-guests && cargo build -p limina
    python3 examples/build_scene.py
"""

import json
import os
import subprocess
import sys

LIMINA = os.environ.get("LIMINA_BIN", os.path.join("target", "debug", "limina"))


class Client:
    """A minimal MCP client over the host's stdio."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [LIMINA, "--mcp-stdio", "--manual-clock", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.next_id = 1

    def request(self, method, params):
        msg_id = self.next_id
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == msg_id:  # skip notifications
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']['message']}")
                return reply["result"]

    def call(self, name, arguments):
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        if result["isError"]:
            raise RuntimeError(result["content"][0]["text"])
        return result["structuredContent"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    c = Client()
    c.request("initialize", {"protocolVersion": "2025-06-18", "profile": "builder.readWrite", "agentId": "builder"})

    c.call("three.setLighting", {"ambientIntensity": 0.8, "directionalIntensity": 2.5, "castShadow": True})
    floor = c.call("scene.createEntity", {"size": 20, "position": [0, -10, 0], "static": True, "color": 0x808080})["entity"]
    boxes = []
    for level in range(4):
        entity = c.call(
            "scene.createEntity",
            {"size": 1, "position": [0.05 * level, 0.5 + 1.05 * level, 0], "dynamic": True, "color": 0xC04020 + level * 0x001010},
        )["entity"]
        boxes.append(entity)
    c.call(
        "ui.speechBubble",
        {"anchor": {"kind": "world", "entity": boxes[-1], "offset": [0, 1, 0]}, "text": "Stacked and ready!"},
    )

    tick = c.call("world.step", {"ticks": 120})["tick"]  # two seconds at 60 Hz
    print(f"floor {floor}; after {tick} ticks the boxes rest at:")
    entities = {e["entity"]: e for e in c.call("scene.queryEntities", {})["entities"]}
    for entity in boxes:
        x, y, z = entities[entity]["position"]
        print(f"  {entity}: ({x:6.3f}, {y:6.3f}, {z:6.3f})")
    c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
