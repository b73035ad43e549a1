//! `trace.tail`, `trace.explainEvent`, `trace.export`: the durable trace read back.

use super::{Builtin, Job, Spec, not_found, object};
use crate::call::{ErrorCode, Failure};
use crate::registry::Registry;
use crate::trace::{ExportRange, History, Tracer, check_export_name};
use serde_json::{Value, json};

pub(super) fn specs() -> Vec<Spec> {
    let events = json!({"type": "array", "items": {"type": "object"}});
    vec![
        Spec {
            builtin: Builtin::TraceTail,
            name: "trace.tail",
            description: "Page through the durable trace after a sequence cursor, optionally only one actor's events or one event type; pass nextAfterSeq back to continue.",
            input: object(
                json!({
                    "afterSeq": {"type": "integer", "minimum": -1, "description": "Return events after this sequence number; -1 (default) starts at the beginning."},
                    "limit": {"type": "integer", "minimum": 0, "maximum": 1000, "description": "Most events to return (default 100)."},
                    "actorId": {"type": "string", "description": "Only events by this actor."},
                    "type": {"type": "string", "description": "Only events of this type, e.g. policy.denied."}
                }),
                &[],
            ),
            output: object(
                json!({"events": events, "nextAfterSeq": {"type": ["integer", "null"]}}),
                &["events", "nextAfterSeq"],
            ),
        },
        Spec {
            builtin: Builtin::TraceExplainEvent,
            name: "trace.explainEvent",
            description: "Show one trace event with its causal parents and its children.",
            input: object(
                json!({"eventId": {"type": "string", "description": "A trace event id."}}),
                &["eventId"],
            ),
            output: object(
                json!({"event": {"type": "object"}, "parents": events, "children": events}),
                &["event", "parents", "children"],
            ),
        },
        Spec {
            builtin: Builtin::TraceExport,
            name: "trace.export",
            description: "Write the trace, or a range of it by sequence number or time, as JSONL to a bare file name inside the host's traces folder, streaming from the segments with progress; returns how many events and bytes were written.",
            input: object(
                json!({
                    "name": {"type": "string", "minLength": 1, "description": "A bare file name such as run-1.jsonl: letters, digits, '.', '_', '-'."},
                    "fromSeq": {"type": "integer", "minimum": 1, "description": "First event to write, by sequence number (inclusive)."},
                    "toSeq": {"type": "integer", "minimum": 1, "description": "Last event to write, by sequence number (inclusive)."},
                    "since": {"type": "string", "description": "Only events at or after this UTC time, e.g. 2026-11-23T07:00:00Z."},
                    "until": {"type": "string", "description": "Only events at or before this UTC time, e.g. 2026-11-23T08:00:00.500Z."}
                }),
                &["name"],
            ),
            output: object(
                json!({"name": {"type": "string"}, "events": {"type": "integer"}, "bytes": {"type": "integer"}}),
                &["name", "events", "bytes"],
            ),
        },
    ]
}

fn internal(e: anyhow::Error) -> Failure {
    Failure::new(
        ErrorCode::HandlerError,
        format!("reading the trace failed: {e:#}"),
    )
}

/// A `trace.tail` input's fields, with their defaults.
struct TailQuery<'a> {
    after: i64,
    limit: usize,
    actor: Option<&'a str>,
    kind: Option<&'a str>,
}

impl<'a> TailQuery<'a> {
    fn of(input: &'a Value) -> Self {
        TailQuery {
            after: input.get("afterSeq").and_then(Value::as_i64).unwrap_or(-1),
            limit: input.get("limit").and_then(Value::as_u64).unwrap_or(100) as usize,
            actor: input.get("actorId").and_then(Value::as_str),
            kind: input.get("type").and_then(Value::as_str),
        }
    }

    /// Whether `tracer`'s window holds this page, few enough events to answer on the engine
    /// (see [`Tracer::tail_in_window`]).
    fn in_window(&self, tracer: &Tracer) -> bool {
        let filtered = self.actor.is_some() || self.kind.is_some();
        tracer.tail_in_window(self.after, self.limit, filtered)
    }

    fn page(&self, history: &mut History) -> Result<Value, Failure> {
        let (events, next) = history
            .tail(self.after, self.limit, self.actor, self.kind)
            .map_err(internal)?;
        Ok(json!({"events": events, "nextAfterSeq": next}))
    }
}

pub(super) fn tail(history: &mut History, input: &Value) -> Result<Value, Failure> {
    TailQuery::of(input).page(history)
}

/// Whether the page `input` asks for is one the window holds, few enough events to answer on
/// the engine. Read from the input before it is validated: it only says where the call runs,
/// and both places refuse a bad input the same way.
pub(super) fn tail_in_window(tracer: &Tracer, input: &Value) -> bool {
    TailQuery::of(input).in_window(tracer)
}

