"""The Limina Python SDK: how a skill is declared, and the errors a handler raises to refuse a
call. Plain Python, so handlers are tested natively. `limina pkg build` and `limina pkg test`
write this module into the package's `bindings/` and put it on the module path, so a package
is only its `skills.py` (a `SKILLS` list) and its tests:

    from limina_skill import InvalidInput, Skill

The SDK's `limina_app` module exports `SKILLS` from the component."""

from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple

try:  # the host's imports exist only inside the component, and this one only in the
    # `skill-package-http` world (a manifest with `[grants] network`)
    from wit_world.imports import environment as _environment
except ImportError:  # native tests, or a package without network grants
    _environment = None


class SkillError(Exception):
    """A call the skill refuses; the caller sees the message with the error code below."""

    code = "handler_error"


class InvalidInput(SkillError):
    """The input is well-formed but not acceptable: say which field and why."""

    code = "invalid_input"


class NotFound(SkillError):
    """Something the input names does not exist."""

    code = "not_found"


class Forbidden(SkillError):
    """The caller may not do this."""

    code = "forbidden"


@dataclass(frozen=True)
class Skill:
    """One skill: `<package>.<name>`, a handler from input dict to output dict, and the JSON
    Schemas (draft-07) the host validates the input and output against."""

    name: str
    description: str
    handler: Callable[[Dict[str, Any], Any], Dict[str, Any]]
    input_schema: Dict[str, Any]
    output_schema: Dict[str, Any]
    version: str = "0.1.0"
    # Permissions a caller needs, e.g. ("scene.read",); the manifest's capabilities must
    # cover them.
    permissions: Tuple[str, ...] = ()
    # The skill does not change the world; also the `idempotent` hint unless that is given.
    read_only: bool = True
    # The skill may remove or overwrite state.
    destructive: bool = False
    # Calling twice with the same input has the same effect as calling once; None: as
    # `read_only`.
    idempotent: Optional[bool] = None
    # The skill reaches beyond the world the host owns (the network).
    open_world: bool = False


@dataclass(frozen=True)
class Image:
    """A picture a skill returns besides its output: `image/png` or `image/jpeg` bytes."""

    data: bytes
    mime_type: str = "image/png"


@dataclass(frozen=True)
class Audio:
    """A sound: `audio/wav` bytes."""

    data: bytes
    mime_type: str = "audio/wav"


@dataclass(frozen=True)
class Link:
    """A link to a resource the client may read."""

    uri: str
    name: str
    description: Optional[str] = None
    mime_type: Optional[str] = None


@dataclass(frozen=True)
class Embedded:
    """A resource given inline: `body` is text (str) or bytes."""

    uri: str
    mime_type: str
    body: Any


@dataclass(frozen=True)
class WithContent:
    """A handler's output with content blocks besides it (Image, Audio, Link, Embedded, or a
    str for text). The host caps a result at 16 blocks and 4 MiB."""

    output: Dict[str, Any]
    content: Tuple[Any, ...] = ()


def environment() -> Dict[str, str]:
    """The secrets the host gives the package (`[grants] secrets`), by name. Empty natively and
    for a package without network grants, whose component has no environment."""
    if _environment is None:
        return {}
    return dict(_environment.get_environment())
