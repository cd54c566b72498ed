/**
 * What the board holds right now, read in one call: the state JSON (spec §7), every bridge with
 * whether it is routed, and every net with its colour.
 *
 * "Routed" is read from the bridge's path, not from its net number: a path the router could not
 * place keeps its net (NetsToChipConnections.cpp:1036, 4531-4541, 5367), but keeps -1 in the lanes
 * it found none for, which is the firmware's own test for "couldn't find a path"
 * (NetsToChipConnections.cpp:4478-4504: hops 0 and 1 always, hop 2 when it has a chip). A bridge
 * that joins no net (between two special nets) has no path at all. A bridge touching a fake-GPIO
 * node (150-181) cannot be told: its path is filed under the real node it stands for
 * (findStartAndEndChips), so `get_path_between` does not find it. Not visible from the REPL either: a
 * path the final overlap check rejects (NetsToChipConnections.cpp:5367) keeps its lanes; the firmware
 * reports that only on the main port ("OVERLAP DETECTED").
 */
import { z } from 'zod';
import { hex6 } from '../board/colors.js';
import { Connections } from '../board/connections.js';
import { nodeInfo, parseShortName, toolName } from '../board/nodes.js';
import type { BoardCallOptions, BoardClient } from '../device/board.js';
import type { BoardNotes } from './boardNotes.js';
import { parseStateText, type StateDocument } from './boardState.js';
import type { PythonPart } from './pythonParts.js';

/**
 * Board-side helpers, inside `_jlt`, listed by every group that reads a snapshot or checks a path.
 * `snapshot` is a script, not an expression: it streams [state, bridges, nets] one after the
 * other (`_jlh.outs`), so a full board (33 KB of state text) never holds all three at once.
 */
export const snapshotPython: PythonPart = {
  name: 'snapshot',
  source: `
def path_routed(p):
    c = p['chips']
    x = p['x']
    y = p['y']
    for j in range(3):
        if j == 2 and c[2] == -1:
            continue
        if x[j] < 0 or y[j] < 0:
            return False
    return True
def bridge_route(a, b):
    p = get_path_between(a, b)
    if p is None:
        return [0, 0]
    return [int(p['net']), 1 if _jlt.path_routed(p) else -1]
def snap_bridges():
    out = []
    for i in range(get_num_bridges()):
        b = get_bridge(i)
        if b is None:
            continue
        r = _jlt.bridge_route(int(b[0]), int(b[1]))
        out.append([int(b[0]), int(b[1]), int(b[2]), r[0], r[1]])
    return out
def snap_nets():
    out = []
    for i in range(1, get_num_nets()):
        n = get_net_info(i)
        if n:
            out.append([i, n['name'], int(n['color']), n['color_name']])
    return out
def snapshot():
    _jlh.outs(get_state, _jlt.snap_bridges, _jlt.snap_nets)
`,
};

/** Firmware functions the snapshot uses. */
export const SNAPSHOT_REQUIRES = [
  'get_num_bridges',
  'get_bridge',
  'get_path_between',
  'get_num_nets',
  'get_net_info',
  'get_state',
] as const;

/**
 * Where a stored bridge stands: `routed` (its path has crossbar lanes), `no_free_lanes` (in a net,
 * but the router found no lanes for it: nothing closed), `not_in_a_net` (stored only: it would join
 * two special nets, so the firmware never routes it) or `unknown` (a fake-GPIO bridge).
 */
export const ROUTE_STATES = ['routed', 'no_free_lanes', 'not_in_a_net', 'unknown'] as const;
export type RouteState = (typeof ROUTE_STATES)[number];

export interface BridgeView {
  node1: number;
  node2: number;
  node1_name: string;
  node2_name: string;
  duplicates: number;
  /** The net the firmware put it in (also when its path found no lanes); null when in none. */
  net: number | null;
  /** True only when the board shows the path placed (`route` says why not). */
  routed: boolean;
  route: RouteState;
}

export interface NetView {
  index: number;
  name: string;
  /** `#rrggbb`. */
  color: string;
  color_name: string;
  /** Names as the firmware lists them (short names, spec §6.2). */
  nodes: string[];
  node_ids: number[];
  /** §7 `special`: none, RAIL, DAC, ADC, GPIO, UART_TX, UART_RX, FAKE_GPIO_IN. */
  special: string;
  /** Supply setpoint (RAIL/DAC) or last ADC reading (ADC), in volts. */
  volts?: number;
  /** GPIO nets: 0 low, 1 high, 2 floating, 3 unknown. */
  logic?: number;
}

export interface BoardSnapshot {
  state: StateDocument;
  bridges: BridgeView[];
  nets: NetView[];
  /** The latest readings and the OLED's text (boardNotes.ts): what the state cannot tell. */
  notes?: BoardNotes;
}

/** `snap_bridges` rows: node1, node2, duplicates, path net (0 = no path), placed (1, -1, 0 = no path). */
const rawBridges = z.array(z.tuple([z.number(), z.number(), z.number(), z.number(), z.number()]));
const rawNets = z.array(z.tuple([z.number(), z.string(), z.number(), z.string()]));

const isFakeGpio = (id: number): boolean => nodeInfo(id)?.kind === 'fake_gpio';

/** The route state from `bridge_route`'s [net, placed]. */
export function routeOf(a: number, b: number, net: number, placed: number): RouteState {
  if (placed > 0) return 'routed';
  if (placed < 0) return 'no_free_lanes';
  return isFakeGpio(a) || isFakeGpio(b) ? 'unknown' : net >= 1 ? 'no_free_lanes' : 'not_in_a_net';
}

