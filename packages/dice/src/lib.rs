//! `dice`: an example third-party package.
//!
//! - `dice.roll {expression}` rolls a dice expression such as `2d6+3`, `4d8-1` or `1d20` and
//!   returns each die, the modifier and the total;
//! - `dice.rollTable {table, count}` rolls on one of the tables the package carries
//!   (`encounter`, `loot`, `weather`).
//!
//! Every random number comes from the host (`random.next-u64`), never from the guest itself,
//! so a host started with `--seed N` replays the same rolls. The handlers take the source of
//! randomness as an argument, which lets the unit tests run natively with a stand-in.

mod expression;
mod tables;

use expression::{Expression, die};
use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct RollInput {
    /// A dice expression, `NdM`, `NdM+K` or `NdM-K`: roll N dice with M sides and add K,
    /// e.g. `2d6+3`, `4d8-1`, `1d20` (1 to 100 dice, 2 to 1000 sides, |K| at most 10000).
    #[schemars(length(max = 64))]
    expression: String,
}

#[derive(Serialize, JsonSchema)]
struct RollOutput {
    /// The expression in canonical form, e.g. `2d6+3`.
    expression: String,
    /// Each die, in the order rolled.
    rolls: Vec<u32>,
    /// The K added to the dice (negative for `-K`).
    modifier: i64,
    /// The sum of the dice plus the modifier.
    total: i64,
}

fn one() -> u32 {
    1
}

#[derive(Deserialize, JsonSchema)]
struct RollTableInput {
    /// The table to roll on: `encounter`, `loot` or `weather`.
    #[schemars(length(max = 64))]
    table: String,
    /// How many times to roll on it.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 20))]
    count: u32,
}

#[derive(Serialize, JsonSchema)]
struct TableResult {
    /// The die result, 1 to the table's size: the entry's number on the table.
    roll: u32,
    /// The entry rolled.
    entry: String,
}

#[derive(Serialize, JsonSchema)]
struct RollTableOutput {
    /// The table rolled on.
    table: String,
    /// The die used, `d<entries>`.
    die: String,
    /// One result per roll, in order.
    results: Vec<TableResult>,
}

/// The host's random numbers: the only source this package uses.
fn host_random() -> u64 {
    host::random::next_u64()
}

fn roll(input: RollInput, _ctx: &CallContext) -> Result<RollOutput, SkillError> {
    roll_with(input, host_random)
}

fn roll_with(input: RollInput, random: impl FnMut() -> u64) -> Result<RollOutput, SkillError> {
    let expression = Expression::parse(&input.expression).map_err(SkillError::InvalidInput)?;
    let outcome = expression.roll(random);
    Ok(RollOutput {
        expression: expression.to_string(),
        rolls: outcome.rolls,
        modifier: expression.modifier,
        total: outcome.total,
    })
}

fn roll_table(input: RollTableInput, _ctx: &CallContext) -> Result<RollTableOutput, SkillError> {
    roll_table_with(input, host_random)
}

fn roll_table_with(
    input: RollTableInput,
    mut random: impl FnMut() -> u64,
) -> Result<RollTableOutput, SkillError> {
    let table = tables::find(&input.table).ok_or_else(|| {
        SkillError::InvalidInput(format!(
            "`table` must be one of {}; there is no table `{}`",
            tables::names(),
            input.table
        ))
    })?;
    if !(1..=20).contains(&input.count) {
        return Err(SkillError::InvalidInput(format!(
            "`count` must be 1 to 20, not {}",
            input.count
        )));
    }
    let sides = table.entries.len() as u32;
    let results = (0..input.count)
        .map(|_| {
            let roll = die(random(), sides);
            TableResult {
                roll,
                entry: table.entries[roll as usize - 1].to_string(),
            }
        })
        .collect();
    Ok(RollTableOutput {
        table: table.name.to_string(),
        die: format!("d{sides}"),
        results,
    })
}

/// The package: what `describe` reports and `invoke` routes to.
fn package() -> Package {
    Package::new()
        .skill(Skill::new(
            "dice.roll",
            "1.0.0",
            "Roll a dice expression such as 2d6+3, 4d8-1 or 1d20: returns each die, the modifier \
             and the total.",
            roll,
        ))
        .skill(Skill::new(
            "dice.rollTable",
            "1.0.0",
            "Roll on a random table (encounter, loot or weather) one or more times.",
            roll_table,
        ))
        .resource(
            Resource::new(NOTATION_URI, "Dice notation", "text/markdown", |_, _| {
                Ok(Some(notation()))
            })
            .description("How to write a dice expression for dice.roll."),
        )
        .resource(
            Resource::new(TABLE_URI, "Random tables", "text/markdown", |uri, _| {
                let name = uri.rsplit('/').next().unwrap_or_default();
                Ok(tables::find(name).map(table_page))
            })
            .description("One random table's entries, as dice.rollTable rolls on them.")
            .complete(|_, prefix| table_names(prefix)),
        )
        .prompt(
            Prompt::new(
                "dice.narrate",
                "Roll on a random table and narrate what the party finds.",
                &[("table", "The table to roll on: encounter, loot or weather", true)],
                narrate,
            )
            .complete(|_, prefix| table_names(prefix)),
        )
}

