/**
 * The V5 crossbar as data: twelve CH446Q analogue switch matrices (16 X lines by 8 Y lines each),
 * which rows and special nodes sit on which chip, and the wires ("lanes") between chips. A
 * connection closes crosspoints; every line it uses belongs to its net for as long as it stands, so
 * the board runs out of lanes long before it runs out of bridges.
 *
 * The topology is the firmware's own table, unchanged between 5.7.0.13 and 5.7.11:
 *  - X maps: map588/JumperlOS@1384da4 src/MatrixState.cpp:82-156 (chipStatusInit, the rev 5 board)
 *    and src/boards/v5/board_v5.cpp:21-34 (kV5XMap); the same in Architeuthis-Flux/JumperlOS@7077df9
 *    src/routing/MatrixState.cpp (chipStatusInit).
 *  - Y maps: board_v5.cpp:38-51 (kV5YMap): on breadboard chips A-H, Y0 is the BOUNCE_NODE (an
 *    internal hop bus, no hole) and Y1-7 are seven rows; on the special chips I-L, Y line k is the
 *    lane to breadboard chip k.
 *  - rows to chips: MatrixState.cpp:34-44 (bbNodesToChip): rows 1-28 on A-D, 31-58 on E-H, seven a
 *    chip; rows 29 and 59 are X lines of chip K, rows 30 and 60 X lines of chip L.
 *  - lanes: an X line of chip c that names chip d is wired to the X line of d that names c (the
 *    first to the first, the second to the second: xMapForChipLane0/1, NetsToChipConnections.cpp:
 *    6195-6226); an X line of a breadboard chip that names a special chip s is wired to s's Y line
 *    for that breadboard chip (BBtoSF, NetsToChipConnections.cpp:2517-2540).
 */
import {
  ADC0,
  ADC4,
  BOTTOM_RAIL,
  BUFFER_IN,
  BUFFER_OUT,
  DAC0,
  DAC1,
  GND,
  GPIO_1,
  ISENSE_MINUS,
  ISENSE_PLUS,
  NANO_AREF,
  nanoA,
  nanoD,
  TOP_RAIL,
  UART_RX,
  UART_TX,
} from './nodes.js';

export const CHIP_COUNT = 12;
export const X_LINES = 16;
export const Y_LINES = 8;
export const CHIP_LETTERS = 'ABCDEFGHIJKL';
/** Chips A-H carry the breadboard rows; I-L the Nano header and the special functions. */
export const BREADBOARD_CHIPS = 8;

/** One end of an X line: another chip (a lane) or a node. */
export type XEnd = { readonly chip: number } | { readonly node: number };
/** One end of a Y line: the bounce bus, a row, or a lane to a breadboard chip. */
export type YEnd = { readonly bounce: true } | { readonly node: number } | { readonly chip: number };

const c = (letter: string): XEnd => ({ chip: CHIP_LETTERS.indexOf(letter) });
const n = (node: number): XEnd => ({ node });
const chipRow = (letters: string): XEnd[] => [...letters].map(c);

const NANO_D = nanoD;
const NANO_A = nanoA;

/** MatrixState.cpp:82-156: what each of a chip's 16 X lines is wired to. */
export const X_MAP: readonly (readonly XEnd[])[] = [
  chipRow('IJBBCCDDEKFFGLHH'),
  chipRow('AAIJCCDDEEFKGGHL'),
  chipRow('AABBIJDDELFFGKHH'),
  chipRow('AABBCCIJEEFLGGHK'),
  chipRow('AKBBCLDDIJFFGGHH'),
  chipRow('AABKCCDLEEIJGGHH'),
  chipRow('ALBBCKDDEEFFIJHH'),
  chipRow('AABLCCDKEEFFGGIJ'),
  [
    ...[NANO_A(0), NANO_D(1), NANO_A(2), NANO_D(3), NANO_A(4), NANO_D(5), NANO_A(6), NANO_D(7)].map(n),
    ...[NANO_D(11), NANO_D(9), NANO_D(13), ISENSE_PLUS].map(n),
    c('L'),
    c('J'),
    c('K'),
    n(UART_RX),
  ],
  [
    ...[NANO_D(0), NANO_A(1), NANO_D(2), NANO_A(3), NANO_D(4), NANO_A(5), NANO_D(6), NANO_A(7)].map(n),
    ...[NANO_D(8), NANO_D(10), NANO_D(12), ISENSE_MINUS].map(n),
    c('L'),
    c('I'),
    c('K'),
    n(UART_TX),
  ],
  [
    ...[29, 59, BUFFER_IN, NANO_AREF, TOP_RAIL, BOTTOM_RAIL, DAC1, DAC0].map(n),
    ...[ADC0, ADC0 + 1, ADC0 + 2, ADC0 + 3].map(n),
    c('L'),
    c('I'),
    c('J'),
    n(GND),
  ],
  [
    ...[30, 60, BUFFER_OUT, ADC4].map(n),
    ...Array.from({ length: 8 }, (_, i) => n(GPIO_1 + i)),
    c('I'),
    c('J'),
    c('K'),
    n(GND),
  ],
];

