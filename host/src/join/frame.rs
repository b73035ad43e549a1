//! Frames on a client's control-socket connection, after the handshake: a 4-byte
//! little-endian length, a kind byte, then that many bytes. Length-prefixed rather than
//! line-delimited because a WebSocket client's message may hold line breaks; one buffer holds
//! many frames, so a burst goes out in one write.

use crate::limits::MAX_JOIN_FRAME_BYTES;

/// What a frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One JSON-RPC message, as the client sent it or as it is sent to the client.
    Message = 0,
    /// A note between the two hosts (JSON), never shown to the client: the server leaving,
    /// a session bound.
    Note = 1,
}

/// The bytes before a frame's payload.
pub const HEADER: usize = 5;

/// Appends one frame of `kind` holding `payload` to `out`.
pub fn push(out: &mut Vec<u8>, kind: Kind, payload: &[u8]) {
    out.reserve(HEADER + payload.len());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.push(kind as u8);
    out.extend_from_slice(payload);
}

/// Why a frame could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// The length says more than any frame may hold.
    TooLong(usize),
    /// A kind byte this version does not know.
    UnknownKind(u8),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::TooLong(n) => write!(
                f,
                "a control-socket frame of {n} bytes is over the limit of {MAX_JOIN_FRAME_BYTES}"
            ),
            FrameError::UnknownKind(k) => write!(f, "a control-socket frame of unknown kind {k}"),
        }
    }
}

impl std::error::Error for FrameError {}

/// Bytes read from a connection, cut into frames as they complete.
#[derive(Default)]
pub struct Reader {
    /// Bytes read (up to `end`) and room to read more into (zeroed once, when it grew:
    /// a read does not clear the room it reads into).
    buf: Vec<u8>,
    /// Where the next unread frame starts.
    at: usize,
    /// Where the bytes read end.
    end: usize,
}

impl Reader {
    /// Room to read into: at least `want` bytes after what was read (consumed frames are
    /// dropped first). Call [`Reader::filled`] with what the read gave.
    pub fn space(&mut self, want: usize) -> &mut [u8] {
        if self.at > 0 && (self.at == self.end || self.at >= self.end / 2) {
            self.buf.copy_within(self.at..self.end, 0);
            self.end -= self.at;
            self.at = 0;
        }
        if self.buf.len() < self.end + want {
            self.buf.resize(self.end + want, 0);
        }
        &mut self.buf[self.end..self.end + want]
    }

    /// Keeps `n` of the bytes just read into [`Reader::space`] (`want` being what was asked
    /// for there).
    pub fn filled(&mut self, want: usize, n: usize) {
        debug_assert!(n <= want && self.end + want <= self.buf.len());
        self.end += n;
    }

    /// The next complete frame, if one has arrived.
    pub fn next_frame(&mut self) -> Option<Result<(Kind, &[u8]), FrameError>> {
        let rest = &self.buf[self.at..self.end];
        if rest.len() < HEADER {
            return None;
        }
        let len = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")) as usize;
        if len > MAX_JOIN_FRAME_BYTES {
            return Some(Err(FrameError::TooLong(len)));
        }
        let kind = match rest[4] {
            0 => Kind::Message,
            1 => Kind::Note,
            k => return Some(Err(FrameError::UnknownKind(k))),
        };
        if rest.len() < HEADER + len {
            return None;
        }
        let start = self.at + HEADER;
        self.at = start + len;
        Some(Ok((kind, &self.buf[start..start + len])))
    }

    /// Bytes read but not yet part of a complete frame.
    pub fn pending(&self) -> usize {
        self.end - self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(reader: &mut Reader, bytes: &[u8]) {
        let space = reader.space(bytes.len());
        space.copy_from_slice(bytes);
        reader.filled(bytes.len(), bytes.len());
    }

    #[test]
    fn frames_split_anywhere_come_out_whole_and_in_order() {
        let mut out = Vec::new();
        push(&mut out, Kind::Message, b"{\"a\":\n1}");
        push(&mut out, Kind::Note, b"{}");
        push(&mut out, Kind::Message, b"");
        for cut in 0..out.len() {
            let mut reader = Reader::default();
            let mut got = Vec::new();
            for part in [&out[..cut], &out[cut..]] {
                feed(&mut reader, part);
                while let Some(frame) = reader.next_frame() {
                    let (kind, payload) = frame.unwrap();
                    got.push((kind, payload.to_vec()));
                }
            }
            assert_eq!(
                got,
                vec![
                    (Kind::Message, b"{\"a\":\n1}".to_vec()),
                    (Kind::Note, b"{}".to_vec()),
                    (Kind::Message, Vec::new()),
                ],
                "cut at {cut}"
            );
            assert_eq!(reader.pending(), 0);
        }
    }

    #[test]
    fn an_oversized_or_unknown_frame_is_an_error_not_an_allocation() {
        let mut reader = Reader::default();
        let mut bytes = ((MAX_JOIN_FRAME_BYTES + 1) as u32).to_le_bytes().to_vec();
        bytes.push(0);
        feed(&mut reader, &bytes);
        assert_eq!(
            reader.next_frame(),
            Some(Err(FrameError::TooLong(MAX_JOIN_FRAME_BYTES + 1)))
        );
        let mut reader = Reader::default();
        feed(&mut reader, &[0, 0, 0, 0, 9]);
        assert_eq!(reader.next_frame(), Some(Err(FrameError::UnknownKind(9))));
        assert!(
            FrameError::UnknownKind(9)
                .to_string()
                .contains("unknown kind 9")
        );
    }

    #[test]
    fn a_short_read_keeps_only_what_arrived() {
        let mut reader = Reader::default();
        let space = reader.space(64);
        space[..3].copy_from_slice(&[2, 0, 0]);
        reader.filled(64, 3);
        assert_eq!(reader.pending(), 3);
        assert!(reader.next_frame().is_none());
        feed(&mut reader, &[0, 0, b'h', b'i']);
        assert_eq!(reader.next_frame(), Some(Ok((Kind::Message, &b"hi"[..]))));
    }
}
