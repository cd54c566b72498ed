/**
 * Bridges (spec §6.3): connect/disconnect and their fast_ twins, is_connected, nodes_clear, bridge
 * and path queries. Every failure the firmware keeps silent stays silent here: invalid nodes,
 * n1 == n2, forbidden pairs and a full table return None and change nothing; a bridge between two
 * special nets is stored but unrouted (board/connections.ts).
 *
 * Paths: the crossbar routing itself is not modelled. There is one primary path per bridge, in
 * bridge order (`net` -1 when unrouted); its `chips` name the chips of the two ends (A-H rows,
 * I-J Nano header, K-L specials, a guess at the board's layout) and `x`/`y` are -1.
 */
import { nodeInfo, printName } from '../../board/nodes.js';
import { asInt, asNode, lookupNode, truthy } from './args.js';
import type { Hardware } from './hardware.js';
import { recordChange } from './history.js';
import type { FirmwareFunctions, FirmwareHost, Json } from './types.js';

export interface PathInfo {
  node1: number;
  node2: number;
  net: number;
  chips: number[];
  x: number[];
  y: number[];
  duplicate: number;
}

function chipOf(id: number): number {
  if (id >= 1 && id <= 60) return Math.min(7, Math.floor((id - 1) / 7.5));
  if (id >= 69 && id <= 99) return id <= 83 ? 8 : 9;
  return id <= 117 ? 10 : 11;
}

/** The primary paths, one per bridge. */
export function primaryPaths(hw: Hardware): PathInfo[] {
  return hw.conns.bridges().map((b) => {
    const c1 = chipOf(b.node1);
    const c2 = chipOf(b.node2);
    return {
      node1: b.node1,
      node2: b.node2,
      net: b.net,
      chips: c1 === c2 ? [c1, -1, -1, -1] : [c1, c2, -1, -1],
      x: [-1, -1, -1, -1, -1, -1],
      y: [-1, -1, -1, -1, -1, -1],
      duplicate: 0,
    };
  });
}

/** Paths with their parallel duplicates: a routed bridge with N duplicates is N paths (at least 1). */
export function countPaths(hw: Hardware, includeDuplicates: boolean): number {
  const bridges = hw.conns.bridges();
  if (!includeDuplicates) return bridges.length;
  return bridges.reduce((n, b) => n + (b.net === -1 ? 1 : Math.max(1, b.duplicates)), 0);
}

const pathJson = (p: PathInfo): Json => ({ ...p });

/** `print(node)` text: the C module's table has no names for probe pads and fake GPIO. */
export function nodePrintName(id: number): string {
  const kind = nodeInfo(id)?.kind;
  return kind === 'pad' || kind === 'fake_gpio' ? '' : printName(id);
}

export function connectionsGroup(hw: Hardware, host: FirmwareHost): FirmwareFunctions {
  const connect = (n1: Json | undefined, n2: Json | undefined, dup: Json | undefined): null => {
    const a = asNode(n1);
    const b = asNode(n2);
    const outcome = hw.conns.connect(a, b, dup === undefined ? -1 : asInt(dup));
    if (outcome.status !== 'refused') recordChange(hw, `connect ${a}-${b}`);
    return null;
  };
  const disconnect = (n1: Json | undefined, n2: Json | undefined): null => {
    const a = asNode(n1);
    const b = asNode(n2);
    if (hw.conns.disconnect(a, b) > 0) recordChange(hw, `disconnect ${a}-${b}`);
    return null;
  };
  return {
    connect,
    disconnect,
    fast_connect: connect,
    fast_disconnect: disconnect,
    is_connected: (n1, n2) => hw.conns.isConnected(asNode(n1), asNode(n2)),
    nodes_clear: () => {
      hw.conns.clear();
      recordChange(hw, 'clear');
      return null;
    },
    get_num_bridges: () => hw.conns.bridgeCount,
    get_bridge: (i) => {
      const b = hw.conns.bridge(asInt(i));
      return b ? [b.node1, b.node2, b.duplicates] : null;
    },
    get_num_paths: (includeDuplicates = true) => countPaths(hw, truthy(includeDuplicates)),
    get_path_info: (i) => {
      const p = primaryPaths(hw)[asInt(i)];
      return p ? pathJson(p) : null;
    },
    get_all_paths: () => {
      // A debug line the firmware leaves in jl_get_all_path_info, on the main port.
      host.writeMain(
        `jl_get_all_path_info: numBridges=${hw.conns.bridgeCount}, numPaths=${hw.conns.bridgeCount}\n`,
      );
      return primaryPaths(hw).map(pathJson);
    },
    get_path_between: (n1, n2) => {
      const a = asInt(n1);
      const b = asInt(n2);
      const p = primaryPaths(hw).find(
        (x) => (x.node1 === a && x.node2 === b) || (x.node1 === b && x.node2 === a),
      );
      return p ? pathJson(p) : null;
    },
    _resolve_node: (name) => (typeof name === 'string' ? (lookupNode(name) ?? null) : null),
    _node_name: (id) => nodePrintName(asInt(id)),
  };
}
