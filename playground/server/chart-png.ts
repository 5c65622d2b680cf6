import { deflateSync } from "node:zlib";

/** A real PNG bar chart (grayscale, 240×120), drawn without a canvas library. Large enough to pass any threshold. */
export function chartPng(values: readonly number[]): Buffer {
  const width = 240;
  const height = 120;
  const max = Math.max(...values, 1);
  const barWidth = Math.floor(width / values.length);
  const raw = Buffer.alloc((width + 1) * height);
  let noise = 7;
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const value = values[Math.floor(x / barWidth)] ?? 0;
      const top = height - Math.round((value / max) * (height - 10));
      const inBar = y >= top && x % barWidth < barWidth - 2;
      // Paper-like noise in the background, so the image stays larger than any fold threshold.
      noise = (noise * 1103515245 + 12345) >>> 0;
      raw[y * (width + 1) + 1 + x] = inBar ? 40 : 228 + (noise >>> 28);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // grayscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
