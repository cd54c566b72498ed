import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileStrings } from '../../test/support/hostileStrings.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { ToolError } from '../core/errors.js';
import {
  autoTextSize,
  decodeFramebuffer,
  framebufferPng,
  OLED_TEXT_MAX,
  oledClear,
  oledPrint,
  oledShow,
} from './oled.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());

const refusal = (code: string) => expect.objectContaining({ code });

/** Width, height and the unfiltered 1-bit rows of a PNG made of one IDAT. */
function readPng(png: Buffer): { width: number; height: number; rows: Buffer } {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const idat = png.indexOf('IDAT');
  const length = png.readUInt32BE(idat - 4);
  return { width, height, rows: inflateSync(png.subarray(idat + 4, idat + 4 + length)) };
}

describe('oled tools', () => {
  it('starts the display itself when it is off (the virtual board boots that way), saying with which bridges', async () => {
    await expect(h.run(oledShow)).rejects.toMatchObject({
      code: 'no_display',
      message: expect.stringMatching(/oled_print or oled_clear starts one/),
    });
    const { result } = await h.run(oledPrint, { text: 'hi' });
    expect(result).toMatchObject({
      characters: 2,
      started_display: ['GPIO_7-D2', 'GPIO_8-D3'],
      i2c_bridges: expect.stringMatching(/stay .*disconnect them \(GPIO_7-D2, GPIO_8-D3\)/),
    });
    expect(await h.python('bool(is_connected(GPIO_7, D2))')).toBe(true);
    // On now: no start the second time.
    expect((await h.run(oledPrint, { text: 'hi' })).result).not.toHaveProperty('started_display');
  });

  it('does not start a display on pins that carry wiring, nor leave bridges when none answers', async () => {
    await h.python('oled_disconnect()');
    await h.python('connect(GPIO_8, 40)');
    try {
      await expect(h.run(oledClear)).rejects.toMatchObject({
        code: 'pins_in_use',
        message: expect.stringMatching(/GPIO_8-40|RP_GPIO_8-40/),
      });
      expect(await h.python('bool(is_connected(GPIO_7, D2))')).toBe(false);
    } finally {
      await h.python('disconnect(GPIO_8, 40)');
    }
    // The Nano side counts too: oled_print refuses, naming the clash, and changes nothing.
    await h.python('connect(D3, 41)');
    try {
      await expect(h.run(oledPrint, { text: 'hi' })).rejects.toMatchObject({
        code: 'pins_in_use',
        message: expect.stringMatching(/D3-41.*Nothing was changed/),
      });
      expect(await h.python('bool(is_connected(GPIO_8, D3)) or bool(is_connected(GPIO_7, D2))')).toBe(false);
    } finally {
      await h.python('disconnect(D3, 41)');
    }
    await h.python("__import__('_fw').call('_sim_oled_fitted', '[false]')");
    try {
      await expect(h.run(oledPrint, { text: 'hi' })).rejects.toMatchObject({
        code: 'no_display',
        message: expect.stringMatching(/No OLED display answered/),
      });
      expect(await h.python('bool(is_connected(GPIO_7, D2))')).toBe(false);
    } finally {
      await h.python("__import__('_fw').call('_sim_oled_fitted', '[true]')");
    }
    expect((await h.run(oledClear)).result).toMatchObject({ lit_pixels: 0 });
  });

  it('prints text, picking the large size when it fits', async () => {
    const { result } = await h.run(oledPrint, { text: 'Hello' });
    expect(result).toMatchObject({ characters: 5, size: 2 });
    expect(result.lit_pixels).toBeGreaterThan(20);
    expect(await h.python('oled_get_text_size()')).toBe(2);
    const long = await h.run(oledPrint, { text: 'Place the resistor in row 12' });
    expect(long.result).toMatchObject({ size: 1 });
    expect(autoTextSize('ten chars!\nten chars!')).toBe(2);
    expect(autoTextSize('a\nb\nc')).toBe(1);
  });

  it('shows the framebuffer as a PNG whose lit pixels match the screen', async () => {
    await h.run(oledPrint, { text: 'Hi', size: 2 });
    const { result, images } = await h.run(oledShow);
    expect(images).toHaveLength(1);
    const png = Buffer.from(images[0]?.data ?? '', 'base64');
    expect(result.png_bytes).toBe(png.length);
    const { width, height, rows } = readPng(png);
    expect([width, height]).toEqual([512, 128]);
    // Every row: one filter byte then 64 bytes; count lit bits and divide by the 4x4 scale.
    let bits = 0;
    for (let y = 0; y < height; y++) {
      const row = rows.subarray(y * 65, y * 65 + 65);
      expect(row[0]).toBe(0);
      for (const byte of row.subarray(1)) for (let b = byte; b; b &= b - 1) bits++;
    }
    expect(bits / 16).toBe(result.lit_pixels);
    expect(result.lit_pixels).toBeGreaterThan(0);
  });

  it('clears the screen and verifies it is blank', async () => {
    await h.run(oledPrint, { text: 'x' });
    expect(await h.run(oledClear)).toMatchObject({ result: { lit_pixels: 0 } });
    expect(await h.python('sum(oled_get_framebuffer())')).toBe(0);
  });

  it('reports a display that is off instead of showing nothing', async () => {
    await h.python('oled_disconnect()');
    try {
      await expect(h.run(oledShow)).rejects.toEqual(refusal('no_display'));
    } finally {
      await h.python('oled_connect()');
    }
  });

  it('decodes a 128x64 framebuffer too, and refuses one that does not match its size', () => {
    const fb = decodeFramebuffer([128, 64, 'ff'.repeat(1024)]);
    expect(fb).toMatchObject({ width: 128, height: 64 });
    expect(fb?.bytes).toHaveLength(1024);
    const png = Buffer.from(framebufferPng(fb as NonNullable<typeof fb>, 1));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([128, 64]);
    expect(decodeFramebuffer(null)).toBeUndefined();
    expect(() => decodeFramebuffer([128, 32, '00'.repeat(1024)])).toThrow(ToolError);
    expect(() => decodeFramebuffer('00'.repeat(512))).toThrow(ToolError);
  });

  it('prints every hostile string literally or refuses it with a clear message', async () => {
    await h.python("fs_write('/canary.txt', 'alive')");
    let printed = 0;
    for (const text of hostileStrings()) {
      const outcome = await h.run(oledPrint, { text }).then(
        (r) => r.result,
        (e: unknown) => e,
      );
      if (outcome instanceof ToolError) {
        expect(outcome.code).toBe('bad_text');
        continue;
      }
      if (outcome instanceof Error) {
        // zod: only the length limit may refuse a string.
        expect(text.length).toBeGreaterThan(OLED_TEXT_MAX);
        continue;
      }
      // The board received the same number of characters: one literal, nothing executed.
      expect(outcome).toMatchObject({ characters: [...text].length });
      printed++;
    }
    expect(printed).toBeGreaterThan(200);
    expect(await h.python("fs_read('/canary.txt')")).toBe('alive');
    expect(await h.python('1 + 1')).toBe(2);
  });
});
