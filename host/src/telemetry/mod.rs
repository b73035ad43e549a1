//! OpenTelemetry export, for operators who watch their agents in an OpenTelemetry backend.
//! Off unless `--otlp-endpoint` or `OTEL_EXPORTER_OTLP_ENDPOINT` names a collector. Each
//! JSON-RPC request becomes a SERVER span under the MCP semantic conventions, with children
//! for the policy decision, the hooks and the guest call, plus the
//! `mcp.server.operation.duration` metric, posted over OTLP/HTTP (protobuf).
//!
//! The MCP layer hands plain [`RequestRecord`]s to a [`Recorder`] (a bounded queue, never
//! waited on); spans are built and sent on the export thread. The registry only says what
//! happened ([`crate::call::CallStages`]) and knows nothing of this module.

mod config;
mod export;
mod http_client;
mod metrics;
mod record;
pub mod signals;
mod spans;

pub use config::{
    ConfigError, DEFAULT_SERVICE_NAME, ENDPOINT_FLAG, ENDPOINT_VAR, OtlpConfig, TRACES_ENDPOINT_VAR,
};
pub use export::{Exporting, Recorder, start};
pub use record::{NetworkTransport, Outcome, RequestRecord};
pub use spans::{AFTER_HOOKS_SPAN, BEFORE_HOOKS_SPAN, DURATION_METRIC, GUEST_SPAN, POLICY_SPAN};
