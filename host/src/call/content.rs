//! What a call may return besides its structured output: pictures, sounds, links to resources
//! and resources given inline, each becoming one MCP content block of a `tools/call` result
//! (after the text block that carries the output). A result's blocks are checked against the
//! host's caps and their media types ([`check`]) and traced as kind and size, never bytes
//! ([`Content::summary`]). The bytes of a picture or a sound are encoded (base64) where the call
//! ran — on a worker for a call off the engine — so the engine splices ready text into the
//! reply ([`Content::write_mcp`]) instead of encoding a picture while others wait.

use crate::limits::{MAX_CONTENT_BLOCKS, MAX_CONTENT_BYTES};
use base64::Engine as _;
use serde_json::{Map, Value, json};
use std::io::Write;

/// One block of content.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// A PNG or JPEG image.
    Image { mime_type: String, data: Data },
    /// A WAV sound.
    Audio { mime_type: String, data: Data },
    /// A pointer to a resource the client may read.
    ResourceLink {
        uri: String,
        name: String,
        description: Option<String>,
        mime_type: Option<String>,
    },
    /// A resource given inline.
    Embedded {
        uri: String,
        mime_type: String,
        body: Body,
    },
}

/// An embedded resource's body.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Text(String),
    Blob(Data),
}

/// Bytes a block carries, with their base64 text once [`Data::encode`] has made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Data {
    bytes: Vec<u8>,
    base64: Option<String>,
}

impl Data {
    /// Makes the base64 text now, if not made yet.
    pub fn encode(&mut self) {
        if self.base64.is_none() {
            self.base64 = Some(base64_of(&self.bytes));
        }
    }

    /// The bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The base64 text: made already, or made now.
    fn base64(&self) -> std::borrow::Cow<'_, str> {
        match &self.base64 {
            Some(text) => text.as_str().into(),
            None => base64_of(&self.bytes).into(),
        }
    }

    /// The base64 text, moved out when made already.
    fn into_base64(self) -> String {
        match self.base64 {
            Some(text) => text,
            None => base64_of(&self.bytes),
        }
    }

    /// Writes it as a JSON string: base64 needs no escapes, so the text is copied as is.
    fn write_json(&self, w: &mut Vec<u8>) {
        w.push(b'"');
        w.extend_from_slice(self.base64().as_bytes());
        w.push(b'"');
    }
}

