"""`{{name}}`: a Limina skill package in Python.

Each skill is a plain function from its input (a dict the host already validated against the
skill's `input_schema`) to its output (a dict matching `output_schema`). Besides skills, a
package may serve pages (`RESOURCES`, read with `resources/read`) and prompts a client offers
its user (`PROMPTS`). The Limina SDK's glue exports all three from the component; `limina pkg
test` tests them natively.
"""

from limina_skill import Argument, Prompt, Resource, Skill, user


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


def about(uri, ctx):
    """The page `limina://pkg/{{name}}/about`: what the package does."""
    return "# {{name}}\n\n{{name}} greets people by name with `{{name}}.hello`.\n"


def greet_prompt(arguments, ctx):
    """`{{name}}.greet`: asks the model to greet someone with the package's skill."""
    name = arguments.get("name", "friend")
    return [user(f"Greet {name} with the {{name}}.hello tool and tell them what you can do.")]


# URIs are the package's own: `limina://pkg/{{name}}/...`. A `{variable}` in one makes a
# template (one path segment each), and `complete=` completes it.
RESOURCES = [
    Resource(
        uri="limina://pkg/{{name}}/about",
        name="About {{name}}",
        read=about,
        description="What this package does.",
    ),
]

PROMPTS = [
    Prompt(
        name="{{name}}.greet",
        description="Greet someone with this package's tool.",
        get=greet_prompt,
        arguments=(Argument("name", "Who to greet"),),
        complete=lambda argument, prefix: [n for n in ("Ada", "Grace") if n.startswith(prefix)],
    ),
]
