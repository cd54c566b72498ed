/**
 * An x-y line plot as a PNG (sweeps, I-V curves): axes with min/mid/max ticks, a grid, the
 * points joined by lines, a title and axis labels. Pure.
 */
import { createCanvas, textWidth } from './canvas.js';

export interface PlotSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  points: ReadonlyArray<readonly [number, number]>;
  width?: number;
  height?: number;
}

const INK = 0x202020;
const GRID = 0xe0e0e0;
const LINE = 0x1f5fbf;
const POINT = 0xc0392b;

/** Tick label: up to 4 significant digits, no trailing zeros. */
export function tickLabel(v: number): string {
  if (!Number.isFinite(v)) return '?';
  if (v === 0) return '0';
  const abs = Math.abs(v);
  if (abs >= 1e4 || abs < 1e-3) return v.toExponential(2).replace('e+', 'E').replace('e', 'E');
  return String(Number(v.toPrecision(4)));
}

function range(values: number[]): [number, number] {
  const finite = values.filter(Number.isFinite);
  let lo = finite.length > 0 ? Math.min(...finite) : 0;
  let hi = finite.length > 0 ? Math.max(...finite) : 1;
  if (hi - lo < 1e-12) {
    const pad = Math.abs(hi) > 1e-12 ? Math.abs(hi) * 0.1 : 1;
    lo -= pad;
    hi += pad;
  }
  return [lo, hi];
}

export function plotPng(spec: PlotSpec): Uint8Array {
  const width = spec.width ?? 560;
  const height = spec.height ?? 360;
  const c = createCanvas(width, height, 0xffffff);
  const scale = 2;
  const left = 80;
  const right = width - 24;
  const top = 40;
  const bottom = height - 56;
  const [x0, x1] = range(spec.points.map((p) => p[0]));
  const [y0, y1] = range(spec.points.map((p) => p[1]));
  const px = (x: number) => left + ((x - x0) / (x1 - x0)) * (right - left);
  const py = (y: number) => bottom - ((y - y0) / (y1 - y0)) * (bottom - top);

  c.text(Math.max(4, (width - textWidth(spec.title, scale)) / 2), 12, spec.title, INK, scale);
  for (let i = 0; i <= 4; i++) {
    const gx = left + ((right - left) * i) / 4;
    const gy = top + ((bottom - top) * i) / 4;
    c.line(gx, top, gx, bottom, GRID);
    c.line(left, gy, right, gy, GRID);
  }
  c.frame(left, top, right - left + 1, bottom - top + 1, INK);
  for (const t of [0, 0.5, 1]) {
    const xv = x0 + (x1 - x0) * t;
    const xl = tickLabel(xv);
    c.text(px(xv) - textWidth(xl, scale) / 2, bottom + 8, xl, INK, scale);
    const yv = y0 + (y1 - y0) * t;
    const yl = tickLabel(yv);
    c.text(left - 8 - textWidth(yl, scale), py(yv) - 5, yl, INK, scale);
  }
  c.text((left + right - textWidth(spec.xLabel, scale)) / 2, height - 22, spec.xLabel, INK, scale);
  c.text(4, top - 16, spec.yLabel, INK, scale);

  const drawn = spec.points.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]));
  for (let i = 1; i < drawn.length; i++) {
    const a = drawn[i - 1] as readonly [number, number];
    const b = drawn[i] as readonly [number, number];
    c.line(px(a[0]), py(a[1]), px(b[0]), py(b[1]), LINE, 2);
  }
  for (const [x, y] of drawn) c.disc(px(x), py(y), 3, POINT);
  return c.png();
}
