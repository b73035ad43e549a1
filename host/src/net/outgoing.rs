//! The `wasi:http` outgoing handler's hook: every request a guest sends comes here. The
//! check runs on the guest's thread as the request is handed over; the resolving, address
//! check, connection and exchange run on the runtime, raced against the call's deadline and
//! cancellation. Refusals answer the guest `HttpRequestDenied` (or
//! `DestinationIpProhibited` for an address) and are recorded for the trace.

use super::address;
use super::body::{Flow, Watched};
use super::connect;
use super::ledger::Record;
use crate::call::Interrupt;
use crate::grants::path::{self, PathRefusal};
use crate::grants::{Host, Scheme, UrlPattern};
use crate::limits::{
    MAX_NET_REQUEST_BODY_BYTES, MAX_NET_REQUESTS_PER_CALL, MAX_NET_RESPONSE_BODY_BYTES,
    NET_CONNECT_TIMEOUT_MS,
};
use crate::net::Reach;
use http_body_util::BodyExt;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use wasmtime_wasi_http::{Error, RequestOptions, WasiBody, WasiHttpHooks};

/// What the hook knows of the call in progress; `None` between calls.
#[derive(Default)]
pub struct NetHooks {
    pub call: Option<NetCall>,
}

/// One call's outbound state.
pub struct NetCall {
    reach: Arc<Reach>,
    /// The session holds `net.outbound`.
    permitted: bool,
    interrupt: Interrupt,
    /// Every request the guest made, in order.
    pub records: Vec<Arc<Record>>,
}

impl NetCall {
    pub fn new(reach: Arc<Reach>, permitted: bool, interrupt: Interrupt) -> Self {
        NetCall {
            reach,
            permitted,
            interrupt,
            records: Vec::new(),
        }
    }

    /// Requests sent (or on their way) so far in this call.
    fn sent(&self) -> usize {
        self.records
            .iter()
            .filter(|r| r.refusal().is_none())
            .count()
    }

    /// Bytes the call's requests have moved so far.
    fn bytes(&self) -> u64 {
        self.records
            .iter()
            .map(|r| r.bytes_in() + r.bytes_out())
            .sum()
    }
}

/// A request the check let through: where it may go.
struct Plan {
    /// The path the check judged (normalized): exactly what is sent.
    path: String,
    host: Host,
    port: u16,
    /// For `https`: the name TLS checks.
    tls_name: Option<String>,
    /// The patterns it falls under (declared and given): only an address they name may be
    /// reached when it is not a public one.
    patterns: Vec<UrlPattern>,
    /// Bytes the session's budget leaves for this request's bodies.
    bytes_left: u64,
}

type Sent = Result<
    (
        hyper::Response<WasiBody>,
        Box<dyn Future<Output = Result<(), Error>> + Send>,
    ),
    Error,
>;

impl WasiHttpHooks for NetHooks {
    fn send_request(
        &mut self,
        request: hyper::Request<WasiBody>,
        options: Option<RequestOptions>,
        _fut: Box<dyn Future<Output = Result<(), Error>> + Send>,
    ) -> Box<dyn Future<Output = Sent> + Send> {
        let uri = request.uri();
        let scheme = uri.scheme_str().unwrap_or("").to_ascii_lowercase();
        let authority_host = uri.host().unwrap_or("").to_string();
        let port = uri
            .port_u16()
            .or(match scheme.as_str() {
                "http" => Some(80),
                "https" => Some(443),
                _ => None,
            })
            .unwrap_or(0);
        // The path is held to the path rule first: the grant judges, and the request then
        // carries, the normalized path; a refused one is recorded as written.
        let normalized = path::normalize(uri.path());
        let record = Record::new(
            request.method().as_str(),
            &scheme,
            &authority_host.to_ascii_lowercase(),
            port,
            normalized.as_deref().unwrap_or(uri.path()),
        );
        let Some(call) = self.call.as_mut() else {
            record.refuse(
                "net.outside",
                "requests are only sent during a skill call".into(),
            );
            return Box::new(async { Err(Error::HttpRequestDenied) });
        };
        call.records.push(record.clone());
        match check(
            call,
            &scheme,
            &authority_host,
            port,
            (uri.path(), normalized),
            request.method(),
        ) {
            Err((rule, reason)) => {
                record.refuse(rule, reason);
                Box::new(async { Err(Error::HttpRequestDenied) })
            }
            Ok(plan) => {
                let resolver = call.reach.resolver.clone();
                let tls = call.reach.tls.client_config();
                let interrupt = call.interrupt.clone();
                Box::new(send(
                    plan, request, options, record, resolver, tls, interrupt,
                ))
            }
        }
    }
}

