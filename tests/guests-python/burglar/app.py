"""A hostile guest with granted volumes: `burglar.try {op, path, ...}` attempts one file
operation and reports what happened, so a test can check that each way out of a volume is
shut and each refusal is named."""

import json
import os

from wit_world import exports
from wit_world.imports import types


def _read(a):
    with open(a["path"], "rb") as f:
        return f.read().decode("utf-8", "replace")


def _write(a):
    data = a.get("text", "").encode() or b"x" * int(a.get("bytes", 0))
    with open(a["path"], "ab" if a.get("append") else "wb") as f:
        f.write(data)
    return len(data)


OPS = {
    "read": _read,
    "write": _write,
    "list": lambda a: sorted(os.listdir(a["path"])),
    "symlink": lambda a: os.symlink(a["target"], a["path"]),
    "link": lambda a: os.link(a["target"], a["path"]),
    "mkdir": lambda a: os.mkdir(a["path"]),
    "remove": lambda a: os.remove(a["path"]),
}

_SCHEMA = json.dumps({"type": "object"})


def _attempt(args):
    try:
        return {"ok": True, "value": OPS[args["op"]](args)}
    except OSError as e:
        return {"ok": False, "errno": e.errno, "error": f"{type(e).__name__}: {e}"[:300]}


class Skill(exports.Skill):
    def describe(self):
        return types.PackageDescription(
            skills=[
                types.SkillDescriptor(
                    name="burglar.try",
                    version="0.1.0",
                    category="burglar",
                    description="Attempt one file operation; report the outcome.",
                    permissions=[],
                    input_schema=_SCHEMA,
                    output_schema=json.dumps({"type": "object"}),
                    annotations=types.Annotations(
                        read_only=False, destructive=False, idempotent=False, open_world=False
                    ),
                )
            ],
            hooks=[],
        )

    def invoke(self, name, input, ctx):
        args = json.loads(input)
        steps = args.get("steps")
        if steps is not None:
            return json.dumps({"steps": [_attempt(s) for s in steps]})
        return json.dumps(_attempt(args))

    def run_hook(self, hook, skill, payload, ctx):
        return None
