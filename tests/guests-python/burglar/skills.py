"""A hostile guest with granted volumes: `burglar.try {op, path, ...}` attempts one file
operation and reports what happened, so a test can check that each way out of a volume is
shut and each refusal is named."""

import os

from limina_skill import Skill


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


def _attempt(args):
    try:
        return {"ok": True, "value": OPS[args["op"]](args)}
    except OSError as e:
        return {"ok": False, "errno": e.errno, "error": f"{type(e).__name__}: {e}"[:300]}


def attempt(args, ctx):
    steps = args.get("steps")
    if steps is not None:
        return {"steps": [_attempt(s) for s in steps]}
    return _attempt(args)


SKILLS = [
    Skill(
        name="burglar.try",
        description="Attempt one file operation; report the outcome.",
        handler=attempt,
        input_schema={"type": "object"},
        output_schema={"type": "object"},
        read_only=False,
    )
]
