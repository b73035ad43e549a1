//! OpenTelemetry export against a real OTLP/HTTP receiver started here: the host posts
//! protobuf `ExportTraceServiceRequest`s and `ExportMetricsServiceRequest`s, decoded with the
//! official messages and checked for the MCP semantic conventions: span names and kinds,
//! attributes, the children of each request span, parentage from `params._meta.traceparent`,
//! and the `mcp.server.operation.duration` metric. Spans are flushed when the host exits on
//! stdin EOF, so no test waits on a timer.

use crate::otlp_collector::{
    Collector, attr, child, children, hex, int_attribute, is_error, request_span, text_attribute,
};
use crate::support::{guest_packages, own_calibration};
use opentelemetry_proto::tonic::metrics::v1::metric;
use opentelemetry_proto::tonic::trace::v1::{Span, span::SpanKind};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};

/// The caller's trace context sent with one call.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN_ID: &str = "00f067aa0ba902b7";

/// What a host run gave: its replies by request id, stderr and exit code.
struct Run {
    replies: Vec<Value>,
    stderr: String,
    code: Option<i32>,
}

impl Run {
    fn reply(&self, id: u64) -> &Value {
        self.replies
            .iter()
            .find(|r| r["id"] == json!(id))
            .unwrap_or_else(|| panic!("no reply to request {id}: {:?}", self.replies))
    }
}

/// Runs `limina --mcp-stdio` with `args` and `env`, sends `messages` and closes stdin; the
/// host answers them all and exits, flushing its telemetry.
fn run_host(args: &[&str], env: &[(&str, &str)], messages: &[Value]) -> Run {
    let traces = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_limina"));
    command
        .arg("--mcp-stdio")
        .arg("--manual-clock")
        .arg("--trace-dir")
        .arg(traces.path())
        .args(args)
        .args(own_calibration(args));
    for var in [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_SERVICE_NAME",
        "OTEL_SDK_DISABLED",
        "OTEL_EXPORTER_OTLP_HEADERS",
    ] {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning limina");
    let mut stdin = child.stdin.take().unwrap();
    for message in messages {
        // A host refusing its configuration exits without reading: the pipe then breaks.
        if writeln!(stdin, "{message}").is_err() {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    Run {
        replies: String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
    }
}

fn initialize(id: u64, profile: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "otlp-test", "version": "0"}, "profile": profile}})
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

