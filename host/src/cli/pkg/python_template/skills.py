"""`{{name}}`: a Limina skill package in Python.

Each skill is a plain function from its input (a dict the host already validated against the
skill's `input_schema`) to its output (a dict matching `output_schema`). The Limina SDK's
glue exports `SKILLS` from the component; `limina pkg test` tests them natively.
"""

from limina_skill import Skill


def hello(input, ctx):
    """`{{name}}.hello`: greets someone by name."""
    return {"greeting": f"Hello, {input['name']}!"}


SKILLS = [
    Skill(
        name="{{name}}.hello",
        description="Greet someone by name.",
        handler=hello,
        input_schema={
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 100,
                    "description": "Who to greet.",
                }
            },
            "required": ["name"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {"greeting": {"type": "string", "description": "The greeting."}},
            "required": ["greeting"],
        },
    ),
]
