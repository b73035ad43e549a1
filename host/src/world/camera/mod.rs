//! The camera: a picture of the world from a viewpoint, drawn on the CPU. The engine only
//! takes a [`RenderSnapshot`] (a compact copy of shapes, transforms, sizes, colours and
//! materials, the lighting and the panels' anchors); [`Picture::take`] draws it, on whatever
//! thread runs the call, and [`Picture::png`] encodes it.

mod lens;
mod raster;
mod snapshot;

pub use lens::Shot;
pub use snapshot::{Corner, Drawn, PanelAnchor, RenderSnapshot};

use super::WorldError;

/// A drawn picture.
#[derive(Debug, Clone)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    /// RGB, 8 bits per channel, rows top to bottom.
    pub rgb: Vec<u8>,
    /// Entities at least partly inside the view.
    pub entities_in_view: usize,
    /// Panel anchors marked in the picture.
    pub anchors_marked: usize,
    /// The tick the snapshot was taken at.
    pub tick: u64,
}

impl Picture {
    /// Draws `snapshot` as `shot` sees it; refuses a shot that cannot be taken, naming the
    /// field.
    pub fn take(snapshot: &RenderSnapshot, shot: &Shot) -> Result<Picture, WorldError> {
        Self::drawn(snapshot, shot, None)
    }

    /// [`Picture::take`], calling `pause` between bands of the drawing (a tenth of a
    /// millisecond or so each): a worker drawing off the engine yields its core there to any
    /// thread that waits for one.
    pub fn take_paced(
        snapshot: &RenderSnapshot,
        shot: &Shot,
        pause: fn(),
    ) -> Result<Picture, WorldError> {
        Self::drawn(snapshot, shot, Some(pause))
    }

    fn drawn(
        snapshot: &RenderSnapshot,
        shot: &Shot,
        pause: Option<fn()>,
    ) -> Result<Picture, WorldError> {
        shot.check()?;
        let lens = lens::Lens::new(shot);
        let mut canvas = raster::Canvas::new(&lens, shot.background, pause);
        let entities_in_view = canvas.draw(&lens, snapshot);
        let anchors_marked = if shot.panels {
            canvas.mark_anchors(&lens, &snapshot.anchors)
        } else {
            0
        };
        Ok(Picture {
            width: shot.width,
            height: shot.height,
            rgb: canvas.rgb,
            entities_in_view,
            anchors_marked,
            tick: snapshot.tick,
        })
    }

    /// The colour at pixel (`x`, `y`), from the top left.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let at = (y as usize * self.width as usize + x as usize) * 3;
        [self.rgb[at], self.rgb[at + 1], self.rgb[at + 2]]
    }

    /// The picture as a PNG: 8-bit RGB, compressed for speed (fdeflate) rather than size.
    pub fn png(&self) -> Vec<u8> {
        self.encoded(None)
    }

    /// [`Picture::png`], calling `pause` between bands of `PNG_BAND_PIXELS` pixels: the
    /// encoding (about a millisecond at 640 × 480) yields a worker's core like the drawing.
    pub fn png_paced(&self, pause: fn()) -> Vec<u8> {
        self.encoded(Some(pause))
    }

    /// Rows are streamed through the encoder a band at a time, into IDAT chunks of
    /// `PNG_CHUNK_BYTES`; paced or not, the bytes are the same.
    fn encoded(&self, pause: Option<fn()>) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.rgb.len() / 8);
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        // Writing to memory a picture whose size was checked cannot fail.
        let mut writer = encoder
            .write_header()
            .expect("a PNG header for a checked size");
        let row = self.width as usize * 3;
        let band = row * (PNG_BAND_PIXELS / self.width as usize).max(1);
        let mut stream = writer
            .stream_writer_with_size(PNG_CHUNK_BYTES)
            .expect("a PNG stream in memory");
        for rows in self.rgb.chunks(band) {
            std::io::Write::write_all(&mut stream, rows).expect("PNG rows of the picture");
            if let Some(pause) = pause {
                pause();
            }
        }
        stream.finish().expect("a PNG written to memory");
        writer.finish().expect("a PNG written to memory");
        out
    }
}

/// Pixels encoded between two pauses of a paced PNG encoding: about a tenth of a millisecond.
const PNG_BAND_PIXELS: usize = 32_768;
/// The largest IDAT chunk written: a 640 × 480 view of a scene compresses into one.
const PNG_CHUNK_BYTES: usize = 256 * 1024;

#[cfg(test)]
mod tests;
