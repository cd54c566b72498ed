import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, encodePng, rowBytes } from './png.js';

function chunks(png: Uint8Array): Array<{ type: string; data: Buffer }> {
  const buf = Buffer.from(png);
  expect([...buf.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const out: Array<{ type: string; data: Buffer }> = [];
  for (let at = 8; at < buf.length; ) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + length);
    expect(buf.readUInt32BE(at + 8 + length)).toBe(crc32(buf.subarray(at + 4, at + 8 + length)));
    out.push({ type, data });
    at += 12 + length;
  }
  return out;
}

describe('encodePng', () => {
  it('crc32 matches the standard check value', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });

  it('writes an RGB image whose scanlines inflate back to the pixels with filter 0', () => {
    const pixels = Uint8Array.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const parts = chunks(encodePng({ width: 3, height: 2, format: 'rgb8', pixels }));
    expect(parts.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    const ihdr = parts[0]?.data as Buffer;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]]).toEqual([3, 2, 8, 2]);
    const raw = inflateSync(parts[1]?.data as Buffer);
    expect([...raw]).toEqual([0, ...pixels.subarray(0, 9), 0, ...pixels.subarray(9)]);
  });

  it('stored and deflated streams hold the same 1-bit rows', () => {
    const width = 20;
    const pixels = new Uint8Array(rowBytes(width, 'gray1') * 4).fill(0xa5);
    const idat = (compression: 'stored' | 'deflate') =>
      inflateSync(
        chunks(encodePng({ width, height: 4, format: 'gray1', pixels }, { compression }))[1]?.data as Buffer,
      );
    expect(idat('stored')).toEqual(idat('deflate'));
    expect(rowBytes(width, 'gray1')).toBe(3);
  });

  it('a lower zlib level holds the same rows, and the level is the one asked for', () => {
    // A flat drawing, as the board picture is: level 1 makes a bigger file than 9 from it.
    const width = 300;
    const pixels = new Uint8Array(rowBytes(width, 'rgb8') * 200);
    for (let i = 0; i < pixels.length; i++) pixels[i] = (Math.floor(i / 997) * 37) & 0xff;
    const idat = (level?: number) =>
      chunks(encodePng({ width, height: 200, format: 'rgb8', pixels }, level ? { level } : {}))[1]
        ?.data as Buffer;
    expect(inflateSync(idat(1))).toEqual(inflateSync(idat()));
    expect(idat(1).length).toBeGreaterThan(idat().length);
    // zlib's header names the level's class: 0x01 fastest, 0xda best (9, the default).
    expect(idat(1)[1]).toBe(0x01);
    expect(idat()[1]).toBe(0xda);
  });

  it('refuses pixel buffers that do not match the size', () => {
    expect(() => encodePng({ width: 2, height: 2, format: 'rgb8', pixels: new Uint8Array(11) })).toThrow(
      RangeError,
    );
    expect(() => encodePng({ width: 0, height: 2, format: 'rgb8', pixels: new Uint8Array(0) })).toThrow(
      RangeError,
    );
  });
});
