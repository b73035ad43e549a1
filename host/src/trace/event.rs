//! The event shape, its id and its place in the hash chain.

use super::NewEvent;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::time::SystemTime;

/// A trace event as stored and served.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub actor_id: String,
    pub thread_id: String,
    pub parent_event_id: Option<String>,
    pub caused_by: Vec<String>,
    pub timestamp: String,
    pub payload: Value,
    pub integrity: Integrity,
}

/// The event's link in the chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Integrity {
    pub hash: String,
    pub previous_hash: Option<String>,
}

/// A new event sealed: its id and chain hash. Its stored line went to the buffer [`seal`]
/// was given.
pub(super) struct Sealed {
    pub id: String,
    pub hash: String,
}

/// Gives a new event its id, timestamp and hash, chained after `previous_hash`, and writes its
/// line (without newline) into `line`, which is cleared first. The payload is serialized once,
/// for the id, the hash and the line, and never held as a `Value` here (this runs for every
/// event on the call path). Its JSON must be canonical (object keys in code-point order, as a
/// `Value` is and as debug builds check).
pub(super) fn seal<P: super::Payload, S: AsRef<str>>(
    seq: u64,
    new: &NewEvent<P, S>,
    previous_hash: Option<String>,
    timestamp: &str,
    line: &mut Vec<u8>,
) -> Sealed {
    SCRATCH.with_borrow_mut(|scratch| {
        let Scratch {
            payload, canonical, ..
        } = scratch;
        payload.clear();
        new.payload.write_json(payload);
        debug_assert_eq!(
            std::str::from_utf8(payload).expect("payloads are written as UTF-8"),
            canonical_json(&serde_json::from_slice(payload).expect("serialized JSON parses")),
            "an event payload must serialize with its keys in code-point order"
        );
        let mut fingerprint = IdHash::default();
        fingerprint.word(seq);
        let (kind, actor_id) = (new.kind.as_ref(), new.actor_id.as_ref());
        for part in [kind.as_bytes(), actor_id.as_bytes(), payload] {
            fingerprint.part(part);
        }
        let id = event_id(actor_id, seq, fingerprint.finish());
        let body = Body {
            actor_id,
            caused_by: &new.caused_by,
            id: &id,
            parent_event_id: new.parent_event_id.as_ref().map(AsRef::as_ref),
            payload,
            thread_id: new.thread_id.as_ref(),
            timestamp,
            kind,
        };
        line.clear();
        let spans = body.write_members(line);
        let integrity = Integrity {
            hash: hash_canonical(line, &spans, previous_hash.as_deref(), canonical),
            previous_hash,
        };
        close_line(line, &integrity);
        keep_small(payload);
        keep_small(canonical);
        Sealed {
            id,
            hash: integrity.hash,
        }
    })
}

/// What a buffer kept between events may keep: one large event (a big tool input, a long
/// checkpoint summary) gives back what it grew the buffer to.
const KEPT_BUFFER_BYTES: usize = 64 << 10;

/// Frees `buffer` if an event grew it past [`KEPT_BUFFER_BYTES`].
pub(super) fn keep_small(buffer: &mut Vec<u8>) {
    if buffer.capacity() > KEPT_BUFFER_BYTES {
        *buffer = Vec::new();
    }
}

/// `evt_<actor>_<seq, 12 digits>_<fingerprint, 16 hex>`, written digit by digit: through
/// `format!` its padding machinery was a visible share of sealing.
fn event_id(actor: &str, seq: u64, fingerprint: u64) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = Vec::with_capacity(4 + actor.len() + 1 + 20 + 1 + 16);
    id.extend_from_slice(b"evt_");
    id.extend_from_slice(actor.as_bytes());
    id.push(b'_');
    // Decimal digits, least significant first, then reversed: at least 12 of them.
    let start = id.len();
    let mut rest = seq;
    while rest > 0 || id.len() - start < 12 {
        id.push(b'0' + (rest % 10) as u8);
        rest /= 10;
    }
    id[start..].reverse();
    id.push(b'_');
    id.extend(
        (0..16)
            .rev()
            .map(|i| HEX[(fingerprint >> (i * 4)) as usize & 0xf]),
    );
    String::from_utf8(id).expect("an actor id is UTF-8 and the rest ASCII")
}

/// An event's fields without `integrity`, its payload as canonical JSON.
struct Body<'a, S> {
    actor_id: &'a str,
    caused_by: &'a [S],
    id: &'a str,
    parent_event_id: Option<&'a str>,
    payload: &'a [u8],
    thread_id: &'a str,
    timestamp: &'a str,
    kind: &'a str,
}

