//! A minimal OTLP/HTTP receiver for the OpenTelemetry tests (`otlp.rs`): it answers every
//! POST with 200 and keeps what it got, decoded with the official protobuf messages; plus ways
//! to read spans and their attributes.

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::{Span, span::SpanKind, status::StatusCode};
use prost::Message;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// The requests a receiver got: `(path, body)`, oldest first.
pub type Received = Arc<Mutex<Vec<(String, Vec<u8>)>>>;
/// The header lines of every request a receiver got, lower-cased names.
pub type Headers = Arc<Mutex<Vec<String>>>;

/// A minimal OTLP/HTTP receiver: answers every POST with 200 and keeps `(path, body)`.
pub struct Collector {
    addr: SocketAddr,
    received: Received,
    headers: Headers,
}

impl Collector {
    pub fn start() -> Collector {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let received: Received = Arc::default();
        let headers: Headers = Arc::default();
        let (kept, seen) = (received.clone(), headers.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let (kept, seen) = (kept.clone(), seen.clone());
                std::thread::spawn(move || serve_http(stream, &kept, &seen));
            }
        });
        Collector {
            addr,
            received,
            headers,
        }
    }

    /// The header lines of every request so far (`name: value`, the name lower-cased).
    pub fn headers(&self) -> Vec<String> {
        self.headers.lock().unwrap().clone()
    }

    /// Its base URL, for `--otlp-endpoint`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every span received, with the resource's `service.name` it came under.
    pub fn spans(&self) -> Vec<(String, Span)> {
        let mut spans = Vec::new();
        for (path, body) in self.received.lock().unwrap().iter() {
            if path != "/v1/traces" {
                continue;
            }
            let request = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
            for resource_spans in request.resource_spans {
                let service = resource_spans
                    .resource
                    .as_ref()
                    .and_then(|r| text_attribute(&r.attributes, "service.name"))
                    .unwrap_or_default();
                for scope in resource_spans.scope_spans {
                    for span in scope.spans {
                        spans.push((service.clone(), span));
                    }
                }
            }
        }
        spans
    }

    /// Every metric export received.
    pub fn metrics(&self) -> Vec<ExportMetricsServiceRequest> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .filter(|(path, _)| path == "/v1/metrics")
            .map(|(_, body)| ExportMetricsServiceRequest::decode(body.as_slice()).unwrap())
            .collect()
    }
}

/// Serves HTTP/1.1 requests on one connection until the client closes it.
pub fn serve_http(
    stream: TcpStream,
    kept: &Mutex<Vec<(String, Vec<u8>)>>,
    seen: &Mutex<Vec<String>>,
) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let path = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string();
        let mut length = 0;
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).unwrap();
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                let name = name.trim().to_ascii_lowercase();
                if name == "content-length" {
                    length = value.trim().parse().unwrap();
                }
                seen.lock()
                    .unwrap()
                    .push(format!("{name}: {}", value.trim()));
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        kept.lock().unwrap().push((path, body));
        writer
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n")
            .unwrap();
    }
}

pub fn value_of(attributes: &[KeyValue], key: &str) -> Option<any_value::Value> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.clone())
        .and_then(|AnyValue { value }| value)
}

pub fn text_attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    match value_of(attributes, key)? {
        any_value::Value::StringValue(s) => Some(s),
        other => panic!("`{key}` is not a string: {other:?}"),
    }
}

pub fn int_attribute(attributes: &[KeyValue], key: &str) -> Option<i64> {
    match value_of(attributes, key)? {
        any_value::Value::IntValue(n) => Some(n),
        other => panic!("`{key}` is not an integer: {other:?}"),
    }
}

pub fn attr(span: &Span, key: &str) -> Option<String> {
    text_attribute(&span.attributes, key)
}

/// The request span answering JSON-RPC request `id`.
pub fn request_span(spans: &[Span], id: u64) -> &Span {
    spans
        .iter()
        .find(|s| {
            s.kind == SpanKind::Server as i32
                && attr(s, "jsonrpc.request.id") == Some(id.to_string())
        })
        .unwrap_or_else(|| {
            let names: Vec<_> = spans.iter().map(|s| &s.name).collect();
            panic!("no request span for request {id} among {names:?}")
        })
}

/// The children of `parent`, by name.
pub fn children<'a>(spans: &'a [Span], parent: &Span) -> Vec<&'a Span> {
    spans
        .iter()
        .filter(|s| s.parent_span_id == parent.span_id && s.trace_id == parent.trace_id)
        .collect()
}

pub fn child<'a>(spans: &'a [Span], parent: &Span, name: &str) -> &'a Span {
    children(spans, parent)
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("`{}` has no `{name}` child", parent.name))
}

pub fn is_error(span: &Span) -> bool {
    span.status
        .as_ref()
        .is_some_and(|s| s.code == StatusCode::Error as i32)
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