fn base64_of(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl From<Vec<u8>> for Data {
    fn from(bytes: Vec<u8>) -> Data {
        Data {
            bytes,
            base64: None,
        }
    }
}

impl std::ops::Deref for Data {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

/// The media types an image may have.
pub const IMAGE_TYPES: [&str; 2] = ["image/png", "image/jpeg"];
/// The media types a sound may have.
pub const AUDIO_TYPES: [&str; 1] = ["audio/wav"];

impl Content {
    /// Its kind as MCP names the block: `text`, `image`, `audio`, `resource_link`, `resource`.
    pub fn kind(&self) -> &'static str {
        match self {
            Content::Text(_) => "text",
            Content::Image { .. } => "image",
            Content::Audio { .. } => "audio",
            Content::ResourceLink { .. } => "resource_link",
            Content::Embedded { .. } => "resource",
        }
    }

    /// Bytes it carries: data, text or body (a link carries none).
    pub fn bytes(&self) -> usize {
        match self {
            Content::Text(text) => text.len(),
            Content::Image { data, .. } | Content::Audio { data, .. } => data.len(),
            Content::ResourceLink { .. } => 0,
            Content::Embedded { body, .. } => match body {
                Body::Text(text) => text.len(),
                Body::Blob(blob) => blob.len(),
            },
        }
    }

    fn mime_type(&self) -> Option<&str> {
        match self {
            Content::Text(_) => None,
            Content::Image { mime_type, .. }
            | Content::Audio { mime_type, .. }
            | Content::Embedded { mime_type, .. } => Some(mime_type),
            Content::ResourceLink { mime_type, .. } => mime_type.as_deref(),
        }
    }

    /// The texts it carries that a person or an agent reads (a text block, a link's name and
    /// description, an embedded text body), for the credential scan; bytes are not text.
    pub fn texts_mut(&mut self) -> Vec<&mut String> {
        match self {
            Content::Text(text) => vec![text],
            Content::Image { .. } | Content::Audio { .. } => Vec::new(),
            Content::ResourceLink {
                name, description, ..
            } => std::iter::once(name).chain(description.as_mut()).collect(),
            Content::Embedded { body, .. } => match body {
                Body::Text(text) => vec![text],
                Body::Blob(_) => Vec::new(),
            },
        }
    }

    /// What the trace keeps of it: kind, media type, size in bytes and any URI; never its
    /// bytes.
    pub fn summary(&self) -> Value {
        let mut out = Map::new();
        out.insert("kind".into(), self.kind().into());
        out.insert("bytes".into(), self.bytes().into());
        if let Some(mime) = self.mime_type() {
            out.insert("mimeType".into(), mime.into());
        }
        if let Content::ResourceLink { uri, .. } | Content::Embedded { uri, .. } = self {
            out.insert("uri".into(), uri.as_str().into());
        }
        Value::Object(out)
    }

    /// The MCP content block (bytes in base64), the same on both protocol revisions.
    pub fn to_mcp(&self) -> Value {
        self.clone().into_mcp()
    }

    /// [`Content::to_mcp`], moving its texts (a base64 text made already is not copied).
    pub fn into_mcp(self) -> Value {
        match self {
            Content::Text(text) => json!({"type": "text", "text": text}),
            Content::Image { mime_type, data } => {
                json!({"type": "image", "mimeType": mime_type, "data": data.into_base64()})
            }
            Content::Audio { mime_type, data } => {
                json!({"type": "audio", "mimeType": mime_type, "data": data.into_base64()})
            }
            Content::ResourceLink {
                uri,
                name,
                description,
                mime_type,
            } => {
                let mut block = json!({"type": "resource_link", "uri": uri, "name": name});
                if let Some(description) = description {
                    block["description"] = description.into();
                }
                if let Some(mime_type) = mime_type {
                    block["mimeType"] = mime_type.into();
                }
                block
            }
            Content::Embedded {
                uri,
                mime_type,
                body,
            } => {
                let mut resource = json!({"uri": uri, "mimeType": mime_type});
                match body {
                    Body::Text(text) => resource["text"] = text.into(),
                    Body::Blob(blob) => resource["blob"] = blob.into_base64().into(),
                }
                json!({"type": "resource", "resource": resource})
            }
        }
    }

    /// Makes the base64 text of the bytes it carries now (see [`Data::encode`]).
    pub fn encode(&mut self) {
        match self {
            Content::Image { data, .. } | Content::Audio { data, .. } => data.encode(),
            Content::Embedded {
                body: Body::Blob(blob),
                ..
            } => blob.encode(),
            _ => {}
        }
    }

    /// Writes [`Content::to_mcp`]'s text, byte for byte (keys in code-point order, as a
    /// `Value` holds them), without building it: the bytes' base64 text is copied as is.
    pub fn write_mcp(&self, w: &mut Vec<u8>) -> std::io::Result<()> {
        let (kind, mime_type, data) = match self {
            Content::Image { mime_type, data } => ("image", mime_type, data),
            Content::Audio { mime_type, data } => ("audio", mime_type, data),
            Content::Embedded {
                uri,
                mime_type,
                body: Body::Blob(blob),
            } => {
                w.write_all(b"{\"resource\":{\"blob\":")?;
                blob.write_json(w);
                w.write_all(b",\"mimeType\":")?;
                serde_json::to_writer(&mut *w, mime_type)?;
                w.write_all(b",\"uri\":")?;
                serde_json::to_writer(&mut *w, uri)?;
                return w.write_all(b"},\"type\":\"resource\"}");
            }
            // Small, or text the engine scanned already: written from its `Value`.
            _ => return Ok(serde_json::to_writer(w, &self.to_mcp())?),
        };
        w.write_all(b"{\"data\":")?;
        data.write_json(w);
        w.write_all(b",\"mimeType\":")?;
        serde_json::to_writer(&mut *w, mime_type)?;
        write!(w, ",\"type\":\"{kind}\"}}")
    }

    /// About how many bytes [`Content::write_mcp`] writes (its base64 is most of it).
    pub fn mcp_len(&self) -> usize {
        self.bytes().div_ceil(3) * 4 + 128
    }
}

/// Whether `blocks` may go out as one result: within the caps, each image and sound of an
/// allowed media type whose bytes say the same, each URI absolute. The error names the block
/// (by index), what is wrong and the fix.
pub fn check(blocks: &[Content]) -> Result<(), String> {
    if blocks.len() > MAX_CONTENT_BLOCKS {
        return Err(format!(
            "{} content blocks, over the host's cap of {MAX_CONTENT_BLOCKS} per result; return fewer",
            blocks.len()
        ));
    }
    let total: usize = blocks.iter().map(Content::bytes).sum();
    if total > MAX_CONTENT_BYTES {
        return Err(format!(
            "{total} bytes of content, over the host's cap of {MAX_CONTENT_BYTES} bytes per result; return smaller images or sounds, or link to them"
        ));
    }
    for (i, block) in blocks.iter().enumerate() {
        check_block(block).map_err(|why| format!("content block {i} ({}): {why}", block.kind()))?;
    }
    Ok(())
}

fn check_block(block: &Content) -> Result<(), String> {
    match block {
        Content::Text(_) => Ok(()),
        Content::Image { mime_type, data } => {
            media(mime_type, &IMAGE_TYPES)?;
            let matches = match mime_type.as_str() {
                "image/png" => data.starts_with(b"\x89PNG\r\n\x1a\n"),
                _ => data.starts_with(&[0xff, 0xd8, 0xff]),
            };
            if !matches {
                return Err(format!(
                    "its bytes are not {mime_type} (they lack its signature)"
                ));
            }
            Ok(())
        }
        Content::Audio { mime_type, data } => {
            media(mime_type, &AUDIO_TYPES)?;
            if !(data.len() >= 12 && &data[..4] == b"RIFF" && &data[8..12] == b"WAVE") {
                return Err(format!(
                    "its bytes are not {mime_type} (they lack its signature)"
                ));
            }
            Ok(())
        }
        Content::ResourceLink { uri, name, .. } => {
            absolute(uri)?;
            if name.is_empty() {
                return Err("`name` is empty; give the link a name for a person".into());
            }
            Ok(())
        }
        Content::Embedded { uri, mime_type, .. } => {
            absolute(uri)?;
            if mime_type.is_empty() {
                return Err(
                    "`mimeType` is empty; say what the resource is, e.g. text/plain".into(),
                );
            }
            Ok(())
        }
    }
}

fn media(mime_type: &str, allowed: &[&str]) -> Result<(), String> {
    if allowed.contains(&mime_type) {
        Ok(())
    } else {
        Err(format!(
            "media type `{mime_type}` is not one the host passes on; use {}",
            allowed.join(" or ")
        ))
    }
}

/// A URI with a scheme (`limina://…`, `https://…`).
fn absolute(uri: &str) -> Result<(), String> {
    let scheme = uri.split_once(':').map(|(s, _)| s).unwrap_or("");
    let valid = !scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if valid {
        Ok(())
    } else {
        Err(format!(
            "`uri` {uri:?} is not an absolute URI; give its scheme, e.g. limina://"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    fn png(len: usize) -> Content {
        let mut data = PNG.to_vec();
        data.resize(len.max(PNG.len()), 0);
        Content::Image {
            mime_type: "image/png".into(),
            data: data.into(),
        }
    }

    #[test]
    fn blocks_become_mcp_blocks_and_trace_summaries_without_bytes() {
        let image = png(20);
        let block = image.to_mcp();
        assert_eq!(block["type"], "image");
        assert_eq!(block["mimeType"], "image/png");
        let data = base64::engine::general_purpose::STANDARD
            .decode(block["data"].as_str().unwrap())
            .unwrap();
        assert_eq!(data.len(), 20);
        assert_eq!(
            image.summary(),
            json!({"kind": "image", "mimeType": "image/png", "bytes": 20})
        );
        let link = Content::ResourceLink {
            uri: "limina://pkg/rules/movement".into(),
            name: "Movement".into(),
            description: None,
            mime_type: Some("text/markdown".into()),
        };
        assert_eq!(
            link.to_mcp(),
            json!({"type": "resource_link", "uri": "limina://pkg/rules/movement", "name": "Movement", "mimeType": "text/markdown"})
        );
        let embedded = Content::Embedded {
            uri: "limina://pkg/lore/a".into(),
            mime_type: "application/octet-stream".into(),
            body: Body::Blob(vec![1, 2, 3].into()),
        };
        assert_eq!(
            embedded.to_mcp(),
            json!({"type": "resource", "resource": {"uri": "limina://pkg/lore/a", "mimeType": "application/octet-stream", "blob": "AQID"}})
        );
        assert_eq!(embedded.summary()["bytes"], 3);
        assert!(check(&[image, link, embedded, Content::Text("hi".into())]).is_ok());
    }

    #[test]
    fn results_over_a_cap_or_of_the_wrong_type_are_refused_naming_why() {
        let over = check(&[png(MAX_CONTENT_BYTES + 1)]).unwrap_err();
        assert_eq!(
            over,
            format!(
                "{} bytes of content, over the host's cap of {MAX_CONTENT_BYTES} bytes per result; return smaller images or sounds, or link to them",
                MAX_CONTENT_BYTES + 1
            )
        );
        let many = vec![Content::Text(String::new()); MAX_CONTENT_BLOCKS + 1];
        assert!(
            check(&many)
                .unwrap_err()
                .starts_with("17 content blocks, over the host's cap of 16")
        );
        let gif = Content::Image {
            mime_type: "image/gif".into(),
            data: b"GIF89a".to_vec().into(),
        };
        assert_eq!(
            check(&[png(10), gif]).unwrap_err(),
            "content block 1 (image): media type `image/gif` is not one the host passes on; use image/png or image/jpeg"
        );
        let liar = Content::Image {
            mime_type: "image/jpeg".into(),
            data: PNG.to_vec().into(),
        };
        assert_eq!(
            check(&[liar]).unwrap_err(),
            "content block 0 (image): its bytes are not image/jpeg (they lack its signature)"
        );
        let noise = Content::Audio {
            mime_type: "audio/wav".into(),
            data: vec![0; 64].into(),
        };
        assert_eq!(
            check(&[noise]).unwrap_err(),
            "content block 0 (audio): its bytes are not audio/wav (they lack its signature)"
        );
        let relative = Content::ResourceLink {
            uri: "rules/movement".into(),
            name: "x".into(),
            description: None,
            mime_type: None,
        };
        assert!(
            check(&[relative])
                .unwrap_err()
                .contains("is not an absolute URI")
        );
    }
}
