//! World checkpoint files: `checkpoint-<seq>.bin` in the `world/` folder of the trace folder,
//! named by the last trace event they cover. Written whole to a temporary file, synced, then
//! renamed over (and the folder synced), so a crash leaves either the old set or the new one.
//!
//! Layout: `LIMWORLD`, the format number (u32, little endian), then a header (postcard) with
//! what the encoding depends on, the covered sequence number, the tick and the sha256 of the
//! body, then the body (the world image, `world/image.rs`). A file of another format or
//! layout is refused with a message before its body is looked at; a body whose digest does
//! not match is refused as damaged. Either way no world is built from it.

use crate::limits::MAX_WORLD_CHECKPOINT_BYTES;
use crate::world::{World, WorldSettings};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"LIMWORLD";
/// Bumped whenever the header or the world image changes shape.
pub const FORMAT: u32 = 1;
/// What the body's bytes depend on besides our own types: rapier's serialized layout and
/// the encoding. A host built against other versions refuses the file rather than guess.
pub const LAYOUT: &str = "world-image/1 rapier3d-0.36 postcard-1";

/// The header after the format number.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Header {
    layout: String,
    /// The limina version that wrote it, for messages.
    writer: String,
    seq: u64,
    tick: u64,
    entities: u64,
    digest: [u8; 32],
}

/// A checkpoint file found in the folder.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub seq: u64,
    pub path: PathBuf,
}

/// Why a checkpoint cannot be loaded.
#[derive(Debug)]
pub enum CheckpointError {
    /// Written by a host whose format or layout this one does not read.
    Incompatible { path: PathBuf, why: String },
    /// Not a checkpoint, cut short or altered.
    Damaged { path: PathBuf, why: String },
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointError::Incompatible { path, why } => write!(
                f,
                "the world checkpoint {} was written by an incompatible version ({why}); \
                 nothing of it was loaded. Run the limina version that wrote it, or start \
                 with --fresh-world to begin an empty world (the old checkpoints stay on disk \
                 until newer ones replace them)",
                path.display()
            ),
            CheckpointError::Damaged { path, why } => write!(
                f,
                "the world checkpoint {} is damaged ({why})",
                path.display()
            ),
            CheckpointError::Io { path, error } => {
                write!(
                    f,
                    "cannot read the world checkpoint {}: {error}",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for CheckpointError {}

/// The file name of the checkpoint covering the trace up to event `seq`.
pub fn file_name(seq: u64) -> String {
    format!("checkpoint-{seq:020}.bin")
}

fn parse_name(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("checkpoint-")?.strip_suffix(".bin")?;
    (digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The checkpoints in `dir`, oldest first (none when the folder does not exist).
pub fn list(dir: &Path) -> std::io::Result<Vec<Found>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        if let Some(seq) = entry.file_name().to_str().and_then(parse_name) {
            found.push(Found {
                seq,
                path: entry.path(),
            });
        }
    }
    found.sort_by_key(|f| f.seq);
    Ok(found)
}

/// The bytes of a checkpoint of `world` covering the trace up to `seq`.
pub fn encode(world: &World, seq: u64) -> Vec<u8> {
    encode_as(world, seq, FORMAT, LAYOUT)
}

fn encode_as(world: &World, seq: u64, format: u32, layout: &str) -> Vec<u8> {
    let body = world.save_image();
    let header = Header {
        layout: layout.into(),
        writer: env!("CARGO_PKG_VERSION").into(),
        seq,
        tick: world.tick(),
        entities: world.entity_count() as u64,
        digest: Sha256::digest(&body).into(),
    };
    let header = postcard::to_allocvec(&header).expect("the header encodes");
    let mut out = Vec::with_capacity(16 + header.len() + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&format.to_le_bytes());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&body);
    out
}

/// Writes `bytes` as the checkpoint for `seq` in `dir`: temporary file, sync, rename, sync
/// the folder. Returns the final path.
pub fn write(dir: &Path, seq: u64, bytes: &[u8]) -> std::io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let path = dir.join(file_name(seq));
    let temp = dir.join(format!("{}.tmp", file_name(seq)));
    {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    fs::rename(&temp, &path)?;
    File::open(dir)?.sync_all()?;
    Ok(path)
}

/// A world loaded from the checkpoint at `path`, with the sequence number it covers.
pub fn read(path: &Path, settings: WorldSettings) -> Result<(World, u64), CheckpointError> {
    let damaged = |why: String| CheckpointError::Damaged {
        path: path.to_path_buf(),
        why,
    };
    let io = |error| CheckpointError::Io {
        path: path.to_path_buf(),
        error,
    };
    let size = fs::metadata(path).map_err(io)?.len();
    if size > MAX_WORLD_CHECKPOINT_BYTES {
        return Err(damaged(format!(
            "{size} bytes, over the {MAX_WORLD_CHECKPOINT_BYTES} byte limit of a checkpoint"
        )));
    }
    let bytes = fs::read(path).map_err(io)?;
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return Err(damaged("it does not start as a world checkpoint".into()));
    }
    let format = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if format != FORMAT {
        return Err(CheckpointError::Incompatible {
            path: path.to_path_buf(),
            why: format!("checkpoint format {format}; this host reads format {FORMAT}"),
        });
    }
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let Some(header) = bytes.get(16..16 + header_len) else {
        return Err(damaged("its header is cut short".into()));
    };
    let header: Header =
        postcard::from_bytes(header).map_err(|e| damaged(format!("its header: {e}")))?;
    if header.layout != LAYOUT {
        return Err(CheckpointError::Incompatible {
            path: path.to_path_buf(),
            why: format!(
                "written by limina {} as `{}`; this host (limina {}) reads `{LAYOUT}`",
                header.writer,
                header.layout,
                env!("CARGO_PKG_VERSION")
            ),
        });
    }
    let body = &bytes[16 + header_len..];
    if Sha256::digest(body).as_slice() != header.digest {
        return Err(damaged(
            "its contents do not match the digest in its header".into(),
        ));
    }
    let world = World::load_image(body, settings).map_err(damaged)?;
    Ok((world, header.seq))
}

#[cfg(test)]
pub(super) fn encode_with(world: &World, seq: u64, format: u32, layout: &str) -> Vec<u8> {
    encode_as(world, seq, format, layout)
}
