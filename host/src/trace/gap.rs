//! Reading what the index does not hold yet from the segments, cheaply. A line's sequence
//! number and type are read from its first bytes, and a line is parsed only when it can match
//! the query: its type is one asked for and it holds the text of every filter as the writer
//! serialized it (`"actorId":"agent_1"`). A query asked right after a burst then pays for the
//! lines it wants, not for every line of the gap. A line that passes is parsed and checked
//! again, so the text sitting elsewhere in it changes nothing.

use memchr::memmem::Finder;

/// Which lines of the gap are worth parsing for one query.
pub(super) struct Want {
    /// Only these event types (`None`: any).
    kinds: Option<Vec<String>>,
    /// Text every wanted line holds.
    needles: Vec<Finder<'static>>,
}

impl Want {
    /// Every line.
    pub fn all() -> Want {
        Want {
            kinds: None,
            needles: Vec::new(),
        }
    }

    /// Lines of these event types.
    pub fn kinds(kinds: &[&str]) -> Want {
        Want {
            kinds: Some(kinds.iter().map(|k| k.to_string()).collect()),
            needles: Vec::new(),
        }
    }

    /// Lines holding the string field `key` equal to `value` (top level or in the payload).
    /// An empty `value` adds nothing: a query for `""` also matches lines lacking the field.
    pub fn field(self, key: &str, value: &str) -> Want {
        if value.is_empty() {
            return self;
        }
        let text = format!("\"{key}\":{}", serde_json::Value::from(value));
        self.text(text.as_bytes())
    }

    /// Lines holding `text`.
    pub fn text(mut self, text: &[u8]) -> Want {
        self.needles.push(Finder::new(text).into_owned());
        self
    }

    /// Whether a line of type `kind` may match.
    pub fn admits(&self, kind: &str, line: &[u8]) -> bool {
        self.kinds
            .as_ref()
            .is_none_or(|kinds| kinds.iter().any(|k| k == kind))
            && self.needles.iter().all(|n| n.find(line).is_some())
    }
}

/// The sequence number and type of the event on `line`, read from its first two fields (`id`,
/// then `type`, as the writer puts them) without parsing the rest. `None` for a line that does
/// not start so (damaged); the type is `""` when it is written with escapes (always parsed).
pub(super) fn line_head(line: &[u8]) -> Option<(u64, &str)> {
    let rest = line.strip_prefix(b"{\"id\":\"")?;
    let end = memchr::memchr(b'"', rest)?;
    let seq = super::seq_of_id(std::str::from_utf8(&rest[..end]).ok()?)?;
    let Some(kind) = rest[end..].strip_prefix(b"\",\"type\":\"") else {
        return Some((seq, ""));
    };
    let kind = memchr::memchr2(b'"', b'\\', kind)
        .filter(|&e| kind[e] == b'"')
        .and_then(|e| std::str::from_utf8(&kind[..e]).ok())
        .unwrap_or("");
    Some((seq, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_of_a_line_is_its_seq_and_type() {
        let line = br#"{"id":"evt_agent_1_000000000042_00000000000000ab","type":"policy.denied","actorId":"a"}"#;
        assert_eq!(line_head(line), Some((42, "policy.denied")));
        let escaped =
            br#"{"id":"evt_a_000000000007_00000000000000ab","type":"odd\"kind","actorId":"a"}"#;
        assert_eq!(line_head(escaped), Some((7, "")));
        assert_eq!(line_head(br#"{"garbage": "#), None);
        assert_eq!(
            line_head(br#"{"id":"evt_a_000000000007_00000000000000ab"}"#),
            Some((7, ""))
        );
    }

    #[test]
    fn a_line_is_admitted_only_with_a_wanted_type_and_every_field() {
        let line = br#"{"id":"i","type":"policy.denied","actorId":"agent_1","payload":{"cap":"dice.roll","rule":"r\"x"}}"#;
        let want = Want::kinds(&["policy.decision", "policy.denied"])
            .field("cap", "dice.roll")
            .field("rule", "r\"x");
        assert!(want.admits("policy.denied", line));
        assert!(!want.admits("skill.executed", line));
        assert!(!Want::all().field("cap", "dice").admits("t", line));
        assert!(!Want::all().field("actorId", "agent_2").admits("t", line));
        // An empty value may match a missing field: it filters nothing out.
        assert!(Want::all().field("package", "").admits("t", line));
        assert!(Want::all().admits("anything", line));
    }
}
