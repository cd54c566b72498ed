/**
 * A minimal PNG encoder: pixel bytes in, PNG bytes out. Pure (no I/O); node:zlib only compresses.
 * Used for pictures of the board, the OLED framebuffer and plots. Rows use filter 0 (none): the
 * images are flat-coloured drawings, which deflate well without per-row prediction.
 */
import { deflateSync } from 'node:zlib';

export interface PngImage {
  width: number;
  height: number;
  /** `gray1`: 1 bit per pixel, MSB first, 1 = white. `rgb8`: 3 bytes per pixel. */
  format: 'gray1' | 'rgb8';
  /** Rows top to bottom, each `rowBytes(width, format)` long, without PNG filter bytes. */
  pixels: Uint8Array;
}

export interface PngOptions {
  /**
   * `deflate` (default) compresses; `stored` writes uncompressed deflate blocks, which any
   * inflater reads and which suits tiny 1-bit images.
   */
  compression?: 'deflate' | 'stored';
  /**
   * zlib's level for `deflate`, 1-9 (default 9, the smallest file). A picture made again at every
   * change (the board view's looks) wants a low one: on the board picture level 9 takes about
   * 15-29 ms, level 3 about 1 ms, for 6 KB against 16 KB.
   */
  level?: number;
}

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
const FORMATS = {
  gray1: { bitDepth: 1, colorType: 0, bits: 1 },
  rgb8: { bitDepth: 8, colorType: 2, bits: 24 },
};

export const rowBytes = (width: number, format: PngImage['format']): number =>
  Math.ceil((width * FORMATS[format].bits) / 8);

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** zlib framing around stored deflate blocks of at most 65535 bytes. */
function zlibStored(raw: Uint8Array): Buffer {
  const blocks = Math.max(1, Math.ceil(raw.length / 65535));
  const out = Buffer.alloc(2 + blocks * 5 + raw.length + 4);
  out[0] = 0x78;
  out[1] = 0x01;
  let at = 2;
  for (let i = 0; i < blocks; i++) {
    const block = raw.subarray(i * 65535, (i + 1) * 65535);
    out[at] = i === blocks - 1 ? 1 : 0;
    out.writeUInt16LE(block.length, at + 1);
    out.writeUInt16LE(~block.length & 0xffff, at + 3);
    out.set(block, at + 5);
    at += 5 + block.length;
  }
  out.writeUInt32BE(adler32(raw), at);
  return out;
}

export function encodePng(image: PngImage, options: PngOptions = {}): Uint8Array {
  const { width, height, format, pixels } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`PNG size must be positive integers, got ${width}x${height}`);
  }
  const stride = rowBytes(width, format);
  if (pixels.length !== stride * height) {
    throw new RangeError(`PNG pixels: expected ${stride * height} bytes, got ${pixels.length}`);
  }
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++)
    raw.set(pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  const { bitDepth, colorType } = FORMATS[format];
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = bitDepth;
  header[9] = colorType;
  const data =
    options.compression === 'stored' ? zlibStored(raw) : deflateSync(raw, { level: options.level ?? 9 });
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', data),
    chunk('IEND', new Uint8Array(0)),
  ]);
}
