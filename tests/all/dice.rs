//! The example `dice` package (`packages/dice`) over MCP: rolls obey their expression, a seeded
//! host replays the same rolls, and bad input is `invalid_input` naming the field.

use crate::pkg_cli::native_cargo_test;
use crate::support::{Client, error_of, repo};
use serde_json::{Value, json};

/// A session on a host seeded with `seed`, serving `packages/` (built by
/// `cargo xtask build-guests`).
fn dice_host(seed: &str) -> Client {
    let packages = repo().join("packages");
    assert!(
        packages.join("dice/dice.wasm").is_file(),
        "packages/dice/dice.wasm is missing: build it with `cargo xtask build-guests`"
    );
    let packages = packages.to_str().unwrap().to_string();
    Client::session(
        "builder.readWrite",
        &["--seed", seed, "--packages", &packages],
    )
}

fn numbers(value: &Value) -> Vec<i64> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|n| n.as_i64().unwrap())
        .collect()
}

#[test]
fn rolls_are_in_range_and_the_total_is_their_sum_plus_the_modifier() {
    let mut c = dice_host("42");
    for (expression, canonical, count, sides, modifier) in [
        ("2d6+3", "2d6+3", 2, 6, 3),
        ("4d8-1", "4d8-1", 4, 8, -1),
        ("1d20", "1d20", 1, 20, 0),
        ("3 D 10 + 2", "3d10+2", 3, 10, 2),
        ("100d1000-10000", "100d1000-10000", 100, 1000, -10_000),
    ] {
        let out = c.call_ok("dice.roll", json!({ "expression": expression }));
        assert_eq!(out["expression"], canonical, "{out}");
        assert_eq!(out["modifier"], modifier, "{out}");
        let rolls = numbers(&out["rolls"]);
        assert_eq!(rolls.len(), count, "{out}");
        assert!(rolls.iter().all(|r| (1..=sides).contains(r)), "{out}");
        assert_eq!(
            out["total"].as_i64().unwrap(),
            rolls.iter().sum::<i64>() + modifier,
            "{out}"
        );
    }
}

/// The rolls of a fixed sequence of calls on a fresh host seeded with `seed`.
fn session_rolls(seed: &str) -> Vec<Value> {
    let mut c = dice_host(seed);
    vec![
        c.call_ok("dice.roll", json!({"expression": "10d1000"})),
        c.call_ok("dice.rollTable", json!({"table": "weather", "count": 3})),
        c.call_ok("dice.roll", json!({"expression": "2d6+3"})),
    ]
}

#[test]
fn the_same_seed_replays_the_same_rolls_across_host_runs() {
    let first = session_rolls("42");
    let again = session_rolls("42");
    assert_eq!(first, again);
    let other = session_rolls("43");
    assert_ne!(
        first[0]["rolls"], other[0]["rolls"],
        "seed 43 rolled like 42"
    );
}

#[test]
fn bad_expressions_are_invalid_input_naming_expression_and_what_is_wrong() {
    let mut c = dice_host("42");
    for (expression, wrong) in [
        ("2d", "number of sides after `d` is missing"),
        ("d6", "number of dice before `d` is missing"),
        ("0d6", "number of dice must be 1 to 100, not 0"),
        ("2d1", "2 to 1000 sides, not 1"),
        ("abc", "no `d`"),
        ("2d6+", "modifier after `+` is missing"),
        ("2d6+10001", "at most 10000"),
        ("2d6*2", "`*`"),
    ] {
        let result = c.call("dice.roll", json!({ "expression": expression }));
        let (code, message) = error_of(&result);
        assert_eq!(code, "invalid_input", "{expression}: {message}");
        assert!(message.contains("`expression`"), "{expression}: {message}");
        assert!(message.contains(wrong), "{expression}: {message}");
    }
    let missing = c.call("dice.roll", json!({}));
    let (code, message) = error_of(&missing);
    assert_eq!(code, "invalid_input");
    assert!(message.contains("expression"), "{message}");
    // The host answers the next call normally.
    let out = c.call_ok("dice.roll", json!({"expression": "1d20"}));
    assert_eq!(numbers(&out["rolls"]).len(), 1);
}

#[test]
fn roll_table_rolls_on_named_tables_and_lists_them_for_an_unknown_one() {
    let mut c = dice_host("42");
    let out = c.call_ok("dice.rollTable", json!({"table": "loot", "count": 4}));
    assert_eq!(out["table"], "loot");
    assert_eq!(out["die"], "d12");
    let results = out["results"].as_array().unwrap();
    assert_eq!(results.len(), 4, "{out}");
    for result in results {
        assert!(
            (1..=12).contains(&result["roll"].as_i64().unwrap()),
            "{out}"
        );
        assert!(!result["entry"].as_str().unwrap().is_empty(), "{out}");
    }
    let one = c.call_ok("dice.rollTable", json!({"table": "encounter"}));
    assert_eq!(
        one["results"].as_array().unwrap().len(),
        1,
        "count defaults to 1"
    );

    let (code, message) = error_of(&c.call("dice.rollTable", json!({"table": "treasure"})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("encounter, loot, weather"), "{message}");
    let (code, message) =
        error_of(&c.call("dice.rollTable", json!({"table": "loot", "count": 21})));
    assert_eq!(code, "invalid_input");
    assert!(message.contains("count"), "{message}");
}

#[test]
fn the_dice_parser_passes_its_native_unit_tests() {
    let out = native_cargo_test(&repo().join("packages").join("dice"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "cargo test in packages/dice failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("errors_say_what_is_wrong ... ok"),
        "{stdout}"
    );
}
