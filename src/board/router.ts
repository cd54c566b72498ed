/**
 * A router over the crossbar topology (crossbar.ts) that runs out of lanes where the board does.
 *
 * What it keeps from the firmware (NetsToChipConnections.cpp, bridgesToPaths:1541-1796):
 *  - paths are routed one at a time in the order the firmware lists them (by net, the probe-power
 *    path first: sortPathsByNet, 1367-1496), and every line a path uses belongs to its net, so
 *    nothing of another net can use it (freeOrSameNetX/Y, 4411-4449);
 *  - a path first looks for lanes no net uses, and only then reuses lanes of its own net
 *    (commitPaths / resolveAltPaths with allowStacking 2: attempt 0 without, attempt 1 with);
 *  - a path crosses at most three chips: its two ends' and one in between (path.chip[2] == chip[3],
 *    the alt-path hop, 3004-4410), bouncing on a breadboard chip's Y0 (BOUNCE_NODE) or on a special
 *    chip's free lane (freeXSearchOrder, 4549-4566: only x12-14 on I-L);
 *  - a path that finds no lanes is kept with its net but no crosspoints (couldntFindPath,
 *    4478-4547: x/y stay negative), so the bridge is stored but closes nothing;
 *  - duplicate paths (fillUnusedPaths, 1798-2227) are routed after every primary path, only on lanes
 *    nobody uses (commitPaths(0, ...)), so they never take a lane a primary path needs.
 * What it does not keep: the firmware's exact choice among several free lanes (its candidate and
 * crowding heuristics). It searches breadth-first, fewest conductors first, so the lane it takes may
 * differ; whether a bridge can be routed follows the board's lanes.
 */
import {
  BREADBOARD_CHIPS,
  CHIP_COUNT,
  type Line,
  type Segment,
  TOPOLOGY,
  X_LINES,
  Y_LINES,
} from './crossbar.js';

export interface RouteRequest {
  readonly node1: number;
  readonly node2: number;
  /** The net both nodes are in (every path of one net may share its lanes). */
  readonly net: number;
  /** Extra parallel paths wanted (the bridge's duplicates the firmware stacks). */
  readonly extras?: number;
}

export interface Crosspoint {
  readonly chip: number;
  readonly x: number;
  readonly y: number;
}

export type UnroutedCause = 'no_free_lanes' | 'not_on_crossbar';

export interface RoutedPath {
  readonly node1: number;
  readonly node2: number;
  readonly net: number;
  readonly routed: boolean;
  /** In order from node1 to node2; empty when not routed. */
  readonly crosspoints: readonly Crosspoint[];
  /** Conductors the path holds (node lines included). */
  readonly segments: readonly number[];
  /** Parallel duplicate paths that found free lanes. */
  readonly extrasRouted: number;
  readonly cause?: UnroutedCause;
}

export interface Routing {
  readonly paths: readonly RoutedPath[];
  /** Net holding each segment, -1 when free. */
  readonly owner: readonly number[];
}

/** A path crosses at most three chips: its two ends' and one hop between (path.chip[0..3]). */
const MAX_CHIPS = 3;
/** Bounds the search: the longest firmware path is row, lane, bounce, lane, row (5) or SF-SF (6). */
const MAX_SEGMENTS = 7;

/** Lines of the special chips a path may bounce on (freeXSearchOrder rows i-l: x12-14). */
const SPECIAL_BOUNCE_X = new Set([12, 13, 14]);

function usableAsBus(seg: Segment, via: Line): boolean {
  if (seg.kind === 'bounce') return true;
  if (seg.kind !== 'lane') return false;
  // A lane entered on a special chip's X line may serve as that chip's bounce only on x12-14.
  if (via.chip >= BREADBOARD_CHIPS && via.axis === 'x') return SPECIAL_BOUNCE_X.has(via.index);
  return true;
}

const popcount = (m: number): number => {
  let c = 0;
  for (let v = m; v; v &= v - 1) c++;
  return c;
};

