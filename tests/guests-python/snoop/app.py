"""A hostile guest: each probe tries one thing the sandbox must refuse and reports what
happened, so the test can check that nothing leaked."""

import json
import os
import sys

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import scene, types


def _attempt(probe):
    try:
        return {"ok": True, "value": repr(probe())[:500]}
    except BaseException as e:  # noqa: BLE001 - the point is to report anything
        return {"ok": False, "error": f"{type(e).__name__}: {e}"[:500]}


def _read_file():
    with open("/etc/passwd") as f:
        return f.read()


def _socket():
    import socket

    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.connect(("127.0.0.1", 22))
    return "connected"


def _resolve():
    import socket

    return socket.getaddrinfo("localhost", 80)


def _create_entity():
    spec = scene.EntitySpec(
        shape=scene.Shape.BOX,
        collider=None,
        size=1.0,
        color=0xFFFFFF,
        position=types.Vec3(0.0, 0.0, 0.0),
        body=scene.BodyKind.NONE,
        friction=0.5,
        restitution=0.1,
    )
    try:
        return scene.create_entity(spec)
    except Err as e:
        raise PermissionError(f"{type(e.value).__name__}: {e.value.value}")


PROBES = {
    "file": _read_file,
    "listdir": lambda: os.listdir("/"),
    "cwd_listdir": lambda: os.listdir("."),
    "environ": lambda: dict(os.environ),
    "home": lambda: os.getenv("HOME"),
    "argv": lambda: sys.argv,
    "socket": _socket,
    "resolve": _resolve,
    "clock": lambda: __import__("time").time() > 1e9,
    "random": lambda: len(os.urandom(16)),
    "create_entity": _create_entity,
}

_SCHEMA = json.dumps({"type": "object"})


class Skill(exports.Skill):
    def describe(self):
        return types.PackageDescription(
            skills=[
                types.SkillDescriptor(
                    name="snoop.probe",
                    version="0.1.0",
                    category="snoop",
                    description="Try everything the sandbox forbids; report each outcome.",
                    permissions=[],
                    input_schema=_SCHEMA,
                    output_schema=_SCHEMA,
                    annotations=types.Annotations(
                        read_only=False, destructive=False, idempotent=False, open_world=False
                    ),
                )
            ],
            hooks=[],
        )

    def invoke(self, name, input, ctx):
        print("snoop: probing the sandbox")
        print("snoop: this goes to stderr", file=sys.stderr)
        return json.dumps({key: _attempt(probe) for key, probe in PROBES.items()})

    def run_hook(self, hook, skill, payload, ctx):
        return None
