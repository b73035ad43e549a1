"""Returns a one-pixel red PNG and a link beside its output (contract 0.2.0 content blocks)."""

import struct
import zlib

from limina_skill import Image, Link, Skill, WithContent


def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def _pixel_png(rgb):
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    rows = zlib.compress(b"\x00" + bytes(rgb))
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", rows) + _chunk(b"IEND", b"")


def paint(input, ctx):
    png = _pixel_png((255, 0, 0))
    return WithContent(
        {"bytes": len(png)},
        (Image(png), Link("limina://pkg/painter/palette", "Palette")),
    )


SKILLS = [
    Skill(
        name="painter.pixel",
        description="Paints one red pixel and returns it as a PNG.",
        handler=paint,
        input_schema={"type": "object"},
        output_schema={
            "type": "object",
            "properties": {"bytes": {"type": "integer"}},
            "required": ["bytes"],
        },
    )
]
