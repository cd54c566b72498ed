/**
 * A picture of the board drawn from its state: the 60 rows in two halves with their LEDs (net
 * colours, overlays on top), bridges between rows in the centre channel, tags for rows bridged to
 * rails, DACs, ADCs, GPIO and Nano pins, both rails with their voltages, and a legend of the nets.
 * Pure; the PNG stays far below 200 KB (flat colours deflate well).
 */
import { OVERLAY_COLS } from '../board/limits.js';
import { nodeInfo, shortName } from '../board/nodes.js';
import type { PngOptions } from '../board/png.js';
import type { StateDocumentOverlay } from '../board/stateDocument.js';
import { pinLevelWords } from './boardState.js';
import { type Canvas, createCanvas, textWidth } from './canvas.js';
import { overlayCanvas } from './leds.js';
import type { BoardSnapshot, BridgeView, NetView } from './snapshot.js';

const W = 820;
const LEFT = 70;
const PITCH = 24;
const HOLE = 14;
const HOLE_STEP = 20;
const TOP_HOLES_Y = 92;
const CHANNEL_Y = TOP_HOLES_Y + 5 * HOLE_STEP;
const CHANNEL_H = 96;
const BOTTOM_HOLES_Y = CHANNEL_Y + CHANNEL_H;
const LEGEND_Y = BOTTOM_HOLES_Y + 5 * HOLE_STEP + 84;
const LINE_H = 16;
const MAX_LEGEND_LINES = 40;

const BOARD = 0xf2f0e8;
const INK = 0x202020;
const MUTED = 0x8a8a8a;
const EMPTY_HOLE = 0xd8d6ce;
const HOLE_EDGE = 0x9a988f;

const colX = (col: number): number => LEFT + (col - 1) * PITCH + PITCH / 2;

/** Pixel at the centre of hole 0-4 (top to bottom) of breadboard row 1-60. */
export function holeCenter(row: number, hole: number): { x: number; y: number } {
  const half = row <= 30 ? 0 : 1;
  const col = half === 0 ? row : row - 30;
  return { x: colX(col), y: (half === 0 ? TOP_HOLES_Y : BOTTOM_HOLES_Y) + hole * HOLE_STEP + HOLE / 2 };
}

/** LEDs are shown at full brightness so dim colours (as overlays should be) stay visible. */
export function displayColor(rgb: number): number {
  const r = (rgb >> 16) & 0xff;
  const g = (rgb >> 8) & 0xff;
  const b = rgb & 0xff;
  const max = Math.max(r, g, b);
  if (max === 0) return 0;
  const k = 255 / max;
  return (Math.round(r * k) << 16) | (Math.round(g * k) << 8) | Math.round(b * k);
}

const luminance = (rgb: number): number =>
  0.3 * ((rgb >> 16) & 0xff) + 0.59 * ((rgb >> 8) & 0xff) + 0.11 * (rgb & 0xff);
const hexRgb = (hex: string): number => Number.parseInt(hex.replace('#', ''), 16) || 0;

/** Up to three characters naming a non-row node next to a row. */
export function tagOf(id: number): string {
  const special: Record<string, string> = {
    TOP_R: 'T+',
    BOT_R: 'B+',
    I_POS: 'I+',
    I_NEG: 'I-',
    UART_Tx: 'TX',
    UART_Rx: 'RX',
    '8V_P': '8V+',
    '8V_N': '8V-',
  };
  const short = shortName(id);
  // ADC_0 -> AD0, DAC_1 -> DA1, GP_3 -> GP3, BUF_IN -> BFI.
  const numbered = /^(ADC|DAC|GP)_(\d)$/.exec(short);
  if (numbered) return `${(numbered[1] as string).slice(0, 2)}${numbered[2]}`;
  if (short.startsWith('BUF_')) return `BF${short[4]}`;
  return (special[short] ?? short.replace(/[_ ]/g, '')).slice(0, 3);
}

const isRow = (id: number): boolean => nodeInfo(id)?.kind === 'row';

/** Half (0 top, 1 bottom) and column 1-30 of a row. */
const place = (row: number): { half: 0 | 1; col: number } =>
  row <= 30 ? { half: 0, col: row } : { half: 1, col: row - 30 };

