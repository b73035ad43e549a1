"""A hostile guest: each probe tries one thing the sandbox must refuse and reports what
happened, so the test can check that nothing leaked."""

import os
import sys

from limina_skill import Skill

try:  # the host's imports exist only inside the component
    from componentize_py_types import Err
    from wit_world.imports import scene, types
except ImportError:
    Err = scene = types = None


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


def probe(input, ctx):
    print("snoop: probing the sandbox")
    print("snoop: this goes to stderr", file=sys.stderr)
    return {key: _attempt(probe) for key, probe in PROBES.items()}


SKILLS = [
    Skill(
        name="snoop.probe",
        description="Try everything the sandbox forbids; report each outcome.",
        handler=probe,
        input_schema={"type": "object"},
        output_schema={"type": "object"},
        read_only=False,
    )
]
