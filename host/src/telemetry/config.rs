//! Where telemetry goes and how it is batched: the `--otlp-endpoint` flag, else the standard
//! `OTEL_*` environment variables. Export is off unless an endpoint is given; a value that
//! cannot work is refused at start-up with the flag or variable named.

use crate::limits::{
    OTLP_EXPORT_TIMEOUT_MS, OTLP_MAX_BATCH_SPANS, OTLP_METRIC_INTERVAL_MS, OTLP_QUEUE_CAPACITY,
    OTLP_SCHEDULE_DELAY_MS,
};
use std::fmt;
use std::time::Duration;

/// The flag that turns export on.
pub const ENDPOINT_FLAG: &str = "--otlp-endpoint";
/// The standard base URL variable (`/v1/traces` and `/v1/metrics` are appended).
pub const ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
/// The standard traces URL variable (used as it is).
pub const TRACES_ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
/// The standard metrics URL variable (used as it is).
pub const METRICS_ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT";

/// The service name spans and metrics are reported under when `OTEL_SERVICE_NAME` is unset.
pub const DEFAULT_SERVICE_NAME: &str = "limina";

/// Export settings, resolved and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct OtlpConfig {
    /// Where spans are posted (OTLP/HTTP protobuf), e.g. `http://127.0.0.1:4318/v1/traces`.
    pub traces_endpoint: String,
    /// Where the `mcp.server.operation.duration` metric is posted (`None`: not exported).
    pub metrics_endpoint: Option<String>,
    pub service_name: String,
    /// Requests that may wait to be turned into spans before more are dropped.
    pub queue_capacity: usize,
    /// Most spans in one export request.
    pub max_batch: usize,
    /// How often finished spans are sent.
    pub schedule_delay: Duration,
    /// How long one export request may take.
    pub export_timeout: Duration,
    /// How often the metric is sent.
    pub metric_interval: Duration,
}

/// A configuration value that cannot work, with the flag or variable that holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

impl std::error::Error for ConfigError {}

impl OtlpConfig {
    /// The settings `flag` (the `--otlp-endpoint` value) and the process environment give;
    /// `None` when export is off.
    pub fn from_env(flag: Option<&str>) -> Result<Option<OtlpConfig>, ConfigError> {
        OtlpConfig::resolve(flag, &|key| std::env::var(key).ok())
    }

    /// [`OtlpConfig::from_env`] over any environment (`env` returns a variable's value).
    pub fn resolve(
        flag: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<OtlpConfig>, ConfigError> {
        // The specification treats an empty variable as unset.
        let var = |key: &str| env(key).filter(|v| !v.trim().is_empty());
        if flag.is_none()
            && var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        {
            return Ok(None);
        }
        let (traces_endpoint, metrics_endpoint) = if let Some(base) = flag {
            let base = checked_url(ENDPOINT_FLAG, base)?;
            (
                signal_url(&base, "traces"),
                Some(signal_url(&base, "metrics")),
            )
        } else {
            let base = var(ENDPOINT_VAR)
                .map(|v| checked_url(ENDPOINT_VAR, &v))
                .transpose()?;
            let traces = match var(TRACES_ENDPOINT_VAR) {
                Some(url) => Some(checked_url(TRACES_ENDPOINT_VAR, &url)?),
                None => base.as_deref().map(|b| signal_url(b, "traces")),
            };
            let Some(traces) = traces else {
                return Ok(None);
            };
            let metrics = match var(METRICS_ENDPOINT_VAR) {
                Some(url) => Some(checked_url(METRICS_ENDPOINT_VAR, &url)?),
                None => base.as_deref().map(|b| signal_url(b, "metrics")),
            };
            (traces, metrics)
        };
        if let Some(protocol) = var("OTEL_EXPORTER_OTLP_PROTOCOL")
            && protocol.trim() != "http/protobuf"
        {
            return Err(ConfigError {
                key: "OTEL_EXPORTER_OTLP_PROTOCOL".into(),
                message: format!(
                    "only `http/protobuf` is supported, got `{protocol}`; unset it or set it to http/protobuf (collectors listen for it on port 4318)"
                ),
            });
        }
        let number = |key: &str, default: u64| -> Result<u64, ConfigError> {
            match var(key) {
                None => Ok(default),
                Some(v) => v
                    .trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| ConfigError {
                        key: key.into(),
                        message: format!("must be a whole number greater than 0, got `{v}`"),
                    }),
            }
        };
        let service_name =
            var("OTEL_SERVICE_NAME").unwrap_or_else(|| DEFAULT_SERVICE_NAME.to_string());
        Ok(Some(OtlpConfig {
            traces_endpoint,
            metrics_endpoint,
            service_name,
            queue_capacity: number("OTEL_BSP_MAX_QUEUE_SIZE", OTLP_QUEUE_CAPACITY as u64)? as usize,
            max_batch: number(
                "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
                OTLP_MAX_BATCH_SPANS as u64,
            )? as usize,
            schedule_delay: Duration::from_millis(number(
                "OTEL_BSP_SCHEDULE_DELAY",
                OTLP_SCHEDULE_DELAY_MS,
            )?),
            export_timeout: Duration::from_millis(number(
                "OTEL_EXPORTER_OTLP_TIMEOUT",
                OTLP_EXPORT_TIMEOUT_MS,
            )?),
            metric_interval: Duration::from_millis(number(
                "OTEL_METRIC_EXPORT_INTERVAL",
                OTLP_METRIC_INTERVAL_MS,
            )?),
        }))
    }
}