/// The check on the guest's thread, first failing rule wins. `path` is the path as the
/// guest wrote it and what the path rule made of it.
fn check(
    call: &NetCall,
    scheme: &str,
    host: &str,
    port: u16,
    path: (&str, Result<String, PathRefusal>),
    method: &hyper::Method,
) -> Result<Plan, (&'static str, String)> {
    let reach = &call.reach;
    let package = &*reach.package;
    if !call.permitted {
        return Err((
            "profile.denied",
            "missing permission: net.outbound (the session's profile may not send requests)".into(),
        ));
    }
    // The request itself is counted below, so the limit is what was sent before it.
    if call.sent() > MAX_NET_REQUESTS_PER_CALL as usize {
        return Err((
            "net.limit",
            format!("a call may send at most {MAX_NET_REQUESTS_PER_CALL} requests"),
        ));
    }
    let (requests_left, bytes_left) = reach.net_left;
    let bytes_left = bytes_left.map(|b| b.saturating_sub(call.bytes()));
    if requests_left.is_some_and(|left| call.sent() as u64 > left) || bytes_left == Some(0) {
        return Err((
            "budget.net",
            "the session's network budget is spent (`budgets.netRequests` / `budgets.netBytes`)"
                .into(),
        ));
    }
    let (written, normalized) = path;
    let shown = format!("{method} {scheme}://{host}:{port}{written}");
    let path = normalized.map_err(|refusal| ("net.grant", format!("{shown}: {refusal}")))?;
    let shown = if written == path {
        shown
    } else {
        format!("{shown} (normalized `{path}`)")
    };
    let path = path.as_str();
    let scheme = Scheme::parse(scheme).map_err(|e| ("net.grant", format!("{shown}: {e}")))?;
    let parsed = Host::parse(host).map_err(|e| ("net.grant", format!("{shown}: {e}")))?;
    let declared = reach.declared.network_match(scheme, &parsed, port, path);
    let given = reach
        .host
        .given(package)
        .network_match(scheme, &parsed, port, path);
    let (Some(declared), Some(given)) = (declared, given) else {
        let granted: Vec<&str> = reach
            .declared
            .network
            .iter()
            .map(|p| p.text.as_str())
            .collect();
        let whose = if declared.is_some() {
            "the host no longer gives it"
        } else {
            "no pattern the package declared covers it"
        };
        return Err((
            "net.grant",
            format!(
                "{shown} is outside the network grants of package `{package}` ({whose}; granted: {})",
                granted.join(", ")
            ),
        ));
    };
    let patterns = vec![declared.clone(), given.clone()];
    if let Host::Ip(ip) = parsed {
        address_allowed(&patterns, &format!("`{host}` is"), ip)?;
    }
    Ok(Plan {
        path: path.to_string(),
        tls_name: (scheme == Scheme::Https).then(|| match &parsed {
            Host::Ip(ip) => ip.to_string(),
            other => other.to_string(),
        }),
        host: parsed,
        port,
        patterns,
        bytes_left: bytes_left.unwrap_or(u64::MAX),
    })
}

/// An address a request may reach: public, or named by every pattern it falls under.
/// `what` says where the address came from (``"`weather.test` resolves to"``).
fn address_allowed(
    patterns: &[UrlPattern],
    what: &str,
    ip: IpAddr,
) -> Result<(), (&'static str, String)> {
    match address::special(ip) {
        None => Ok(()),
        Some(_) if patterns.iter().all(|p| p.names_address(ip)) => Ok(()),
        Some(kind) => Err((
            "net.address",
            format!(
                "{what} {ip}, {kind}; only a grant naming that address (or `localhost`, for loopback) reaches it"
            ),
        )),
    }
}

