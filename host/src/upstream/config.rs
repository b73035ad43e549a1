//! `[[upstream]]` in the host's configuration: the MCP servers whose tools are mounted as
//! skills. Every entry is checked at start; a bad one is refused with the line and the key.
//!
//! ```toml
//! [[upstream]]
//! name = "search"                 # its tools become `search.<tool>`
//! transport = "stdio"             # or "http"
//! command = "python3"             # stdio: the server to start, its args and environment
//! args = ["server.py"]
//! env = { INDEX = "/srv/index" }
//! tools = ["query", "fetch*"]     # glob allow-list of its tools (default: all)
//! timeoutMs = 5000                # one call's deadline
//! capability = "upstream.search"  # the permission a session's profile must list
//! pinning = "hold"                # a changed tool waits for approval ("warn", "off")
//! pin = { query = "sha256:…" }    # digests fixed ahead of time (`limina upstream diff`)
//! ```

use crate::limits::{UPSTREAM_MAX_TIMEOUT_MS, UPSTREAM_TIMEOUT_MS};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Names the host's own skills live under: an upstream may not take them.
const RESERVED: &[&str] = &[
    "skills",
    "trace",
    "audit",
    "inspector",
    "dev",
    "package",
    "world",
    "upstream",
];

/// One `[[upstream]]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawUpstream {
    name: Option<Spanned<String>>,
    transport: Option<Spanned<String>>,
    command: Option<Spanned<String>>,
    #[serde(default)]
    args: Vec<String>,
    env: Option<Spanned<BTreeMap<String, String>>>,
    url: Option<Spanned<String>>,
    auth: Option<Spanned<RawAuth>>,
    tools: Option<Spanned<Vec<String>>>,
    timeout_ms: Option<Spanned<i64>>,
    capability: Option<Spanned<String>>,
    pinning: Option<Spanned<String>>,
    pin: Option<Spanned<BTreeMap<String, String>>>,
}

/// `auth` of an upstream as written: one of a token (inline, from a file, from the
/// environment) or OAuth client credentials.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawAuth {
    token: Option<String>,
    token_file: Option<String>,
    token_env: Option<String>,
    oauth: Option<Spanned<RawOauth>>,
}

/// `auth.oauth` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawOauth {
    token_url: Option<String>,
    client_id: Option<String>,
    secret_file: Option<String>,
    secret_env: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
}

/// How the host reaches an upstream server.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    /// A subprocess speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Its whole environment besides `PATH` and `HOME`: nothing of the host's leaks.
        env: BTreeMap<String, String>,
    },
    /// A Streamable HTTP endpoint.
    Http { url: String },
}

/// How the host authenticates to an upstream server (sent to it, never to a caller).
#[derive(Clone, PartialEq, Default)]
pub enum Auth {
    /// Nothing is sent.
    #[default]
    None,
    /// `Authorization: Bearer TOKEN` (read at start from the configuration, a file or the
    /// environment).
    Bearer(String),
    /// OAuth 2.1 client credentials, fetched from `token_url` and refreshed before expiry.
    Oauth {
        token_url: String,
        client_id: String,
        secret: String,
        scopes: Vec<String>,
    },
}

impl std::fmt::Debug for Auth {
    /// Never prints a secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::None => f.write_str("None"),
            Auth::Bearer(_) => f.write_str("Bearer(…)"),
            Auth::Oauth {
                token_url,
                client_id,
                ..
            } => write!(f, "Oauth({token_url}, {client_id})"),
        }
    }
}

/// One upstream server, checked.
#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    /// Its tools are mounted as `NAME.tool`.
    pub name: String,
    pub transport: Transport,
    pub auth: Auth,
    /// Glob patterns over its tool names; only matching tools are mounted.
    pub tools: Vec<String>,
    /// A call's deadline, in milliseconds.
    pub timeout_ms: u64,
    /// The permission a session's profile must list to call its tools (`upstream.NAME` unless
    /// set).
    pub capability: String,
    /// What an `https` upstream's certificate must chain to: the web roots and
    /// `[outbound] extraRoots` (set by the configuration once both are read).
    pub roots: crate::net::TlsRoots,
    /// What a changed tool definition does (`super::pins`).
    pub pinning: super::pins::Pinning,
    /// Digests fixed ahead of time, by tool name.
    pub pin: BTreeMap<String, String>,
}

type Refusal = (Range<usize>, String);

