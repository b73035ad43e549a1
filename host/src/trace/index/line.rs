//! What the indexer reads of a stored line: ids, type, actor, links and, for policy events,
//! the decision fields. Strings are borrowed from the line where they can be, and payloads of
//! other events are skipped without being built.

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// The indexed part of one event line.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Line<'a> {
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(borrow)]
    pub actor_id: Cow<'a, str>,
    #[serde(borrow, default)]
    pub parent_event_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub caused_by: Vec<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub payload: Decision<'a>,
    #[serde(borrow)]
    pub integrity: Integrity<'a>,
}

impl<'a> Line<'a> {
    /// Reads a stored line: in the layout the tracer writes (`event::seal`) directly, anything
    /// else — escapes in a header string, another field order, an error — by serde. Reading
    /// every line by serde was a fifth of the indexer's time, most of it walking payloads
    /// that only a decision's fields are wanted from.
    pub fn parse(bytes: &'a [u8]) -> serde_json::Result<Line<'a>> {
        match layout::read(bytes) {
            Some(line) => Ok(line),
            None => serde_json::from_slice(bytes),
        }
    }
}

/// The tracer's line layout: `{"id":…,"type":…,"actorId":…,"threadId":…,"parentEventId":…,
/// "causedBy":[…],"timestamp":…,"payload":…,"integrity":{"hash":…,"previousHash":…}}`. A
/// payload that is not a decision's is not read at all: its end is found from the line's end
/// (the top-level `integrity` is the line's last member, so its key is the last occurrence of
/// that text). A line whose payload is not valid JSON may so be indexed where serde would have
/// skipped it; readers parse the line again and drop it then, as for any unreadable line.
mod layout {
    use super::{Decision, Integrity, Line};
    use std::borrow::Cow;

    pub(super) const INTEGRITY: &str = ",\"integrity\":{\"hash\":";

    /// How far from the line's end `INTEGRITY` starts when both hashes are the tracer's
    /// (`sha256:` and 64 hex digits), and when there is no previous hash (the first event).
    pub(super) const TAIL_LENGTHS: [usize; 2] = [
        INTEGRITY.len() + 1 + HASH + "\",\"previousHash\":\"".len() + HASH + "\"}}".len(),
        INTEGRITY.len() + 1 + HASH + "\",\"previousHash\":null}}".len(),
    ];
    /// `sha256:` and 64 hex digits.
    const HASH: usize = 71;

    /// Where the last `INTEGRITY` starts: first looked for where the tracer's hashes put it,
    /// then searched from the end (`memchr`'s finder; a twentieth of the indexer's time when
    /// every line was searched).
    pub(super) fn integrity_at(text: &str) -> Option<usize> {
        static FINDER: std::sync::LazyLock<memchr::memmem::FinderRev<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::FinderRev::new(INTEGRITY));
        TAIL_LENGTHS
            .iter()
            .filter_map(|&tail| text.len().checked_sub(tail))
            .find(|&at| text.as_bytes()[at..].starts_with(INTEGRITY.as_bytes()))
            .or_else(|| FINDER.rfind(text))
    }