/// `base` with the signal's standard path appended (`/v1/traces`).
fn signal_url(base: &str, signal: &str) -> String {
    format!("{}/v1/{signal}", base.trim_end_matches('/'))
}

/// `value` if it is an `http://` URL with a host, else an error naming `key` and the fix.
fn checked_url(key: &str, value: &str) -> Result<String, ConfigError> {
    let value = value.trim();
    let refuse = |why: String| ConfigError {
        key: key.into(),
        message: format!(
            "{why}; give the collector's OTLP/HTTP address, e.g. http://127.0.0.1:4318"
        ),
    };
    let uri: hyper::Uri = value
        .parse()
        .map_err(|e| refuse(format!("`{value}` is not a URL ({e})")))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some("https") => {
            return Err(refuse(format!(
                "`{value}` uses https, which this build cannot send (it has no TLS library); run a collector beside the host on plain http and let it forward over TLS"
            )));
        }
        _ => {
            return Err(refuse(format!("`{value}` is not an http:// URL")));
        }
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(refuse(format!("`{value}` names no host")));
    }
    if uri.query().is_some() {
        return Err(refuse(format!("`{value}` has a query string")));
    }
    Ok(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn resolve(
        flag: Option<&str>,
        vars: &[(&str, &str)],
    ) -> Result<Option<OtlpConfig>, ConfigError> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        OtlpConfig::resolve(flag, &|k| vars.get(k).cloned())
    }

    #[test]
    fn export_is_off_without_an_endpoint() {
        assert_eq!(resolve(None, &[("OTEL_SERVICE_NAME", "x")]), Ok(None));
        assert_eq!(resolve(None, &[(ENDPOINT_VAR, "")]), Ok(None));
    }

    #[test]
    fn the_flag_is_a_base_url_and_wins_over_the_environment() {
        let config = resolve(
            Some("http://127.0.0.1:4318/"),
            &[(ENDPOINT_VAR, "http://elsewhere:4318")],
        )
        .unwrap()
        .unwrap();
        assert_eq!(config.traces_endpoint, "http://127.0.0.1:4318/v1/traces");
        assert_eq!(
            config.metrics_endpoint.as_deref(),
            Some("http://127.0.0.1:4318/v1/metrics")
        );
        assert_eq!(config.service_name, "limina");
    }

    #[test]
    fn signal_variables_are_used_as_they_are() {
        let config = resolve(
            None,
            &[
                (ENDPOINT_VAR, "http://collector:4318"),
                (TRACES_ENDPOINT_VAR, "http://traces:9999/custom"),
                ("OTEL_SERVICE_NAME", "agents"),
            ],
        )
        .unwrap()
        .unwrap();
        assert_eq!(config.traces_endpoint, "http://traces:9999/custom");
        assert_eq!(
            config.metrics_endpoint.as_deref(),
            Some("http://collector:4318/v1/metrics")
        );
        assert_eq!(config.service_name, "agents");
    }

    #[test]
    fn bad_values_are_refused_naming_the_key() {
        for (flag, vars, key) in [
            (Some("localhost:4318"), vec![], ENDPOINT_FLAG),
            (Some("ftp://host/"), vec![], ENDPOINT_FLAG),
            (None, vec![(ENDPOINT_VAR, "not a url")], ENDPOINT_VAR),
            (
                None,
                vec![(TRACES_ENDPOINT_VAR, "https://x:4318/v1/traces")],
                TRACES_ENDPOINT_VAR,
            ),
            (
                Some("http://127.0.0.1:4318"),
                vec![("OTEL_BSP_SCHEDULE_DELAY", "soon")],
                "OTEL_BSP_SCHEDULE_DELAY",
            ),
            (
                Some("http://127.0.0.1:4318"),
                vec![("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")],
                "OTEL_EXPORTER_OTLP_PROTOCOL",
            ),
        ] {
            let error = resolve(flag, &vars).unwrap_err();
            assert_eq!(error.key, key, "{error}");
            assert!(error.to_string().starts_with(key), "{error}");
        }
    }
}