/// Checks every `[[upstream]]`; relative paths (a token file, a command given as a path)
/// start at `base`. The error carries the span of the bad value and names the key.
pub fn parse(
    raw: Vec<Spanned<RawUpstream>>,
    base: Option<&Path>,
) -> Result<Vec<UpstreamConfig>, Refusal> {
    let mut out: Vec<UpstreamConfig> = Vec::new();
    for (i, spanned) in raw.into_iter().enumerate() {
        let span = spanned.span();
        let entry = parse_one(i, span.clone(), spanned.into_inner(), base)?;
        if out.iter().any(|u| u.name == entry.name) {
            return Err((
                span,
                format!("`upstream[{i}].name`: `{}` is used twice", entry.name),
            ));
        }
        out.push(entry);
    }
    Ok(out)
}

/// One `[[upstream]]`, checked key by key in the order a reader fixes them: its name, how it
/// is reached, its credentials, which tools, its deadline, its capability, its pins.
fn parse_one(
    i: usize,
    span: Range<usize>,
    mut raw: RawUpstream,
    base: Option<&Path>,
) -> Result<UpstreamConfig, Refusal> {
    let Some(name) = raw.name.take() else {
        return Err((
            span,
            format!(
                "{} is missing: every upstream needs a name (its tools are mounted as `NAME.tool`)",
                key(i, "name")
            ),
        ));
    };
    let name_span = name.span();
    let name = name.into_inner();
    check_name(&name).map_err(|e| (name_span.clone(), format!("{}: {e}", key(i, "name"))))?;
    let transport = match raw.transport.take() {
        None => {
            return Err((
                span,
                format!(
                    "{} is missing: say \"stdio\" (a command to start) or \"http\" (a url)",
                    key(i, "transport")
                ),
            ));
        }
        Some(t) => match t.get_ref().as_str() {
            "stdio" => stdio(i, span, &mut raw, base)?,
            "http" => http(i, span, &mut raw)?,
            other => {
                return Err((
                    t.span(),
                    format!(
                        "{}: unknown transport `{other}`; use \"stdio\" or \"http\"",
                        key(i, "transport")
                    ),
                ));
            }
        },
    };
    Ok(UpstreamConfig {
        auth: auth(i, raw.auth, &transport, base)?,
        transport,
        tools: tools(i, raw.tools)?,
        timeout_ms: timeout_ms(i, raw.timeout_ms)?,
        capability: capability(i, &name, raw.capability)?,
        roots: crate::net::TlsRoots::default(),
        pinning: match raw.pinning {
            None => super::pins::Pinning::default(),
            Some(p) => super::pins::Pinning::parse(p.get_ref())
                .map_err(|e| (p.span(), format!("{}: {e}", key(i, "pinning"))))?,
        },
        pin: pin(i, &name, raw.pin)?,
        name,
    })
}

/// How upstream `i`'s key `k` is named in errors.
fn key(i: usize, k: &str) -> String {
    format!("`upstream[{i}].{k}`")
}

/// A stdio upstream: the command that starts it (relative to `base` when given as a path),
/// its arguments and environment; no `url`.
fn stdio(
    i: usize,
    span: Range<usize>,
    raw: &mut RawUpstream,
    base: Option<&Path>,
) -> Result<Transport, Refusal> {
    if let Some(url) = &raw.url {
        return Err((
            url.span(),
            format!(
                "{}: a stdio upstream is started with `command`; `url` is for transport = \"http\"",
                key(i, "url")
            ),
        ));
    }
    let Some(command) = raw.command.take() else {
        return Err((
            span,
            format!(
                "{} is missing: a stdio upstream needs the command that starts it",
                key(i, "command")
            ),
        ));
    };
    if command.get_ref().trim().is_empty() {
        return Err((
            command.span(),
            format!("{} must not be empty", key(i, "command")),
        ));
    }
    Ok(Transport::Stdio {
        command: resolve_command(command.into_inner(), base),
        args: std::mem::take(&mut raw.args),
        env: raw.env.take().map(Spanned::into_inner).unwrap_or_default(),
    })
}

/// An http upstream: its Streamable HTTP endpoint; no `command`, no `env`.
fn http(i: usize, span: Range<usize>, raw: &mut RawUpstream) -> Result<Transport, Refusal> {
    if let Some(command) = &raw.command {
        return Err((
            command.span(),
            format!(
                "{}: an http upstream is reached at `url`; `command` is for transport = \"stdio\"",
                key(i, "command")
            ),
        ));
    }
    if let Some(env) = &raw.env {
        return Err((
            env.span(),
            format!(
                "{}: only a stdio upstream has an environment",
                key(i, "env")
            ),
        ));
    }
    let Some(url) = raw.url.take() else {
        return Err((
            span,
            format!(
                "{} is missing: an http upstream needs its Streamable HTTP endpoint",
                key(i, "url")
            ),
        ));
    };
    let url_span = url.span();
    let url = url.into_inner();
    check_url(&url).map_err(|e| (url_span, format!("{}: {e}", key(i, "url"))))?;
    Ok(Transport::Http { url })
}

