"""The component's entry point, from the Limina Python SDK: exports `limina:skill/skill` for the
skills the package's `skills.py` lists in `SKILLS`. `limina pkg build` writes this module into
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

import limina_skill
import skills

_ERRORS = {
    "invalid_input": types.SkillError_InvalidInput,
    "not_found": types.SkillError_NotFound,
    "forbidden": types.SkillError_Forbidden,
    "handler_error": types.SkillError_HandlerError,
}

_BY_NAME = {skill.name: skill for skill in skills.SKILLS}


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
        try:
            output = skill.handler(json.loads(input), ctx)
        except limina_skill.SkillError as e:
            raise Err(_ERRORS.get(e.code, types.SkillError_HandlerError)(str(e)))
        except Err as e:
            # A host import refused: a denied permission stays `forbidden` for the caller.
            if isinstance(e.value, types.WorldError_Forbidden):
                raise Err(types.SkillError_Forbidden(e.value.value))
            raise Err(types.SkillError_HandlerError(f"host refused: {e.value}"))
        except Exception as e:
            raise Err(types.SkillError_HandlerError(f"{type(e).__name__}: {e}"))
        return json.dumps(output)

    def run_hook(self, hook, skill, payload, ctx):
        return None