/// Where each of a body's values lies in its stored line, in canonical order (the indices
/// below).
type Spans = [(usize, usize); 8];
const ACTOR_ID: usize = 0;
const CAUSED_BY: usize = 1;
const ID: usize = 2;
const PARENT_EVENT_ID: usize = 3;
const PAYLOAD: usize = 4;
const THREAD_ID: usize = 5;
const TIMESTAMP: usize = 6;
const TYPE: usize = 7;

/// The canonical members' names in code-point order, each with the punctuation before it.
const CANONICAL_NAMES: [&[u8]; 8] = [
    b"{\"actorId\":",
    b",\"causedBy\":",
    b",\"id\":",
    b",\"parentEventId\":",
    b",\"payload\":",
    b",\"threadId\":",
    b",\"timestamp\":",
    b",\"type\":",
];

impl<S: AsRef<str>> Body<'_, S> {
    /// `sha256:` + hex of the canonical JSON, then the previous hash.
    fn hash(&self, previous: Option<&str>) -> String {
        SCRATCH.with_borrow_mut(|scratch| {
            let Scratch {
                line, canonical, ..
            } = scratch;
            line.clear();
            let spans = self.write_members(line);
            let hash = hash_canonical(line, &spans, previous, canonical);
            keep_small(line);
            keep_small(canonical);
            hash
        })
    }

    /// The stored line's members in [`Event`]'s order (so it reads back as one) — id, type,
    /// actorId, threadId, parentEventId, causedBy, timestamp, payload — leaving the object open
    /// for `integrity`. Each value is written (and its strings checked for escapes) once; the
    /// canonical form is copied from the line.
    fn write_members(&self, line: &mut Vec<u8>) -> Spans {
        let mut spans = [(0, 0); 8];
        spans[ID] = member(line, b"{\"id\":", |l| write_str(l, self.id));
        spans[TYPE] = member(line, b",\"type\":", |l| write_str(l, self.kind));
        spans[ACTOR_ID] = member(line, b",\"actorId\":", |l| write_str(l, self.actor_id));
        spans[THREAD_ID] = member(line, b",\"threadId\":", |l| write_str(l, self.thread_id));
        spans[PARENT_EVENT_ID] = member(line, b",\"parentEventId\":", |l| {
            write_opt_str(l, self.parent_event_id)
        });
        spans[CAUSED_BY] = member(line, b",\"causedBy\":", |l| write_strs(l, self.caused_by));
        spans[TIMESTAMP] = member(line, b",\"timestamp\":", |l| write_str(l, self.timestamp));
        spans[PAYLOAD] = member(line, b",\"payload\":", |l| {
            l.extend_from_slice(self.payload)
        });
        spans
    }
}

/// `name` (with the punctuation before it), then the value `write` writes: where the value
/// lies.
fn member(line: &mut Vec<u8>, name: &[u8], write: impl FnOnce(&mut Vec<u8>)) -> (usize, usize) {
    line.extend_from_slice(name);
    let start = line.len();
    write(line);
    (start, line.len())
}

/// `sha256:` + hex of the canonical form — the values at `spans` of `line` under their names
/// in code-point order — then of `previous`. The form is assembled in `canonical` and hashed in
/// one piece: streamed, it reached the hasher as dozens of small updates, each with its own
/// bookkeeping.
fn hash_canonical(
    line: &[u8],
    spans: &Spans,
    previous: Option<&str>,
    canonical: &mut Vec<u8>,
) -> String {
    canonical.clear();
    for (name, &(start, end)) in CANONICAL_NAMES.iter().zip(spans) {
        canonical.extend_from_slice(name);
        canonical.extend_from_slice(&line[start..end]);
    }
    canonical.push(b'}');
    digest(canonical, previous)
}

/// `sha256:` + hex of `canonical` followed by `previous`: an event's chain hash.
fn digest(canonical: &[u8], previous: Option<&str>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(canonical);
    if let Some(prev) = previous {
        hasher.update(prev.as_bytes());
    }
    let mut digits = [0u8; 64];
    hex::encode_to_slice(hasher.finalize(), &mut digits).expect("64 digits for 32 bytes");
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    text.push_str(std::str::from_utf8(&digits).expect("hex digits are ASCII"));
    text
}

/// Ends a line [`Body::write_members`] began: `integrity`, and the object closed.
fn close_line(line: &mut Vec<u8>, integrity: &Integrity) {
    line.extend_from_slice(b",\"integrity\":{\"hash\":");
    write_str(line, &integrity.hash);
    line.extend_from_slice(b",\"previousHash\":");
    write_opt_str(line, integrity.previous_hash.as_deref());
    line.extend_from_slice(b"}}");
}