interface Found {
  crosspoints: Crosspoint[];
  segments: number[];
}

/**
 * Breadth-first over conductors: from a segment, through a crosspoint on one of its chips, to a
 * segment on the other axis of that chip. Bus segments must be free (or the net's own when
 * `stack`); the end must be one of node2's own lines.
 */
function search(
  owner: readonly number[],
  from: readonly number[],
  to: ReadonlySet<number>,
  net: number,
  stack: boolean,
): Found | undefined {
  interface State {
    seg: number;
    mask: number;
    depth: number;
    prev: State | undefined;
    via: Crosspoint | undefined;
  }
  const seen = new Set<number>();
  let frontier: State[] = from.map((seg) => ({ seg, mask: 0, depth: 1, prev: undefined, via: undefined }));
  for (const s of frontier) seen.add(s.seg * 4096);
  const inPath = (state: State, seg: number): boolean => {
    for (let s: State | undefined = state; s; s = s.prev) if (s.seg === seg) return true;
    return false;
  };
  while (frontier.length > 0) {
    const next: State[] = [];
    for (const state of frontier) {
      if (state.depth >= MAX_SEGMENTS) continue;
      const seg = TOPOLOGY.segments[state.seg] as Segment;
      for (const line of seg.lines) {
        const mask = state.mask | (1 << line.chip);
        if (popcount(mask) > MAX_CHIPS) continue;
        const otherAxis = line.axis === 'x' ? 'y' : 'x';
        const count = otherAxis === 'x' ? X_LINES : Y_LINES;
        for (let j = 0; j < count; j++) {
          const target: Line = { chip: line.chip, axis: otherAxis, index: j };
          const id = TOPOLOGY.segmentAt(target);
          const xp: Crosspoint =
            line.axis === 'x'
              ? { chip: line.chip, x: line.index, y: j }
              : { chip: line.chip, x: j, y: line.index };
          if (to.has(id)) {
            const crosspoints: Crosspoint[] = [xp];
            const segments: number[] = [id];
            for (let s: State | undefined = state; s; s = s.prev) {
              segments.unshift(s.seg);
              if (s.via) crosspoints.unshift(s.via);
            }
            return { crosspoints, segments };
          }
          const seg2 = TOPOLOGY.segments[id] as Segment;
          if (!usableAsBus(seg2, target)) continue;
          const held = owner[id] ?? -1;
          if (held !== -1 && !(stack && held === net)) continue;
          const key = id * 4096 + mask;
          if (seen.has(key) || inPath(state, id)) continue;
          seen.add(key);
          next.push({ seg: id, mask, depth: state.depth + 1, prev: state, via: xp });
        }
      }
    }
    frontier = next;
  }
  return undefined;
}

/** Routes every request in order, then their duplicates; pure. */
export function routePaths(requests: readonly RouteRequest[]): Routing {
  const owner: number[] = new Array(TOPOLOGY.segments.length).fill(-1);
  const claim = (segments: readonly number[], net: number): void => {
    for (const s of segments) owner[s] = net;
  };
  const found: Array<Found | undefined> = [];
  const causes: Array<UnroutedCause | undefined> = [];
  for (const r of requests) {
    const from = TOPOLOGY.terminals(r.node1);
    const to = new Set(TOPOLOGY.terminals(r.node2));
    if (from.length === 0 || to.size === 0 || r.node1 === r.node2) {
      found.push(undefined);
      causes.push('not_on_crossbar');
      continue;
    }
    const path = search(owner, from, to, r.net, false) ?? search(owner, from, to, r.net, true);
    if (path) claim(path.segments, r.net);
    found.push(path);
    causes.push(path ? undefined : 'no_free_lanes');
  }
  const extras = requests.map((r, i) => {
    const primary = found[i];
    let routed = 0;
    if (!primary) return 0;
    const ends = new Set([primary.segments[0], primary.segments.at(-1)]);
    for (let k = 0; k < (r.extras ?? 0); k++) {
      // Only lanes nobody uses; the path's own two node lines are the net's already.
      const free = owner.map((o, s) => (ends.has(s) ? -1 : o));
      const dup = search(
        free,
        [primary.segments[0] as number],
        new Set([primary.segments.at(-1) as number]),
        r.net,
        false,
      );
      if (!dup) break;
      claim(dup.segments, r.net);
      routed++;
    }
    return routed;
  });
  return {
    owner,
    paths: requests.map((r, i) => {
      const path = found[i];
      const cause = causes[i];
      return {
        node1: r.node1,
        node2: r.node2,
        net: r.net,
        routed: path !== undefined,
        crosspoints: path?.crosspoints ?? [],
        segments: path?.segments ?? [],
        extrasRouted: extras[i] ?? 0,
        ...(cause ? { cause } : {}),
      };
    }),
  };
}

