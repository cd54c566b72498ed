/**
 * The OLED framebuffer as a PNG (white pixels on black, scaled up), for pictures of the simulated
 * screen. Pure: the image is 1-bit greyscale and small, so the zlib stream uses stored (uncompressed)
 * blocks and needs no compressor.
 */
import { getPixel, OLED_HEIGHT, OLED_WIDTH } from './oled.js';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
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

const u32 = (v: number): number[] => [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];

function chunk(type: string, data: Uint8Array): number[] {
  const body = Uint8Array.from([...Buffer.from(type, 'latin1'), ...data]);
  return [...u32(data.length), ...body, ...u32(crc32(body))];
}

/** zlib framing around stored deflate blocks of at most 65535 bytes. */
function zlibStored(raw: Uint8Array): Uint8Array {
  const out: number[] = [0x78, 0x01];
  for (let i = 0; i === 0 || i < raw.length; i += 65535) {
    const block = raw.subarray(i, i + 65535);
    const last = i + 65535 >= raw.length;
    out.push(
      last ? 1 : 0,
      block.length & 0xff,
      block.length >> 8,
      ~block.length & 0xff,
      (~block.length >> 8) & 0xff,
    );
    out.push(...block);
  }
  out.push(...u32(adler32(raw)));
  return Uint8Array.from(out);
}

/** A PNG of the 128x32 framebuffer (SSD1306 page layout), each pixel `scale` x `scale`. */
export function oledPng(fb: Uint8Array, scale = 4): Uint8Array {
  const s = Math.max(1, Math.min(16, Math.floor(scale)));
  const width = OLED_WIDTH * s;
  const height = OLED_HEIGHT * s;
  const stride = 1 + Math.ceil(width / 8);
  const raw = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (getPixel(fb, Math.floor(x / s), Math.floor(y / s))) {
        const i = y * stride + 1 + (x >> 3);
        raw[i] = (raw[i] ?? 0) | (0x80 >> (x & 7));
      }
    }
  }
  const header = Uint8Array.from([...u32(width), ...u32(height), 1, 0, 0, 0, 0]);
  return Uint8Array.from([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...chunk('IHDR', header),
    ...chunk('IDAT', zlibStored(raw)),
    ...chunk('IEND', new Uint8Array(0)),
  ]);
}