    pub(super) fn read(bytes: &[u8]) -> Option<Line<'_>> {
        let text = std::str::from_utf8(bytes).ok()?.trim_end();
        let mut at = Cursor { text, at: 0 };
        let id = at.string_after("{\"id\":")?;
        let kind = at.string_after(",\"type\":")?;
        let actor_id = at.string_after(",\"actorId\":")?;
        at.string_after(",\"threadId\":")?;
        at.literal(",\"parentEventId\":")?;
        let parent_event_id = at.optional_string()?;
        at.literal(",\"causedBy\":")?;
        let caused_by = at.strings()?;
        at.string_after(",\"timestamp\":")?;
        at.literal(",\"payload\":")?;
        let payload_starts = at.at;
        let payload_ends = integrity_at(text).filter(|&end| end > payload_starts)?;
        at.at = payload_ends + INTEGRITY.len();
        let hash = at.string()?;
        at.literal(",\"previousHash\":")?;
        at.optional_string()?;
        at.literal("}}")?;
        if at.at != text.len() {
            return None;
        }
        let payload = if crate::trace::index::is_decision_kind(kind) {
            let payload = &text[payload_starts..payload_ends];
            match decision(payload) {
                Some(decision) => decision,
                None => serde_json::from_str(payload).ok()?,
            }
        } else {
            Decision::default()
        };
        Some(Line {
            id: Cow::Borrowed(id),
            kind: Cow::Borrowed(kind),
            actor_id: Cow::Borrowed(actor_id),
            parent_event_id: parent_event_id.map(Cow::Borrowed),
            caused_by: caused_by.into_iter().map(Cow::Borrowed).collect(),
            payload,
            integrity: Integrity {
                hash: Cow::Borrowed(hash),
            },
        })
    }

    /// A decision payload in the layout the registry writes (`registry/decision.rs`: members
    /// in code-point order) for a call under no budget and no quota, which is most calls;
    /// anything else — an approval, a budget, a quota, escapes — is left to serde. Walking
    /// it by serde was an eighth of the indexer's instructions (callgrind, 2026-11-27).
    pub(super) fn decision(text: &str) -> Option<Decision<'_>> {
        let mut at = Cursor { text, at: 0 };
        let agent_id = at.string_after("{\"agentId\":")?;
        at.literal(",\"allow\":")?;
        let allow = at.boolean()?;
        at.string_after(",\"boundary\":")?;
        let cap = at.string_after(",\"budget\":{},\"cap\":")?;
        at.literal(",\"package\":")?;
        let package = at.optional_string()?;
        at.string_after(",\"profile\":")?;
        at.string_after(",\"quota\":null,\"reason\":")?;
        at.literal(",\"requiredPermissions\":")?;
        at.strings()?;
        let rule = at.string_after(",\"rule\":")?;
        let session_id = at.string_after(",\"sessionId\":")?;
        at.literal(",\"tick\":")?;
        at.digits()?;
        at.literal("}")?;
        (at.at == text.len()).then(|| Decision {
            allow: Some(allow),
            cap: Some(Cow::Borrowed(cap)),
            rule: Some(Cow::Borrowed(rule)),
            agent_id: Some(Cow::Borrowed(agent_id)),
            session_id: Some(Cow::Borrowed(session_id)),
            package: package.map(Cow::Borrowed),
        })
    }

    struct Cursor<'a> {
        text: &'a str,
        at: usize,
    }

    impl<'a> Cursor<'a> {
        fn literal(&mut self, literal: &str) -> Option<()> {
            self.text[self.at..].starts_with(literal).then(|| {
                self.at += literal.len();
            })
        }

        /// `literal` (a member's name and what precedes it), then a string.
        fn string_after(&mut self, literal: &str) -> Option<&'a str> {
            self.literal(literal)?;
            self.string()
        }

        /// A string without escapes (one with any is left to serde). Its end is found by
        /// `memchr`, then checked whole for what would need an escape: two vectorized passes
        /// instead of one byte at a time.
        fn string(&mut self) -> Option<&'a str> {
            let rest = self.text[self.at..].strip_prefix('"')?;
            let len = memchr::memchr(b'"', rest.as_bytes())?;
            // Folded without stopping, so it vectorizes (`any` branches at every byte).
            let plain = !rest.as_bytes()[..len]
                .iter()
                .fold(false, |seen, &b| seen | (b == b'\\') | (b < 0x20));
            plain.then(|| {
                self.at += len + 2;
                &rest[..len]
            })
        }

        fn boolean(&mut self) -> Option<bool> {
            if self.literal("true").is_some() {
                return Some(true);
            }
            self.literal("false").map(|()| false)
        }

        /// A non-negative integer, without sign, fraction or exponent.
        fn digits(&mut self) -> Option<()> {
            let rest = &self.text.as_bytes()[self.at..];
            let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            (n > 0).then(|| {
                self.at += n;
            })
        }

        fn optional_string(&mut self) -> Option<Option<&'a str>> {
            if self.literal("null").is_some() {
                return Some(None);
            }
            self.string().map(Some)
        }

        fn strings(&mut self) -> Option<Vec<&'a str>> {
            self.literal("[")?;
            let mut all = Vec::new();
            if self.literal("]").is_some() {
                return Some(all);
            }
            loop {
                all.push(self.string()?);
                if self.literal("]").is_some() {
                    return Some(all);
                }
                self.literal(",")?;
            }
        }
    }
}

