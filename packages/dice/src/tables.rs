//! The random tables this package carries: each is a list of entries rolled on with one die
//! as large as the table.

/// A named table of equally likely entries.
pub struct Table {
    /// What callers pass as `table`.
    pub name: &'static str,
    /// The entries, rolled on with a d`len`.
    pub entries: &'static [&'static str],
}

/// Every table, sorted by name.
pub const TABLES: &[Table] = &[
    Table {
        name: "encounter",
        entries: &[
            "a lost merchant with a lame mule",
            "three goblins arguing over a boot",
            "a wolf pack, watching from the ridge",
            "a wandering bard who knows your name",
            "a patrol of the duke's guard, short-tempered",
            "an abandoned campfire, still warm",
            "a giant spider's web across the path",
            "a hermit offering tea and riddles",
            "a bridge troll demanding a toll in songs",
            "pilgrims singing on their way to the shrine",
            "a riderless horse, saddled and bloodied",
            "nothing at all, which is suspicious",
        ],
    },
    Table {
        name: "loot",
        entries: &[
            "3 copper coins and a button",
            "a rusty dagger",
            "a pouch of 12 silver coins",
            "a healing draught in a chipped vial",
            "a map with one corner torn away",
            "a silver ring engraved with an owl",
            "a bundle of arrows, well fletched",
            "a lantern and a flask of oil",
            "a spellbook missing its last page",
            "a gem worth 50 gold to the right buyer",
            "boots that never leave footprints",
            "a sealed letter addressed to the queen",
        ],
    },
    Table {
        name: "weather",
        entries: &[
            "clear skies and a light breeze",
            "scorching sun, no shade anywhere",
            "low fog that muffles every sound",
            "drizzle that soaks through everything",
            "a thunderstorm rolling in from the west",
            "gusting wind that snatches at cloaks",
            "overcast and cold",
            "a sudden hailstorm",
            "snow, falling softly",
            "a rainbow after a brief shower",
            "heat haze shimmering over the road",
            "an eerie stillness, not a bird singing",
        ],
    },
];

/// The table called `name`.
pub fn find(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

/// The table names, comma-separated, for messages and the schema description.
pub fn names() -> String {
    TABLES.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_non_empty_and_found_by_name() {
        assert!(TABLES.windows(2).all(|w| w[0].name < w[1].name));
        assert!(TABLES.iter().all(|t| t.entries.len() >= 2));
        assert_eq!(find("loot").unwrap().name, "loot");
        assert!(find("Loot").is_none());
        assert_eq!(names(), "encounter, loot, weather");
    }
}