/// `text` as a JSON string. Ids, hashes, types and timestamps are plain ASCII: copied as they
/// are after one pass that the compiler vectorizes, where serde's escaper looks up every byte
/// (the chain's two hashes alone were 3 % of the engine thread). Anything else goes to serde.
/// The check is folded, not `all`: `all`'s exit at each byte kept it from vectorizing (4 % of
/// the engine thread's instructions under callgrind, 2026-11-27).
fn write_str(out: &mut Vec<u8>, text: &str) {
    let plain = |b: u8| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\';
    if text.bytes().fold(true, |all, b| all & plain(b)) {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        serde_json::to_writer(out, text).expect("strings serialize");
    }
}

/// `texts` as a JSON array of strings, each through [`write_str`].
fn write_strs<S: AsRef<str>>(out: &mut Vec<u8>, texts: &[S]) {
    out.push(b'[');
    for (i, text) in texts.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, text.as_ref());
    }
    out.push(b']');
}

/// `text` through [`write_str`], or `null`.
fn write_opt_str(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        Some(text) => write_str(out, text),
        None => out.extend_from_slice(b"null"),
    }
}

/// A JSON object written member by member, for a payload that writes itself
/// ([`super::Payload`]): the caller gives the members in code-point order of their names.
/// Plain strings are copied after one vectorized check, as the event's own fields are.
pub struct JsonWriter<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> JsonWriter<'a> {
    /// Opens the object in `out`.
    pub fn object(out: &'a mut Vec<u8>) -> JsonWriter<'a> {
        out.push(b'{');
        JsonWriter { out, first: true }
    }

    /// The member's name, copied as it is: names are the code's own plain literals.
    fn name(&mut self, name: &'static str) -> &mut Vec<u8> {
        debug_assert!(
            name.bytes().all(|b| b.is_ascii_alphanumeric()),
            "a payload member name needs no escaping: {name}"
        );
        self.out
            .extend_from_slice(if self.first { b"\"" } else { b",\"" });
        self.first = false;
        self.out.extend_from_slice(name.as_bytes());
        self.out.extend_from_slice(b"\":");
        self.out
    }

    pub fn str(&mut self, name: &'static str, value: &str) -> &mut Self {
        let out = self.name(name);
        write_str(out, value);
        self
    }

    /// A string, or `null`.
    pub fn opt_str(&mut self, name: &'static str, value: Option<&str>) -> &mut Self {
        let out = self.name(name);
        write_opt_str(out, value);
        self
    }

    pub fn strs(&mut self, name: &'static str, values: &[&str]) -> &mut Self {
        let out = self.name(name);
        write_strs(out, values);
        self
    }

    pub fn bool(&mut self, name: &'static str, value: bool) -> &mut Self {
        let text: &[u8] = if value { b"true" } else { b"false" };
        self.name(name).extend_from_slice(text);
        self
    }

    pub fn u64(&mut self, name: &'static str, value: u64) -> &mut Self {
        let mut digits = itoa::Buffer::new();
        let text = digits.format(value);
        self.name(name).extend_from_slice(text.as_bytes());
        self
    }

    /// Any other value, through serde (it must serialize canonically).
    pub fn value(&mut self, name: &'static str, value: &impl Serialize) -> &mut Self {
        let out = self.name(name);
        serde_json::to_writer(out, value).expect("payload values serialize");
        self
    }

    /// Closes the object.
    pub fn end(&mut self) {
        self.out.push(b'}');
    }
}

impl Event {
    /// `sha256:` + hex of the canonical JSON without `integrity`, then the previous hash.
    pub fn compute_hash(&self) -> String {
        let payload = canonical_json(&self.payload);
        Body {
            actor_id: &self.actor_id,
            caused_by: &self.caused_by,
            id: &self.id,
            parent_event_id: self.parent_event_id.as_deref(),
            payload: payload.as_bytes(),
            thread_id: &self.thread_id,
            timestamp: &self.timestamp,
            kind: &self.kind,
        }
        .hash(self.integrity.previous_hash.as_deref())
    }

    /// The sequence number in the event's id, or `None` if the id is not ours.
    pub fn seq(&self) -> Option<u64> {
        seq_of_id(&self.id)
    }
}

/// The sequence number in an id `evt_<actorId>_<seq, 12 digits>_<16 hex>`. Read at fixed
/// places from the right, because actor ids may themselves contain underscores (the indexer
/// reads two or three ids per event: split by `_`, a twentieth of its time).
pub fn seq_of_id(id: &str) -> Option<u64> {
    let b = id.as_bytes();
    let n = b.len();
    // "evt_" + actor, "_", 12 digits, "_", 16 characters without "_".
    if n < 4 + 1 + 12 + 1 + 16 || !b.starts_with(b"evt_") {
        return None;
    }
    let (seq, hash) = (&b[n - 29..n - 17], &b[n - 16..]);
    let well_formed = b[n - 30] == b'_'
        && b[n - 17] == b'_'
        && !hash.contains(&b'_')
        && seq.iter().all(u8::is_ascii_digit);
    if !well_formed {
        return None;
    }
    Some(seq.iter().fold(0, |v, d| v * 10 + u64::from(d - b'0')))
}

