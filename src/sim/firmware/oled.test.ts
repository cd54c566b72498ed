import { loadMicroPython } from '@micropython/micropython-webassembly-pyscript/micropython.mjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { virtualFs } from '../flashSync.js';
import {
  createOledState,
  fontFamily,
  framebufferRows,
  getPixel,
  OLED_BYTES,
  oledFunctions,
  parseBitmap,
  wrapText,
} from './oled.js';
import type { VirtualFs } from './types.js';

let fs: VirtualFs;

beforeAll(async () => {
  const mp = await loadMicroPython({ linebuffer: false, stdout: () => {}, stderr: () => {} });
  fs = virtualFs(mp.FS);
});

/** A display started with oled_connect (unless `connected` is false); `bridges` logs the wiring calls. */
function setup(connected = true) {
  const state = createOledState();
  const bridges: boolean[] = [];
  const fns = oledFunctions(state, () => fs, { i2cBridges: (add) => bridges.push(add) });
  const call = (name: string, ...args: unknown[]) => fns[name]?.(...(args as never[]));
  if (connected) {
    call('oled_connect');
    call('oled_clear');
  }
  return { state, call, bridges };
}

/** Lit pixels' bounding box: [minX, minY, maxX, maxY]. */
function bounds(fb: Uint8Array): [number, number, number, number] {
  let [x0, y0, x1, y1] = [128, 32, -1, -1];
  for (let y = 0; y < 32; y++) {
    for (let x = 0; x < 128; x++) {
      if (!getPixel(fb, x, y)) continue;
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x);
      y1 = Math.max(y1, y);
    }
  }
  return [x0, y0, x1, y1];
}

describe('oled_print (spec §6.11)', () => {
  it('draws large text centred by default and shows it on the panel', () => {
    const { state, call } = setup();
    expect(call('oled_print', 'Hi', -1)).toBe(1);
    const [x0, y0, x1, y1] = bounds(state.panel);
    expect(y1 - y0 + 1).toBe(14);
    expect(Math.abs(x0 + x1 - 127)).toBeLessThanOrEqual(2);
    expect(Math.abs(y0 + y1 - 31)).toBeLessThanOrEqual(2);
    expect(state.panel).toEqual(state.buffer);
  });

  it('size 1 is half the height of size 2 and the default size can change', () => {
    const { state, call } = setup();
    call('oled_print', 'A', 1);
    const [, y0, , y1] = bounds(state.panel);
    expect(y1 - y0 + 1).toBe(7);
    expect(call('oled_set_text_size', 3)).toBe(false);
    expect(call('oled_set_text_size', 1)).toBe(true);
    expect(call('oled_get_text_size')).toBe(1);
  });

  it('size 0 scrolls: the fifth line pushes the first off the top', () => {
    const { state, call } = setup();
    for (const line of ['one', 'two', 'three', 'four', 'five']) call('oled_print', line, 0);
    const expected = setup();
    expected.call('oled_print', 'two\nthree\nfour\nfive\n', 0);
    expect(state.panel).toEqual(expected.state.panel);
    expect(framebufferRows(state.panel)[0]).not.toMatch(/^\.+$/);
  });

  it('wraps at spaces where it can', () => {
    expect(wrapText('hello wide world', 10)).toEqual(['hello wide', 'world']);
    expect(wrapText('abcdefghijkl\n\nx', 5)).toEqual(['abcde', 'fghij', 'kl', '', 'x']);
  });
});

describe('framebuffer access', () => {
  it('set_pixel draws into the buffer; the panel follows on oled_show', () => {
    const { state, call } = setup();
    expect(call('oled_set_pixel', 3, 9, 1)).toBe(true);
    expect(call('oled_get_pixel', 3, 9)).toBe(1);
    expect(getPixel(state.panel, 3, 9)).toBe(0);
    call('oled_show');
    expect(getPixel(state.panel, 3, 9)).toBe(1);
    call('oled_set_pixel', 3, 9, 2);
    expect(call('oled_get_pixel', 3, 9)).toBe(0);
    expect(call('oled_get_pixel', 500, 9)).toBe(0);
    const fb = call('oled_get_framebuffer') as number[];
    expect(fb).toHaveLength(OLED_BYTES);
  });

  it('page layout: byte page*128 + x, bit y % 8', () => {
    const { call } = setup();
    call('oled_set_pixel', 5, 10, 1);
    const fb = call('oled_get_framebuffer') as number[];
    expect(fb[128 + 5]).toBe(1 << 2);
  });

  it('set_framebuffer wants exactly 512 bytes and displays them', () => {
    const { state, call } = setup();
    expect(call('oled_set_framebuffer', [1, 2, 3])).toBe(false);
    const bytes = new Array(OLED_BYTES).fill(0);
    bytes[0] = 0xff;
    expect(call('oled_set_framebuffer', bytes)).toBe(true);
    expect(getPixel(state.panel, 0, 7)).toBe(1);
    expect(call('oled_get_framebuffer_size')).toEqual([128, 32, 512]);
  });

  it('starts without a display: the calls answer as on a board with none', () => {
    const { state, call, bridges } = setup(false);
    expect(call('oled_print', 'x', 2)).toBe(0);
    expect(state.panel.every((b) => b === 0)).toBe(true);
    expect(call('oled_get_framebuffer')).toBeNull();
    expect(call('oled_get_framebuffer_size')).toEqual([0, 0, 0]);
    expect(call('oled_get_pixel', 0, 0)).toBe(-1);
    expect(call('oled_set_pixel', 0, 0, 1)).toBe(false);
    expect(call('oled_get_current_font')).toBe('');
    expect(bridges).toEqual([]);
  });

  it('oled_connect adds the I2C bridges and starts the panel; oled_disconnect removes them', () => {
    const { state, call, bridges } = setup(false);
    expect(call('oled_connect')).toBe(1);
    expect(state.connected).toBe(true);
    expect(state.panel.some((b) => b !== 0)).toBe(true);
    call('oled_disconnect');
    expect(state.connected).toBe(false);
    expect(bridges).toEqual([true, false]);
    state.fitted = false;
    expect(call('oled_connect')).toBe(0);
    expect(state.connected).toBe(false);
    expect(bridges).toEqual([true, false, true]);
  });

  it('fonts: any long or short name, normalised, with or without a display', () => {
    const { call } = setup(false);
    for (const name of ['comic_sans', 'COMICSANS', 'ComicSns', ' Comic-Sans ']) {
      expect(call('oled_set_font', name)).toBe(true);
    }
    expect(call('oled_set_font', 'Ubuntu')).toBe(true);
    expect(call('oled_set_font', '   ')).toBe(false);
    expect(call('oled_set_font', 'Wingdings')).toBe(false);
    expect(fontFamily('Iosevka Light 5pt')).toBe(8);
    call('oled_connect');
    expect(call('oled_get_current_font')).toBe('Eurostile');
    call('oled_set_font', 'iosevkas5');
    expect(call('oled_get_current_font')).toBe('Iosevka Regular');
  });

  it('copy-print mirrors text onto the small console only while on', () => {
    const { state, call } = setup();
    call('_oled_mirror', 'ignored\n');
    expect(state.panel.every((b) => b === 0)).toBe(true);
    call('oled_copy_print', true);
    expect(call('_oled_copy_print_get')).toBe(true);
    call('_oled_mirror', 'hello\n');
    const expected = setup();
    expected.call('oled_print', 'hello', 0);
    expect(state.panel).toEqual(expected.state.panel);
  });
});