export function bridgeViews(raw: unknown): BridgeView[] {
  return rawBridges.parse(raw).map(([node1, node2, duplicates, net, placed]) => {
    const route = routeOf(node1, node2, net, placed);
    return {
      node1,
      node2,
      node1_name: nodeLabel(node1),
      node2_name: nodeLabel(node2),
      duplicates,
      net: net >= 1 ? net : null,
      routed: route === 'routed',
      route,
    };
  });
}

/** How tools name a node: rows as digits, others as the tools' descriptions do (toolName). */
export function nodeLabel(id: number): string {
  return toolName(id);
}

export const colorHex = (rgb: number): string => `#${hex6(rgb & 0xffffff).toLowerCase()}`;

/** `_jlt.snapshot()`'s reply: [state text, snap_bridges rows, snap_nets rows]. */
export function snapshotOf(raw: unknown): BoardSnapshot {
  const [stateText, bridges, rawNetList] = z.tuple([z.string(), z.unknown(), z.unknown()]).parse(raw);
  const state = parseStateText(stateText);
  const looks = new Map(
    rawNets.parse(rawNetList).map(([index, name, color, colorName]) => [index, { name, color, colorName }]),
  );
  const nets: NetView[] = state.nets.map((net) => {
    const look = looks.get(net.index);
    const view: NetView = {
      index: net.index,
      name: look?.name ?? net.name,
      color: colorHex(look?.color ?? 0),
      color_name: look?.colorName ?? 'black',
      nodes: [...net.nodes],
      node_ids: net.nodes.map((n) => parseShortName(n)).filter((n): n is number => n !== undefined),
      special: net.special,
    };
    if (typeof net.voltage === 'number') view.volts = net.voltage;
    if (typeof net.logic === 'number') view.logic = net.logic;
    return view;
  });
  return { state, bridges: bridgeViews(bridges), nets };
}

export async function readSnapshot(board: BoardClient, options?: BoardCallOptions): Promise<BoardSnapshot> {
  return snapshotOf(await readSnapshotReply(board, options));
}

/** `_jlt.snapshot()`'s reply as the board sent it (plain data), for `snapshotOf` to parse elsewhere. */
export function readSnapshotReply(board: BoardClient, options?: BoardCallOptions): Promise<unknown> {
  return board.script('_jlt.snapshot()', options);
}

export async function readBridges(board: BoardClient, options?: BoardCallOptions): Promise<BridgeView[]> {
  return bridgeViews(await board.call('_jlt.snap_bridges()', options));
}

/**
 * The bridge list replayed into the board model, to predict what the next connect will do (which
 * nets merge, what the firmware would leave unrouted).
 */
export function modelOf(bridges: readonly BridgeView[]): Connections {
  const model = new Connections();
  for (const b of bridges) model.connect(b.node1, b.node2, b.duplicates);
  return model;
}

/** The net holding node `id`, if any. */
export function netOf(snapshot: BoardSnapshot, id: number): NetView | undefined {
  return snapshot.nets.find((n) => n.node_ids.includes(id));
}

/** True when two bridge lists are the same bridges, in the same order, with the same counts. */
export function sameBridges(a: readonly BridgeView[], b: readonly BridgeView[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i];
      return y !== undefined && x.node1 === y.node1 && x.node2 === y.node2 && x.duplicates === y.duplicates;
    })
  );
}

/**
 * A snapshot from the telemetry port (CDC3, device/telemetry.ts): the state JSON `:json` gives
 * (the same document as `get_state()`) and the LEDs `:leds` gives. The port lists no bridges: each
 * net's nodes are taken as bridged one to the next, as the firmware itself rebuilds a state's
 * bridges from its nets (JsonStateParser::parseNetsSection, Architeuthis-Flux/JumperlOS
 * src/JsonState.cpp), with `route: unknown` (the port does not say whether lanes were found). A
 * net's colour is its first row's LED (the middle of the row's five: Graphics.cpp
 * rowColumnToPixelIndex(row, 2)).
 */
export function snapshotFromTelemetry(stateText: string, leds: readonly number[]): BoardSnapshot {
  const state = parseStateText(stateText);
  const bridges: BridgeView[] = [];
  const nets: NetView[] = state.nets.map((net) => {
    const ids = net.nodes.map((n) => parseShortName(n)).filter((n): n is number => n !== undefined);
    for (let i = 1; i < ids.length; i++) {
      const node1 = ids[i - 1] as number;
      const node2 = ids[i] as number;
      bridges.push({
        node1,
        node2,
        node1_name: nodeLabel(node1),
        node2_name: nodeLabel(node2),
        duplicates: 0,
        net: net.index,
        routed: false,
        route: 'unknown',
      });
    }
    const row = ids.find((id) => nodeInfo(id)?.kind === 'row');
    const led = row === undefined ? undefined : leds[(row - 1) * 5 + 2];
    const view: NetView = {
      index: net.index,
      name: net.name,
      color: colorHex(led ?? 0),
      color_name: led === undefined ? 'none' : colorHex(led),
      nodes: [...net.nodes],
      node_ids: ids,
      special: net.special,
    };
    if (typeof net.voltage === 'number') view.volts = net.voltage;
    if (typeof net.logic === 'number') view.logic = net.logic;
    return view;
  });
  return { state, bridges, nets };
}