/// The chain hash of an event body (the event without `integrity`) following `previous`.
/// Works on plain JSON so a verifier needs nothing but the stored line.
pub(super) fn chain_hash(body: &Value, previous: Option<&str>) -> String {
    digest(canonical_json(body).as_bytes(), previous)
}

/// Object keys sorted by code point, no whitespace. serde_json's default map is ordered by
/// key bytes, which for UTF-8 is code point order, so plain serialization is canonical.
pub fn canonical_json(value: &Value) -> String {
    serde_json::to_string(value).expect("JSON values serialize")
}

thread_local! {
    /// The buffers events are sealed and hashed in, kept for their capacity.
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

#[derive(Default)]
struct Scratch {
    /// The payload being sealed.
    payload: Vec<u8>,
    /// The canonical form being hashed.
    canonical: Vec<u8>,
    /// The line of an event hashed again ([`Event::compute_hash`]).
    line: Vec<u8>,
}

/// The 64-bit fingerprint in an event's id (of its seq, type, actor and payload), read a word
/// at a time: the id only has to tell events apart, and the byte-at-a-time FNV-1a it replaced
/// took about half a microsecond per event on the call path. Stable across hosts and
/// versions, being this code on little-endian words; ids already issued are never recomputed.
struct IdHash(u64);

impl Default for IdHash {
    fn default() -> Self {
        IdHash(0xcbf2_9ce4_8422_2325)
    }
}

impl IdHash {
    const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

    fn word(&mut self, word: u64) {
        self.0 = (self.0 ^ word)
            .wrapping_mul(Self::MULTIPLIER)
            .rotate_left(29);
    }

    /// `bytes`, then their length, so that ("ab", "c") and ("a", "bc") differ.
    fn part(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.word(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(last));
        }
        self.word(bytes.len() as u64);
    }

    fn finish(&self) -> u64 {
        let h = (self.0 ^ (self.0 >> 32)).wrapping_mul(Self::MULTIPLIER);
        h ^ (h >> 29)
    }
}

/// The current time as ISO 8601, formatted once per millisecond: under load many events
/// share one.
#[derive(Debug, Default)]
pub(super) struct Stamp {
    ms: u128,
    text: String,
}

impl Stamp {
    pub fn now(&mut self) -> &str {
        let now = SystemTime::now();
        let ms = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        if ms != self.ms || self.text.is_empty() {
            self.ms = ms;
            self.text = iso8601(now);
        }
        &self.text
    }
}

/// The current UTC time as ISO 8601.
pub(super) fn now_iso8601() -> String {
    iso8601(SystemTime::now())
}

/// UTC time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn iso8601(t: SystemTime) -> String {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, day) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
pub(super) fn iso8601_for_test(secs: u64) -> String {
    iso8601(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::IdHash;

    fn fingerprint(seq: u64, parts: &[&str]) -> u64 {
        let mut h = IdHash::default();
        h.word(seq);
        for part in parts {
            h.part(part.as_bytes());
        }
        h.finish()
    }

    /// An event gets the same id on every machine and build (seeded hosts give the same trace
    /// twice): the value for a fixed event is pinned. Every field, and where the parts meet,
    /// changes it.
    #[test]
    fn the_id_fingerprint_is_pinned_and_sees_every_part() {
        let base = fingerprint(7, &["policy.decision", "ada", r#"{"allow":true}"#]);
        assert_eq!(format!("{base:016x}"), "2f2266578ce34d11");
        for other in [
            fingerprint(8, &["policy.decision", "ada", r#"{"allow":true}"#]),
            fingerprint(7, &["policy.denied", "ada", r#"{"allow":true}"#]),
            fingerprint(7, &["policy.decision", "adb", r#"{"allow":true}"#]),
            fingerprint(7, &["policy.decision", "ada", r#"{"allow":false}"#]),
            fingerprint(7, &["policy.decisio", "nada", r#"{"allow":true}"#]),
            fingerprint(7, &["policy.decision", "ada", r#"{"allow":true} "#]),
        ] {
            assert_ne!(other, base);
        }
        assert_eq!(
            super::event_id("ada", 7, base),
            format!("evt_ada_{:012}_{base:016x}", 7)
        );
        assert_eq!(
            super::event_id("a_b", 1_234_567_890_123, 0xab),
            "evt_a_b_1234567890123_00000000000000ab"
        );
        // Trailing zero bytes are not lost in the last word's padding.
        assert_ne!(fingerprint(1, &["ab"]), fingerprint(1, &["ab\0"]));
    }
}
