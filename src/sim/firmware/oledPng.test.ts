import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { OLED_BYTES, setPixel } from './oled.js';
import { oledPng } from './oledPng.js';

/** The IHDR fields and the decompressed scanlines of a PNG. */
function decode(png: Uint8Array): { width: number; height: number; depth: number; raw: Buffer } {
  const buf = Buffer.from(png);
  expect([...buf.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let at = 8;
  const idat: Buffer[] = [];
  let ihdr = Buffer.alloc(0);
  while (at < buf.length) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') ihdr = data;
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  return {
    width: ihdr.readUInt32BE(0),
    height: ihdr.readUInt32BE(4),
    depth: ihdr[8] ?? 0,
    raw: inflateSync(Buffer.concat(idat)),
  };
}

describe('oledPng', () => {
  it('encodes the framebuffer as a scaled 1-bit PNG that zlib can read back', () => {
    const fb = new Uint8Array(OLED_BYTES);
    setPixel(fb, 0, 0, 1);
    setPixel(fb, 127, 31, 1);
    const { width, height, depth, raw } = decode(oledPng(fb, 2));
    expect([width, height, depth]).toEqual([256, 64, 1]);
    const stride = 1 + 256 / 8;
    expect(raw.length).toBe(stride * 64);
    expect(raw[1]).toBe(0b11000000);
    expect(raw[stride + 1]).toBe(0b11000000);
    expect(raw[63 * stride + stride - 1]).toBe(0b00000011);
    expect(raw[2 * stride + 1]).toBe(0);
  });

  it('spans several stored blocks at large scales', () => {
    const fb = new Uint8Array(OLED_BYTES).fill(0xff);
    const { width, raw } = decode(oledPng(fb, 16));
    expect(width).toBe(2048);
    expect(raw.length).toBeGreaterThan(65535);
    expect(raw.every((b, i) => i % (1 + 2048 / 8) === 0 || b === 0xff)).toBe(true);
  });
});
