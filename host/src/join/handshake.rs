//! The control socket's handshake: one JSON line from the joining process ([`Hello`]), one
//! back from the serving host ([`Welcome`]). Both name their control protocol and their
//! version first, so any two versions can tell each other apart; a protocol number that
//! differs is refused with a message naming both versions.

use super::settings::Settings;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The control protocol this binary speaks. Raised whenever the handshake, the frames or the
/// notes change in a way an older binary would misread. (2: a network client's admission
/// travels in the hello; a host of protocol 1 would have ignored it and served that client
/// with no ceiling, as over stdio.)
pub const PROTOCOL: u32 = 2;

/// This binary's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What the connection is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Purpose {
    /// One client of the joining process, relayed: MCP frames follow the handshake.
    Client,
    /// `limina status`: the welcome carries the status, then the connection ends.
    Status,
    /// A joined process's own presence, held open while it lives: nothing follows the
    /// welcome, and the connection's end tells the joined process its host ended (one serving
    /// only network clients has no stdio client's connection to learn it from).
    Watch,
    /// A client the joining process's own network edge refused, for the world's trace
    /// (`session.admission.denied`, as the serving host traces its own refusals): the hello
    /// carries the reason, never the client's token; the welcome ends the connection.
    Refusal,
}

/// The joining side's first line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// Its control protocol ([`PROTOCOL`]).
    pub join: u32,
    pub version: String,
    pub pid: u32,
    pub purpose: Purpose,
    /// How the relayed client came to the joining process (`stdio`), for the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// The profile its process's flags give its clients when they name none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// A network client's admission, decided by the joining process's own network edge
    /// (`None`: a stdio client, with no ceiling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admitted: Option<Admitted>,
    /// The session id its transport gave it (`Mcp-Session-Id` over HTTP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// What its edge refused ([`Purpose::Refusal`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<Refused>,
}

/// A client a joined process's network edge refused: the agent its token named, if the
/// token was verified, and why (the edge's reason, which never holds the token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Refused {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    pub reason: String,
}

/// What a joined process's network edge admitted one of its clients with: the profiles it may
/// take at `initialize` (the first when it names none), the agent its token names, and the
/// setting that decided, for errors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Admitted {
    pub profiles: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    pub setting: String,
}

impl Hello {
    /// A hello of this binary for `purpose`.
    pub fn new(purpose: Purpose) -> Hello {
        Hello {
            join: PROTOCOL,
            version: VERSION.to_string(),
            pid: std::process::id(),
            purpose,
            transport: None,
            profile: None,
            admitted: None,
            session: None,
            refusal: None,
        }
    }
}

/// The serving side's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Welcome {
    pub join: u32,
    pub version: String,
    pub pid: u32,
    /// Why the connection is refused (then nothing else follows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The configuration serving every client (a client's connection).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Settings>,
    /// `limina status`'s answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
}

impl Welcome {
    /// An acceptance from this binary.
    pub fn accept(settings: Option<Settings>, status: Option<Value>) -> Welcome {
        Welcome {
            join: PROTOCOL,
            version: VERSION.to_string(),
            pid: std::process::id(),
            refused: None,
            settings,
            status,
        }
    }

    /// A refusal from this binary, saying why.
    pub fn refuse(reason: String) -> Welcome {
        Welcome {
            refused: Some(reason),
            ..Welcome::accept(None, None)
        }
    }
}

/// `value` as one line (JSON and a line break).
pub fn line<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = serde_json::to_vec(value).expect("a handshake serializes");
    out.push(b'\n');
    out
}

/// Only the fields every version of the handshake keeps, read first so that a line of another
/// version still names its version.
#[derive(Deserialize)]
struct Versions {
    join: Option<u32>,
    version: Option<String>,
}

/// Reads the joining side's line; the refusal to send when it cannot be served.
pub fn read_hello(text: &[u8]) -> Result<Hello, String> {
    let versions: Versions = serde_json::from_slice(text).map_err(|e| {
        format!(
            "the first line on the control socket is not a limina join handshake ({e}); this host is limina {VERSION} (control protocol {PROTOCOL})"
        )
    })?;
    if versions.join != Some(PROTOCOL) {
        return Err(mismatch(
            VERSION,
            PROTOCOL,
            versions.version.as_deref(),
            versions.join,
        ));
    }
    serde_json::from_slice(text).map_err(|e| {
        format!(
            "the join handshake of limina {VERSION} (control protocol {PROTOCOL}) is malformed: {e}"
        )
    })
}

