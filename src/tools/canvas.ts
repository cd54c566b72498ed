/**
 * A tiny RGB pixel canvas for pictures the tools return (board picture, sweep plots): rectangles,
 * lines, circles and 3x5-font text, encoded with board/png.ts. Colours are 0xRRGGBB numbers.
 */
import { encodePng, type PngOptions } from '../board/png.js';
import { GLYPH_ADVANCE, GLYPH_HEIGHT, GLYPH_WIDTH, glyph } from './font3x5.js';

export interface Canvas {
  readonly width: number;
  readonly height: number;
  set(x: number, y: number, color: number): void;
  rect(x: number, y: number, w: number, h: number, color: number): void;
  /** A one-pixel outline. */
  frame(x: number, y: number, w: number, h: number, color: number): void;
  line(x0: number, y0: number, x1: number, y1: number, color: number, thickness?: number): void;
  disc(cx: number, cy: number, r: number, color: number): void;
  /** Draws text with its top-left corner at (x, y); returns the width drawn in pixels. */
  text(x: number, y: number, text: string, color: number, scale?: number): number;
  png(options?: PngOptions): Uint8Array;
}

export function textWidth(text: string, scale = 1): number {
  const chars = [...text].length;
  return chars === 0 ? 0 : ((chars - 1) * GLYPH_ADVANCE + GLYPH_WIDTH) * scale;
}

export function createCanvas(width: number, height: number, background = 0xffffff): Canvas {
  const w = Math.max(1, Math.floor(width));
  const h = Math.max(1, Math.floor(height));
  const pixels = new Uint8Array(w * h * 3);
  const set = (x: number, y: number, color: number): void => {
    const px = Math.round(x);
    const py = Math.round(y);
    if (px < 0 || py < 0 || px >= w || py >= h) return;
    const i = (py * w + px) * 3;
    pixels[i] = (color >> 16) & 0xff;
    pixels[i + 1] = (color >> 8) & 0xff;
    pixels[i + 2] = color & 0xff;
  };
  const rect = (x: number, y: number, rw: number, rh: number, color: number): void => {
    const x0 = Math.max(0, Math.round(x));
    const y0 = Math.max(0, Math.round(y));
    const x1 = Math.min(w, Math.round(x + rw));
    const y1 = Math.min(h, Math.round(y + rh));
    if (x1 <= x0 || y1 <= y0) return;
    // Row by row with plain index arithmetic: the board view draws a picture after every change,
    // and a call per pixel made that cost tens of milliseconds of the server's one thread.
    const r = (color >> 16) & 0xff;
    const g = (color >> 8) & 0xff;
    const b = color & 0xff;
    for (let py = y0; py < y1; py++) {
      const end = (py * w + x1) * 3;
      for (let i = (py * w + x0) * 3; i < end; i += 3) {
        pixels[i] = r;
        pixels[i + 1] = g;
        pixels[i + 2] = b;
      }
    }
  };
  rect(0, 0, w, h, background);
  return {
    width: w,
    height: h,
    set,
    rect,
    frame(x, y, fw, fh, color) {
      rect(x, y, fw, 1, color);
      rect(x, y + fh - 1, fw, 1, color);
      rect(x, y, 1, fh, color);
      rect(x + fw - 1, y, 1, fh, color);
    },
    line(x0, y0, x1, y1, color, thickness = 1) {
      const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0))));
      const half = Math.floor(thickness / 2);
      for (let i = 0; i <= steps; i++) {
        const x = Math.round(x0 + ((x1 - x0) * i) / steps);
        const y = Math.round(y0 + ((y1 - y0) * i) / steps);
        rect(x - half, y - half, thickness, thickness, color);
      }
    },
    disc(cx, cy, r, color) {
      for (let dy = -r; dy <= r; dy++)
        for (let dx = -r; dx <= r; dx++) if (dx * dx + dy * dy <= r * r + r) set(cx + dx, cy + dy, color);
    },
    text(x, y, text, color, scale = 1) {
      const s = Math.max(1, Math.floor(scale));
      let cx = x;
      for (const char of text) {
        const bits = glyph(char);
        for (let gy = 0; gy < GLYPH_HEIGHT; gy++)
          for (let gx = 0; gx < GLYPH_WIDTH; gx++)
            if (bits[gy * GLYPH_WIDTH + gx]) rect(cx + gx * s, y + gy * s, s, s, color);
        cx += GLYPH_ADVANCE * s;
      }
      return textWidth(text, s);
    },
    png: (options) => encodePng({ width: w, height: h, format: 'rgb8', pixels }, options),
  };
}
