//! The `mcp.server.operation.duration` histogram and how it reaches the collector: the SDK's
//! periodic reader (a thread of its own) posts it through the OTLP metric exporter, wrapped so
//! that a failing export is logged instead of kept silent.

use super::config::OtlpConfig;
use super::http_client::OtlpHttp;
use super::spans::{DURATION_BOUNDS, DURATION_METRIC, SCOPE};
use anyhow::{Context as _, Result};
use opentelemetry::metrics::{Histogram, MeterProvider as _};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The meter provider (exporting when `config` names a metrics endpoint) and the duration
/// histogram on it.
pub fn duration_histogram(
    config: &OtlpConfig,
    resource: Resource,
) -> Result<(SdkMeterProvider, Histogram<f64>)> {
    let mut meters = SdkMeterProvider::builder().with_resource(resource);
    if let Some(endpoint) = &config.metrics_endpoint {
        let client = OtlpHttp::new(config.export_timeout).context("starting the OTLP client")?;
        let exporter = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_http_client(client)
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(endpoint.clone())
            .with_timeout(config.export_timeout)
            .build()
            .with_context(|| format!("the OTLP metric exporter for {endpoint}"))?;
        let reader = PeriodicReader::builder(Logged {
            inner: exporter,
            endpoint: endpoint.clone(),
            failing: AtomicBool::new(false),
        })
        .with_interval(config.metric_interval);
        meters = meters.with_reader(reader.build());
    }
    let meters = meters.build();
    let duration = meters
        .meter(SCOPE)
        .f64_histogram(DURATION_METRIC)
        .with_unit("s")
        .with_description("Duration of MCP requests as seen by the server")
        .with_boundaries(DURATION_BOUNDS.to_vec())
        .build();
    Ok((meters, duration))
}

/// The OTLP metric exporter, logging when exports start failing and when they work again.
struct Logged {
    inner: opentelemetry_otlp::MetricExporter,
    endpoint: String,
    failing: AtomicBool,
}

impl PushMetricExporter for Logged {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        let result = self.inner.export(metrics).await;
        match &result {
            Ok(()) => {
                if self.failing.swap(false, Ordering::Relaxed) {
                    crate::log::info(&format!(
                        "OpenTelemetry: metric export to {} works again",
                        self.endpoint
                    ));
                }
            }
            Err(e) => {
                if !self.failing.swap(true, Ordering::Relaxed) {
                    crate::log::warn(&format!(
                        "OpenTelemetry: exporting metrics to {} failed: {e}; calls go on and the next export tries again",
                        self.endpoint
                    ));
                }
            }
        }
        result
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn temporality(&self) -> Temporality {
        self.inner.temporality()
    }
}