/// `trace.tail` on the engine: from the window alone when it holds the page, else from the
/// whole history. (Asked again here, not taken from the routing: the engine also answers
/// reads itself while the trace cannot be written or a hook wraps them, and the call's own
/// decision has joined the window since.)
pub(super) fn tail_on_engine(tracer: &mut Tracer, input: &Value) -> Result<Value, Failure> {
    let query = TailQuery::of(input);
    if query.in_window(tracer) {
        query.page(&mut tracer.window_history())
    } else {
        query.page(&mut tracer.history())
    }
}

pub(super) fn explain_event(history: &mut History, input: &Value) -> Result<Value, Failure> {
    let id = input["eventId"].as_str().unwrap_or_default();
    let tracer = history;
    let event = tracer
        .get(id)
        .ok_or_else(|| not_found(format!("`eventId`: no event `{id}` in the trace")))?;
    let mut parent_ids: Vec<&String> = event.parent_event_id.iter().collect();
    parent_ids.extend(
        event
            .caused_by
            .iter()
            .filter(|c| Some(*c) != event.parent_event_id.as_ref()),
    );
    let parents: Vec<_> = parent_ids
        .into_iter()
        .filter_map(|p| tracer.get(p))
        .collect();
    let children = tracer.children_of(id);
    Ok(json!({"event": event, "parents": parents, "children": children}))
}

/// The export, prepared on the engine (input checked, the history as it stands) to write on
/// any thread; a refused input comes back as a job that fails with it.
pub(super) fn export(registry: &mut Registry, input: &Value) -> Job {
    match prepare_export(registry, input) {
        Ok(job) => job,
        Err(failure) => Box::new(move || Err(failure)),
    }
}

fn prepare_export(registry: &mut Registry, input: &Value) -> Result<Job, Failure> {
    let name = input["name"].as_str().unwrap_or_default().to_string();
    check_export_name(&name)
        .map_err(|e| Failure::new(ErrorCode::InvalidInput, format!("`name`: {e}")))?;
    let range = ExportRange {
        from_seq: input.get("fromSeq").and_then(Value::as_u64),
        to_seq: input.get("toSeq").and_then(Value::as_u64),
        since: time_bound(input, "since", false)?,
        until: time_bound(input, "until", true)?,
    };
    if let (Some(from), Some(to)) = (range.from_seq, range.to_seq)
        && from > to
    {
        return Err(Failure::new(
            ErrorCode::InvalidInput,
            format!("`fromSeq` ({from}) must not be after `toSeq` ({to})"),
        ));
    }
    let dir = registry.traces_dir.clone().ok_or_else(|| {
        Failure::new(
            ErrorCode::HandlerError,
            "this host has no traces folder; start it with --trace-dir",
        )
    })?;
    let control = registry.control.clone();
    let export = registry.realm_mut().tracer.export_snapshot();
    Ok(Box::new(move || {
        let (events, bytes) = export
            .write(&dir, &name, &range, &mut |done, total| {
                control.report(done as f64, Some(total as f64), "exporting the trace")
            })
            .map_err(internal)?;
        Ok(json!({"name": name, "events": events, "bytes": bytes}))
    }))
}

/// A time bound in the trace's own format (`YYYY-MM-DDTHH:MM:SS.mmmZ`) so that it compares
/// with event timestamps as text. Accepts UTC RFC 3339 with or without a fraction; an `until`
/// without one covers its whole second.
fn time_bound(input: &Value, field: &str, end: bool) -> Result<Option<String>, Failure> {
    let Some(text) = input.get(field).and_then(Value::as_str) else {
        return Ok(None);
    };
    let bad = || {
        Failure::new(
            ErrorCode::InvalidInput,
            format!(
                "`{field}`: `{text}` is not a UTC time like 2026-11-23T07:00:00Z or 2026-11-23T07:00:00.250Z"
            ),
        )
    };
    let body = text.strip_suffix('Z').ok_or_else(bad)?;
    let (secs, fraction) = body.split_once('.').unwrap_or((body, ""));
    let shape = secs.len() == 19
        && secs.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            10 => b == b'T',
            13 | 16 => b == b':',
            _ => b.is_ascii_digit(),
        });
    if !shape || !fraction.bytes().all(|b| b.is_ascii_digit()) || body.ends_with('.') {
        return Err(bad());
    }
    let millis = match fraction.len() {
        0 if end => "999".to_string(),
        _ => format!("{:0<3}", &fraction[..fraction.len().min(3)]),
    };
    Ok(Some(format!("{secs}.{millis}Z")))
}
