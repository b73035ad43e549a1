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
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
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
