/**
 * The optional 128x32 SSD1306 OLED (spec §6.11), as a framebuffer in memory. The firmware draws into
 * a buffer (Adafruit_SSD1306) and pushes it to the glass on `display()`; we keep both, so
 * `oled_set_pixel` changes `oled_get_framebuffer` at once but the panel only after `oled_show()`.
 *
 * The virtual board has a panel fitted but does not start it at boot (as with the config's
 * `[top_oled] connect_on_boot = false`): until `oled_connect()` every call behaves as on a board
 * without a display (JumperlessMicroPythonAPI.cpp:1692-1879). `oled_connect()` starts it the way a
 * V5 (connection type 0) does: two bridges, GPIO_7-NANO_D2 and GPIO_8-NANO_D3 (oled.cpp:4145-4181,
 * config.h:188-191); `oled_disconnect()` removes those two bridges, whoever made them
 * (oled.cpp:4451-4477).
 *
 * Text: size 0 is a small scrolling console (4 lines of 21 characters), other sizes clear the
 * screen and centre the text at 1x (size 1) or 2x scale (2 and up; the firmware's default is 2).
 * The firmware's fonts are proportional; all of them draw with our one 5x7 font here.
 */
import { asInt, truthy } from './args.js';
import { GLYPH_HEIGHT, GLYPH_ROWS, GLYPH_WIDTH, glyphColumns } from './oledFont.js';
import { type FirmwareFunctions, type Json, PyError, type VirtualFs } from './types.js';

export const OLED_WIDTH = 128;
export const OLED_HEIGHT = 32;
export const OLED_BYTES = (OLED_WIDTH * OLED_HEIGHT) / 8;

/** `oled_get_fonts()` of firmware 5.7. */
export const OLED_FONTS: readonly string[] = [
  'Eurostile',
  'Jokerman',
  'Comic Sans',
  'Courier New',
  'New Science',
  'New Science Ext',
  'Andale Mono',
  'Free Mono',
  'Iosevka Regular',
  'Berkeley Mono',
  'Pragmatism',
];

/** Font entries (oled.cpp:137-183): short name, long name, family (oled.h:72-84 FontFamily). */
const FONT_TABLE: readonly (readonly [string, string, number])[] = [
  ['Eurostl', 'Eurostile', 0],
  ['Jokermn', 'Jokerman', 1],
  ['ComicSns', 'Comic Sans', 2],
  ['Courier', 'Courier New', 3],
  ['Science', 'New Science', 4],
  ['SciExt', 'New Science Ext', 5],
  ['AndlMno', 'Andale Mono', 6],
  ['FreMno', 'Free Mono', 7],
  ['BerkMono', 'Berkeley Mono', 9],
  ['Pragmtsm', 'Pragmatism', 10],
  ['IosevkaR', 'Iosevka Regular', 8],
  ['Ubuntu', 'Ubuntu', 0],
  ['DotGoth', 'DotGothic', 0],
  ['IosevkaS5', 'Iosevka Light 5pt', 8],
  ['FreMonoS5', 'Free Mono 5pt', 7],
  ['EnvyS5', 'EnvyCode 5pt', 0],
];

/** normalizeFontNameInto (oled.cpp:779-796): no spaces, tabs, newlines, `_` or `-`; ASCII lower case; 31 at most. */
export const normalizeFontName = (name: string): string =>
  name
    .replace(/[ \t\n\r_-]/g, '')
    .replace(/[A-Z]/g, (c) => c.toLowerCase())
    .slice(0, 31);

/** The font family a name selects (oled.cpp:823-845: long and short names), or undefined. */
export function fontFamily(name: string): number | undefined {
  const wanted = normalizeFontName(name);
  const entry = FONT_TABLE.find(
    ([short, long]) => normalizeFontName(long) === wanted || normalizeFontName(short) === wanted,
  );
  return entry?.[2];
}

/** getFontName (oled.cpp:908-916): the long name of the family's first entry. */
export const familyName = (family: number): string =>
  FONT_TABLE.find(([, , f]) => f === family)?.[1] ?? 'Unknown';

const CELL_W = GLYPH_WIDTH + 1;
const CELL_H = GLYPH_HEIGHT + 1;
const SMALL_COLS = Math.floor(OLED_WIDTH / CELL_W);
const SMALL_ROWS = Math.floor(OLED_HEIGHT / CELL_H);

export interface Bitmap {
  width: number;
  height: number;
  /** Row-major, one bit per pixel, most significant bit first, rows padded to whole bytes. */
  data: Uint8Array;
}

