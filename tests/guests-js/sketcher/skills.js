// `sketcher`: a JavaScript skill returning content blocks (contract 0.2.0) — a 2 × 1 PNG, red
// then blue, written by hand (stored deflate, CRC-32 and Adler-32), and a link beside it.
import { withContent, image, link } from "./bindings/limina.js";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function adler32(bytes) {
  let a = 1;
  let b = 0;
  for (const x of bytes) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

const u32 = (n) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

function chunk(kind, data) {
  const body = [...kind].map((c) => c.charCodeAt(0)).concat(data);
  return u32(data.length).concat(body, u32(crc32(body)));
}

/** An 8-bit RGB PNG one row high of `pixels` ([r, g, b] each). */
function png(pixels) {
  const header = u32(pixels.length).concat(u32(1), [8, 2, 0, 0, 0]);
  const row = [0].concat(...pixels);
  // zlib: one stored (uncompressed) deflate block.
  const zlib = [0x78, 0x01, 0x01, row.length & 0xff, row.length >> 8]
    .concat([~row.length & 0xff, (~row.length >> 8) & 0xff], row, u32(adler32(row)));
  return [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].concat(
    chunk("IHDR", header),
    chunk("IDAT", zlib),
    chunk("IEND", []),
  );
}

export const skills = [
  {
    name: "sketcher.strip",
    version: "0.1.0",
    category: "test",
    description: "Draws a red and a blue pixel side by side and returns them as a PNG.",
    inputSchema: { type: "object" },
    outputSchema: {
      type: "object",
      properties: { bytes: { type: "integer" } },
      required: ["bytes"],
    },
    handler() {
      const picture = png([
        [255, 0, 0],
        [0, 0, 255],
      ]);
      return withContent({ bytes: picture.length }, [
        image(picture),
        link("limina://pkg/sketcher/palette", "Palette", { mimeType: "text/plain" }),
      ]);
    },
  },
];
