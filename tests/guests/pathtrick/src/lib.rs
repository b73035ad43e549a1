//! `pathtrick.reach {base, trick}`: a guest granted `BASE/api` that sends one request whose
//! path starts with `/api` as written but leaves it once a server resolves it — by the named
//! trick — and reports what came back (`{path, status, body}`) or the refusal (`{path, error}`).

use limina_sdk::http::Request;
use limina_sdk::prelude::*;

/// Each trick and the path it writes.
const TRICKS: &[(&str, &str)] = &[
    ("dotSegments", "/api/../admin"),
    ("dotSegmentsInside", "/api/v1/../v2"),
    ("emptySegmentThenDots", "/api//../admin"),
    ("encodedDot", "/api/%2e%2e/admin"),
    ("encodedDotUpper", "/api/%2E%2E/admin"),
    ("mixedDot", "/api/.%2e/admin"),
    ("encodedSlash", "/api/..%2fadmin"),
    ("encodedBackslash", "/api/..%5cadmin"),
    ("backslash", "/api/..\\admin"),
    ("doubleEncodedDot", "/api/%252e%252e/admin"),
    ("doubleEncodedSlash", "/api/..%252fadmin"),
    ("dotParameter", "/api/..;/admin"),
    ("dotParameterValue", "/api/..;jsessionid=1/admin"),
    ("overlongUtf8", "/api/%c0%ae%c0%ae/admin"),
    ("lookalike", "/api/%ef%bc%8e%ef%bc%8e/admin"),
    ("nulTruncation", "/api/..%00x/admin"),
    ("iisUnicode", "/api/%u002e%u002e/admin"),
    ("trailingSpace", "/api/..%20/admin"),
];

#[derive(Deserialize, JsonSchema)]
struct ReachInput {
    /// `http://127.0.0.1:PORT`: where the granted `/api` lives.
    base: String,
    trick: String,
}

#[derive(Serialize, JsonSchema)]
struct ReachOutput {
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn reach(input: ReachInput, _ctx: &CallContext) -> Result<ReachOutput, SkillError> {
    let Some((_, path)) = TRICKS.iter().find(|(name, _)| *name == input.trick) else {
        return Err(SkillError::InvalidInput(format!(
            "no trick `{}`",
            input.trick
        )));
    };
    let url = format!("{}{path}", input.base);
    Ok(match Request::new("GET", &url).send() {
        Ok(r) => ReachOutput {
            path: path.to_string(),
            status: Some(r.status),
            body: Some(r.text()),
            error: None,
        },
        Err(e) => ReachOutput {
            path: path.to_string(),
            status: None,
            body: None,
            error: Some(e.to_string()),
        },
    })
}

limina_sdk::export_package!(Package::new().skill(Skill::new(
    "pathtrick.reach",
    "0.1.0",
    "Send a request that leaves the granted path prefix by a named trick.",
    reach
)));
