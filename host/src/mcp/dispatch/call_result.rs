//! A `tools/call` result in the MCP shape, kept typed until it is sent.
//!
//! Built as a `Value`, every reply was four small maps made, serialized and dropped, and the
//! answer serialized twice (its text, then its structured copy): a sixth of the engine
//! thread's instructions per pipelined call. A 2025-11-25 reply is now written straight into
//! its frame, with the answer's text used for both copies; the `Value` form remains for the
//! replies that are reshaped on their way (2026-07-28 envelopes, tasks, telemetry).

use crate::call::ErrorCode;
use crate::json::object;
use crate::mcp::engine::outbox::Frame;
use crate::mcp::wire::{Revision, modern};
use crate::registry::Response;
use serde_json::Value;
use std::io::Write;

/// One call's result: its answer or its failure, the text content, and `_meta`.
pub struct CallResult {
    outcome: Outcome,
    /// The text content: the answer as compact JSON (exactly its structured copy's text), or
    /// `code: message`.
    text: String,
    /// Content blocks after the text one (images, sounds, links); their bytes' base64 text
    /// made where the call ran.
    blocks: Vec<crate::call::Content>,
    events: Vec<String>,
    execution_time_ms: f64,
}

/// What the call gave.
enum Outcome {
    Answer(Value),
    Failure(ErrorCode, String),
}

impl From<Response> for CallResult {
    fn from(response: Response) -> CallResult {
        let Response {
            result,
            error,
            metadata,
            content,
            ..
        } = response;
        let (outcome, text) = match (result, error) {
            (Some(result), None) => {
                let text = crate::json::text(&result);
                (Outcome::Answer(result), text)
            }
            (_, failure) => {
                let failure = failure.expect("a failed response carries its failure");
                let text = format!("{}: {}", failure.code, failure.message);
                (Outcome::Failure(failure.code, failure.message), text)
            }
        };
        CallResult {
            outcome,
            text,
            blocks: content,
            events: metadata.events_emitted,
            execution_time_ms: metadata.execution_time_ms,
        }
    }
}

impl CallResult {
    /// The result as a JSON value (keys in code-point order, as every `Value` map).
    pub fn into_value(self) -> Value {
        let mut meta = object([
            ("executionTimeMs", self.execution_time_ms.into()),
            ("eventsEmitted", self.events.into()),
        ]);
        let mut content = vec![object([
            ("type", "text".into()),
            ("text", self.text.into()),
        ])];
        content.extend(self.blocks.into_iter().map(crate::call::Content::into_mcp));
        let content = Value::Array(content);
        match self.outcome {
            Outcome::Answer(result) => object([
                ("content", content),
                ("structuredContent", result),
                ("isError", false.into()),
                ("_meta", meta),
            ]),
            Outcome::Failure(code, message) => {
                meta["error"] =
                    object([("code", code.as_str().into()), ("message", message.into())]);
                object([
                    ("content", content),
                    ("isError", true.into()),
                    ("_meta", meta),
                ])
            }
        }
    }

    /// The JSON-RPC reply to request `id` carrying this result in `revision`'s shape, as the
    /// line its [`CallResult::into_value`] form would serialize to, byte for byte (a
    /// 2026-07-28 result stamped as `modern::complete` stamps that form).
    pub fn reply_in(&self, id: &Value, revision: Revision) -> Frame {
        let modern = revision != Revision::Classic;
        Frame::from(crate::mcp::wire::jsonrpc::result_line(
            id,
            RESULT_START_BYTES + 2 * self.text.len() + self.blocks_bytes(),
            |w| self.write_result(w, modern),
        ))
    }

    /// About what the content blocks take serialized (their data is most of it).
    fn blocks_bytes(&self) -> usize {
        self.blocks.iter().map(crate::call::Content::mcp_len).sum()
    }

    fn write_result(&self, w: &mut Vec<u8>, modern: bool) -> std::io::Result<()> {
        w.write_all(b"{\"_meta\":{")?;
        if let Outcome::Failure(code, message) = &self.outcome {
            w.write_all(b"\"error\":{\"code\":")?;
            serde_json::to_writer(&mut *w, code.as_str())?;
            w.write_all(b",\"message\":")?;
            serde_json::to_writer(&mut *w, message)?;
            w.write_all(b"},")?;
        }
        w.write_all(b"\"eventsEmitted\":")?;
        serde_json::to_writer(&mut *w, &self.events)?;
        w.write_all(b",\"executionTimeMs\":")?;
        // As a `Value` would hold it: a number, or null when not finite.
        serde_json::to_writer(&mut *w, &Value::from(self.execution_time_ms))?;
        if modern {
            w.write_all(b",")?;
            serde_json::to_writer(&mut *w, modern::SERVER_INFO_KEY)?;
            w.write_all(b":")?;
            serde_json::to_writer(&mut *w, &modern::server_info())?;
        }
        w.write_all(b"},\"content\":[{\"text\":")?;
        serde_json::to_writer(&mut *w, &self.text)?;
        w.write_all(b",\"type\":\"text\"}")?;
        for block in &self.blocks {
            w.write_all(b",")?;
            block.write_mcp(w)?;
        }
        w.write_all(b"],\"isError\":")?;
        let failed = matches!(self.outcome, Outcome::Failure(..));
        w.write_all(if failed { b"true" } else { b"false" })?;
        if modern {
            w.write_all(b",\"resultType\":\"complete\"")?;
        }
        if !failed {
            // The text is the answer serialized compactly: its structured copy, as is.
            w.write_all(b",\"structuredContent\":")?;
            w.write_all(self.text.as_bytes())?;
        }
        w.write_all(b"}")
    }
}