/// Reads the serving side's line: its welcome, or why this process cannot join it (a refusal
/// it sent, or a version this binary cannot speak to).
pub fn read_welcome(text: &[u8]) -> Result<Welcome, String> {
    let versions: Versions = serde_json::from_slice(text).map_err(|e| {
        format!(
            "the serving host's answer on the control socket is not a limina join handshake ({e})"
        )
    })?;
    if versions.join != Some(PROTOCOL) {
        return Err(mismatch(
            versions.version.as_deref().unwrap_or("unknown"),
            versions.join.unwrap_or(0),
            Some(VERSION),
            Some(PROTOCOL),
        ));
    }
    let welcome: Welcome = serde_json::from_slice(text)
        .map_err(|e| format!("the serving host's join handshake is malformed: {e}"))?;
    match welcome.refused {
        Some(reason) => Err(reason),
        None => Ok(welcome),
    }
}

/// Why a host of `server` cannot serve a joining `joiner`, naming both.
fn mismatch(
    server: &str,
    server_protocol: u32,
    joiner: Option<&str>,
    joiner_protocol: Option<u32>,
) -> String {
    let joiner = joiner.unwrap_or("unknown");
    let joiner_protocol = joiner_protocol.map_or("none".to_string(), |p| p.to_string());
    format!(
        "the serving host is limina {server} (control protocol {server_protocol}) and the joining process is limina {joiner} (control protocol {joiner_protocol}): they cannot share a world; run one limina version in every client's configuration, or give one of them its own --trace-dir"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_hello_and_a_welcome_of_this_version_go_through() {
        let mut hello = Hello::new(Purpose::Client);
        hello.transport = Some("stdio".into());
        hello.profile = Some("builder.readWrite".into());
        let text = line(&hello);
        assert_eq!(text.last(), Some(&b'\n'));
        assert_eq!(read_hello(&text[..text.len() - 1]).unwrap(), hello);
        // A network client's admission goes with it.
        hello.transport = Some("WebSocket".into());
        hello.admitted = Some(Admitted {
            profiles: vec!["builder.readWrite".into()],
            agent_id: Some("alice".into()),
            setting: "the `[[network.tokens]]` entry of agent `alice`".into(),
        });
        hello.session = Some("abc".into());
        let text = line(&hello);
        assert_eq!(read_hello(&text[..text.len() - 1]).unwrap(), hello);
        let welcome = Welcome::accept(None, Some(json!({"pid": 1})));
        assert_eq!(read_welcome(&line(&welcome)).unwrap(), welcome);
    }

    #[test]
    fn another_protocol_is_refused_naming_both_versions() {
        let other = json!({"join": PROTOCOL + 1, "version": "9.9.9", "pid": 1, "purpose": "client", "newField": []});
        let refusal = read_hello(other.to_string().as_bytes()).unwrap_err();
        assert!(refusal.contains(&format!("limina {VERSION}")), "{refusal}");
        assert!(refusal.contains("limina 9.9.9"), "{refusal}");
        assert!(
            refusal.contains(&format!("control protocol {}", PROTOCOL + 1)),
            "{refusal}"
        );
        let answer = json!({"join": 7, "version": "0.0.1", "pid": 1});
        let refusal = read_welcome(answer.to_string().as_bytes()).unwrap_err();
        assert!(
            refusal.contains("serving host is limina 0.0.1 (control protocol 7)"),
            "{refusal}"
        );
        assert!(
            refusal.contains(&format!("joining process is limina {VERSION}")),
            "{refusal}"
        );
    }

    #[test]
    fn a_refusal_and_a_stray_line_read_as_errors_that_say_so() {
        let refused = Welcome::refuse("only the user who runs the host may join".into());
        assert_eq!(
            read_welcome(&line(&refused)).unwrap_err(),
            "only the user who runs the host may join"
        );
        assert!(
            read_hello(b"GET / HTTP/1.1")
                .unwrap_err()
                .contains("not a limina join handshake")
        );
        assert!(
            read_hello(format!(r#"{{"join": {PROTOCOL}, "version": "x"}}"#).as_bytes())
                .unwrap_err()
                .contains("malformed")
        );
    }
}