/** Assigns each interval the lowest lane free at its span (so brackets do not overlap). */
function lanes(spans: ReadonlyArray<readonly [number, number]>): number[] {
  const used: Array<Array<readonly [number, number]>> = [];
  return spans.map(([a, b]) => {
    const lo = Math.min(a, b);
    const hi = Math.max(a, b);
    let lane = used.findIndex((taken) => taken.every(([x, y]) => hi < x || lo > y));
    if (lane < 0) {
      lane = used.length;
      used.push([]);
    }
    used[lane]?.push([lo, hi]);
    return lane;
  });
}

function drawRail(c: Canvas, y: number, color: number, label: string, labelY: number): void {
  c.text(LEFT, labelY, label, INK, 2);
  c.line(colX(1) - 8, y, colX(30) + 8, y, color, 4);
}

function wrapText(text: string, maxChars: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const cut = rest.lastIndexOf(',', maxChars);
    const at = cut > maxChars / 2 ? cut + 1 : maxChars;
    out.push(rest.slice(0, at));
    rest = `   ${rest.slice(at)}`;
  }
  out.push(rest);
  return out;
}

export function legendLines(nets: readonly NetView[]): Array<{ color: number; text: string }> {
  const lines: Array<{ color: number; text: string }> = [];
  for (const net of nets) {
    if (net.index > 5 && net.nodes.length === 0) continue;
    const volts = net.volts === undefined ? '' : ` ${net.volts.toFixed(2)}V`;
    const text = `${net.index} ${net.name}${volts}: ${net.nodes.join(',') || '-'}`;
    wrapText(text.toUpperCase(), Math.floor((W - LEFT - 40) / 8)).forEach((t, i) => {
      lines.push({ color: i === 0 ? hexRgb(net.color) : -1, text: t });
    });
  }
  return lines;
}

/**
 * The GPIO pins, the latest readings and the OLED's text in a few lines under the legend, so the
 * picture shows what the page and the app show (compact: a pin as `1 OUT HIGH`, readings newest first).
 */
export function notesLines(snapshot: BoardSnapshot): string[] {
  const width = Math.floor((W - 16) / 8);
  const lines: string[] = [];
  const gpio = pinRuns(
    snapshot.state.gpio.map((g) => ({
      pin: g.pin,
      text: `${g.direction.replace(/put$/i, '')} ${pinLevelWords(g)}`,
    })),
  );
  if (gpio.length > 0) lines.push(...wrapText(`GPIO ${gpio.join(', ')}`.toUpperCase(), width));
  const readings = snapshot.notes?.readings ?? [];
  if (readings.length > 0) {
    const shown = readings
      .slice(0, MAX_READINGS_SHOWN)
      .map((r) => `${r.what} ${r.unit === 'V' ? `${r.value.toFixed(3)}V` : `${r.value.toFixed(2)}MA`}`);
    lines.push(...wrapText(`READINGS ${shown.join(', ')}`.toUpperCase(), width));
  }
  const oled = snapshot.notes?.oled;
  if (oled !== undefined) {
    const shown = oled === '' ? '(CLEARED)' : `'${oled.replace(/\s+/g, ' ')}'`;
    lines.push(`OLED ${shown}`.toUpperCase().slice(0, width));
  }
  return lines;
}

const MAX_READINGS_SHOWN = 4;

/** Neighbouring pins that read alike as one run (`1-8 IN LOW (PULL-DOWN)`), so the line stays short. */
export function pinRuns(pins: ReadonlyArray<{ pin: number | string; text: string }>): string[] {
  const runs: Array<{ first: number | string; last: number | string; text: string }> = [];
  for (const { pin, text } of pins) {
    const run = runs.at(-1);
    if (run && run.text === text && typeof pin === 'number' && run.last === pin - 1) run.last = pin;
    else runs.push({ first: pin, last: pin, text });
  }
  return runs.map((r) => `${r.first === r.last ? r.first : `${r.first}-${r.last}`} ${r.text}`);
}

