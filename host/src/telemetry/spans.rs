//! One request as OpenTelemetry data, following the MCP semantic conventions: a SERVER span
//! named `{mcp.method.name} {target}` (a child of the caller's `traceparent` when it sent a
//! valid one), with children for the policy decision, the hooks and the guest call, and one
//! `mcp.server.operation.duration` measurement. Runs on the export thread, never the engine.

use super::record::{Outcome, RequestRecord};
use crate::call::Stage;
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracer;

/// The name the host's instruments are reported under (the instrumentation scope).
pub const SCOPE: &str = "limina";

/// The metric every request adds to, in seconds.
pub const DURATION_METRIC: &str = "mcp.server.operation.duration";

/// Bucket bounds of the duration histogram, in seconds: skill calls take tens of
/// microseconds to seconds, finer than the specification's advice (which starts at 10 ms).
pub const DURATION_BOUNDS: [f64; 18] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Child span names.
pub const POLICY_SPAN: &str = "limina.policy.decide";
pub const BEFORE_HOOKS_SPAN: &str = "limina.hooks.before";
pub const AFTER_HOOKS_SPAN: &str = "limina.hooks.after";
pub const GUEST_SPAN: &str = "limina.guest.invoke";

/// What turns records into telemetry.
pub struct Instruments {
    tracer: SdkTracer,
    duration: opentelemetry::metrics::Histogram<f64>,
    propagator: TraceContextPropagator,
}

impl Instruments {
    /// Spans go to `tracer`'s processor, durations to `duration`.
    pub fn new(tracer: SdkTracer, duration: opentelemetry::metrics::Histogram<f64>) -> Self {
        Instruments {
            tracer,
            duration,
            propagator: TraceContextPropagator::new(),
        }
    }

    /// Records `record`: its spans (handed to the tracer's processor as they end) and its
    /// duration.
    pub fn record(&self, record: &RequestRecord) {
        let error_type = record.error_type();
        let mut metric_attributes = vec![
            KeyValue::new("mcp.method.name", record.method.clone()),
            KeyValue::new("network.transport", record.transport.as_str()),
        ];
        if let Some(tool) = &record.tool {
            metric_attributes.push(KeyValue::new("gen_ai.tool.name", tool.clone()));
            metric_attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        if let Some(error_type) = &error_type {
            metric_attributes.push(KeyValue::new("error.type", error_type.clone()));
        }
        if let Outcome::RpcError(code) = &record.outcome {
            metric_attributes.push(KeyValue::new("rpc.response.status_code", code.to_string()));
        }
        if let Some(version) = &record.protocol_version {
            metric_attributes.push(KeyValue::new("mcp.protocol.version", version.clone()));
        }
        let seconds = record
            .ended
            .saturating_duration_since(record.started)
            .as_secs_f64();
        self.duration.record(seconds, &metric_attributes);

        let mut attributes = metric_attributes;
        attributes.push(KeyValue::new(
            "jsonrpc.request.id",
            record.request_id.clone(),
        ));
        attributes.push(KeyValue::new("jsonrpc.protocol.version", "2.0"));
        if let Some(session) = &record.session_id {
            attributes.push(KeyValue::new("mcp.session.id", session.clone()));
        }
        match &record.outcome {
            Outcome::RpcError(code) => {
                attributes.push(KeyValue::new("rpc.jsonrpc.error_code", *code));
            }
            Outcome::ToolError(code) => {
                attributes.push(KeyValue::new("limina.error.code", code.clone()));
            }
            Outcome::Ok | Outcome::Cancelled => {}
        }
        let parent = self.propagator.extract(&CallerContext(record));
        let span = self
            .tracer
            .span_builder(record.span_name())
            .with_kind(SpanKind::Server)
            .with_start_time(record.started_at)
            .with_attributes(attributes)
            .start_with_context(&self.tracer, &parent);
        let cx = parent.with_span(span);
        if let Some(error_type) = error_type {
            cx.span().set_status(Status::error(error_type));
        }
        self.children(&cx, record);
        cx.span().end_with_timestamp(record.wall_time(record.ended));
    }

    /// The stages of the call, as children of the request span in `cx`.
    fn children(&self, cx: &Context, record: &RequestRecord) {
        let stages = &record.stages;
        if let Some(policy) = &stages.policy {
            let decision = if policy.allow { "allow" } else { "deny" };
            self.child(
                cx,
                record,
                POLICY_SPAN,
                policy.stage,
                vec![
                    KeyValue::new("limina.policy.decision", decision),
                    KeyValue::new("limina.policy.rule", policy.rule),
                ],
                (!policy.allow).then_some("forbidden"),
            );
        }
        if let Some(stage) = stages.before_hooks {
            self.child(cx, record, BEFORE_HOOKS_SPAN, stage, Vec::new(), None);
        }
        if let Some(guest) = &stages.guest {
            let mut attributes = vec![
                KeyValue::new("limina.package.name", guest.package.clone()),
                KeyValue::new("limina.package.version", guest.package_version.clone()),
                KeyValue::new("limina.fuel.used", guest.fuel_used as i64),
                KeyValue::new("limina.memory.peak_bytes", guest.peak_memory_bytes as i64),
            ];
            if let Some(tool) = &record.tool {
                attributes.push(KeyValue::new("gen_ai.tool.name", tool.clone()));
            }
            self.child(cx, record, GUEST_SPAN, guest.stage, attributes, None);
        }
        if let Some(stage) = stages.after_hooks {
            self.child(cx, record, AFTER_HOOKS_SPAN, stage, Vec::new(), None);
        }
    }

    fn child(
        &self,
        cx: &Context,
        record: &RequestRecord,
        name: &'static str,
        stage: Stage,
        attributes: Vec<KeyValue>,
        error: Option<&'static str>,
    ) {
        use opentelemetry::trace::Span;
        let mut span = self
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Internal)
            .with_start_time(record.wall_time(stage.started))
            .with_attributes(attributes)
            .start_with_context(&self.tracer, cx);
        if let Some(error) = error {
            span.set_status(Status::error(error));
        }
        span.end_with_timestamp(record.wall_time(stage.ended));
    }
}