/// The event's own hash, to check the index against the segments.
#[derive(Deserialize)]
pub struct Integrity<'a> {
    #[serde(borrow)]
    pub hash: Cow<'a, str>,
}

/// Decision fields of a payload; all absent for payloads that are not objects or lack them.
#[derive(Default)]
pub struct Decision<'a> {
    pub allow: Option<bool>,
    pub cap: Option<Cow<'a, str>>,
    pub rule: Option<Cow<'a, str>>,
    pub agent_id: Option<Cow<'a, str>>,
    pub session_id: Option<Cow<'a, str>>,
    pub package: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Decision<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DecisionVisitor(std::marker::PhantomData))
    }
}

struct DecisionVisitor<'a>(std::marker::PhantomData<&'a ()>);

/// A string field, or `None` for null or any other type. Read by its own visitor: an untagged
/// enum would buffer every value before trying its variants.
struct MaybeStr<'a>(Option<Cow<'a, str>>);

impl<'a> MaybeStr<'a> {
    fn get(self) -> Option<Cow<'a, str>> {
        self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for MaybeStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MaybeStrVisitor(std::marker::PhantomData))
    }
}

struct MaybeStrVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for MaybeStrVisitor<'a> {
    type Value = MaybeStr<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(MaybeStr(Some(Cow::Borrowed(v))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(MaybeStr(Some(Cow::Owned(v.to_string()))))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(MaybeStr(Some(Cow::Owned(v))))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(MaybeStr(None))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(MaybeStr(None))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(MaybeStr(None))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(MaybeStr(None))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(MaybeStr(None))
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(MaybeStr(None))
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(MaybeStr(None))
    }
}

