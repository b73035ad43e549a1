//! Content blocks a skill returns besides its output ([`crate::WithContent`]): constructors
//! for the WIT `content-block` cases.

use crate::bindings::limina::skill::content::{
    Binary, ContentBlock, ResourceBody, ResourceContents, ResourceLink,
};

impl ContentBlock {
    /// A PNG image (the bytes of a `.png` file).
    pub fn png(data: Vec<u8>) -> Self {
        ContentBlock::Image(Binary {
            mime_type: "image/png".into(),
            data,
        })
    }

    /// A JPEG image.
    pub fn jpeg(data: Vec<u8>) -> Self {
        ContentBlock::Image(Binary {
            mime_type: "image/jpeg".into(),
            data,
        })
    }

    /// A WAV sound.
    pub fn wav(data: Vec<u8>) -> Self {
        ContentBlock::Audio(Binary {
            mime_type: "audio/wav".into(),
            data,
        })
    }

    /// Plain text.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(text.into())
    }

    /// A link to a resource the client may read.
    pub fn link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentBlock::ResourceLink(ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        })
    }

    /// A text resource given inline.
    pub fn embedded_text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        ContentBlock::Embedded(ResourceContents {
            uri: uri.into(),
            mime_type: mime_type.into(),
            body: ResourceBody::Text(text.into()),
        })
    }

    /// A binary resource given inline (sent base64).
    pub fn embedded_blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        blob: Vec<u8>,
    ) -> Self {
        ContentBlock::Embedded(ResourceContents {
            uri: uri.into(),
            mime_type: mime_type.into(),
            body: ResourceBody::Blob(blob),
        })
    }
}