/// What [`CallResult::reply`] reserves for the result besides the text written twice.
const RESULT_START_BYTES: usize = 192;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::Failure;
    use crate::mcp::wire::jsonrpc;
    use serde_json::json;
    use std::time::Instant;

    fn response(outcome: Result<Value, Failure>) -> Response {
        let events = vec!["evt_a_000000000001_00ff".to_string(), "evt_a_2".to_string()];
        Response::of(outcome, Instant::now(), events)
    }

    /// The frame is the `Value` form's text for every shape of result and id.
    #[test]
    fn the_reply_frame_is_the_value_forms_text() {
        let answers = [
            json!({"entities": [{"id": "e\"1", "position": [0.0, 1.5, -2.0]}], "b": null, "é": "\u{1F600}\n"}),
            json!({}),
            json!([1, "two", {"z": 1, "a": 2}]),
            json!("plain"),
        ];
        let failures = [
            Failure::new(
                ErrorCode::InvalidInput,
                "invalid input for `x`: \"radius\" must be ≥ 0",
            ),
            Failure::new(ErrorCode::Forbidden, ""),
        ];
        let outcomes = answers
            .into_iter()
            .map(Ok)
            .chain(failures.into_iter().map(Err));
        for outcome in outcomes {
            for id in [json!(7), json!("req-\"9\""), json!(-1), json!(1.5)] {
                let result = CallResult::from(response(outcome.clone()));
                let frame = result.reply_in(&id, Revision::Classic);
                let modern_frame = result.reply_in(&id, Revision::Modern);
                let value = result.into_value();
                let expected = crate::json::text(&jsonrpc::result(id.clone(), value.clone()));
                assert_eq!(frame.as_str(), expected, "outcome {outcome:?}, id {id}");
                let expected =
                    crate::json::text(&jsonrpc::result(id.clone(), modern::complete(value)));
                assert_eq!(
                    modern_frame.as_str(),
                    expected,
                    "outcome {outcome:?}, id {id}"
                );
            }
        }
    }

    /// Content blocks follow the text block, in both forms, and only on a success.
    #[test]
    fn content_blocks_follow_the_text_block() {
        let mut ok = response(Ok(json!({"w": 2})));
        use crate::call::{Content, ContentBody};
        let mut sound = Content::Audio {
            mime_type: "audio/wav".into(),
            data: b"RIFF\0\0\0\0WAVE".to_vec().into(),
        };
        // Made where the call ran, or (a call on the engine) when the reply is written: the
        // same text either way.
        sound.encode();
        ok.content = vec![
            Content::Image {
                mime_type: "image/png".into(),
                data: b"\x89PNG\r\n\x1a\n".to_vec().into(),
            },
            Content::Text("a \"caption\"".into()),
            sound,
            Content::Embedded {
                uri: "limina://pkg/lore/\"a\"".into(),
                mime_type: "application/octet-stream".into(),
                body: ContentBody::Blob(vec![0xff; 7].into()),
            },
            Content::ResourceLink {
                uri: "limina://pkg/rules/movement".into(),
                name: "Movement".into(),
                description: Some("how \"things\" move".into()),
                mime_type: None,
            },
        ];
        let result = CallResult::from(ok);
        let frame = result.reply_in(&json!(3), Revision::Classic);
        let value = result.into_value();
        assert_eq!(
            frame.as_str(),
            crate::json::text(&jsonrpc::result(json!(3), value.clone()))
        );
        assert_eq!(value["content"][0]["text"], "{\"w\":2}");
        assert_eq!(
            value["content"][1],
            json!({"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="})
        );
        assert_eq!(
            value["content"][2],
            json!({"type": "text", "text": "a \"caption\""})
        );
        assert_eq!(value["content"][3]["data"], "UklGRgAAAABXQVZF");
        assert_eq!(value["content"][4]["resource"]["blob"], "/////////w==");
    }

    #[test]
    fn a_time_that_is_not_a_number_is_null_in_both_forms() {
        let mut result = CallResult::from(response(Ok(json!({"ok": true}))));
        result.execution_time_ms = f64::NAN;
        let frame = result.reply_in(&json!(1), Revision::Classic);
        assert!(
            frame.as_str().contains("\"executionTimeMs\":null"),
            "{}",
            frame.as_str()
        );
        assert_eq!(
            frame.as_str(),
            crate::json::text(&jsonrpc::result(json!(1), result.into_value()))
        );
    }

    #[test]
    fn the_value_form_is_the_mcp_shape() {
        let ok = CallResult::from(response(Ok(json!({"n": 1})))).into_value();
        assert_eq!(
            ok["content"],
            json!([{"type": "text", "text": "{\"n\":1}"}])
        );
        assert_eq!(ok["structuredContent"], json!({"n": 1}));
        assert_eq!(ok["isError"], json!(false));
        assert_eq!(ok["_meta"]["eventsEmitted"][1], json!("evt_a_2"));
        let failed = CallResult::from(response(Err(Failure::new(
            ErrorCode::HandlerError,
            "it broke",
        ))))
        .into_value();
        assert_eq!(
            failed["content"][0]["text"],
            json!("handler_error: it broke")
        );
        assert_eq!(failed["isError"], json!(true));
        assert_eq!(
            failed["_meta"]["error"],
            json!({"code": "handler_error", "message": "it broke"})
        );
        assert!(failed.get("structuredContent").is_none());
    }
}