export function renderBoardPicture(snapshot: BoardSnapshot, png?: PngOptions): Uint8Array {
  const { state, bridges, nets } = snapshot;
  const legend = legendLines(nets);
  const shown = legend.slice(0, MAX_LEGEND_LINES);
  const unrouted = bridges.filter((b) => !b.routed);
  const notes = notesLines(snapshot);
  const height = LEGEND_Y + (shown.length + 2 + UNROUTED_LABELS.length + notes.length) * LINE_H + 12;
  const c = createCanvas(W, height, BOARD);

  const netColor = new Map<number, number>();
  for (const net of nets) for (const id of net.node_ids) netColor.set(id, displayColor(hexRgb(net.color)));
  const railColor = (index: number): number =>
    displayColor(hexRgb(nets.find((n) => n.index === index)?.color ?? '#ff0000'));

  c.text(8, 8, 'JUMPERLESS V5', INK, 2);
  const dacs = `DAC0 ${state.power.dac0.toFixed(2)}V   DAC1 ${state.power.dac1.toFixed(2)}V`;
  c.text(W - 12 - textWidth(dacs, 2), 8, dacs, INK, 2);

  // Top rails: supply above GND, as on the board.
  drawRail(c, 46, railColor(2), `TOP RAIL ${state.power.top_rail.toFixed(2)} V`, 26);
  c.line(colX(1) - 8, 56, colX(30) + 8, 56, railColor(1), 4);
  c.text(8, 42, 'T+', INK, 2);
  c.text(8, 52, 'GND', INK, 1);

  const overlays = overlayCanvas(state.overlays as StateDocumentOverlay[]);
  for (let col = 1; col <= 30; col++) {
    for (const half of [0, 1] as const) {
      const row = half === 0 ? col : col + 30;
      const label = String(row);
      const labelY = half === 0 ? TOP_HOLES_Y - 18 : BOTTOM_HOLES_Y + 5 * HOLE_STEP + 4;
      c.text(colX(col) - textWidth(label, 2) / 2, labelY, label, MUTED, 2);
      for (let hole = 0; hole < 5; hole++) {
        const y = (half === 0 ? TOP_HOLES_Y : BOTTOM_HOLES_Y) + hole * HOLE_STEP;
        const overlay = overlays[(half * 5 + hole) * OVERLAY_COLS + col - 1] ?? 0;
        const fill = overlay !== 0 ? displayColor(overlay) : (netColor.get(row) ?? EMPTY_HOLE);
        c.rect(colX(col) - HOLE / 2, y, HOLE, HOLE, fill);
        c.frame(colX(col) - HOLE / 2, y, HOLE, HOLE, overlay !== 0 ? INK : HOLE_EDGE);
      }
    }
  }

  // Bottom rails: GND above supply.
  const bottomRailsY = BOTTOM_HOLES_Y + 5 * HOLE_STEP + 24;
  c.line(colX(1) - 8, bottomRailsY, colX(30) + 8, bottomRailsY, railColor(1), 4);
  c.line(colX(1) - 8, bottomRailsY + 10, colX(30) + 8, bottomRailsY + 10, railColor(3), 4);
  c.text(8, bottomRailsY - 4, 'GND', INK, 1);
  c.text(8, bottomRailsY + 6, 'B+', INK, 2);
  c.text(LEFT, bottomRailsY + 22, `BOTTOM RAIL ${state.power.bottom_rail.toFixed(2)} V`, INK, 2);

  drawBridges(c, bridges, netColor);

  let y = LEGEND_Y;
  c.text(8, y, `NETS (${nets.length})   BRIDGES ${bridges.length}   UNROUTED ${unrouted.length}`, INK, 2);
  y += LINE_H + 4;
  for (const line of shown) {
    if (line.color >= 0) {
      c.rect(8, y, 12, 10, displayColor(line.color) || EMPTY_HOLE);
      c.frame(8, y, 12, 10, HOLE_EDGE);
    }
    c.text(28, y, line.text, INK, 2);
    y += LINE_H;
  }
  if (legend.length > shown.length) {
    c.text(28, y, `... ${legend.length - shown.length} MORE LINES`, MUTED, 2);
    y += LINE_H;
  }
  for (const [route, label] of UNROUTED_LABELS) {
    const list = unrouted.filter((b) => b.route === route);
    if (list.length === 0) continue;
    const pairs = list.map((b) => `${tagOrRow(b.node1)}-${tagOrRow(b.node2)}`).join(', ');
    c.text(8, y, `${label}: ${pairs}`.slice(0, 95), unroutedColor(route), 2);
    y += LINE_H;
  }
  for (const line of notes) {
    c.text(8, y, line, INK, 2);
    y += LINE_H;
  }
  return c.png(png);
}

/** Legend lines for bridges the board keeps but does not route, by why. */
const UNROUTED_LABELS: ReadonlyArray<readonly [BridgeView['route'], string]> = [
  ['no_free_lanes', 'NO FREE LANES (NOT CONNECTED)'],
  ['not_in_a_net', 'STORED, NOT IN A NET'],
  ['unknown', 'ROUTE UNKNOWN'],
];

