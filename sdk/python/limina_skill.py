"""The Limina Python SDK: how a skill is declared, and the errors a handler raises to refuse a
call. Plain Python, so handlers are tested natively. `limina pkg build` and `limina pkg test`
write this module into the package's `bindings/` and put it on the module path, so a package
is only its `skills.py` (a `SKILLS` list, and optionally `RESOURCES` and `PROMPTS`) and its
tests:

    from limina_skill import InvalidInput, Skill

The SDK's `limina_app` module exports `SKILLS`, `RESOURCES` and `PROMPTS` from the component
(contract 0.2.0's `skill`, `resources` and `prompts`)."""

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

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


@dataclass(frozen=True)
class Resource:
    """A page the package serves (MCP `resources/read`), or with `{variables}` in its URI a
    family of them, each variable standing for one path segment. The URI must start with
    `limina://pkg/<package>/` (the host refuses any other at load).

    `read(uri, ctx)` returns the page (str for text, bytes for a blob) of `uri`, one this
    resource names, or None when there is no such page (the client gets the protocol's
    resource-not-found error). `complete(variable, prefix)` lists a template's values for
    `completion/complete`, best first."""

    uri: str
    name: str
    read: Callable[[str, Any], Any]
    mime_type: str = "text/markdown"
    title: Optional[str] = None
    description: Optional[str] = None
    # Permissions a reader needs, e.g. ("scene.read",).
    permissions: Tuple[str, ...] = ()
    complete: Optional[Callable[[str, str], Sequence[str]]] = None

    @property
    def template(self) -> bool:
        return "{" in self.uri

    def variables(self, uri: str) -> Optional[Dict[str, str]]:
        """The values of the template's variables in `uri` (empty for a plain resource), or
        None when `uri` is not one this resource names."""
        if not self.template:
            return {} if uri == self.uri else None
        values = {}
        rest, pattern = uri, self.uri
        while "{" in pattern:
            open_at = pattern.index("{")
            close_at = pattern.find("}", open_at)
            if close_at < 0 or not rest.startswith(pattern[:open_at]):
                return None
            after = rest[open_at:]
            end = after.find("/")
            end = len(after) if end < 0 else end
            if end == 0:
                return None
            values[pattern[open_at + 1 : close_at]] = after[:end]
            rest, pattern = after[end:], pattern[close_at + 1 :]
        return values if rest == pattern else None


@dataclass(frozen=True)
class Argument:
    """One string argument of a prompt."""

    name: str
    description: Optional[str] = None
    required: bool = False


@dataclass(frozen=True)
class Message:
    """One message of a prompt: `role` is "user" or "assistant"; `content` a content block
    (a str for text, Image, Audio, Link or Embedded)."""

    role: str
    content: Any


def user(content) -> Message:
    """A message from the user."""
    return Message("user", content)


def assistant(content) -> Message:
    """A message put in the assistant's mouth."""
    return Message("assistant", content)


@dataclass(frozen=True)
class Prompt:
    """A message template a client offers its user (MCP `prompts/get`), named
    `<package>.<prompt>` as skills are.

    `get(arguments, ctx)` fills it in from `arguments`, a dict of the given ones (the host has
    checked that every required one is there and no unknown one), and returns a list of
    Messages (`user(...)`, `assistant(...)`); it raises InvalidInput for a value it cannot use.
    `complete(argument, prefix)` lists an argument's values for `completion/complete`."""

    name: str
    description: str
    get: Callable[[Dict[str, str], Any], List[Message]]
    arguments: Tuple[Argument, ...] = ()
    title: Optional[str] = None
    # Permissions a caller needs.
    permissions: Tuple[str, ...] = ()
    complete: Optional[Callable[[str, str], Sequence[str]]] = None


def read_resource(resources, uri, ctx):
    """What reading `uri` gives with the package's `resources`: `(resource, page)`, the page
    None when there is none. Tests call this as the host would."""
    for resource in resources:
        if resource.variables(uri) is not None:
            return resource, resource.read(uri, ctx)
    return None, None


def get_prompt(prompts, name, arguments, ctx):
    """The messages of the prompt `name` of `prompts` filled in with `arguments` (a dict);
    NotFound when there is no such prompt."""
    for prompt in prompts:
        if prompt.name == name:
            return list(prompt.get(dict(arguments), ctx))
    raise NotFound(f"this package has no prompt `{name}`")


def complete(offers, key, name, prefix):
    """The values the resource template (`key` its URI) or prompt (`key` its name) among
    `offers` completes `name` with, starting with `prefix`."""
    for offer in offers:
        if (offer.uri if isinstance(offer, Resource) else offer.name) == key:
            if offer.complete is None:
                return []
            return [v for v in offer.complete(name, prefix) if v.startswith(prefix)]
    return []
