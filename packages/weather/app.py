"""The component's entry point: exports `limina:skill/skill` (world `skill-package-http`, as
the manifest declares network grants) for the skills in `skills.py`."""

import json

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import environment
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
    return types.SkillDescriptor(
        name=skill.name,
        version=skill.version,
        category=skill.name.split(".")[0],
        description=skill.description,
        permissions=list(skill.permissions),
        input_schema=json.dumps(skill.input_schema),
        output_schema=json.dumps(skill.output_schema),
        annotations=types.Annotations(
            read_only=True, destructive=False, idempotent=False, open_world=True
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
            env = dict(environment.get_environment())
            output = skill.handler(json.loads(input), ctx, env)
        except limina_skill.SkillError as e:
            raise Err(_ERRORS.get(e.code, types.SkillError_HandlerError)(str(e)))
        except Exception as e:
            raise Err(types.SkillError_HandlerError(f"{type(e).__name__}: {e}"))
        return json.dumps(output)

    def run_hook(self, hook, skill, payload, ctx):
        return None
