"""A guest that blocks in WASI: `sleepy.nap` calls time.sleep for the seconds it is given.

It is also the older kind of Python package: it keeps its own `app.py` and `limina_skill.py`
(as `limina pkg new` wrote them before the glue moved into the SDK), so building it checks
that such a package still builds from its own glue."""

import time

from limina_skill import Skill


def nap(input, ctx):
    started = time.monotonic()
    time.sleep(input["seconds"])
    return {"slept": time.monotonic() - started}


SKILLS = [
    Skill(
        name="sleepy.nap",
        description="Sleep for `seconds` (time.sleep), then answer how long it took.",
        handler=nap,
        input_schema={
            "type": "object",
            "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 3600}},
            "required": ["seconds"],
        },
        output_schema={"type": "object"},
    )
]
