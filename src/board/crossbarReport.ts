/**
 * The crossbar as a resource: which chip carries what, which lanes between chips are in use and by
 * which net, and why a bridge the board keeps is not routed. Built from what the board itself
 * reports (the path records of `get_path_info`, see router.ts `pathRecord`), over the topology of
 * crossbar.ts, so it reads the same from a real board and from the virtual one.
 *
 * The firmware lists only primary paths through `get_path_info` (JumperlessMicroPythonAPI.cpp:
 * 1065-1111 on map588/JumperlOS@1384da4: indexes below numPaths); the lanes duplicate paths hold are
 * not visible from the REPL, so `duplicates` counts them (get_num_paths(True) - get_num_paths(False))
 * without placing them.
 */
import {
  BREADBOARD_CHIPS,
  CHIP_COUNT,
  CHIP_LETTERS,
  chipsOfNode,
  type Line,
  lanesBetween,
  TOPOLOGY,
  X_LINES,
  Y_LINES,
} from './crossbar.js';
import { printName } from './nodes.js';
import { type Routing, usageOf } from './router.js';

/** One path as `get_path_info` returns it. */
export interface PathInfoRecord {
  readonly node1: number;
  readonly node2: number;
  readonly net: number;
  readonly chips: readonly number[];
  readonly x: readonly number[];
  readonly y: readonly number[];
}

/** A bridge as the tools see it (snapshot.ts BridgeView, the fields used here). */
export interface BridgeRouteView {
  readonly node1: number;
  readonly node2: number;
  readonly net: number | null;
  readonly route: 'routed' | 'no_free_lanes' | 'not_in_a_net' | 'unknown';
}

export interface ChipReport {
  chip: string;
  /** `breadboard` (A-H: seven rows each) or `special` (I-L: Nano header, supplies, ADCs, GPIO). */
  kind: 'breadboard' | 'special';
  /** Nodes wired to the chip's own lines (rows, Nano pins, supplies...). */
  nodes: string[];
  x_lines_used: number;
  y_lines_used: number;
  x_lines: number;
  y_lines: number;
}

export interface LaneReport {
  between: [string, string];
  total: number;
  used: number;
  free: number;
  /** Nets holding lanes here. */
  nets: number[];
}

export interface UnroutedReport {
  node1: string;
  node2: string;
  net: number | null;
  route: BridgeRouteView['route'];
  why: string;
}

export interface CrossbarReport {
  chips: ChipReport[];
  lanes: LaneReport[];
  lanes_used: number;
  lanes_total: number;
  /** Primary paths listed by the board. */
  paths: number;
  /** Duplicate (parallel) paths the board routed; their lanes are not listed. */
  duplicates: number;
  unrouted: UnroutedReport[];
}

/** Slot of a path record -> index into `chips` (router.ts pathRecord). */
const SLOT_CHIP = [0, 1, 2, 3, 0, 1] as const;

/** Segments (topology conductors) a path record holds: each crosspoint's X and Y line. */
export function segmentsOfPathRecord(p: PathInfoRecord): number[] {
  const out = new Set<number>();
  SLOT_CHIP.forEach((c, slot) => {
    const chip = p.chips[c] ?? -1;
    const x = p.x[slot] ?? -1;
    const y = p.y[slot] ?? -1;
    if (chip < 0 || chip >= CHIP_COUNT || x < 0 || x >= X_LINES || y < 0 || y >= Y_LINES) return;
    for (const line of [
      { chip, axis: 'x', index: x },
      { chip, axis: 'y', index: y },
    ] satisfies Line[]) {
      out.add(TOPOLOGY.segmentAt(line));
    }
  });
  return [...out];
}

const name = (id: number): string => printName(id) || String(id);
const letter = (chip: number): string => CHIP_LETTERS[chip] ?? '?';

function chipNodes(chip: number): string[] {
  return TOPOLOGY.segments
    .filter((s) => s.kind === 'node' && s.lines[0]?.chip === chip && s.node !== undefined)
    .map((s) => name(s.node as number));
}

function whyUnrouted(b: BridgeRouteView, lanes: readonly LaneReport[]): string {
  if (b.route === 'not_in_a_net') {
    return 'stored only: it would join two special nets, which the firmware never routes';
  }
  if (b.route === 'unknown') {
    return 'a fake-GPIO bridge: the board files its path under the node it stands for, so it cannot be told';
  }
  const ends = [chipsOfNode(b.node1), chipsOfNode(b.node2)];
  if (ends.some((chips) => chips.length === 0)) return 'one end is not on the crossbar';
  const a = ends[0] as number[];
  const z = ends[1] as number[];
  const where = `${name(b.node1)} is on chip ${a.map(letter).join('/')}, ${name(b.node2)} on chip ${z.map(letter).join('/')}`;
  const direct = lanes.filter((l) =>
    a.some((p) =>
      z.some(
        (q) =>
          (l.between[0] === letter(p) && l.between[1] === letter(q)) ||
          (l.between[1] === letter(p) && l.between[0] === letter(q)),
      ),
    ),
  );
  const held = direct.map((l) => `${l.between.join('-')} ${l.used}/${l.total} in use`).join(', ');
  return `no free lanes: ${where}${held ? ` (direct lanes ${held})` : ''}, and no route through a third chip has a free lane on both sides; the bridge is kept in its net but closes no crosspoint`;
}

/**
 * The report from the board's path records and bridges. `duplicates` is the count of routed
 * duplicate paths (0 when unknown).
 */
export function crossbarReport(
  paths: readonly PathInfoRecord[],
  bridges: readonly BridgeRouteView[],
  duplicates = 0,
): CrossbarReport {
  const owner: number[] = new Array(TOPOLOGY.segments.length).fill(-1);
  for (const p of paths) for (const s of segmentsOfPathRecord(p)) owner[s] = p.net;
  const routing: Routing = { owner, paths: [] };
  const usage = usageOf(routing);
  const chips = usage.chips.map((c) => ({
    chip: letter(c.chip),
    kind: c.chip < BREADBOARD_CHIPS ? ('breadboard' as const) : ('special' as const),
    nodes: chipNodes(c.chip),
    x_lines_used: c.xUsed,
    y_lines_used: c.yUsed,
    x_lines: X_LINES,
    y_lines: Y_LINES,
  }));
  const lanes = usage.lanes
    .map(
      (l): LaneReport => ({
        between: [letter(l.a), letter(l.b)],
        total: l.total,
        used: l.used,
        free: l.total - l.used,
        nets: [...l.nets].sort((p, q) => p - q),
      }),
    )
    .sort((p, q) => p.between.join().localeCompare(q.between.join()));
  const unrouted = bridges
    .filter((b) => b.route !== 'routed')
    .map((b) => ({
      node1: name(b.node1),
      node2: name(b.node2),
      net: b.net,
      route: b.route,
      why: whyUnrouted(b, lanes),
    }));
  return {
    chips,
    lanes,
    lanes_used: lanes.reduce((n, l) => n + l.used, 0),
    lanes_total: lanes.reduce((n, l) => n + l.total, 0),
    paths: paths.length,
    duplicates,
    unrouted,
  };
}

/** Lanes between two chips by letter, for tests and messages. */
export function laneCount(a: string, b: string): number {
  return lanesBetween(CHIP_LETTERS.indexOf(a), CHIP_LETTERS.indexOf(b)).length;
}