/// `auth`: credentials sent to an http upstream (none by default; a stdio one gets none).
fn auth(
    i: usize,
    raw: Option<Spanned<RawAuth>>,
    transport: &Transport,
    base: Option<&Path>,
) -> Result<Auth, Refusal> {
    let Some(auth) = raw else {
        return Ok(Auth::None);
    };
    let auth_span = auth.span();
    if matches!(transport, Transport::Stdio { .. }) {
        return Err((
            auth_span,
            format!(
                "{}: a stdio upstream is not sent credentials; give it what it needs in `env`",
                key(i, "auth")
            ),
        ));
    }
    parse_auth(auth.into_inner(), base).map_err(|e| (auth_span, format!("{}{e}", key(i, "auth"))))
}

/// `tools`: the globs of the tools to mount (every tool by default).
fn tools(i: usize, raw: Option<Spanned<Vec<String>>>) -> Result<Vec<String>, Refusal> {
    let Some(tools) = raw else {
        return Ok(vec!["*".to_string()]);
    };
    let tools_span = tools.span();
    let tools = tools.into_inner();
    if tools.is_empty() || tools.iter().any(|t| t.trim().is_empty()) {
        return Err((
            tools_span,
            format!(
                "{} must list at least one non-empty glob (\"*\" mounts every tool; leave it out for the same)",
                key(i, "tools")
            ),
        ));
    }
    Ok(tools)
}

/// `timeoutMs`: a call's deadline, > 0 and at most `UPSTREAM_MAX_TIMEOUT_MS`.
fn timeout_ms(i: usize, raw: Option<Spanned<i64>>) -> Result<u64, Refusal> {
    let Some(t) = raw else {
        return Ok(UPSTREAM_TIMEOUT_MS);
    };
    let v = *t.get_ref();
    if v <= 0 || v as u64 > UPSTREAM_MAX_TIMEOUT_MS {
        return Err((
            t.span(),
            format!(
                "{} must be > 0 and ≤ {UPSTREAM_MAX_TIMEOUT_MS} (milliseconds), got {v}",
                key(i, "timeoutMs")
            ),
        ));
    }
    Ok(v as u64)
}

/// `capability`: the permission a profile must list to call its tools (`upstream.NAME`
/// unless set; `upstream.<word>` when set).
fn capability(i: usize, name: &str, raw: Option<Spanned<String>>) -> Result<String, Refusal> {
    let Some(c) = raw else {
        return Ok(format!("upstream.{name}"));
    };
    let text = c.get_ref();
    let rest = text.strip_prefix("upstream.").unwrap_or("");
    if rest.is_empty() || !rest.chars().all(name_char) {
        return Err((
            c.span(),
            format!(
                "{} must be `upstream.<word>` (letters, digits, `_`, `-`), e.g. `upstream.{name}`; got `{text}`",
                key(i, "capability")
            ),
        ));
    }
    Ok(c.into_inner())
}

/// `pin`: digests fixed ahead of time, by tool name, each a `sha256:` digest.
fn pin(
    i: usize,
    name: &str,
    raw: Option<Spanned<BTreeMap<String, String>>>,
) -> Result<BTreeMap<String, String>, Refusal> {
    let Some(pin) = raw else {
        return Ok(BTreeMap::new());
    };
    let pin_span = pin.span();
    let pin = pin.into_inner();
    if let Some((tool, digest)) = pin.iter().find(|(_, d)| !super::pins::valid_digest(d)) {
        return Err((
            pin_span,
            format!(
                "{}: `{tool} = \"{digest}\"` is not a digest; write `sha256:` and 64 lowercase hex digits, as `limina upstream diff {name}` shows them",
                key(i, "pin")
            ),
        ));
    }
    Ok(pin)
}

fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// An upstream's name: a word that is no host prefix.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 || !name.chars().all(name_char) {
        return Err(format!(
            "`{name}` must be 1–64 letters, digits, `_` or `-` (no dots: its tools are `NAME.tool`)"
        ));
    }
    if RESERVED.contains(&name) {
        return Err(format!(
            "`{name}` would shadow the host's own `{name}.*` skills; choose another name"
        ));
    }
    Ok(())
}

