/**
 * What the board holds right now, read in one call: the state JSON (spec §7), every bridge with
 * whether it is routed, and every net with its colour. The firmware keeps "stored but unrouted"
 * to itself (spec §6.3, §8.3); the path of such a bridge has `net` -1, so each bridge is checked
 * with `get_path_between`.
 */
import { z } from 'zod';
import { hex6 } from '../board/colors.js';
import { Connections } from '../board/connections.js';
import { parseShortName, printName } from '../board/nodes.js';
import type { BoardCallOptions, BoardClient } from './boardClient.js';
import { parseStateText, type ToolBoardState } from './boardState.js';

/** Board-side helpers (part of the connections group's `python`). */
export const snapshotPython = `
def snap_bridges():
    out = []
    for i in range(get_num_bridges()):
        b = get_bridge(i)
        if b is None:
            continue
        p = get_path_between(b[0], b[1])
        out.append([int(b[0]), int(b[1]), int(b[2]), -2 if p is None else int(p['net'])])
    return out
def snap_nets():
    out = []
    for i in range(1, get_num_nets()):
        n = get_net_info(i)
        if n:
            out.append([i, n['name'], int(n['color']), n['color_name']])
    return out
def snapshot():
    return {'state': get_state(), 'bridges': _jlt.snap_bridges(), 'nets': _jlt.snap_nets()}
`;

/** Firmware functions the snapshot uses. */
export const SNAPSHOT_REQUIRES = [
  'get_num_bridges',
  'get_bridge',
  'get_path_between',
  'get_num_nets',
  'get_net_info',
  'get_state',
] as const;

export interface BridgeView {
  node1: number;
  node2: number;
  node1_name: string;
  node2_name: string;
  duplicates: number;
  /** Net index; null when the bridge is stored but not routed. */
  net: number | null;
  routed: boolean;
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
  state: ToolBoardState;
  bridges: BridgeView[];
  nets: NetView[];
}

const rawBridges = z.array(z.tuple([z.number(), z.number(), z.number(), z.number()]));
const rawNets = z.array(z.tuple([z.number(), z.string(), z.number(), z.string()]));

export function bridgeViews(raw: unknown): BridgeView[] {
  return rawBridges.parse(raw).map(([node1, node2, duplicates, net]) => ({
    node1,
    node2,
    node1_name: nodeLabel(node1),
    node2_name: nodeLabel(node2),
    duplicates,
    net: net >= 1 ? net : null,
    routed: net >= 1,
  }));
}

/** How tools name a node: rows as digits, others by the firmware's print name (spec §6.1). */
export function nodeLabel(id: number): string {
  return printName(id) || String(id);
}

export const colorHex = (rgb: number): string => `#${hex6(rgb & 0xffffff).toLowerCase()}`;

export function snapshotOf(raw: unknown): BoardSnapshot {
  const doc = z.object({ state: z.string(), bridges: z.unknown(), nets: z.unknown() }).parse(raw);
  const state = parseStateText(doc.state);
  const looks = new Map(
    rawNets.parse(doc.nets).map(([index, name, color, colorName]) => [index, { name, color, colorName }]),
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
  return { state, bridges: bridgeViews(doc.bridges), nets };
}

export async function readSnapshot(board: BoardClient, options?: BoardCallOptions): Promise<BoardSnapshot> {
  return snapshotOf(await board.call('_jlt.snapshot()', options));
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