export interface OledState {
  /** A panel is plugged in (it answers on I2C once started). */
  fitted: boolean;
  /** `oled.isConnected()`: started and answering. False until `oled_connect()`. */
  connected: boolean;
  /** The drawing buffer, SSD1306 page layout: byte `page*128 + x`, bit `y % 8` (LSB at the top). */
  buffer: Uint8Array;
  /** What the glass shows: the buffer as of the last `display()`. */
  panel: Uint8Array;
  /** Size used when `oled_print` gets size -1. */
  textSize: number;
  /** currentFontFamily (oled.h:72-84); set by oled_set_font with or without a display. */
  fontFamily: number;
  /** `oled_copy_print(True)`: `print()` output scrolls on the small console too. */
  copyPrint: boolean;
  /** The size-0 console's lines, oldest first. */
  smallLines: string[];
  /** The bitmap `oled_load_bitmap` read, drawn by `oled_display_bitmap` without data. */
  bitmap: Bitmap | undefined;
}

export function createOledState(): OledState {
  return {
    fitted: true,
    connected: false,
    buffer: new Uint8Array(OLED_BYTES),
    panel: new Uint8Array(OLED_BYTES),
    textSize: 2,
    fontFamily: 0,
    copyPrint: false,
    smallLines: [],
    bitmap: undefined,
  };
}

// ---- pure framebuffer helpers (also for the host side: the backchannel, pictures) ----

/** 1 if the pixel is lit, 0 if dark or outside the screen. */
export function getPixel(fb: Uint8Array, x: number, y: number): 0 | 1 {
  if (x < 0 || x >= OLED_WIDTH || y < 0 || y >= OLED_HEIGHT) return 0;
  return (((fb[(y >> 3) * OLED_WIDTH + x] ?? 0) >> (y & 7)) & 1) as 0 | 1;
}

/** Adafruit `drawPixel` colours: 0 black, 1 white, 2 invert; others and off-screen pixels do nothing. */
export function setPixel(fb: Uint8Array, x: number, y: number, color: number): void {
  if (x < 0 || x >= OLED_WIDTH || y < 0 || y >= OLED_HEIGHT) return;
  const i = (y >> 3) * OLED_WIDTH + x;
  const bit = 1 << (y & 7);
  const byte = fb[i] ?? 0;
  if (color === 1) fb[i] = byte | bit;
  else if (color === 0) fb[i] = byte & ~bit;
  else if (color === 2) fb[i] = byte ^ bit;
}

/** The screen as 32 strings of 128 characters, `#` lit and `.` dark. */
export function framebufferRows(fb: Uint8Array): string[] {
  return Array.from({ length: OLED_HEIGHT }, (_, y) =>
    Array.from({ length: OLED_WIDTH }, (_, x) => (getPixel(fb, x, y) ? '#' : '.')).join(''),
  );
}

function drawChar(fb: Uint8Array, char: string, x: number, y: number, scale: number): void {
  const cols = glyphColumns(char);
  for (let c = 0; c < GLYPH_WIDTH; c++) {
    const bits = cols[c] ?? 0;
    for (let r = 0; r < GLYPH_ROWS; r++) {
      if (!((bits >> r) & 1)) continue;
      for (let dy = 0; dy < scale; dy++) {
        for (let dx = 0; dx < scale; dx++) setPixel(fb, x + c * scale + dx, y + r * scale + dy, 1);
      }
    }
  }
}

/** Draws one line of text with its top-left corner at (x, y), `scale` pixels per font pixel. */
export function drawText(fb: Uint8Array, text: string, x: number, y: number, scale: number): void {
  [...text].forEach((ch, i) => {
    drawChar(fb, ch, x + i * CELL_W * scale, y, scale);
  });
}

/** The ink size of one line of text: [width, height] (height without descenders). */
export function textSize(text: string, scale: number): [number, number] {
  const n = [...text].length;
  return [n === 0 ? 0 : n * CELL_W * scale - scale, GLYPH_HEIGHT * scale];
}

const drawLine = drawText;

/** Splits on newlines and wraps at `width` characters, at a space when there is one. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.replace(/\r/g, '').split('\n')) {
    const chars = [...paragraph];
    if (chars.length === 0) lines.push('');
    let start = 0;
    while (start < chars.length) {
      if (chars.length - start <= width) {
        lines.push(chars.slice(start).join(''));
        break;
      }
      const space = chars.lastIndexOf(' ', start + width);
      const cut = space > start ? space : start + width;
      lines.push(chars.slice(start, cut).join(''));
      start = space > start ? cut + 1 : cut;
    }
  }
  return lines;
}

/** More text than the screen can hold is never drawn; bound the work for hostile input. */
const TEXT_LIMIT = 4096;