describe('bitmaps', () => {
  it('loads the 4-byte-header format and draws set bits only, at a position', () => {
    const { state, call } = setup();
    call('oled_set_pixel', 11, 6, 1);
    // 9 x 2 = 18 bits in 3 bytes (not row-padded); drawn with rows padded to 2 bytes.
    fs.writeFile('/smile.bin', Uint8Array.from([9, 0, 2, 0, 0xff, 0x80, 0x00]));
    expect(call('oled_show_bitmap_file', 'smile.bin', 10, 5)).toBe(true);
    expect(getPixel(state.panel, 10, 5)).toBe(1);
    expect(getPixel(state.panel, 18, 5)).toBe(1);
    expect(getPixel(state.panel, 11, 6)).toBe(1);
    expect(call('oled_load_bitmap', '/nope.bin')).toBe(false);
    expect(call('oled_display_bitmap', 0, 0, 0, 0, null)).toBe(false);
  });

  it('raw files of 512, 1024, 256 or 496 bytes are drawBitmap data of a known size', () => {
    expect(parseBitmap(new Uint8Array(512))).toMatchObject({ width: 128, height: 32 });
    expect(parseBitmap(new Uint8Array(1024))).toMatchObject({ width: 128, height: 64 });
    expect(parseBitmap(new Uint8Array(256))).toMatchObject({ width: 64, height: 32 });
    expect(parseBitmap(new Uint8Array(496))).toMatchObject({ width: 128, height: 31 });
    expect(parseBitmap(new Uint8Array(100))).toBeUndefined();
    expect(parseBitmap(Uint8Array.from([...Buffer.from('P4\n1 1\n'), 0x80]))).toBeUndefined();
  });

  it('draws data passed in, or the loaded bitmap when there is none', () => {
    const { state, call } = setup();
    expect(call('oled_display_bitmap', 2, 3, 8, 1, [0b10000001])).toBe(true);
    expect(getPixel(state.panel, 2, 3)).toBe(1);
    expect(getPixel(state.panel, 9, 3)).toBe(1);
    expect(getPixel(state.panel, 5, 3)).toBe(0);
    const raw = new Uint8Array(OLED_BYTES);
    raw[15] = 0x01;
    fs.writeFile('/screen.bin', raw);
    expect(call('oled_load_bitmap', '/screen.bin')).toBe(true);
    expect(call('oled_display_bitmap', 0, 0, 0, 0, null)).toBe(true);
    expect(getPixel(state.panel, 127, 0)).toBe(1);
  });
});

describe('hostile input', () => {
  it('draws a megabyte of text quickly and keeps only what fits', () => {
    const { state, call } = setup();
    const huge = 'word '.repeat(200_000);
    expect(call('oled_print', huge, 1)).toBe(1);
    expect(call('oled_print', huge, 0)).toBe(1);
    expect(state.smallLines).toHaveLength(4);
    expect(wrapText('a'.repeat(50), 21)).toEqual(['a'.repeat(21), 'a'.repeat(21), 'a'.repeat(8)]);
  });
});

describe('hostile bitmaps', () => {
  it('visits only the on-screen part of a bitmap that claims to be huge', () => {
    const { state, call } = setup();
    expect(call('oled_display_bitmap', -5, -5, 1_000_000_000, 1_000_000_000, [0xff])).toBe(true);
    expect(getPixel(state.panel, 0, 0)).toBe(0);
    expect(call('oled_display_bitmap', 120, 30, 16, 4, new Array(8).fill(0xff))).toBe(true);
    expect(getPixel(state.panel, 127, 31)).toBe(1);
  });
});