/// The caller's trace context, as `params._meta` carried it.
struct CallerContext<'a>(&'a RequestRecord);

impl Extractor for CallerContext<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.0.traceparent.as_deref(),
            "tracestate" => self.0.tracestate.as_deref(),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{CallStages, GuestStage, PolicyStage};
    use crate::telemetry::export::Finished;
    use crate::telemetry::record::tests::sample;
    use opentelemetry::metrics::MeterProvider as _;
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_sdk::metrics::SdkMeterProvider;
    use opentelemetry_sdk::trace::SdkTracerProvider;
    use std::time::Duration;

    fn record_spans(record: &RequestRecord) -> Vec<opentelemetry_sdk::trace::SpanData> {
        let finished = Finished::default();
        let tracers = SdkTracerProvider::builder()
            .with_span_processor(finished.clone())
            .build();
        let meters = SdkMeterProvider::builder().build();
        let instruments = Instruments::new(
            tracers.tracer(SCOPE),
            meters.meter(SCOPE).f64_histogram(DURATION_METRIC).build(),
        );
        instruments.record(record);
        finished.take()
    }

    #[test]
    fn a_call_is_a_server_span_under_the_callers_trace_with_its_stages_as_children() {
        let mut record = sample();
        record.traceparent = Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into());
        let at = |half_ms: u64| record.started + Duration::from_micros(half_ms * 500);
        let stage = |from: u64, to: u64| Stage::new(at(from), at(to));
        record.stages = CallStages {
            policy: Some(PolicyStage {
                stage: stage(0, 1),
                allow: true,
                rule: "profile.allow",
            }),
            before_hooks: None,
            guest: Some(GuestStage {
                stage: stage(1, 5),
                fuel_used: 1234,
                peak_memory_bytes: 65536,
                package: "scene".into(),
                package_version: "0.1.0".into(),
            }),
            after_hooks: None,
        };
        let spans = record_spans(&record);
        let server = spans
            .iter()
            .find(|s| s.span_kind == SpanKind::Server)
            .unwrap();
        assert_eq!(server.name, "tools/call scene.createEntity");
        assert_eq!(
            server.span_context.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(server.parent_span_id.to_string(), "00f067aa0ba902b7");
        let names: Vec<_> = spans
            .iter()
            .filter(|s| s.parent_span_id == server.span_context.span_id())
            .map(|s| s.name.as_ref())
            .collect();
        assert_eq!(names, [POLICY_SPAN, GUEST_SPAN]);
        let guest = spans.iter().find(|s| s.name == GUEST_SPAN).unwrap();
        assert!(
            guest
                .attributes
                .contains(&KeyValue::new("limina.fuel.used", 1234_i64))
        );
        assert!(guest.start_time >= server.start_time && guest.end_time <= server.end_time);
    }

    #[test]
    fn a_caller_trace_marked_not_sampled_gets_no_spans() {
        let mut record = sample();
        record.traceparent = Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00".into());
        assert!(record_spans(&record).is_empty());
    }

    #[test]
    fn a_malformed_traceparent_starts_a_fresh_trace() {
        let mut record = sample();
        record.traceparent = Some("00-zz-01".into());
        let spans = record_spans(&record);
        assert_eq!(spans.len(), 1);
        assert_eq!(
            spans[0].parent_span_id,
            opentelemetry::trace::SpanId::INVALID
        );
    }
}
