"""The rules the package embeds: short entries written for Limina (not taken from any
published game), for two small systems. Each entry has an id, a system, a title, tags and
the rule text; `related` names other entries by id."""

SYSTEMS = ("limina-core", "skirmish")

RULES = [
    {
        "id": "core.checks",
        "system": "limina-core",
        "title": "Checks",
        "tags": ["dice", "check", "difficulty", "d20"],
        "text": "To attempt something uncertain, roll a d20 and add the relevant trait. "
        "Meet or beat the difficulty to succeed: 8 is easy, 12 is fair, 16 is hard, 20 is "
        "heroic. A natural 1 always fails; a natural 20 succeeds and grants a boon.",
        "related": ["core.boons", "core.traits"],
    },
    {
        "id": "core.traits",
        "system": "limina-core",
        "title": "Traits",
        "tags": ["character", "trait", "might", "grace", "wits", "heart"],
        "text": "Every character has four traits: Might, Grace, Wits and Heart, each from -1 "
        "to +4. A new character spreads six points among them, none above +3.",
        "related": ["core.checks"],
    },
    {
        "id": "core.boons",
        "system": "limina-core",
        "title": "Boons and banes",
        "tags": ["advantage", "boon", "bane", "dice"],
        "text": "A boon lets you roll two d20 and keep the higher; a bane makes you keep the "
        "lower. A boon and a bane cancel out; several of one kind count as one.",
        "related": ["core.checks"],
    },
    {
        "id": "core.rest",
        "system": "limina-core",
        "title": "Resting",
        "tags": ["rest", "healing", "recovery", "camp"],
        "text": "A short rest of an hour restores half of your lost vigor, rounded up. A "
        "night's rest in safety restores all vigor and clears one level of fatigue.",
        "related": ["core.vigor", "core.fatigue"],
    },
    {
        "id": "core.vigor",
        "system": "limina-core",
        "title": "Vigor and falling",
        "tags": ["health", "vigor", "damage", "falling"],
        "text": "Vigor measures how much punishment you can shrug off. Damage lowers it; at "
        "zero you fall and must be helped up by an ally with a fair Heart check.",
        "related": ["core.rest"],
    },
    {
        "id": "core.fatigue",
        "system": "limina-core",
        "title": "Fatigue",
        "tags": ["fatigue", "exhaustion", "travel", "bane"],
        "text": "Forced marches, hunger and cold add levels of fatigue. Each level gives a "
        "bane on Might and Grace checks; at four levels you can no longer travel.",
        "related": ["core.rest", "core.boons"],
    },
    {
        "id": "core.light",
        "system": "limina-core",
        "title": "Light and darkness",
        "tags": ["light", "darkness", "torch", "vision", "stealth"],
        "text": "A torch lights ten metres and burns for an hour. In darkness, checks that "
        "rely on sight take a bane, and hiding gains a boon.",
        "related": ["core.boons"],
    },
    {
        "id": "skirmish.turns",
        "system": "skirmish",
        "title": "Turn order",
        "tags": ["turn", "initiative", "round", "order"],
        "text": "Sides alternate activating one unit at a time, starting with the side that "
        "has fewer units left. A round ends when every unit has activated once.",
        "related": ["skirmish.actions"],
    },
    {
        "id": "skirmish.actions",
        "system": "skirmish",
        "title": "Actions",
        "tags": ["action", "move", "attack", "dash"],
        "text": "An activated unit takes two actions: move up to its speed, attack, or aim. "
        "Taking the same action twice is allowed, except attacking.",
        "related": ["skirmish.turns", "skirmish.cover"],
    },
    {
        "id": "skirmish.cover",
        "system": "skirmish",
        "title": "Cover",
        "tags": ["cover", "defense", "terrain", "attack"],
        "text": "A target behind low walls or brush is in light cover: attacks against it "
        "need one more success. Behind solid walls it is in heavy cover: two more.",
        "related": ["skirmish.actions", "skirmish.terrain"],
    },
    {
        "id": "skirmish.terrain",
        "system": "skirmish",
        "title": "Difficult terrain",
        "tags": ["terrain", "movement", "water", "rubble"],
        "text": "Moving through rubble, water or thick brush costs double. Units may not end "
        "a move inside impassable terrain such as deep water.",
        "related": ["skirmish.cover"],
    },
    {
        "id": "skirmish.morale",
        "system": "skirmish",
        "title": "Morale",
        "tags": ["morale", "fear", "retreat", "courage"],
        "text": "When a side loses half its units, each remaining unit rolls two dice; on a "
        "total below 6 it retreats a full move away from the nearest enemy.",
        "related": ["skirmish.turns"],
    },
]
