"""Drives Limina's approval gate with the official Python SDK 2.3 and an elicitation callback
that plays the person: it allows the first question and declines the second. argv: a mode
(`auto`: the SDK's default, 2026-07-28 with `input_required` results; `legacy`: a 2025-11-25
session asked with `elicitation/create`), then `stdio LIMINA_BINARY ARGS...` or `http URL`.
Prints one JSON line with what it saw."""

import asyncio
import json
import sys

import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters


async def main() -> None:
    mode, transport = sys.argv[1], sys.argv[2]
    if transport == "stdio":
        server = StdioServerParameters(command=sys.argv[3], args=sys.argv[4:])
    else:
        server = sys.argv[3]
    questions = []

    async def person(context, params):
        questions.append({"message": params.message, "schema": params.requested_schema})
        if len(questions) == 1:
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    async with Client(server, mode=mode, elicitation_callback=person) as client:
        allowed = await client.call_tool("scene.createEntity", {"position": [4, 5, 6]})
        declined = await client.call_tool("scene.createEntity", {"position": [7, 8, 9]})
        found = await client.call_tool("scene.queryEntities", {})
        print(
            json.dumps(
                {
                    "protocol_version": client.session.protocol_version,
                    "questions": questions,
                    "allowed_error": allowed.is_error,
                    "allowed": allowed.structured_content,
                    "declined_error": declined.is_error,
                    "declined_text": declined.content[0].text if declined.content else None,
                    "found": found.structured_content,
                }
            )
        )


asyncio.run(main())
