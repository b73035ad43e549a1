"""The little the Python side of a Limina package needs: how a skill is declared, and the
errors a handler raises to refuse a call. Plain Python, so handlers are tested natively."""

from dataclasses import dataclass
from typing import Any, Callable, Dict, Tuple


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
    read_only: bool = True
