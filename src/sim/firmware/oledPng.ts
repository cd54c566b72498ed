/**
 * The OLED framebuffer as a PNG (white pixels on black, scaled up), for pictures of the simulated
 * screen. Pure: the image is 1-bit greyscale and small, so the zlib stream uses stored (uncompressed)
 * blocks (the encoder lives in board/png.ts).
 */
import { encodePng, rowBytes } from '../../board/png.js';
import { getPixel, OLED_HEIGHT, OLED_WIDTH } from './oled.js';

/** A PNG of the 128x32 framebuffer (SSD1306 page layout), each pixel `scale` x `scale`. */
export function oledPng(fb: Uint8Array, scale = 4): Uint8Array {
  const s = Math.max(1, Math.min(16, Math.floor(scale)));
  const width = OLED_WIDTH * s;
  const height = OLED_HEIGHT * s;
  const stride = rowBytes(width, 'gray1');
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (getPixel(fb, Math.floor(x / s), Math.floor(y / s))) {
        const i = y * stride + (x >> 3);
        pixels[i] = (pixels[i] ?? 0) | (0x80 >> (x & 7));
      }
    }
  }
  return encodePng({ width, height, format: 'gray1', pixels }, { compression: 'stored' });
}
