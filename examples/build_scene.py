#!/usr/bin/env python3
"""Builds a small scene step by step over MCP Streamable HTTP, so you can watch it arrive in
the browser viewer.

    target/debug/limina --mcp-http --profile builder.readWrite --network-profile social.actor
    # open http://127.0.0.1:8788/ in a browser, then:
    python3 examples/build_scene.py [http://127.0.0.1:8788/mcp] [--pause SECONDS]

A builder session lays the ground, lights it, stacks a few boxes and gives the agent `guide`
a body; then `guide` (a `social.actor` session) walks towards the boxes and speaks, and a HUD
panel says what happened. Standard library only.
"""

import json
import sys
import time
import urllib.request

URL = next((a for a in sys.argv[1:] if a.startswith("http")), "http://127.0.0.1:8788/mcp")
PAUSE = float(sys.argv[sys.argv.index("--pause") + 1]) if "--pause" in sys.argv else 0.6


class Session:
    """One MCP session over Streamable HTTP."""

    def __init__(self, profile, agent):
        self.id = None
        self.next = 1
        self.request("initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "build_scene", "version": "1"},
            "profile": profile, "agentId": agent,
        })
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, message):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.id:
            headers["Mcp-Session-Id"] = self.id
            headers["MCP-Protocol-Version"] = "2025-11-25"
        request = urllib.request.Request(URL, json.dumps(message).encode(), headers, method="POST")
        with urllib.request.urlopen(request) as response:
            self.id = self.id or response.headers.get("Mcp-Session-Id")
            body = response.read().decode()
        return json.loads(body) if body.strip() else None

    def request(self, method, params):
        self.next += 1
        reply = self.post({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        if "error" in reply:
            hint = ""
            if method == "initialize" and "network-profile" in reply["error"]["message"]:
                hint = ("\nStart the host so that network clients may build and act, e.g.\n"
                        "    limina --mcp-http --profile builder.readWrite --network-profile social.actor")
            sys.exit(f"{method}: {reply['error']['message']}{hint}")
        return reply["result"]

    def call(self, skill, arguments):
        result = self.request("tools/call", {"name": skill, "arguments": arguments})
        if result.get("isError"):
            sys.exit(f"{skill}: {result['content'][0]['text']}")
        print(f"  {skill} → {json.dumps(result['structuredContent'])}")
        time.sleep(PAUSE)
        return result["structuredContent"]


def main():
    print(f"building a scene on {URL}")
    builder = Session("builder.readWrite", "builder")

    print("the ground and the light")
    builder.call("scene.createEntity", {"size": 30, "color": 0x4a6a4a, "position": [0, -15, 0], "static": True})
    builder.call("three.setLighting", {"ambientIntensity": 0.5, "directionalIntensity": 2.2,
                                       "direction": [6, 12, 4], "castShadow": True})

    print("a stack of lit boxes")
    colors = [0xd9534f, 0xf0ad4e, 0x5bc0de, 0x5cb85c]
    boxes = []
    for i, color in enumerate(colors):
        box = builder.call("scene.createEntity", {"color": color, "position": [4, 0.5 + i * 1.01, -2], "static": True})
        boxes.append(box["entity"])
        builder.call("three.setMaterial", {"entity": box["entity"], "roughness": 0.35, "metalness": 0.2 * i,
                                           "castShadow": True, "receiveShadow": True})
    ball = builder.call("scene.createEntity", {"shape": "sphere", "color": 0xeeeeee, "position": [-3, 4, 2],
                                               "dynamic": True, "restitution": 0.6})
    builder.call("three.setMaterial", {"entity": ball["entity"], "metalness": 0.9, "roughness": 0.1, "castShadow": True})

    print("an agent called guide")
    body = builder.call("scene.createEntity", {"shape": "sphere", "size": 0.8, "color": 0x337ab7, "position": [-6, 0.4, 4]})
    builder.call("ecs.addComponent", {"entity": body["entity"], "component": "agent:guide"})

    guide = Session("social.actor", "guide")
    guide.call("social.approach", {"target": boxes[0], "talkDistance": 1.5})
    guide.call("social.say", {"text": "Hello! Someone stacked these boxes for me."})

    print("a panel")
    builder.call("ui.hudPanel", {"anchor": {"kind": "screen", "corner": "top-right"},
                                 "title": "build_scene.py", "text": "ground, light, four boxes, a ball and guide"})
    print("done: the guide keeps walking while the world's clock runs")


if __name__ == "__main__":
    main()
