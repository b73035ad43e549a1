"""Drives Limina's resources, prompts and completion with the official Python SDK's `Client`
over stdio, in either revision (argv: `legacy|auto LIMINA_BINARY ARGS...`: `legacy` binds a
2025-11-25 session with `initialize`, `auto` probes `server/discover` and speaks
2026-07-28). Lists and reads resources, subscribes to an entity and hears it change,
unsubscribes, lists and gets prompts with arguments, completes, and reads something missing.
Prints one JSON line with what it saw."""

import asyncio
import json
import sys
import warnings

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated
from mcp_types import PromptReference, ResourceTemplateReference

warnings.simplefilter("ignore")
ENTITY = "limina://entity/ent_1"


async def all_resources(client):
    uris, cursor, pages = [], None, 0
    while True:
        page = await client.list_resources(cursor=cursor)
        pages += 1
        uris += [r.uri for r in page.resources]
        cursor = page.next_cursor
        if not cursor:
            return uris, pages


async def legacy_subscription(client, updates):
    """resources/subscribe, a move heard, resources/unsubscribe, a move not heard."""
    await client.subscribe_resource(ENTITY)
    await client.call_tool("three.setTransform", {"entity": "ent_1", "position": [5, 0, 0]})
    heard = await asyncio.wait_for(updates.get(), 10)
    await client.unsubscribe_resource(ENTITY)
    await asyncio.sleep(0.2)
    while not updates.empty():
        updates.get_nowait()
    await client.call_tool("three.setTransform", {"entity": "ent_1", "position": [6, 0, 0]})
    await asyncio.sleep(1.0)
    return {"heard": heard, "after_unsubscribe": updates.qsize()}


async def modern_subscription(client):
    """subscriptions/listen with resourceSubscriptions and resourcesListChanged."""
    events = []
    async with client.listen(resource_subscriptions=[ENTITY, "limina://entity/ent_404"],
                             resources_list_changed=True) as sub:
        honored = sub.honored.model_dump(by_alias=True, exclude_none=True)
        await client.call_tool("three.setTransform", {"entity": "ent_1", "position": [5, 0, 0]})
        await client.call_tool("scene.createEntity", {"position": [0, 3, 0]})

        async def collect():
            async for event in sub:
                if isinstance(event, ResourceUpdated):
                    events.append({"updated": event.uri})
                elif isinstance(event, ResourcesListChanged):
                    events.append({"list_changed": True})
                kinds = {next(iter(e)) for e in events}
                if {"updated", "list_changed"} <= kinds:
                    return

        await asyncio.wait_for(collect(), 10)
    return {"honored": honored, "events": events}


async def main() -> None:
    mode = sys.argv[1]
    server = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:])
    updates: asyncio.Queue = asyncio.Queue()

    async def on_message(message):
        method = getattr(getattr(message, "root", message), "method", None)
        if method == "notifications/resources/updated":
            params = getattr(message, "root", message).params
            await updates.put(params.uri)

    async with Client(server, mode=mode, message_handler=on_message) as client:
        made = await client.call_tool("scene.createEntity", {"color": 0xFF0000, "position": [1, 2, 3]})
        uris, pages = await all_resources(client)
        templates = await client.list_resource_templates()
        world = await client.read_resource("limina://world", cache_mode="bypass")
        entity = await client.read_resource(ENTITY, cache_mode="bypass")
        try:
            await client.read_resource("limina://entity/ent_999", cache_mode="bypass")
            missing = None
        except MCPError as e:
            missing = {"code": e.error.code, "message": e.error.message}
        if mode == "legacy":
            subscription = await legacy_subscription(client, updates)
        else:
            subscription = await modern_subscription(client)
        prompts = await client.list_prompts()
        built = await client.get_prompt("build-scene", {"description": "a well in a square", "style": "dusk"})
        inspected = await client.get_prompt("inspect-entity", {"entity": "ent_1"})
        try:
            await client.get_prompt("build-scene", {})
            refused = None
        except MCPError as e:
            refused = {"code": e.error.code, "message": e.error.message}
        ids = await client.complete(ResourceTemplateReference(type="ref/resource", uri="limina://entity/{id}"),
                                    {"name": "id", "value": "ent_"})
        styles = await client.complete(PromptReference(type="ref/prompt", name="build-scene"),
                                       {"name": "style", "value": "d"})
        print(json.dumps({
            "protocol_version": client.session.protocol_version,
            "capabilities": client.server_capabilities.model_dump(by_alias=True, exclude_none=True),
            "made": made.structured_content,
            "uris": uris,
            "pages": pages,
            "templates": [t.uri_template for t in templates.resource_templates],
            "world": json.loads(world.contents[0].text),
            "world_cache": [getattr(world, "ttl_ms", None), getattr(world, "cache_scope", None)],
            "entity": json.loads(entity.contents[0].text),
            "missing": missing,
            "subscription": subscription,
            "prompts": [{"name": p.name, "arguments": [a.name for a in p.arguments or []]} for p in prompts.prompts],
            "built": [m.content.model_dump(by_alias=True, exclude_none=True) for m in built.messages],
            "inspected": [m.content.model_dump(by_alias=True, exclude_none=True) for m in inspected.messages],
            "refused": refused,
            "ids": ids.completion.values,
            "styles": styles.completion.values,
        }))


asyncio.run(main())
