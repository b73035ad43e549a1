"""The component's entry point, from the Limina Python SDK: exports `limina:skill` 0.2.0's
`skill`, `resources` and `prompts` for what the package's `skills.py` lists in `SKILLS`,
`RESOURCES` and `PROMPTS` (the last two optional). `limina pkg build` writes this module into
`bindings/` and has componentize-py wrap it (a package that keeps its own `app.py` is built from
that instead)."""

import json

from componentize_py_types import Err
from wit_world import exports

try:
    from wit_world.imports import types
except ImportError:
    # A package with `[grants] network` builds against `skill-package-http`, where the name
    # `types` is shared with `wasi:http` and ours is called by its full name.
    from wit_world.imports import limina_skill_types as types

from wit_world.exports import prompts as prompt_types
from wit_world.exports import resources as resource_types
from wit_world.imports import content

import limina_skill
import skills

_ERRORS = {
    "invalid_input": types.SkillError_InvalidInput,
    "not_found": types.SkillError_NotFound,
    "forbidden": types.SkillError_Forbidden,
    "handler_error": types.SkillError_HandlerError,
}

_BY_NAME = {skill.name: skill for skill in skills.SKILLS}
_RESOURCES = list(getattr(skills, "RESOURCES", ()))
_PROMPTS = list(getattr(skills, "PROMPTS", ()))


def _descriptor(skill):
    idempotent = skill.read_only if skill.idempotent is None else skill.idempotent
    return types.SkillDescriptor(
        name=skill.name,
        version=skill.version,
        category=skill.name.split(".")[0],
        description=skill.description,
        permissions=list(skill.permissions),
        input_schema=json.dumps(skill.input_schema),
        output_schema=json.dumps(skill.output_schema),
        annotations=types.Annotations(
            read_only=skill.read_only,
            destructive=skill.destructive,
            idempotent=idempotent,
            open_world=skill.open_world,
        ),
    )


class Skill(exports.Skill):
    def describe(self):
        return types.PackageDescription(
            skills=[_descriptor(s) for s in skills.SKILLS], hooks=[]
        )

    def invoke(self, name, input, ctx):
        skill = _BY_NAME.get(name)
        if skill is None:
            raise Err(types.SkillError_NotFound(f"this package has no skill `{name}`"))
        output = _refusing(lambda: skill.handler(json.loads(input), ctx))
        blocks = []
        if isinstance(output, limina_skill.WithContent):
            output, blocks = output.output, output.content
        return content.SkillOutput(
            structured=json.dumps(output), content=[_block(b) for b in blocks]
        )

    def run_hook(self, hook, skill, payload, ctx):
        return None


def _refusing(run):
    """`run()`, any exception it raises turned into the skill-error the caller sees."""
    try:
        return run()
    except limina_skill.SkillError as e:
        raise Err(_ERRORS.get(e.code, types.SkillError_HandlerError)(str(e)))
    except Err as e:
        # A host import refused: a denied permission stays `forbidden` for the caller.
        if isinstance(e.value, types.WorldError_Forbidden):
            raise Err(types.SkillError_Forbidden(e.value.value))
        raise Err(types.SkillError_HandlerError(f"host refused: {e.value}"))
    except Exception as e:
        raise Err(types.SkillError_HandlerError(f"{type(e).__name__}: {e}"))


def _completing(run):
    """`run()`'s values; none when it fails (completion has no error to give)."""
    try:
        return [str(v) for v in run()]
    except Exception as e:
        print(f"completion failed: {type(e).__name__}: {e}")
        return []


def _block(block):
    """A content block of `limina_skill` as the WIT variant."""
    if isinstance(block, limina_skill.Image):
        return content.ContentBlock_Image(content.Binary(block.mime_type, bytes(block.data)))
    if isinstance(block, limina_skill.Audio):
        return content.ContentBlock_Audio(content.Binary(block.mime_type, bytes(block.data)))
    if isinstance(block, limina_skill.Link):
        return content.ContentBlock_ResourceLink(
            content.ResourceLink(block.uri, block.name, block.description, block.mime_type)
        )
    if isinstance(block, limina_skill.Embedded):
        body = (
            content.ResourceBody_Text(block.body)
            if isinstance(block.body, str)
            else content.ResourceBody_Blob(bytes(block.body))
        )
        return content.ContentBlock_Embedded(
            content.ResourceContents(block.uri, block.mime_type, body)
        )
    return content.ContentBlock_Text(str(block))


def _contents(uri, ctx):
    """What reading `uri` gives, as the WIT record; None when there is no such page. A page
    that is neither text nor bytes fails the read (`handler-error`) instead of the component."""
    resource, page = limina_skill.read_resource(_RESOURCES, uri, ctx)
    if page is None:
        return None
    if isinstance(page, str):
        body = content.ResourceBody_Text(page)
    elif isinstance(page, (bytes, bytearray, memoryview)):
        body = content.ResourceBody_Blob(bytes(page))
    else:
        raise TypeError(f"a page is a str or bytes, not {type(page).__name__}")
    return content.ResourceContents(uri, resource.mime_type, body)


class Resources(exports.Resources):
    def list_resources(self):
        return [
            resource_types.ResourceDescriptor(
                uri=r.uri,
                template=r.template,
                name=r.name,
                title=r.title,
                description=r.description,
                mime_type=r.mime_type,
                permissions=list(r.permissions),
            )
            for r in _RESOURCES
        ]

    def read_resource(self, uri, ctx):
        return _refusing(lambda: _contents(uri, ctx))

    def complete_variable(self, uri_template, variable, prefix):
        return _completing(
            lambda: limina_skill.complete(_RESOURCES, uri_template, variable, prefix)
        )


_ROLES = {"user": prompt_types.Role.USER, "assistant": prompt_types.Role.ASSISTANT}


def _message(message):
    if not isinstance(message, limina_skill.Message) or message.role not in _ROLES:
        raise TypeError(f"a prompt gives Messages (user(...) or assistant(...)), not {message!r}")
    return prompt_types.PromptMessage(_ROLES[message.role], _block(message.content))


class Prompts(exports.Prompts):
    def list_prompts(self):
        return [
            prompt_types.PromptDescriptor(
                name=p.name,
                title=p.title,
                description=p.description,
                arguments=[
                    prompt_types.PromptArgument(a.name, a.description, a.required)
                    for a in p.arguments
                ],
                permissions=list(p.permissions),
            )
            for p in _PROMPTS
        ]

    def get_prompt(self, name, arguments, ctx):
        return _refusing(
            lambda: [
                _message(m)
                for m in limina_skill.get_prompt(_PROMPTS, name, dict(arguments), ctx)
            ]
        )

    def complete_argument(self, name, argument, prefix):
        return _completing(lambda: limina_skill.complete(_PROMPTS, name, argument, prefix))