/** Clears the buffer and draws the text centred at 1x or 2x (sizes 1 and 2). */
export function drawCentered(fb: Uint8Array, text: string, scale: number): void {
  fb.fill(0);
  const perLine = Math.floor(OLED_WIDTH / (CELL_W * scale));
  const maxLines = Math.floor(OLED_HEIGHT / (CELL_H * scale));
  const lines = wrapText(text.slice(0, TEXT_LIMIT), perLine).slice(0, maxLines);
  const lineHeight = CELL_H * scale;
  const top = Math.floor((OLED_HEIGHT - lines.length * lineHeight + scale) / 2);
  lines.forEach((line, i) => {
    const width = [...line].length * CELL_W * scale - scale;
    drawLine(fb, line, Math.max(0, Math.floor((OLED_WIDTH - width) / 2)), top + i * lineHeight, scale);
  });
}

/** Appends text to the size-0 console (oldest lines scroll off) and redraws it. */
function appendSmall(state: OledState, text: string): void {
  const pieces = text.slice(-TEXT_LIMIT).split('\n');
  if (pieces.length > 1 && pieces[pieces.length - 1] === '') pieces.pop();
  for (const piece of pieces) state.smallLines.push(...wrapText(piece, SMALL_COLS));
  state.smallLines = state.smallLines.slice(-SMALL_ROWS);
  state.buffer.fill(0);
  state.smallLines.forEach((line, i) => {
    drawLine(state.buffer, line, 0, i * CELL_H, 1);
  });
}

/** `display()`: the glass shows the buffer. */
export function show(state: OledState): void {
  state.panel.set(state.buffer);
}

/**
 * Adafruit `drawBitmap(x, y, bitmap, w, h, WHITE)`: row-major, most significant bit first, rows
 * padded to whole bytes; set bits light a pixel, clear bits leave it as it was.
 */
export function drawBitmap(fb: Uint8Array, x: number, y: number, bitmap: Bitmap): void {
  const stride = (bitmap.width + 7) >> 3;
  // Only the part that lands on the screen is visited, whatever size the caller claims.
  const rows = Math.min(bitmap.height, OLED_HEIGHT - y);
  const cols = Math.min(bitmap.width, OLED_WIDTH - x);
  for (let j = Math.max(0, -y); j < rows; j++) {
    for (let i = Math.max(0, -x); i < cols; i++) {
      const byte = bitmap.data[j * stride + (i >> 3)] ?? 0;
      if (byte & (0x80 >> (i & 7))) setPixel(fb, x + i, y + j, 1);
    }
  }
}

/** Raw files the firmware recognises by size alone (oled.cpp:463-480): bytes -> [width, height]. */
const RAW_SIZES: ReadonlyMap<number, readonly [number, number]> = new Map([
  [512, [128, 32]],
  [1024, [128, 64]],
  [256, [64, 32]],
  [496, [128, 31]],
]);

/**
 * loadBitmapFromFile's two formats (oled.cpp:401-489): a 4-byte header (width, height as
 * little-endian 16-bit, 1-128 x 1-64) followed by exactly ceil(w*h/8) bytes, or a raw file of
 * 512/1024/256/496 bytes. Both are drawn as `drawBitmap` data (rows padded to bytes), which is not
 * the page layout of `oled_get_framebuffer()`.
 */
export function parseBitmap(bytes: Uint8Array): Bitmap | undefined {
  if (bytes.length >= 4) {
    const width = (bytes[0] ?? 0) | ((bytes[1] ?? 0) << 8);
    const height = (bytes[2] ?? 0) | ((bytes[3] ?? 0) << 8);
    const valid = width > 0 && width <= 128 && height > 0 && height <= 64;
    if (valid && Math.ceil((width * height) / 8) === bytes.length - 4) {
      return { width, height, data: bytes.slice(4) };
    }
  }
  const size = RAW_SIZES.get(bytes.length);
  return size ? { width: size[0], height: size[1], data: bytes.slice() } : undefined;
}

const asStr = (x: Json | undefined): string => {
  if (typeof x !== 'string') throw new PyError('TypeError', "can't convert to str implicitly");
  return x;
};

const asBytes = (x: Json | undefined): Uint8Array =>
  Uint8Array.from(Array.isArray(x) ? x.map((b) => (typeof b === 'number' ? b & 0xff : 0)) : []);

/** What starting and stopping the display does to the wiring (the GPIO_7/8 bridges to NANO_D2/D3). */
export interface OledWiring {
  /** Adds (true) or removes (false) the display's two I2C bridges. */
  i2cBridges(add: boolean): void;
}

