"""`rules`: look up tabletop rules by keyword or by id, over the entries in `rules_data.py`.

Each skill is a plain function from its input (a dict the host already validated against the
skill's `input_schema`) to its output (a dict matching `output_schema`). The package also
serves each rule as a page (`RESOURCES`: an index and one page per rule, whose id completes)
and a prompt to look a rule up (`PROMPTS`). The SDK's glue exports them from the component;
`limina pkg test` tests them natively.
"""

import re

from limina_skill import Argument, Embedded, InvalidInput, Prompt, Resource, Skill, user
from rules_data import RULES, SYSTEMS

_BY_ID = {rule["id"]: rule for rule in RULES}

# How much a query word counts where it is found.
_WEIGHTS = (("title", 3), ("tags", 2), ("text", 1))


def _words(text):
    return re.findall(r"[a-z0-9]+", text.lower())


def _score(rule, words):
    fields = {
        "title": set(_words(rule["title"])),
        "tags": set(w for tag in rule["tags"] for w in _words(tag)),
        "text": set(_words(rule["text"])),
    }
    return sum(weight for w in words for field, weight in _WEIGHTS if w in fields[field])


def search(input, ctx):
    """`rules.search`: the entries that best match the query's words, best first."""
    words = [w for w in _words(input["query"]) if len(w) > 1 or w.isdigit()]
    if not words:
        raise InvalidInput("`query` must contain at least one word, e.g. \"cover\"")
    system = input.get("system")
    limit = input.get("limit", 5)
    scored = []
    for rule in RULES:
        if system is not None and rule["system"] != system:
            continue
        score = _score(rule, words)
        if score > 0:
            scored.append((score, rule))
    scored.sort(key=lambda pair: (-pair[0], pair[1]["id"]))
    return {
        "results": [
            {
                "id": rule["id"],
                "system": rule["system"],
                "title": rule["title"],
                "score": score,
                "summary": rule["text"].split(". ")[0].rstrip(".") + ".",
            }
            for score, rule in scored[:limit]
        ],
        "total": len(scored),
    }


def get(input, ctx):
    """`rules.get`: one entry by id."""
    rule = _BY_ID.get(input["id"])
    if rule is None:
        known = ", ".join(sorted(_BY_ID))
        raise InvalidInput(f"`id` names no rule: `{input['id']}`; known ids: {known}")
    return dict(rule)


_RULE_SUMMARY = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "system": {"type": "string"},
        "title": {"type": "string"},
        "score": {"type": "integer", "minimum": 1},
        "summary": {"type": "string"},
    },
    "required": ["id", "system", "title", "score", "summary"],
}

SKILLS = [
    Skill(
        name="rules.search",
        description="Search the rules by keywords (e.g. \"cover attack\"), optionally within "
        "one system; returns the best-matching entries with their ids.",
        handler=search,
        input_schema={
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 200,
                    "description": "Keywords to look for in titles, tags and rule text.",
                },
                "system": {
                    "type": "string",
                    "enum": list(SYSTEMS),
                    "description": "Only search this game system.",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 20,
                    "default": 5,
                    "description": "Most results to return.",
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {
                "results": {"type": "array", "items": _RULE_SUMMARY},
                "total": {"type": "integer", "minimum": 0},
            },
            "required": ["results", "total"],
        },
    ),
    Skill(
        name="rules.get",
        description="Read one rule entry in full by its id (as returned by rules.search).",
        handler=get,
        input_schema={
            "type": "object",
            "properties": {
                "id": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 100,
                    "description": "The rule's id, e.g. \"skirmish.cover\".",
                }
            },
            "required": ["id"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "system": {"type": "string", "enum": list(SYSTEMS)},
                "title": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "text": {"type": "string"},
                "related": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["id", "system", "title", "tags", "text", "related"],
        },
    ),
]


# The pages: an index, and one page per rule.
INDEX_URI = "limina://pkg/rules/index"
RULE_URI = "limina://pkg/rules/rule/{id}"


def rule_uri(rule_id):
    return RULE_URI.replace("{id}", rule_id)


def rule_page(rule):
    """A rule as Markdown: title, system and tags, the text, links to the related rules."""
    related = "\n".join(
        f"- [{_BY_ID[other]['title']}]({rule_uri(other)})" for other in rule["related"]
    )
    return (
        f"# {rule['title']}\n\n"
        f"`{rule['id']}` · {rule['system']} · {', '.join(rule['tags'])}\n\n"
        f"{rule['text']}\n\n## Related\n\n{related}\n"
    )


def index_page(uri, ctx):
    """Every rule by system, each linked to its page."""
    lines = ["# Rules\n"]
    for system in SYSTEMS:
        lines.append(f"\n## {system}\n")
        for rule in RULES:
            if rule["system"] == system:
                lines.append(f"- [{rule['title']}]({rule_uri(rule['id'])}) `{rule['id']}`")
    return "\n".join(lines) + "\n"


def read_rule(uri, ctx):
    """One rule's page; None for an id that names no rule."""
    rule = _BY_ID.get(uri.rsplit("/", 1)[-1])
    return None if rule is None else rule_page(rule)


def rule_ids(_name, prefix):
    """Rule ids starting with `prefix`, in the dataset's order."""
    return [rule["id"] for rule in RULES if rule["id"].startswith(prefix)]


def look_up(arguments, ctx):
    """`rules.lookUp`: the rule's page embedded, and what to do with it."""
    rule = _BY_ID.get(arguments["rule"])
    if rule is None:
        known = ", ".join(sorted(_BY_ID))
        raise InvalidInput(f"`rule` names no rule: `{arguments['rule']}`; known ids: {known}")
    question = arguments.get("question", "").strip()
    ask = (
        f"Answer this with the rule above: {question}"
        if question
        else f"Explain the rule above ({rule['title']}) in plain words, with a short example."
    )
    return [
        user(Embedded(rule_uri(rule["id"]), "text/markdown", rule_page(rule))),
        user(
            ask + " Read the related rules with rules.get when the answer depends on them, "
            "and say which rules you used."
        ),
    ]


RESOURCES = [
    Resource(
        uri=INDEX_URI,
        name="Rules index",
        read=index_page,
        description="Every rule by system, each linked to its page.",
    ),
    Resource(
        uri=RULE_URI,
        name="Rule page",
        read=read_rule,
        description="One rule in full, by its id (e.g. skirmish.cover), with its related rules.",
        complete=rule_ids,
    ),
]

PROMPTS = [
    Prompt(
        name="rules.lookUp",
        title="Look up a rule",
        description="Look a rule up by its id and explain it, or answer a question with it.",
        get=look_up,
        arguments=(
            Argument("rule", "The rule's id, e.g. skirmish.cover", required=True),
            Argument("question", "What to answer with the rule; empty: explain it"),
        ),
        complete=rule_ids,
    ),
]