/// Resolves, checks the addresses, connects to a checked one and exchanges, raced against the
/// call's deadline and cancellation.
async fn send(
    plan: Plan,
    request: hyper::Request<WasiBody>,
    options: Option<RequestOptions>,
    record: Arc<Record>,
    resolver: Arc<dyn super::Resolver>,
    tls: Arc<rustls::ClientConfig>,
    interrupt: Interrupt,
) -> Sent {
    let cut = interrupt.clone();
    let stopped = async move {
        loop {
            if let Some(cut) = cut.check() {
                return cut;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    let work = exchange(
        plan,
        request,
        options,
        record.clone(),
        resolver,
        tls,
        interrupt,
    );
    tokio::select! {
        sent = work => sent,
        cut = stopped => {
            record.fail(format!("{cut}"));
            Err(Error::ConnectionTimeout)
        }
    }
}

async fn exchange(
    plan: Plan,
    request: hyper::Request<WasiBody>,
    options: Option<RequestOptions>,
    record: Arc<Record>,
    resolver: Arc<dyn super::Resolver>,
    tls: Arc<rustls::ClientConfig>,
    interrupt: Interrupt,
) -> Sent {
    let addresses = match &plan.host {
        Host::Ip(ip) => vec![*ip],
        Host::Name(name) => {
            let name = name.clone();
            match tokio::task::spawn_blocking(move || resolver.resolve(&name)).await {
                Ok(Ok(found)) => found,
                Ok(Err(e)) => {
                    record.fail(format!("resolving failed: {e}"));
                    return Err(Error::DnsError {
                        rcode: Some("no address".into()),
                        info_code: None,
                    });
                }
                Err(e) => {
                    record.fail(format!("resolving failed: {e}"));
                    return Err(Error::DnsError {
                        rcode: None,
                        info_code: None,
                    });
                }
            }
        }
        Host::Subdomains(_) => unreachable!("a request names one host"),
    };
    // Every address the name has must pass: a name that also points inside is refused whole.
    for ip in &addresses {
        let what = match &plan.host {
            Host::Name(name) => format!("`{name}` resolves to"),
            _ => format!("`{}` is", record.host),
        };
        if let Err((rule, reason)) = address_allowed(&plan.patterns, &what, *ip) {
            record.refuse(rule, reason);
            return Err(Error::DestinationIpProhibited);
        }
    }
    let connect_timeout = options
        .and_then(|o| o.connect_timeout)
        .unwrap_or(Duration::from_millis(NET_CONNECT_TIMEOUT_MS))
        .min(Duration::from_millis(NET_CONNECT_TIMEOUT_MS));
    let mut stream = None;
    let mut last_error = connect::Unopened {
        reason: String::from("no address to connect to"),
        code: Error::ConnectionRefused,
    };
    for ip in addresses {
        let addr = SocketAddr::new(ip, plan.port);
        let tls = plan.tls_name.as_deref().map(|name| connect::Tls {
            name,
            config: tls.clone(),
        });
        match tokio::time::timeout(connect_timeout, connect::open(addr, tls)).await {
            Ok(Ok(s)) => {
                record.connected_to(ip);
                stream = Some(s);
                break;
            }
            Ok(Err(e)) => last_error = e,
            Err(_) => {
                last_error = connect::Unopened {
                    reason: format!("connecting to {addr} timed out"),
                    code: Error::ConnectionTimeout,
                }
            }
        }
    }
    let Some(stream) = stream else {
        record.fail(last_error.reason);
        return Err(last_error.code);
    };
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| {
                record.fail(format!("HTTP handshake failed: {e}"));
                Error::Hyper(e)
            })?;
    // The connection must be driven while the request is sent, so it runs as a task of its
    // own now; what is handed back waits for it (and stops it when dropped).
    let driver = wasmtime_wasi::runtime::spawn(async move { conn.await.map_err(Error::Hyper) });
    let io: Box<dyn Future<Output = Result<(), Error>> + Send> = Box::new(driver);
    let (mut parts, body) = request.into_parts();
    // HTTP/1.1 requests name only the path and query; the host goes in the Host header. The
    // path is the one the check judged, never the one the guest wrote.
    let target = match parts.uri.query() {
        Some(query) => format!("{}?{query}", plan.path),
        None => plan.path.clone(),
    };
    parts.uri = target.parse().map_err(|_| Error::HttpRequestUriInvalid)?;
    let out_cap = MAX_NET_REQUEST_BODY_BYTES.min(plan.bytes_left);
    let body = Watched::new(body, record.clone(), Flow::Out, out_cap, interrupt.clone());
    let response = sender
        .send_request(hyper::Request::from_parts(parts, body))
        .await
        .map_err(|e| {
            record.fail(format!("the exchange failed: {e}"));
            Error::Hyper(e)
        })?;
    record.set_status(response.status().as_u16());
    let in_cap =
        MAX_NET_RESPONSE_BODY_BYTES.min(plan.bytes_left.saturating_sub(record.bytes_out()));
    let response = response.map(|incoming| {
        let incoming = incoming.map_err(Error::Hyper);
        Watched::new(incoming, record.clone(), Flow::In, in_cap, interrupt).boxed_unsync()
    });
    Ok((response, io))
}