#[test]
fn each_request_becomes_an_mcp_server_span_with_policy_hook_and_guest_children() {
    let collector = Collector::start();
    let pkgs = guest_packages(&["hooks", "lookup"]);
    let traceparent = format!("00-{TRACE_ID}-{PARENT_SPAN_ID}-01");
    let mut traced_call = call(2, "scene.createEntity", json!({"position": [1, 2, 0]}));
    traced_call["params"]["_meta"] = json!({"traceparent": traceparent});
    let mut badly_traced = call(6, "scene.createEntity", json!({"position": [2, 2, 0]}));
    badly_traced["params"]["_meta"] = json!({"traceparent": "00-not-a-trace-01"});
    let run = run_host(
        &[
            "--packages",
            pkgs.path().to_str().unwrap(),
            "--otlp-endpoint",
            &collector.endpoint(),
        ],
        &[],
        &[
            initialize(1, "builder.readWrite"),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            traced_call,
            // Runs off the engine (its package declares no capability).
            call(3, "lookup.find", json!({"key": "answer"})),
            // The guest answers not_found: an isError result.
            call(4, "lookup.find", json!({"key": "question"})),
            call(5, "nothing.here", json!({})),
            badly_traced,
            // The read-only profile may not create entities: the policy denies it.
            initialize(7, "system.readonly"),
            call(8, "scene.createEntity", json!({"position": [0, 1, 0]})),
            json!({"jsonrpc": "2.0", "id": 9, "method": "shutdown"}),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.reply(2)["result"]["isError"],
        json!(false),
        "{:?}",
        run.replies
    );
    assert_eq!(run.reply(4)["result"]["isError"], json!(true));
    assert_eq!(run.reply(8)["result"]["isError"], json!(true));
    let session = run.reply(1)["result"]["session"]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();

    let received = collector.spans();
    assert!(received.iter().all(|(service, _)| service == "limina"));
    let spans: Vec<Span> = received.into_iter().map(|(_, s)| s).collect();
    // One SERVER span per request, none for the notification.
    let servers: Vec<&Span> = spans
        .iter()
        .filter(|s| s.kind == SpanKind::Server as i32)
        .collect();
    assert_eq!(
        servers.len(),
        9,
        "{:?}",
        servers.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    assert!(
        servers
            .iter()
            .all(|s| s.name != "notifications/initialized")
    );

    let init = request_span(&spans, 1);
    assert_eq!(init.name, "initialize");
    assert_eq!(attr(init, "mcp.method.name").as_deref(), Some("initialize"));
    assert!(children(&spans, init).is_empty());

    // The traced call: a child of the caller's span, in the caller's trace.
    let created = request_span(&spans, 2);
    assert_eq!(created.name, "tools/call scene.createEntity");
    assert_eq!(hex(&created.trace_id), TRACE_ID);
    assert_eq!(hex(&created.parent_span_id), PARENT_SPAN_ID);
    for (key, expected) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "scene.createEntity"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.session.id", session.as_str()),
        ("mcp.protocol.version", "2025-06-18"),
        ("network.transport", "pipe"),
        ("jsonrpc.request.id", "2"),
    ] {
        assert_eq!(attr(created, key).as_deref(), Some(expected), "{key}");
    }
    assert_eq!(attr(created, "error.type"), None);
    assert!(!is_error(created));
    let policy = child(&spans, created, "limina.policy.decide");
    assert_eq!(
        attr(policy, "limina.policy.decision").as_deref(),
        Some("allow")
    );
    assert!(attr(policy, "limina.policy.rule").is_some());
    child(&spans, created, "limina.hooks.before");
    let guest = child(&spans, created, "limina.guest.invoke");
    assert_eq!(attr(guest, "limina.package.name").as_deref(), Some("scene"));
    assert!(attr(guest, "limina.package.version").is_some());
    assert!(int_attribute(&guest.attributes, "limina.fuel.used").unwrap() > 0);
    assert!(int_attribute(&guest.attributes, "limina.memory.peak_bytes").unwrap() > 0);
    for stage in children(&spans, created) {
        assert_eq!(stage.kind, SpanKind::Internal as i32);
        assert!(stage.start_time_unix_nano >= created.start_time_unix_nano);
        assert!(stage.end_time_unix_nano <= created.end_time_unix_nano);
    }

    // A call run off the engine still has its guest child, timed on the worker.
    let found = request_span(&spans, 3);
    assert_eq!(found.name, "tools/call lookup.find");
    assert!(
        found.parent_span_id.is_empty(),
        "no traceparent: a root span"
    );
    assert_ne!(hex(&found.trace_id), TRACE_ID);
    let guest = child(&spans, found, "limina.guest.invoke");
    assert_eq!(
        attr(guest, "limina.package.name").as_deref(),
        Some("lookup")
    );
    assert_eq!(
        attr(guest, "limina.package.version").as_deref(),
        Some("0.1.0")
    );
    assert!(int_attribute(&guest.attributes, "limina.fuel.used").unwrap() > 0);
    assert!(guest.start_time_unix_nano >= found.start_time_unix_nano);
    assert!(guest.end_time_unix_nano <= found.end_time_unix_nano);

    // isError results are tool errors.
    let missing = request_span(&spans, 4);
    assert_eq!(attr(missing, "error.type").as_deref(), Some("tool_error"));
    assert!(is_error(missing));
    child(&spans, missing, "limina.guest.invoke");

    // A protocol error carries its JSON-RPC code.
    let unknown = request_span(&spans, 5);
    assert_eq!(unknown.name, "tools/call nothing.here");
    assert_eq!(attr(unknown, "error.type").as_deref(), Some("-32602"));
    assert_eq!(
        attr(unknown, "rpc.response.status_code").as_deref(),
        Some("-32602")
    );
    assert_eq!(
        int_attribute(&unknown.attributes, "rpc.jsonrpc.error_code"),
        Some(-32602)
    );
    assert!(is_error(unknown));

    // A traceparent that is not W3C is ignored: a fresh trace.
    let fresh = request_span(&spans, 6);
    assert!(fresh.parent_span_id.is_empty());
    assert_ne!(hex(&fresh.trace_id), TRACE_ID);

    // A call the policy denies: a deny decision, and no hook or guest ran.
    let denied = request_span(&spans, 8);
    assert_eq!(attr(denied, "error.type").as_deref(), Some("tool_error"));
    let policy = child(&spans, denied, "limina.policy.decide");
    assert_eq!(
        attr(policy, "limina.policy.decision").as_deref(),
        Some("deny")
    );
    assert!(is_error(policy));
    assert_eq!(children(&spans, denied).len(), 1);

    // `shutdown` reports the session it ends.
    let reader = run.reply(7)["result"]["session"]["sessionId"]
        .as_str()
        .unwrap();
    let ended = request_span(&spans, 9);
    assert_eq!(ended.name, "shutdown");
    assert_eq!(attr(ended, "mcp.session.id").as_deref(), Some(reader));

    // The duration metric, in seconds, by method, tool and error type.
    let metrics = collector.metrics();
    let histogram = metrics
        .iter()
        .flat_map(|m| &m.resource_metrics)
        .flat_map(|r| &r.scope_metrics)
        .flat_map(|s| &s.metrics)
        .find(|m| m.name == "mcp.server.operation.duration")
        .expect("the duration metric was exported");
    assert_eq!(histogram.unit, "s");
    let Some(metric::Data::Histogram(data)) = &histogram.data else {
        panic!("not a histogram: {histogram:?}");
    };
    let calls_of = |tool: &str, error: Option<&str>| -> u64 {
        data.data_points
            .iter()
            .filter(|p| text_attribute(&p.attributes, "gen_ai.tool.name").as_deref() == Some(tool))
            .filter(|p| text_attribute(&p.attributes, "error.type").as_deref() == error)
            .map(|p| p.count)
            .sum()
    };
    assert_eq!(calls_of("scene.createEntity", None), 2);
    assert_eq!(calls_of("scene.createEntity", Some("tool_error")), 1);
    assert_eq!(calls_of("lookup.find", Some("tool_error")), 1);
    assert!(
        data.data_points
            .iter()
            .all(|p| { text_attribute(&p.attributes, "mcp.method.name").is_some() })
    );
}

#[test]
fn the_standard_environment_variables_turn_export_on_and_name_the_service() {
    let collector = Collector::start();
    let run = run_host(
        &[],
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint()),
            ("OTEL_SERVICE_NAME", "agents-prod"),
        ],
        &[
            initialize(1, "builder.readWrite"),
            json!({"jsonrpc": "2.0", "id": "ping-1", "method": "ping"}),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let spans = collector.spans();
    let (service, ping) = spans
        .iter()
        .find(|(_, s)| s.name == "ping")
        .expect("a ping span");
    assert_eq!(service, "agents-prod");
    assert_eq!(attr(ping, "jsonrpc.request.id").as_deref(), Some("ping-1"));
    assert_eq!(ping.kind, SpanKind::Server as i32);
}

#[test]
fn the_standard_headers_variable_goes_with_every_export_for_collectors_that_want_a_key() {
    let collector = Collector::start();
    let run = run_host(
        &["--otlp-endpoint", &collector.endpoint()],
        &[(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "x-api-key=secret-1,x-team=agents",
        )],
        &[initialize(1, "builder.readWrite")],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!collector.spans().is_empty(), "{}", run.stderr);
    let headers = collector.headers();
    for wanted in ["x-api-key: secret-1", "x-team: agents"] {
        assert!(
            headers.iter().any(|h| h == wanted),
            "{wanted} in {headers:?}"
        );
    }
}

#[test]
fn bad_endpoints_are_refused_at_start_up_naming_the_flag_or_variable() {
    for (args, env, key) in [
        (
            vec!["--otlp-endpoint", "localhost:4318"],
            vec![],
            "--otlp-endpoint",
        ),
        (
            vec![],
            vec![("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://collector:4318")],
            "OTEL_EXPORTER_OTLP_ENDPOINT",
        ),
        (
            vec![],
            vec![("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "not a url")],
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        ),
        (
            vec!["--otlp-endpoint", "http://127.0.0.1:4318"],
            vec![("OTEL_BSP_SCHEDULE_DELAY", "soon")],
            "OTEL_BSP_SCHEDULE_DELAY",
        ),
    ] {
        let run = run_host(&args, &env, &[initialize(1, "builder.readWrite")]);
        assert_eq!(run.code, Some(1), "{key}: {}", run.stderr);
        assert!(run.replies.is_empty(), "{key}: it served");
        assert!(
            run.stderr.contains(key),
            "{key} not named in: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("http://127.0.0.1:4318") || key == "OTEL_BSP_SCHEDULE_DELAY",
            "no fix in: {}",
            run.stderr
        );
    }
}

#[test]
fn calls_are_answered_when_the_collector_is_unreachable_and_the_failure_is_logged() {
    // A port nobody listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let run = run_host(
        &["--otlp-endpoint", &format!("http://127.0.0.1:{port}")],
        &[],
        &[
            initialize(1, "builder.readWrite"),
            call(2, "scene.createEntity", json!({"position": [0, 1, 0]})),
            call(3, "scene.queryEntities", json!({})),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.replies.len(), 3);
    assert_eq!(run.reply(3)["result"]["isError"], json!(false));
    assert!(
        run.stderr.contains("OpenTelemetry: exporting") && run.stderr.contains("failed"),
        "the failed export is not logged: {}",
        run.stderr
    );
}

/// Posts `message` to a Streamable HTTP host at `addr`; the reply's headers (lower-case
/// names) and body.
fn post_mcp(
    addr: &str,
    session: Option<&str>,
    message: &Value,
    extra_headers: &str,
) -> (Vec<(String, String)>, String) {
    let body = message.to_string();
    let mut stream = TcpStream::connect(addr).unwrap();
    let session = session
        .map(|s| format!("mcp-session-id: {s}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{session}{extra_headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (headers, body.to_string())
}

#[test]
fn over_http_the_session_and_trace_context_come_from_headers_and_sigterm_sends_the_last_spans() {
    let collector = Collector::start();
    let traces = tempfile::tempdir().unwrap();
    let args = ["--otlp-endpoint", &collector.endpoint()];
    let mut child = Command::new(env!("CARGO_BIN_EXE_limina"))
        .args(["--mcp-http", "--port", "0", "--manual-clock"])
        .args(["--network-profile", "builder.readWrite", "--trace-dir"])
        .arg(traces.path())
        .args(args)
        .args(own_calibration(&args))
        // Nothing goes out on a schedule: only the flush at SIGTERM can deliver the spans.
        .env("OTEL_BSP_SCHEDULE_DELAY", "600000")
        .env("OTEL_METRIC_EXPORT_INTERVAL", "600000")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut lines = stderr.lines();
    let addr = loop {
        let line = lines.next().expect("the host logs its address").unwrap();
        let serving = "serving MCP Streamable HTTP on http://";
        if let Some(at) = line.find(serving) {
            break line[at + serving.len()..]
                .trim()
                .trim_end_matches("/mcp")
                .to_string();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    let (headers, _) = post_mcp(&addr, None, &initialize(1, "builder.readWrite"), "");
    let session = headers
        .iter()
        .find(|(k, _)| k == "mcp-session-id")
        .map(|(_, v)| v.clone())
        .expect("a session id");
    post_mcp(
        &addr,
        Some(&session),
        &call(2, "scene.createEntity", json!({"position": [0, 1, 0]})),
        // An instrumented HTTP client sends its trace context as a header.
        &format!("traceparent: 00-{TRACE_ID}-{PARENT_SPAN_ID}-01\r\n"),
    );
    // SAFETY: sends SIGTERM to our own child, which is still running.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) },
        0
    );
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "a drained stop exits 0: {status:?}");
    let spans: Vec<Span> = collector.spans().into_iter().map(|(_, s)| s).collect();
    for id in [1, 2] {
        let span = request_span(&spans, id);
        assert_eq!(
            attr(span, "mcp.session.id").as_deref(),
            Some(session.as_str())
        );
        assert_eq!(attr(span, "network.transport").as_deref(), Some("tcp"));
    }
    let created = request_span(&spans, 2);
    assert_eq!(created.name, "tools/call scene.createEntity");
    assert_eq!(hex(&created.trace_id), TRACE_ID);
    assert_eq!(hex(&created.parent_span_id), PARENT_SPAN_ID);
    assert!(request_span(&spans, 1).parent_span_id.is_empty());
    assert!(
        !collector.metrics().is_empty(),
        "the metric was flushed too"
    );
}