/** An unroutable bridge (the crossbar ran out of lanes) in alarm red; one never routed, muted. */
export const NO_LANES_COLOR = 0xb00020;
const unroutedColor = (route: BridgeView['route']): number =>
  route === 'no_free_lanes' ? NO_LANES_COLOR : MUTED;
const bridgeColor = (b: BridgeView, netColor: ReadonlyMap<number, number>): number =>
  b.routed ? (netColor.get(b.node1) ?? INK) : unroutedColor(b.route);

const tagOrRow = (id: number): string => (isRow(id) ? String(id) : shortName(id));

function drawBridges(c: Canvas, bridges: readonly BridgeView[], netColor: ReadonlyMap<number, number>): void {
  const topEdge = CHANNEL_Y + 2;
  const bottomEdge = BOTTOM_HOLES_Y - 4;
  const rowRow = bridges.filter((b) => isRow(b.node1) && isRow(b.node2));
  const sameHalf = (half: 0 | 1) =>
    rowRow.filter((b) => place(b.node1).half === half && place(b.node2).half === half);
  for (const half of [0, 1] as const) {
    const list = sameHalf(half);
    const laneOf = lanes(list.map((b) => [place(b.node1).col, place(b.node2).col] as const));
    list.forEach((b, i) => {
      const lane = Math.min(5, laneOf[i] ?? 0);
      const color = bridgeColor(b, netColor);
      const x1 = colX(place(b.node1).col);
      const x2 = colX(place(b.node2).col);
      const from = half === 0 ? topEdge : bottomEdge;
      const level = half === 0 ? CHANNEL_Y + 18 + lane * 5 : BOTTOM_HOLES_Y - 22 - lane * 5;
      drawPath(
        c,
        [
          [x1, from],
          [x1, level],
          [x2, level],
          [x2, from],
        ],
        color,
        b.routed,
      );
    });
  }
  for (const b of rowRow.filter((x) => place(x.node1).half !== place(x.node2).half)) {
    const [top, bottom] = place(b.node1).half === 0 ? [b.node1, b.node2] : [b.node2, b.node1];
    const color = bridgeColor(b, netColor);
    drawPath(
      c,
      [
        [colX(place(top).col), topEdge],
        [colX(place(bottom).col), bottomEdge],
      ],
      color,
      b.routed,
    );
  }
  // Tags for rows bridged to anything that is not a row.
  const tags = new Map<number, { text: string; color: number; routed: boolean; noLanes: boolean }>();
  for (const b of bridges) {
    for (const [row, other] of [
      [b.node1, b.node2],
      [b.node2, b.node1],
    ] as const) {
      if (!isRow(row) || isRow(other)) continue;
      const prev = tags.get(row);
      tags.set(row, {
        text: prev ? `${prev.text.slice(0, 2)}+` : tagOf(other),
        color: b.routed ? (netColor.get(row) ?? EMPTY_HOLE) : EMPTY_HOLE,
        routed: (prev?.routed ?? true) && b.routed,
        noLanes: (prev?.noLanes ?? false) || b.route === 'no_free_lanes',
      });
    }
  }
  for (const [row, tag] of tags) {
    const { half, col } = place(row);
    const y = half === 0 ? CHANNEL_Y + 4 : BOTTOM_HOLES_Y - 14;
    c.rect(colX(col) - 10, y, 21, 10, tag.color);
    c.frame(colX(col) - 10, y, 21, 10, tag.routed ? INK : tag.noLanes ? NO_LANES_COLOR : MUTED);
    c.text(colX(col) - textWidth(tag.text) / 2, y + 2, tag.text, luminance(tag.color) > 110 ? INK : 0xffffff);
  }
}

/** A polyline; unrouted bridges are dashed (red when the crossbar had no lanes for them). */
function drawPath(
  c: Canvas,
  points: ReadonlyArray<readonly [number, number]>,
  color: number,
  solid: boolean,
): void {
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1] as readonly [number, number];
    const [x1, y1] = points[i] as readonly [number, number];
    if (solid) {
      c.line(x0, y0, x1, y1, color, 2);
      continue;
    }
    const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / 4));
    for (let s = 0; s < steps; s += 2) {
      const t0 = s / steps;
      const t1 = Math.min(1, (s + 1) / steps);
      c.line(x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0, x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1, color, 2);
    }
  }
}