/** board_v5.cpp:38-51: what each chip's 8 Y lines are wired to. */
export const Y_MAP: readonly (readonly YEnd[])[] = Array.from({ length: CHIP_COUNT }, (_, chip) =>
  chip < BREADBOARD_CHIPS
    ? [{ bounce: true } as const, ...Array.from({ length: 7 }, (_, i) => ({ node: rowOnChip(chip, i) }))]
    : Array.from({ length: BREADBOARD_CHIPS }, (_, k) => ({ chip: k })),
);

/** Row of breadboard chip `chip` on its Y line `i + 1` (TOP_1 = 1, BOTTOM_1 = 31: JumperlessDefines.h:289-347). */
function rowOnChip(chip: number, i: number): number {
  return chip < 4 ? chip * 7 + i + 1 : 31 + (chip - 4) * 7 + i;
}

/** A line of a chip. */
export interface Line {
  readonly chip: number;
  readonly axis: 'x' | 'y';
  readonly index: number;
}

/**
 * One conductor: a node's own line (a row, a Nano pin, a supply...), a lane between two chips, or a
 * breadboard chip's bounce bus. Two nets can never share one.
 */
export interface Segment {
  readonly id: number;
  readonly kind: 'node' | 'lane' | 'bounce';
  /** For `node`: the node it carries. */
  readonly node?: number;
  /** The chip lines it joins: one for a node or the bounce bus, two for a lane. */
  readonly lines: readonly Line[];
}

export interface Topology {
  readonly segments: readonly Segment[];
  /** segmentAt[chip][axis][index] -> segment id. */
  segmentAt(line: Line): number;
  /** The node segments of a node (GND has two: K and L), empty when the node is not on the crossbar. */
  terminals(node: number): readonly number[];
}

function buildTopology(): Topology {
  const segments: Segment[] = [];
  const at = new Map<string, number>();
  const key = (l: Line): string => `${l.chip}${l.axis}${l.index}`;
  const add = (kind: Segment['kind'], lines: Line[], node?: number): void => {
    const id = segments.length;
    segments.push({ id, kind, lines, ...(node === undefined ? {} : { node }) });
    for (const l of lines) at.set(key(l), id);
  };
  const terminals = new Map<number, number[]>();
  const addNode = (node: number, line: Line): void => {
    add('node', [line], node);
    const list = terminals.get(node) ?? [];
    list.push(segments.length - 1);
    terminals.set(node, list);
  };
  for (let chip = 0; chip < CHIP_COUNT; chip++) {
    // X lines: nodes, and lanes to chips of higher index (the lower side added them already).
    const seen = new Map<number, number>();
    X_MAP[chip]?.forEach((end, index) => {
      const line: Line = { chip, axis: 'x', index };
      if ('node' in end) {
        addNode(end.node, line);
        return;
      }
      const other = end.chip;
      const nth = seen.get(other) ?? 0;
      seen.set(other, nth + 1);
      if (chip >= BREADBOARD_CHIPS || other < BREADBOARD_CHIPS) {
        if (other < chip) return; // already added from the other side
        const far = nthLaneTo(other, chip, nth);
        if (far === undefined) throw new Error(`crossbar: no lane ${nth} from ${other} back to ${chip}`);
        add('lane', [line, { chip: other, axis: 'x', index: far }]);
        return;
      }
      // A breadboard chip's line to a special chip lands on that chip's Y line for this chip.
      add('lane', [line, { chip: other, axis: 'y', index: chip }]);
    });
    Y_MAP[chip]?.forEach((end, index) => {
      const line: Line = { chip, axis: 'y', index };
      if ('bounce' in end) add('bounce', [line]);
      else if ('node' in end) addNode(end.node, line);
      // A special chip's Y lines were added with the breadboard chips' X lines.
    });
  }
  return {
    segments,
    segmentAt: (l) => {
      const id = at.get(key(l));
      if (id === undefined)
        throw new Error(`crossbar: no segment at ${CHIP_LETTERS[l.chip]}.${l.axis}${l.index}`);
      return id;
    },
    terminals: (node) => terminals.get(node) ?? [],
  };
}

/** Index of the `nth` X line of `chip` that is wired to `other`. */
function nthLaneTo(chip: number, other: number, nth: number): number | undefined {
  let count = 0;
  const map = X_MAP[chip] ?? [];
  for (let i = 0; i < map.length; i++) {
    const end = map[i];
    if (end && 'chip' in end && end.chip === other) {
      if (count === nth) return i;
      count++;
    }
  }
  return undefined;
}

export const TOPOLOGY: Topology = buildTopology();

/** Which chip(s) a node sits on (GND: K and L), empty when it is not on the crossbar. */
export function chipsOfNode(node: number): number[] {
  return TOPOLOGY.terminals(node).map((s) => TOPOLOGY.segments[s]?.lines[0]?.chip ?? -1);
}

/** Human name of a line, e.g. `A.x2`. */
export const lineName = (l: Line): string => `${CHIP_LETTERS[l.chip]}.${l.axis}${l.index}`;

/** The lanes between two chips (both directions are the same lanes). */
export function lanesBetween(a: number, b: number): Segment[] {
  return TOPOLOGY.segments.filter(
    (s) =>
      s.kind === 'lane' && s.lines.some((l) => l.chip === a) && s.lines.some((l) => l.chip === b) && a !== b,
  );
}