/// An http upstream's url: `https://`, or `http://` to a loopback address only.
fn check_url(url: &str) -> Result<(), String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("`{url}` is not a url; write e.g. `https://mcp.example.com/mcp`"))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = match authority.rsplit_once('@') {
        Some((_, h)) => h,
        None => authority,
    };
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    if host.is_empty() {
        return Err(format!("`{url}` names no host"));
    }
    // The path rule every path the host sends is held to (`grants::path`).
    let path = rest[authority.len()..]
        .split(['?', '#'])
        .next()
        .unwrap_or("");
    if !path.is_empty() {
        let normalized =
            crate::grants::path::normalize(path).map_err(|e| format!("`{url}`: {e}"))?;
        if normalized != path {
            return Err(format!(
                "`{url}`: the path may not hold `.` or `..` segments; write it as `{normalized}`"
            ));
        }
    }
    match scheme {
        "https" => Ok(()),
        "http" if is_loopback(host) => Ok(()),
        "http" => Err(format!(
            "`{url}` is plain http to `{host}`, which is beyond loopback; a remote upstream requires https"
        )),
        other => Err(format!(
            "`{url}` uses `{other}`; an upstream is reached over https (or http on loopback)"
        )),
    }
}

/// `localhost`, `127.0.0.0/8` or `::1`.
pub(crate) fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn parse_auth(raw: RawAuth, base: Option<&Path>) -> Result<Auth, String> {
    let given = [
        raw.token.is_some(),
        raw.token_file.is_some(),
        raw.token_env.is_some(),
        raw.oauth.is_some(),
    ]
    .iter()
    .filter(|g| **g)
    .count();
    if given != 1 {
        return Err(
            ": give exactly one of `token`, `tokenFile`, `tokenEnv` or `oauth`".to_string(),
        );
    }
    if let Some(token) = raw.token {
        return bearer(token, ".token");
    }
    if let Some(file) = raw.token_file {
        let path = relative(&file, base);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!(".tokenFile: cannot read {}: {e}", path.display()))?;
        return bearer(text.trim().to_string(), ".tokenFile");
    }
    if let Some(var) = raw.token_env {
        let value = std::env::var(&var).map_err(|_| {
            format!(".tokenEnv: the environment variable `{var}` is not set (or not UTF-8)")
        })?;
        return bearer(value.trim().to_string(), ".tokenEnv");
    }
    let oauth = raw.oauth.expect("counted above").into_inner();
    let token_url = oauth
        .token_url
        .ok_or(".oauth.tokenUrl is missing: where client credentials are exchanged")?;
    check_url(&token_url).map_err(|e| format!(".oauth.tokenUrl: {e}"))?;
    let client_id = oauth
        .client_id
        .filter(|c| !c.is_empty())
        .ok_or(".oauth.clientId is missing")?;
    let secret = match (oauth.secret_file, oauth.secret_env) {
        (Some(file), None) => {
            let path = relative(&file, base);
            std::fs::read_to_string(&path)
                .map_err(|e| format!(".oauth.secretFile: cannot read {}: {e}", path.display()))?
                .trim()
                .to_string()
        }
        (None, Some(var)) => std::env::var(&var)
            .map_err(|_| format!(".oauth.secretEnv: the environment variable `{var}` is not set"))?
            .trim()
            .to_string(),
        _ => {
            return Err(
                ".oauth: give exactly one of `secretFile` or `secretEnv` (the secret is never written in the configuration)"
                    .to_string(),
            );
        }
    };
    if secret.is_empty() {
        return Err(".oauth: the client secret is empty".to_string());
    }
    Ok(Auth::Oauth {
        token_url,
        client_id,
        secret,
        scopes: oauth.scopes,
    })
}

fn bearer(token: String, key: &str) -> Result<Auth, String> {
    if token.is_empty() || token.chars().any(|c| c.is_control() || c == ' ') {
        return Err(format!(
            "{key}: the token must be non-empty, without spaces or control characters"
        ));
    }
    Ok(Auth::Bearer(token))
}

fn relative(path: &str, base: Option<&Path>) -> PathBuf {
    let p = PathBuf::from(path);
    match base {
        Some(base) if p.is_relative() => base.join(p),
        _ => p,
    }
}

