"""A guest that blocks in WASI: `sleepy.nap` calls time.sleep for the seconds it is given."""

import json
import time

from wit_world import exports
from wit_world.imports import types

_INPUT = json.dumps(
    {
        "type": "object",
        "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 3600}},
        "required": ["seconds"],
    }
)
_OUTPUT = json.dumps({"type": "object"})


class Skill(exports.Skill):
    def describe(self):
        return types.PackageDescription(
            skills=[
                types.SkillDescriptor(
                    name="sleepy.nap",
                    version="0.1.0",
                    category="sleepy",
                    description="Sleep for `seconds` (time.sleep), then answer how long it took.",
                    permissions=[],
                    input_schema=_INPUT,
                    output_schema=_OUTPUT,
                    annotations=types.Annotations(
                        read_only=True, destructive=False, idempotent=True, open_world=False
                    ),
                )
            ],
            hooks=[],
        )

    def invoke(self, name, input, ctx):
        seconds = json.loads(input)["seconds"]
        started = time.monotonic()
        time.sleep(seconds)
        return json.dumps({"slept": time.monotonic() - started})

    def run_hook(self, hook, skill, payload, ctx):
        return None
