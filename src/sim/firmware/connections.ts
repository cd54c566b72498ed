/**
 * Bridges (spec §6.3): connect/disconnect and their fast_ twins, is_connected, nodes_clear, bridge
 * and path queries. Every failure the firmware keeps silent stays silent here: invalid nodes,
 * n1 == n2, forbidden pairs and a full table return None and change nothing; a bridge between two
 * special nets is stored but joins no net, so it has no path (board/connections.ts).
 *
 * Paths follow the firmware's shape, not its routing: the firmware builds one primary path per
 * bridge that sits in a net, ordered by net, with the probe-power path moved to index 0
 * (NetsToChipConnections.cpp:1367-1496). Bridges in no net have no path at all. A routed path has
 * every used hop's `x`/`y` >= 0; a path the router could not place keeps -1 there (its `net` stays;
 * the firmware's own test for "couldn't find a path" is exactly that, NetsToChipConnections.cpp:4478).
 * The simulator does not route through chips: its `chips` are a guess at the two ends' chips and its
 * lanes are illustrative. The router never runs out of lanes here unless a test asks for it with the
 * simulator-only `_sim_route_fail` (see below).
 */
import { pairKey } from '../../board/connections.js';
import { BUFFER_IN, DAC0, nodeInfo, printName } from '../../board/nodes.js';
import { asInt, asNode, lookupNode, truthy } from './args.js';
import type { Hardware } from './hardware.js';
import { recordBridgeChange, recordClearAll } from './history.js';
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

/** Pairs a test told the simulated router to fail (simulator only; no such call on the board). */
const blocked = new WeakMap<Hardware, Set<string>>();
const isBlocked = (hw: Hardware, a: number, b: number): boolean =>
  blocked.get(hw)?.has(pairKey(a, b)) ?? false;

/** True when a path dict of get_path_info / get_path_between says the router placed it. */
export function pathRouted(p: Pick<PathInfo, 'chips' | 'x' | 'y'>): boolean {
  // NetsToChipConnections.cpp:4494-4504: hops 0 and 1 always, hop 2 when it has a chip.
  for (let j = 0; j < 3; j++) {
    if (j >= 2 && (p.chips[j] ?? -1) === -1) continue;
    if ((p.x[j] ?? -1) < 0 || (p.y[j] ?? -1) < 0) return false;
  }
  return true;
}

/** The primary paths: bridges that sit in a net, by net, probe power first. */
export function primaryPaths(hw: Hardware): PathInfo[] {
  const inNets = hw.conns
    .bridges()
    .filter((b) => b.net >= 1)
    .map((b, order) => ({ b, order }))
    .sort((p, q) => p.b.net - q.b.net || p.order - q.order)
    .map(({ b }) => b);
  const power = inNets.findIndex(
    (b) => (b.node1 === BUFFER_IN && b.node2 === DAC0) || (b.node1 === DAC0 && b.node2 === BUFFER_IN),
  );
  if (power > 0) inNets.unshift(...inNets.splice(power, 1));
  return inNets.map((b, i) => {
    const routed = !isBlocked(hw, b.node1, b.node2);
    const lane = (j: number): number => (routed ? j : -1);
    return {
      node1: b.node1,
      node2: b.node2,
      net: b.net,
      chips: [chipOf(b.node1), chipOf(b.node2), -1, -1],
      x: [lane(i % 16), lane(i % 16), -1, -1, -1, -1],
      y: [lane(1 + (b.node1 % 7)), lane(1 + (b.node2 % 7)), -1, -1, -1, -1],
      duplicate: 0,
    };
  });
}

/** NetsToChipConnections.cpp:1911-1935: user-net bridges touching GPIO, UART, fake GPIO or an ADC get none. */
function noDuplicates(a: number, b: number): boolean {
  const kind = (n: number): string | undefined => nodeInfo(n)?.kind;
  const adc = (n: number): boolean => n >= 110 && n <= 115; // ADC0-ADC4, ADC7
  return [a, b].some((n) => kind(n) === 'gpio' || kind(n) === 'uart' || kind(n) === 'fake_gpio' || adc(n));
}

/**
 * `get_num_paths(include_duplicates)`: primary paths, plus each routed bridge's duplicates. The board
 * makes fewer duplicates when lanes run out (inferred); the simulator never runs out.
 */
export function countPaths(hw: Hardware, includeDuplicates: boolean): number {
  const paths = primaryPaths(hw);
  if (!includeDuplicates) return paths.length;
  return paths.reduce((n, p) => {
    if (!pathRouted(p)) return n + 1;
    const b = hw.conns.bridges().find((x) => x.node1 === p.node1 && x.node2 === p.node2);
    const extra = p.net > 5 && noDuplicates(p.node1, p.node2) ? 0 : Math.max(0, b?.duplicates ?? 0);
    return n + 1 + extra;
  }, 0);
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
    // States.cpp:609-626: updating an existing bridge's count returns before the undo hook.
    if (outcome.status === 'added' || outcome.status === 'unrouted')
      recordBridgeChange(hw, 'connect', outcome.bridge.node1, outcome.bridge.node2);
    return null;
  };
  const disconnect = (n1: Json | undefined, n2: Json | undefined): null => {
    const a = asNode(n1);
    const b = asNode(n2);
    // FileParsing.cpp:315-345: -1 removes every bridge touching n1, each recorded on its own.
    const gone = hw.conns
      .bridges()
      .filter((x) =>
        b === -1
          ? x.node1 === a || x.node2 === a
          : (x.node1 === a && x.node2 === b) || (x.node1 === b && x.node2 === a),
      );
    for (const x of gone.reverse()) {
      hw.conns.disconnect(x.node1, x.node2);
      recordBridgeChange(hw, 'disconnect', x.node1, x.node2);
    }
    return null;
  };
  return {
    connect,
    disconnect,
    fast_connect: connect,
    fast_disconnect: disconnect,
    is_connected: (n1, n2) => hw.conns.isConnected(asNode(n1), asNode(n2)),
    nodes_clear: () => {
      recordClearAll(hw);
      hw.core2Paused = false; // refreshConnections ends any pause (Commands.cpp:175, API.cpp:1271)
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
      const paths = primaryPaths(hw);
      // A debug line the firmware leaves in jl_get_all_path_info, on the main port.
      host.writeMain(`jl_get_all_path_info: numBridges=${hw.conns.bridgeCount}, numPaths=${paths.length}\n`);
      return paths.map(pathJson);
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
    /**
     * Simulator only, for tests: make the router fail (or succeed again) on the pair n1-n2, as it does
     * on a board whose crossbar lanes are used up. Called as `_fw.call('_sim_route_fail', '[a, b, on]')`.
     */
    _sim_route_fail: (n1, n2, on = true) => {
      const set = blocked.get(hw) ?? new Set<string>();
      blocked.set(hw, set);
      const key = pairKey(asInt(n1), asInt(n2));
      if (truthy(on)) set.add(key);
      else set.delete(key);
      return null;
    },
  };
}
