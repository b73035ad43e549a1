//! Dice expressions, `NdM`, `NdM+K` or `NdM-K`: parsing with messages that say what is wrong,
//! and rolling with any source of random numbers.

use std::fmt;

/// Most dice one expression may roll.
pub const MAX_DICE: u32 = 100;
/// Fewest and most sides a die may have.
pub const SIDES: (u32, u32) = (2, 1000);
/// Largest modifier, either way.
pub const MAX_MODIFIER: i64 = 10_000;

/// A parsed expression: roll `count` dice with `sides` sides each, then add `modifier`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expression {
    /// How many dice, 1..=100.
    pub count: u32,
    /// Sides per die, 2..=1000.
    pub sides: u32,
    /// Added to the sum, -10000..=10000.
    pub modifier: i64,
}

/// The outcome of rolling an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roll {
    /// Each die, in the order rolled.
    pub rolls: Vec<u32>,
    /// The sum of the dice plus the modifier.
    pub total: i64,
}

impl fmt::Display for Expression {
    /// The canonical form: `2d6`, `2d6+3`, `4d8-1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}d{}", self.count, self.sides)?;
        match self.modifier {
            0 => Ok(()),
            m if m > 0 => write!(f, "+{m}"),
            m => write!(f, "{m}"),
        }
    }
}

impl Expression {
    /// Parses `NdM[+|-K]` (spaces allowed around the parts, `D` as well as `d`). The error
    /// names `expression`, repeats what was given and says what is wrong with it.
    pub fn parse(text: &str) -> Result<Expression, String> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let fail = |why: String| {
            Err(format!(
                "`expression` must look like NdM, NdM+K or NdM-K (e.g. 2d6+3); got `{text}`: {why}"
            ))
        };
        if compact.is_empty() {
            return fail("it is empty".into());
        }
        let Some((count, rest)) = compact.split_once(['d', 'D']) else {
            return fail("there is no `d` between the number of dice and the sides".into());
        };
        let (sides, modifier) = match rest.find(['+', '-']) {
            Some(at) => (&rest[..at], Some(&rest[at..])),
            None => (rest, None),
        };
        if count.is_empty() {
            return fail("the number of dice before `d` is missing (write 1d6, not d6)".into());
        }
        let count = match number(count, "the number of dice") {
            Ok(n) => n,
            Err(why) => return fail(why),
        };
        if sides.is_empty() {
            return fail("the number of sides after `d` is missing".into());
        }
        let sides = match number(sides, "the number of sides") {
            Ok(n) => n,
            Err(why) => return fail(why),
        };
        if !(1..=u64::from(MAX_DICE)).contains(&count) {
            return fail(format!(
                "the number of dice must be 1 to {MAX_DICE}, not {count}"
            ));
        }
        if !(u64::from(SIDES.0)..=u64::from(SIDES.1)).contains(&sides) {
            return fail(format!(
                "a die must have {} to {} sides, not {sides}",
                SIDES.0, SIDES.1
            ));
        }
        let modifier = match modifier {
            None => 0,
            Some(signed) => {
                let (sign, digits) = signed.split_at(1);
                if digits.is_empty() {
                    return fail(format!("the modifier after `{sign}` is missing"));
                }
                let size = match number(digits, "the modifier") {
                    Ok(n) => n,
                    Err(why) => return fail(why),
                };
                if size > MAX_MODIFIER as u64 {
                    return fail(format!(
                        "the modifier must be at most {MAX_MODIFIER} either way, not {sign}{size}"
                    ));
                }
                if sign == "-" {
                    -(size as i64)
                } else {
                    size as i64
                }
            }
        };
        Ok(Expression {
            count: count as u32,
            sides: sides as u32,
            modifier,
        })
    }

    /// Rolls every die with `next_u64` as the source of randomness.
    pub fn roll(&self, mut next_u64: impl FnMut() -> u64) -> Roll {
        let rolls: Vec<u32> = (0..self.count)
            .map(|_| die(next_u64(), self.sides))
            .collect();
        let sum: i64 = rolls.iter().map(|&r| i64::from(r)).sum();
        Roll {
            rolls,
            total: sum + self.modifier,
        }
    }
}

/// Maps a uniform 64-bit number onto 1..=sides (multiply-high: no modulo bias worth naming
/// for at most 1000 sides).
pub fn die(random: u64, sides: u32) -> u32 {
    ((u128::from(random) * u128::from(sides)) >> 64) as u32 + 1
}

/// Parses a run of ASCII digits; anything else is named.
fn number(digits: &str, what: &str) -> Result<u64, String> {
    if let Some(bad) = digits.chars().find(|c| !c.is_ascii_digit()) {
        return Err(format!(
            "{what} `{digits}` has `{bad}`, which is not a digit"
        ));
    }
    digits
        .parse()
        .map_err(|_| format!("{what} `{digits}` is far too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> (u32, u32, i64) {
        let e = Expression::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        (e.count, e.sides, e.modifier)
    }

    fn error(text: &str) -> String {
        let err = Expression::parse(text).expect_err(text);
        assert!(err.starts_with("`expression`"), "{err}");
        err
    }

    #[test]
    fn parses_the_three_forms() {
        assert_eq!(parsed("2d6+3"), (2, 6, 3));
        assert_eq!(parsed("4d8-1"), (4, 8, -1));
        assert_eq!(parsed("1d20"), (1, 20, 0));
        assert_eq!(parsed(" 3 D 10 + 2 "), (3, 10, 2));
        assert_eq!(parsed("100d1000-10000"), (100, 1000, -10_000));
    }

    #[test]
    fn prints_the_canonical_form() {
        for (text, canonical) in [("2d6+3", "2d6+3"), ("4D8 - 1", "4d8-1"), ("1d20+0", "1d20")] {
            assert_eq!(Expression::parse(text).unwrap().to_string(), canonical);
        }
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(error("2d").contains("sides after `d` is missing"));
        assert!(error("d6").contains("number of dice before `d` is missing"));
        assert!(error("0d6").contains("1 to 100, not 0"));
        assert!(error("101d6").contains("1 to 100, not 101"));
        assert!(error("2d1").contains("2 to 1000 sides, not 1"));
        assert!(error("2d1001").contains("not 1001"));
        assert!(error("abc").contains("no `d`"));
        assert!(error("").contains("empty"));
        assert!(error("2d6+").contains("modifier after `+` is missing"));
        assert!(error("2d6+10001").contains("at most 10000"));
        assert!(error("2d6*2").contains("`*`"));
        assert!(error("2d6+3-1").contains("`-`"));
        assert!(error("2x6").contains("no `d`"));
        assert!(error("99999999999999999999d6").contains("too large"));
    }

    #[test]
    fn rolls_stay_in_range_and_total_adds_the_modifier() {
        let expression = Expression::parse("50d6-4").unwrap();
        let mut state = 0x1234_5678_9abc_def0_u64;
        let roll = expression.roll(|| {
            // xorshift: a deterministic stand-in for the host's random numbers.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        });
        assert_eq!(roll.rolls.len(), 50);
        assert!(roll.rolls.iter().all(|r| (1..=6).contains(r)));
        let sum: i64 = roll.rolls.iter().map(|&r| i64::from(r)).sum();
        assert_eq!(roll.total, sum - 4);
    }

    #[test]
    fn a_die_covers_every_face_at_the_extremes() {
        assert_eq!(die(0, 6), 1);
        assert_eq!(die(u64::MAX, 6), 6);
        assert_eq!(die(u64::MAX / 2, 2), 1);
        assert_eq!(die(u64::MAX / 2 + 1, 2), 2);
    }
}