/// A command given as a relative path (`./server.py`) starts at the configuration's folder; a
/// bare name (`python3`) is looked up on `PATH` when started.
fn resolve_command(command: String, base: Option<&Path>) -> String {
    if command.contains('/') {
        relative(&command, base).display().to_string()
    } else {
        command
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    fn refused(text: &str) -> String {
        Config::parse(text).unwrap_err()
    }

    #[test]
    fn a_stdio_entry_parses_with_its_defaults() {
        let c = Config::parse(
            "[[upstream]]\nname = \"py\"\ntransport = \"stdio\"\ncommand = \"python3\"\nargs = [\"s.py\"]\n",
        )
        .unwrap();
        let u = &c.upstreams[0];
        assert_eq!(u.name, "py");
        assert_eq!(u.capability, "upstream.py");
        assert_eq!(u.tools, vec!["*"]);
        assert_eq!(u.timeout_ms, crate::limits::UPSTREAM_TIMEOUT_MS);
        assert_eq!(
            u.transport,
            super::Transport::Stdio {
                command: "python3".into(),
                args: vec!["s.py".into()],
                env: Default::default()
            }
        );
    }

    #[test]
    fn bad_entries_name_the_line_and_the_key() {
        let cases = [
            (
                "\n[[upstream]]\ntransport = \"stdio\"\ncommand = \"x\"\n",
                "2:",
                "`upstream[0].name` is missing",
            ),
            (
                "[[upstream]]\nname = \"a.b\"\ntransport = \"stdio\"\ncommand = \"x\"\n",
                "2:",
                "`upstream[0].name`",
            ),
            (
                "[[upstream]]\nname = \"trace\"\ntransport = \"stdio\"\ncommand = \"x\"\n",
                "2:",
                "would shadow the host's own `trace.*` skills",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"pigeon\"\n",
                "3:",
                "`upstream[0].transport`: unknown transport `pigeon`",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"stdio\"\n",
                "1:",
                "`upstream[0].command` is missing",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"stdio\"\ncommand = \"x\"\ntimeoutMs = 0\n",
                "5:",
                "`upstream[0].timeoutMs` must be > 0",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"stdio\"\ncommand = \"x\"\ntools = []\n",
                "5:",
                "`upstream[0].tools` must list at least one",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"stdio\"\ncommand = \"x\"\ncapability = \"scene.write\"\n",
                "5:",
                "`upstream[0].capability` must be `upstream.<word>`",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"http\"\nurl = \"http://example.com/mcp\"\n",
                "4:",
                "a remote upstream requires https",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"http\"\nurl = \"https://e.example/mcp\"\nauth = { tokenEnv = \"LIMINA_TEST_SURELY_UNSET\" }\n",
                "5:",
                "`upstream[0].auth`.tokenEnv: the environment variable `LIMINA_TEST_SURELY_UNSET` is not set",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"http\"\nurl = \"https://e.example/api/%2e%2e/admin\"\n",
                "4:",
                "`upstream[0].url`: `https://e.example/api/%2e%2e/admin`: the path segment `%2e%2e` breaks the path rule `path.encodedDot`",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"http\"\nurl = \"https://e.example/api/../mcp\"\n",
                "4:",
                "write it as `/mcp`",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"stdio\"\ncommand = \"x\"\npinning = \"trust\"\n",
                "5:",
                "`upstream[0].pinning`: `trust` is not a pinning",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"stdio\"\ncommand = \"x\"\npin = { echo = \"md5:00\" }\n",
                "5:",
                "`upstream[0].pin`: `echo = \"md5:00\"` is not a digest",
            ),
            (
                "[[upstream]]\nname = \"a\"\ntransport = \"stdio\"\ncommand = \"x\"\nsecret = 1\n",
                "5:",
                "unknown field `secret`",
            ),
        ];
        for (text, line, needle) in cases {
            let err = refused(text);
            assert!(
                err.starts_with(line) && err.contains(needle),
                "{text:?}: wanted `{line}` … `{needle}`, got {err}"
            );
        }
    }

    #[test]
    fn a_name_used_twice_is_refused() {
        let one = "[[upstream]]\nname = \"a\"\ntransport = \"stdio\"\ncommand = \"x\"\n";
        let err = refused(&format!("{one}{one}"));
        assert!(
            err.contains("`upstream[1].name`: `a` is used twice"),
            "{err}"
        );
    }

    #[test]
    fn plain_http_is_allowed_on_loopback_only_and_tokens_never_print() {
        let c = Config::parse(
            "[[upstream]]\nname = \"a\"\ntransport = \"http\"\nurl = \"http://127.0.0.1:9/mcp\"\nauth = { token = \"s3cret\" }\n",
        )
        .unwrap();
        assert!(!format!("{:?}", c.upstreams[0]).contains("s3cret"));
        assert!(super::is_loopback("localhost") && super::is_loopback("::1"));
        assert!(!super::is_loopback("10.0.0.1"));
    }
}