/**
 * The firmware's path record (get_path_info): end chips in chips[0..1], the hop chip in [2] and [3];
 * the crosspoint on chip0 in x[0]/y[0], on chip1 in x[1]/y[1], on the hop chip in [2] and [3], and a
 * second crosspoint on an end chip (a bounce on it) in [4] / [5]. -1 where there is none; an
 * unrouted path keeps its end chips and -1 everywhere else.
 */
export function pathRecord(
  path: RoutedPath,
  endChips: readonly [number, number],
): {
  chips: number[];
  x: number[];
  y: number[];
} {
  const chips = [endChips[0], endChips[1], -1, -1];
  const x = [-1, -1, -1, -1, -1, -1];
  const y = [-1, -1, -1, -1, -1, -1];
  const xps = path.crosspoints;
  if (xps.length === 0) return { chips, x, y };
  const first = xps[0] as Crosspoint;
  const last = xps.at(-1) as Crosspoint;
  chips[0] = first.chip;
  chips[1] = last.chip;
  const put = (slot: number, xp: Crosspoint): void => {
    x[slot] = xp.x;
    y[slot] = xp.y;
  };
  put(0, first);
  put(1, last);
  let hopSlot = 2;
  for (const xp of xps.slice(1, -1)) {
    if (xp.chip !== first.chip && xp.chip !== last.chip) {
      chips[2] = xp.chip;
      chips[3] = xp.chip;
      if (hopSlot <= 3) put(hopSlot++, xp);
    } else put(xp.chip === first.chip ? 4 : 5, xp);
  }
  return { chips, x, y };
}

/** How full the crossbar is: per chip, X and Y lines in use; lanes between chip pairs in use/total. */
export interface CrossbarUsage {
  readonly chips: ReadonlyArray<{ chip: number; xUsed: number; yUsed: number }>;
  readonly lanes: ReadonlyArray<{ a: number; b: number; total: number; used: number; nets: number[] }>;
}

export function usageOf(routing: Routing): CrossbarUsage {
  const chips = Array.from({ length: CHIP_COUNT }, (_, chip) => ({ chip, xUsed: 0, yUsed: 0 }));
  const pairs = new Map<string, { a: number; b: number; total: number; used: number; nets: number[] }>();
  for (const seg of TOPOLOGY.segments) {
    const held = routing.owner[seg.id] ?? -1;
    if (held !== -1) {
      for (const l of seg.lines) {
        const c = chips[l.chip];
        if (c) c[l.axis === 'x' ? 'xUsed' : 'yUsed']++;
      }
    }
    if (seg.kind !== 'lane') continue;
    const [p, q] = seg.lines;
    if (!p || !q) continue;
    const [a, b] = p.chip < q.chip ? [p.chip, q.chip] : [q.chip, p.chip];
    const key = `${a}-${b}`;
    const entry = pairs.get(key) ?? { a, b, total: 0, used: 0, nets: [] };
    pairs.set(key, entry);
    entry.total++;
    if (held !== -1) {
      entry.used++;
      if (!entry.nets.includes(held)) entry.nets.push(held);
    }
  }
  return { chips, lanes: [...pairs.values()] };
}