export function oledFunctions(state: OledState, fs: () => VirtualFs, wiring: OledWiring): FirmwareFunctions {
  // Every load forgets the previous bitmap first, so a failed one leaves none (oled.cpp:402-404).
  const loadBitmap = (path: string): boolean => {
    state.bitmap = undefined;
    try {
      state.bitmap = parseBitmap(fs().readFile(path.startsWith('/') ? path : `/${path}`));
    } catch {}
    return state.bitmap !== undefined;
  };
  const displayBitmap = (x: number, y: number, bitmap: Bitmap | undefined): boolean => {
    if (!state.connected || !bitmap) return false;
    drawBitmap(state.buffer, x, y, bitmap);
    show(state);
    return true;
  };

  return {
    // Python joins the values (print-like) and resolves the `oled_print(text, size)` form.
    oled_print: (text, size) => {
      if (!state.connected) return 0;
      let s = asInt(size);
      if (s === -1) s = state.textSize;
      if (s === 0) appendSmall(state, asStr(text));
      else drawCentered(state.buffer, asStr(text), s >= 2 ? 2 : 1);
      show(state);
      return 1;
    },
    oled_clear: (showNow) => {
      if (!state.connected) return 0;
      state.buffer.fill(0);
      state.smallLines = [];
      if (showNow === undefined || truthy(showNow)) show(state);
      return 1;
    },
    oled_show: () => {
      if (!state.connected) return 0;
      show(state);
      return 1;
    },
    // oled::init (oled.cpp:503-663): bridges first, then the I2C probe decides `connected`; the
    // font goes back to the config's (Eurostile) and the screen shows the start-up picture (the
    // firmware's logo; a word here).
    oled_connect: () => {
      wiring.i2cBridges(true);
      state.connected = state.fitted;
      state.fontFamily = 0;
      if (state.connected) {
        state.smallLines = [];
        drawCentered(state.buffer, 'Jumperless', 1);
        show(state);
      }
      return state.connected ? 1 : 0;
    },
    oled_disconnect: () => {
      wiring.i2cBridges(false);
      state.connected = false;
      return 1;
    },
    /**
     * Simulator only, for tests: take the panel off the board (or put it back), so oled_connect()
     * finds no display. Called as `_fw.call('_sim_oled_fitted', '[false]')`.
     */
    _sim_oled_fitted: (on) => {
      state.fitted = truthy(on);
      return null;
    },
    oled_set_text_size: (size) => {
      const s = asInt(size);
      if (s < 0 || s > 2) return false;
      state.textSize = s;
      return true;
    },
    oled_get_text_size: () => state.textSize,
    oled_copy_print: (enable) => {
      state.copyPrint = truthy(enable);
      if (state.copyPrint && state.connected) state.smallLines = [];
      return null;
    },
    /** Whether print() mirroring is on (the Python side re-installs its hook after a soft reset). */
    _oled_copy_print_get: () => state.copyPrint,
    /** What `print()` wrote while copy-print is on. */
    _oled_mirror: (text) => {
      if (state.copyPrint && state.connected && typeof text === 'string') {
        appendSmall(state, text);
        show(state);
      }
      return null;
    },
    oled_get_fonts: () => [...OLED_FONTS],
    // JumperlessMicroPythonAPI.cpp:1776-1787: works without a display (its check is commented out).
    oled_set_font: (name) => {
      const wanted = asStr(name).trim();
      if (wanted === '') return false;
      const family = fontFamily(wanted);
      if (family !== undefined) state.fontFamily = family;
      return family !== undefined;
    },
    oled_get_current_font: () => (state.connected ? familyName(state.fontFamily) : ''),
    oled_load_bitmap: (path) => loadBitmap(asStr(path)),
    oled_display_bitmap: (x, y, width, height, data) => {
      const bytes = asBytes(data);
      const bitmap =
        bytes.length > 0
          ? { width: Math.max(0, asInt(width)), height: Math.max(0, asInt(height)), data: bytes }
          : state.bitmap;
      return displayBitmap(asInt(x), asInt(y), bitmap);
    },
    oled_show_bitmap_file: (path, x, y) =>
      loadBitmap(asStr(path)) && displayBitmap(asInt(x), asInt(y), state.bitmap),
    oled_get_framebuffer: () => (state.connected ? Array.from(state.buffer) : null),
    oled_set_framebuffer: (data) => {
      const bytes = asBytes(data);
      if (!state.connected || bytes.length !== OLED_BYTES) return false;
      state.buffer.set(bytes);
      show(state);
      return true;
    },
    oled_get_framebuffer_size: () => (state.connected ? [OLED_WIDTH, OLED_HEIGHT, OLED_BYTES] : [0, 0, 0]),
    oled_set_pixel: (x, y, color) => {
      if (!state.connected) return false;
      setPixel(state.buffer, asInt(x), asInt(y), asInt(color));
      return true;
    },
    oled_get_pixel: (x, y) => (state.connected ? getPixel(state.buffer, asInt(x), asInt(y)) : -1),
    /** The panel (what is displayed), 512 bytes in SSD1306 page layout, for the host side. */
    _oled_panel: () => Array.from(state.panel),
  };
}
