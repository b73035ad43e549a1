//! The export side: one thread that turns request records into spans and the duration
//! metric, batches the spans and posts them to the collector, so the engine never waits on
//! telemetry. The engine hands records over a bounded queue: when it is full the record is
//! dropped, counted and logged, never waited for. Spans whose export fails are dropped and
//! counted too (calls go on; the next batch tries again). The metric goes out through the
//! SDK's periodic reader on its own thread (`metrics.rs`).

use super::config::OtlpConfig;
use super::http_client::OtlpHttp;
use super::record::RequestRecord;
use super::spans::{Instruments, SCOPE};
use anyhow::{Context as _, Result};
use opentelemetry::KeyValue;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter as _, SpanProcessor};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the export thread is sent.
enum Message {
    /// A request to turn into spans.
    Record(Box<RequestRecord>),
    /// Send everything now, then acknowledge (the host is being stopped by a signal).
    Flush(SyncSender<()>),
    /// Send everything and stop (the engine has returned).
    Stop,
}

/// The engine's handle: hands records to the export thread without ever waiting.
#[derive(Clone)]
pub struct Recorder {
    queue: SyncSender<Message>,
    dropped: Arc<AtomicU64>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder").finish_non_exhaustive()
    }
}

impl Recorder {
    /// Queues `record` for export; drops it (counted, logged at powers of two) when the
    /// queue is full.
    pub fn record(&self, record: RequestRecord) {
        if let Err(TrySendError::Full(_)) = self.queue.try_send(Message::Record(Box::new(record))) {
            let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if dropped.is_power_of_two() {
                crate::log::warn(&format!(
                    "OpenTelemetry: the export queue is full; {dropped} requests dropped so far without spans (raise OTEL_BSP_MAX_QUEUE_SIZE or check the collector)"
                ));
            }
        }
    }
}

/// The running export thread; [`Exporting::finish`] once the engine has stopped flushes
/// what is left.
pub struct Exporting {
    thread: JoinHandle<()>,
    queue: SyncSender<Message>,
    export_timeout: Duration,
}

impl Exporting {
    /// Waits for the export thread to send what it holds and stop. Call it once the engine
    /// has returned; the final export is bounded by the export timeout.
    pub fn finish(self) {
        let _ = self.queue.send(Message::Stop);
        if self.thread.join().is_err() {
            crate::log::error("OpenTelemetry: the export thread panicked; some spans were lost");
        }
    }

    /// When the host is stopped by SIGTERM, SIGINT or SIGHUP (held since start-up by
    /// [`super::signals::hold`]), sends what is waiting before exiting as the signal would.
    pub fn flush_on_termination(&self) -> Result<()> {
        let queue = self.queue.clone();
        let timeout = self.export_timeout * 2;
        super::signals::exit_after(move || {
            let (ack, done) = sync_channel(1);
            if queue.send(Message::Flush(ack)).is_ok() {
                let _ = done.recv_timeout(timeout);
            }
        })
        .context("waiting for termination signals")
    }
}

/// Starts exporting to where `config` says: the exporters are built here, so a setting they
/// refuse stops the start-up.
pub fn start(config: &OtlpConfig) -> Result<(Recorder, Exporting)> {
    let resource = Resource::builder()
        .with_service_name(config.service_name.clone())
        .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
        .build();
    let client = OtlpHttp::new(config.export_timeout).context("starting the OTLP client")?;
    let mut spans = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(client)
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(config.traces_endpoint.clone())
        .with_timeout(config.export_timeout)
        .build()
        .with_context(|| format!("the OTLP span exporter for {}", config.traces_endpoint))?;
    spans.set_resource(&resource);

    let (meters, duration) = super::metrics::duration_histogram(config, resource.clone())?;

    let finished = Finished::default();
    let tracers = SdkTracerProvider::builder()
        .with_span_processor(finished.clone())
        .with_resource(resource)
        .build();
    let instruments = Instruments::new(tracers.tracer(SCOPE), duration);

    let (queue, records) = sync_channel(config.queue_capacity);
    let dropped = Arc::new(AtomicU64::new(0));
    let mut batcher = Batcher {
        records,
        instruments,
        finished,
        exporter: spans,
        endpoint: config.traces_endpoint.clone(),
        max_batch: config.max_batch,
        delay: config.schedule_delay,
        failing: 0,
        lost: 0,
        meters,
    };
    let queue_dropped = dropped.clone();
    let thread = std::thread::Builder::new()
        .name("otlp-export".into())
        .spawn(move || {
            batcher.run();
            let _ = tracers.shutdown();
            if let Err(e) = batcher.meters.shutdown() {
                crate::log::warn(&format!(
                    "OpenTelemetry: the last metric export failed: {e}"
                ));
            }
            let dropped = queue_dropped.load(Ordering::Relaxed);
            if dropped > 0 || batcher.lost > 0 {
                crate::log::warn(&format!(
                    "OpenTelemetry: {dropped} requests were dropped at the full queue and {} spans lost to failed exports in this run",
                    batcher.lost
                ));
            }
        })
        .context("starting the OpenTelemetry export thread")?;
    crate::log::info(&format!(
        "exporting OpenTelemetry spans to {}{}",
        config.traces_endpoint,
        config
            .metrics_endpoint
            .as_deref()
            .map(|m| format!(" and metrics to {m}"))
            .unwrap_or_default()
    ));
    let exporting = Exporting {
        thread,
        queue: queue.clone(),
        export_timeout: config.export_timeout,
    };
    Ok((Recorder { queue, dropped }, exporting))
}

