//! `rustfetch.get {url, method?, body?}`: one request through `limina_sdk::http`, answered
//! with `{status, body, contentType}` or `{error}` (the `wasi:http` code of a refusal).

use limina_sdk::http::Request;
use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct GetInput {
    url: String,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    body: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct GetOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn get(input: GetInput, _ctx: &CallContext) -> Result<GetOutput, SkillError> {
    let method = input.method.as_deref().unwrap_or("GET");
    let mut request = Request::new(method, &input.url);
    if let Some(body) = &input.body {
        request = request.body(body.as_bytes());
    }
    Ok(match request.send() {
        Ok(r) => GetOutput {
            status: Some(r.status),
            body: Some(r.text()),
            content_type: r.header("content-type").map(str::to_string),
            error: None,
        },
        Err(e) => GetOutput {
            status: None,
            body: None,
            content_type: None,
            error: Some(e.to_string()),
        },
    })
}

limina_sdk::export_package!(Package::new().skill(
    Skill::new("rustfetch.get", "0.1.0", "Fetch a URL through the SDK's wasi:http client.", get)

));