impl<'de: 'a, 'a> Visitor<'de> for DecisionVisitor<'a> {
    type Value = Decision<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an event payload")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut d = Decision::default();
        // Keys read as `MaybeStr`, borrowed from the line: serde reads a `Cow<str>` key into a
        // new `String` (4.6 % of the indexer in a profile, a third of reading a decision).
        while let Some(key) = map.next_key::<MaybeStr>()? {
            match key.0.as_deref().unwrap_or("") {
                "allow" => d.allow = map.next_value::<serde_json::Value>()?.as_bool(),
                "cap" => d.cap = map.next_value::<MaybeStr>()?.get(),
                "rule" => d.rule = map.next_value::<MaybeStr>()?.get(),
                "agentId" => d.agent_id = map.next_value::<MaybeStr>()?.get(),
                "sessionId" => d.session_id = map.next_value::<MaybeStr>()?.get(),
                "package" => d.package = map.next_value::<MaybeStr>()?.get(),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(d)
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Decision::default())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Decision::default())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Decision::default())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Decision::default())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Decision::default())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Decision::default())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Decision::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a `Line` holds, comparable.
    type Seen = (
        String,
        String,
        String,
        Option<String>,
        Vec<String>,
        String,
        (Option<bool>, [Option<String>; 5]),
    );

    fn seen(l: &Line) -> Seen {
        let d = &l.payload;
        let text = |v: &Option<Cow<str>>| v.as_deref().map(str::to_string);
        (
            l.id.to_string(),
            l.kind.to_string(),
            l.actor_id.to_string(),
            text(&l.parent_event_id),
            l.caused_by.iter().map(|c| c.to_string()).collect(),
            l.integrity.hash.to_string(),
            (
                d.allow,
                [
                    text(&d.cap),
                    text(&d.rule),
                    text(&d.agent_id),
                    text(&d.session_id),
                    text(&d.package),
                ],
            ),
        )
    }

    /// A decision payload as the registry writes it (members in code-point order): read
    /// directly for a call under no budget, quota or approval, and exactly as serde reads it;
    /// every other shape is left to serde.
    #[test]
    fn decisions_in_the_registrys_layout_read_directly_as_serde_reads_them() {
        use serde_json::json;
        let plain = json!({"agentId": "agent_1", "allow": true, "boundary": "registry",
            "budget": {}, "cap": "scene.queryEntities", "package": "scene",
            "profile": "builder.readWrite", "quota": null,
            "reason": "profile `builder.readWrite` grants it", "requiredPermissions": ["scene.read"],
            "rule": "profile.grant", "sessionId": "session_1", "tick": 42});
        let mut denied = plain.clone();
        denied["allow"] = json!(false);
        denied["package"] = json!(null);
        denied["requiredPermissions"] = json!([]);
        let mut two = plain.clone();
        two["requiredPermissions"] = json!(["scene.read", "scene.write"]);
        for (payload, direct) in [(plain.clone(), true), (denied, true), (two, true)] {
            let text = payload.to_string();
            let read = layout::decision(&text);
            assert_eq!(read.is_some(), direct, "{text}");
            let by_serde: Decision = serde_json::from_str(&text).unwrap();
            let fields = |d: &Decision| {
                (
                    d.allow,
                    [&d.cap, &d.rule, &d.agent_id, &d.session_id, &d.package]
                        .map(|v| v.as_deref().map(str::to_string)),
                )
            };
            assert_eq!(fields(&read.unwrap()), fields(&by_serde), "{text}");
        }
        let mut others = Vec::new();
        for (key, value) in [
            ("budget", json!({"calls": {"limit": 3, "used": 1}})),
            ("quota", json!({"key": "k", "limit": 1})),
            ("approval", json!({"outcome": "accepted"})),
            ("reason", json!("a \"quoted\" reason")),
            ("tick", json!(-1)),
            ("tick", json!(1.5)),
            ("allow", json!("yes")),
            ("cap", json!(null)),
        ] {
            let mut payload = plain.clone();
            payload[key] = value;
            others.push(payload.to_string());
        }
        let mut missing = plain.clone();
        missing.as_object_mut().unwrap().remove("rule");
        others.push(missing.to_string());
        others.push(format!("{plain} "));
        for text in others {
            assert!(layout::decision(&text).is_none(), "{text}");
        }
    }

    #[test]
    fn the_tracers_own_lines_read_directly_as_serde_reads_them() {
        use crate::trace::NewEvent;
        use serde_json::json;
        let decision = json!({"allow": false, "cap": "scene.createEntity", "rule": "r\u{e9} \"q\"",
            "agentId": "a", "sessionId": "s", "package": null, "quota": {"integrity": {"hash": "x"}}});
        let tricky = json!({"note": ",\"integrity\":{\"hash\":\"sha256:fake\"}}",
            "nested": {"integrity": {"hash": "sha256:inner", "previousHash": null}}});
        let cases = vec![
            (
                "policy.decision",
                "agent_1",
                None,
                vec![],
                decision.clone(),
                true,
            ),
            (
                "policy.denied",
                "agent_1",
                Some("evt_p"),
                vec!["evt_p", "evt_q"],
                decision,
                true,
            ),
            (
                "policy.decision",
                "agent_1",
                None,
                vec![],
                json!([1, 2]),
                true,
            ),
            (
                "skill.executed",
                "agent_1",
                Some("evt_p"),
                vec!["evt_p"],
                tricky,
                true,
            ),
            (
                "skill.executed",
                "h\u{f6}st",
                None,
                vec![],
                json!("text"),
                true,
            ),
            ("skill.executed", "ag\"ent", None, vec![], json!({}), false),
            (
                "policy.decision",
                "agent\n",
                None,
                vec![],
                json!({"allow": true}),
                false,
            ),
        ];
        let mut previous = None;
        for (seq, (kind, actor, parent, causes, payload, direct)) in cases.into_iter().enumerate() {
            let new = NewEvent {
                kind: kind.into(),
                actor_id: actor.into(),
                thread_id: "thread".into(),
                parent_event_id: parent.map(str::to_string),
                caused_by: causes.into_iter().map(str::to_string).collect(),
                payload,
            };
            let mut line = Vec::new();
            let sealed = crate::trace::event::seal(
                seq as u64 + 1,
                &new,
                previous.take(),
                "2026-11-25T00:00:00.000Z",
                &mut line,
            );
            let mut stored = line.clone();
            stored.push(b'\n');
            let by_serde: Line = serde_json::from_slice(&stored).unwrap();
            assert_eq!(layout::read(&stored).is_some(), direct, "{kind} by {actor}");
            let parsed = Line::parse(&stored).unwrap();
            assert_eq!(seen(&parsed), seen(&by_serde), "{kind} by {actor}");
            assert_eq!(parsed.integrity.hash, sealed.hash);
            // The integrity member is where the tracer's hashes put it, found without a search.
            let text = std::str::from_utf8(&line).unwrap();
            let at = layout::integrity_at(text).unwrap();
            assert_eq!(Some(at), text.rfind(layout::INTEGRITY), "{kind} by {actor}");
            assert!(
                layout::TAIL_LENGTHS.contains(&(text.len() - at)),
                "{kind} by {actor}"
            );
            previous = Some(sealed.hash);
        }
    }

    #[test]
    fn lines_in_any_other_shape_are_left_to_serde() {
        let other_order = br#"{"type":"policy.decision","id":"i","actorId":"a","payload":{"allow":true,"cap":"c"},"integrity":{"hash":"h"}}"#;
        assert!(layout::read(other_order).is_none());
        let l = Line::parse(other_order).unwrap();
        assert_eq!(
            (l.payload.allow, l.payload.cap.as_deref()),
            (Some(true), Some("c"))
        );
        let base = r#"{"id":"i","type":"t","actorId":"a","threadId":"s","parentEventId":null,"causedBy":[],"timestamp":"t","payload":{},"integrity":{"hash":"h","previousHash":null}}"#;
        assert!(layout::read(base.as_bytes()).is_some());
        for broken in [
            base.replace("}}", "}"),
            base.replace(r#""causedBy":[]"#, r#""causedBy":["x","#),
            base.replace(r#""previousHash":null"#, r#""previousHash":nul"#),
            format!("{base} x"),
            base.replace(r#""payload":{}"#, r#""payload":"#),
            base[..base.len() / 2].to_string(),
        ] {
            assert!(layout::read(broken.as_bytes()).is_none(), "{broken}");
            assert!(Line::parse(broken.as_bytes()).is_err(), "{broken}");
        }
    }

    #[test]
    fn decision_fields_are_read_and_other_payloads_skipped() {
        let line = br#"{"id":"evt_a_000000000002_0000000000000000","type":"policy.denied","actorId":"a","threadId":"s","parentEventId":null,"causedBy":["evt_a_000000000001_0000000000000000"],"timestamp":"t","payload":{"allow":false,"cap":"scene.createEntity","rule":"r\u00e9","agentId":"a","sessionId":"s","package":null,"quota":{"x":[1,2]}},"integrity":{"hash":"sha256:ab","previousHash":null}}"#;
        let l: Line = serde_json::from_slice(line).unwrap();
        assert_eq!(l.kind, "policy.denied");
        assert_eq!(l.caused_by.len(), 1);
        assert_eq!(l.payload.allow, Some(false));
        assert_eq!(l.payload.rule.as_deref(), Some("ré"));
        assert_eq!(l.payload.package, None);
        assert_eq!(l.integrity.hash, "sha256:ab");
        let odd = br#"{"id":"i","type":"policy.decision","actorId":"a","payload":{"cap":{"a":[1,"x"]},"rule":[1,"r"],"agentId":3,"sessionId":"s\n","package":true,"allow":"yes"},"integrity":{"hash":"h"}}"#;
        let l: Line = serde_json::from_slice(odd).unwrap();
        let d = &l.payload;
        assert_eq!(
            (d.cap.is_none(), d.rule.is_none(), d.agent_id.is_none()),
            (true, true, true)
        );
        assert_eq!(
            (d.session_id.as_deref(), d.package.is_none(), d.allow),
            (Some("s\n"), true, None)
        );
        for payload in ["[1,{\"a\":2}]", "\"text\"", "3.5", "null", "true"] {
            let line = format!(
                r#"{{"id":"i","type":"t","actorId":"a","payload":{payload},"integrity":{{"hash":"h"}}}}"#
            );
            let l: Line = serde_json::from_str(&line).unwrap();
            assert!(
                l.payload.allow.is_none() && l.payload.cap.is_none(),
                "{payload}"
            );
        }
    }
}
