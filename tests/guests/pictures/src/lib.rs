//! Draws a plain PNG of the asked size and colour and returns it as an image block, with an
//! entity placed in the world; `extras` adds a sound, a link, an embedded resource and text,
//! `caption` a text block and an embedded text saying it.

use limina_sdk::Vec3;
use limina_sdk::host::scene;
use limina_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Draw {
    /// Width in pixels.
    #[schemars(range(min = 1, max = 4000))]
    width: u32,
    /// Height in pixels.
    #[schemars(range(min = 1, max = 4000))]
    height: u32,
    /// 0xRRGGBB.
    #[serde(default)]
    color: u32,
    /// The media type to label the image with (the bytes are PNG whatever it says).
    #[serde(default = "png")]
    mime: String,
    /// Adds one block of every other kind.
    #[serde(default)]
    extras: bool,
    /// When given, a text block and an embedded text resource saying it (what a package
    /// read somewhere and hands back beside its output).
    #[serde(default)]
    caption: Option<String>,
}

fn png() -> String {
    "image/png".into()
}

#[derive(Serialize, JsonSchema)]
struct Drawn {
    /// The entity placed before drawing.
    entity: String,
    /// Size of the image in bytes.
    bytes: usize,
}

fn draw(input: Draw, _: &CallContext) -> Result<WithContent<Drawn>, SkillError> {
    let entity = scene::create_entity(scene::EntitySpec {
        shape: scene::Shape::Box,
        collider: None,
        size: 1.0,
        color: input.color,
        position: Vec3 {
            x: 0.0,
            y: 0.0,
            z: 0.0,
        },
        body: scene::BodyKind::None,
        friction: 0.5,
        restitution: 0.0,
    })?;
    let image = encode_png(input.width, input.height, input.color);
    let bytes = image.len();
    let block = ContentBlock::Image(limina_sdk::Binary {
        mime_type: input.mime,
        data: image,
    });
    let mut out = WithContent::new(Drawn { entity, bytes }).block(block);
    if input.extras {
        out = out
            .block(ContentBlock::wav(silent_wav()))
            .block(ContentBlock::link(
                "limina://pkg/pictures/palette",
                "Palette",
            ))
            .block(ContentBlock::embedded_text(
                "limina://pkg/pictures/legend",
                "text/plain",
                "red is hot",
            ))
            .block(ContentBlock::text("a plain square"));
    }
    if let Some(caption) = input.caption {
        out = out
            .block(ContentBlock::text(&caption))
            .block(ContentBlock::embedded_text(
                "limina://pkg/pictures/caption",
                "text/plain",
                &caption,
            ));
    }
    Ok(out)
}

/// A PNG of one colour: 8-bit RGB rows, filter 0, in stored (uncompressed) deflate blocks.
fn encode_png(width: u32, height: u32, color: u32) -> Vec<u8> {
    let [_, r, g, b] = color.to_be_bytes();
    let mut raw = Vec::with_capacity((height * (1 + 3 * width)) as usize);
    for _ in 0..height {
        raw.push(0);
        for _ in 0..width {
            raw.extend_from_slice(&[r, g, b]);
        }
    }
    let mut zlib = vec![0x78, 0x01];
    let chunks: Vec<&[u8]> = raw.chunks(65535).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        zlib.push(u8::from(i + 1 == chunks.len()));
        let len = chunk.len() as u16;
        zlib.extend_from_slice(&len.to_le_bytes());
        zlib.extend_from_slice(&(!len).to_le_bytes());
        zlib.extend_from_slice(chunk);
    }
    zlib.extend_from_slice(&adler32(&raw).to_be_bytes());
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &zlib);
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// CRC-32 by table: a byte at a time, so a picture of megabytes stays within the engine's
/// short deadline for calls that touch the world.
fn crc32(bytes: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (n, slot) in table.iter_mut().enumerate() {
        let mut c = n as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                (c >> 1) ^ 0xedb8_8320
            } else {
                c >> 1
            };
        }
        *slot = c;
    }
    let mut crc = !0u32;
    for &byte in bytes {
        crc = table[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    // 5552 bytes is the most that can be summed before the sums must be reduced.
    for block in bytes.chunks(5552) {
        for &byte in block {
            a += u32::from(byte);
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    (b << 16) | a
}

/// 10 ms of silence: a WAV header and 160 samples of 16-bit mono at 8 kHz.
fn silent_wav() -> Vec<u8> {
    let samples = 80u32;
    let data = samples * 2;
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&(36 + data).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&8000u32.to_le_bytes());
    out.extend_from_slice(&16000u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    out.resize(out.len() + data as usize, 0);
    out
}

limina_sdk::export_package!(
    Package::new().skill(
        Skill::with_content(
            "pictures.draw",
            "0.1.0",
            "Draws a plain picture of the given size and colour.",
            draw
        )
        .permissions(&["scene.write"])
    )
);