/// The export thread's state.
struct Batcher {
    records: Receiver<Message>,
    instruments: Instruments,
    finished: Finished,
    exporter: opentelemetry_otlp::SpanExporter,
    endpoint: String,
    max_batch: usize,
    delay: Duration,
    /// Exports failed in a row.
    failing: u64,
    /// Spans dropped because their export failed.
    lost: u64,
    /// The metric's provider, flushed on a termination signal and shut down at the end.
    meters: SdkMeterProvider,
}

impl Batcher {
    /// Until told to stop (or every sender is gone): records become spans; full batches go
    /// at once, the rest every `delay`; what is left goes last.
    fn run(&mut self) {
        let mut due = Instant::now() + self.delay;
        loop {
            let wait = due.saturating_duration_since(Instant::now());
            match self.records.recv_timeout(wait) {
                Ok(Message::Record(record)) => {
                    self.instruments.record(&record);
                    if self.finished.len() >= self.max_batch {
                        self.export();
                    }
                }
                Ok(Message::Flush(ack)) => {
                    self.export();
                    let _ = self.meters.force_flush();
                    let _ = ack.send(());
                }
                Ok(Message::Stop) => break,
                Err(RecvTimeoutError::Timeout) => {
                    self.export();
                    due = Instant::now() + self.delay;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        self.export();
    }

    /// Sends every finished span, a batch at a time.
    fn export(&mut self) {
        let mut spans = self.finished.take();
        while !spans.is_empty() {
            let rest = spans.split_off(spans.len().min(self.max_batch));
            let count = spans.len() as u64;
            match futures_executor::block_on(self.exporter.export(spans)) {
                Ok(()) => {
                    if self.failing > 0 {
                        crate::log::info(&format!(
                            "OpenTelemetry: export to {} works again",
                            self.endpoint
                        ));
                    }
                    self.failing = 0;
                }
                Err(e) => {
                    if self.failing == 0 {
                        crate::log::warn(&format!(
                            "OpenTelemetry: exporting {count} spans to {} failed: {e}; they are dropped, calls go on, and the next batch tries again",
                            self.endpoint
                        ));
                    }
                    self.failing += 1;
                    self.lost += count;
                }
            }
            spans = rest;
        }
    }
}

/// The span processor of the export thread's tracer: keeps finished spans for the batcher
/// (both on the same thread, so the lock is never contended).
#[derive(Debug, Default, Clone)]
pub(super) struct Finished(Arc<Mutex<Vec<SpanData>>>);

impl Finished {
    fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub(super) fn take(&self) -> Vec<SpanData> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl SpanProcessor for Finished {
    fn on_start(&self, _span: &mut opentelemetry_sdk::trace::Span, _cx: &opentelemetry::Context) {}

    fn on_end(&self, span: SpanData) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(span);
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _timeout: Duration) -> OTelSdkResult {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry::record::tests::sample;

    #[test]
    fn a_full_queue_drops_records_without_waiting_and_counts_them() {
        let (queue, records) = sync_channel(2);
        let recorder = Recorder {
            queue,
            dropped: Arc::default(),
        };
        for _ in 0..5 {
            recorder.record(sample());
        }
        assert_eq!(recorder.dropped.load(Ordering::Relaxed), 3);
        assert_eq!(records.try_iter().count(), 2);
    }
}