/// The page on dice notation.
const NOTATION_URI: &str = "limina://pkg/dice/notation";
/// One page per random table.
const TABLE_URI: &str = "limina://pkg/dice/tables/{table}";

fn notation() -> String {
    format!(
        "# Dice notation\n\n`NdS+M`: N dice (1..{}) of S sides ({}..{}), plus or minus M (at most {}). \
         `d20` means `1d20`. Examples: `2d6+3`, `4d8-1`, `1d20`.\n",
        expression::MAX_DICE,
        expression::SIDES.0,
        expression::SIDES.1,
        expression::MAX_MODIFIER
    )
}

fn table_page(table: &tables::Table) -> String {
    let mut page = format!(
        "# The {} table (d{})\n\n",
        table.name,
        table.entries.len()
    );
    for (i, entry) in table.entries.iter().enumerate() {
        page.push_str(&format!("{}. {entry}\n", i + 1));
    }
    page
}

fn table_names(prefix: &str) -> Vec<String> {
    tables::TABLES
        .iter()
        .map(|t| t.name.to_string())
        .filter(|n| n.starts_with(prefix))
        .collect()
}

/// `dice.narrate`: the table's page embedded, and the ask.
fn narrate(arguments: &[(String, String)], _: &CallContext) -> Result<Vec<PromptMessage>, SkillError> {
    let name = limina_sdk::argument(arguments, "table").unwrap_or_default();
    let table = tables::find(name).ok_or_else(|| {
        SkillError::InvalidInput(format!(
            "unknown table `{name}`; the tables are {}",
            tables::names()
        ))
    })?;
    let uri = TABLE_URI.replace("{table}", table.name);
    Ok(vec![
        limina_sdk::user(ContentBlock::embedded_text(uri, "text/markdown", table_page(table))),
        limina_sdk::user(ContentBlock::text(format!(
            "Roll once on the {} table with dice.rollTable, then tell the party what they find \
             in two vivid sentences.",
            table.name
        ))),
    ])
}

limina_sdk::export_package!(package());

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed sequence standing in for the host's random numbers.
    fn sequence(values: &[u64]) -> impl FnMut() -> u64 + '_ {
        let mut at = 0;
        move || {
            let value = values[at % values.len()];
            at += 1;
            value
        }
    }

    #[test]
    fn roll_reports_dice_modifier_and_total() {
        let input = RollInput {
            expression: "2d6+3".into(),
        };
        let out = roll_with(input, sequence(&[0, u64::MAX])).unwrap();
        assert_eq!(out.expression, "2d6+3");
        assert_eq!(out.rolls, vec![1, 6]);
        assert_eq!(out.modifier, 3);
        assert_eq!(out.total, 10);
    }

    #[test]
    fn a_bad_expression_is_invalid_input_naming_the_field() {
        let input = RollInput {
            expression: "2d".into(),
        };
        match roll_with(input, sequence(&[0])) {
            Err(SkillError::InvalidInput(m)) => assert!(m.contains("`expression`"), "{m}"),
            Err(e) => panic!("wrong error: {e:?}"),
            Ok(_) => panic!("2d rolled"),
        }
    }

    #[test]
    fn roll_table_rolls_count_times_on_the_named_table() {
        let input = RollTableInput {
            table: "weather".into(),
            count: 3,
        };
        let out = roll_table_with(input, sequence(&[0, u64::MAX, 0])).unwrap();
        assert_eq!(out.table, "weather");
        assert_eq!(out.die, "d12");
        let rolls: Vec<u32> = out.results.iter().map(|r| r.roll).collect();
        assert_eq!(rolls, vec![1, 12, 1]);
        assert_eq!(
            out.results[0].entry,
            tables::find("weather").unwrap().entries[0]
        );
    }

    #[test]
    fn an_unknown_table_lists_the_known_ones() {
        let input = RollTableInput {
            table: "treasure".into(),
            count: 1,
        };
        match roll_table_with(input, sequence(&[0])) {
            Err(SkillError::InvalidInput(m)) => {
                assert!(m.contains("encounter, loot, weather"), "{m}");
                assert!(m.contains("`treasure`"), "{m}");
            }
            _ => panic!("an unknown table must be invalid_input"),
        }
    }
}
