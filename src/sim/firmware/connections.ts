/**
 * Bridges (spec §6.3): connect/disconnect and their fast_ twins, is_connected, nodes_clear, bridge
 * and path queries. Every failure the firmware keeps silent stays silent here: invalid nodes,
 * n1 == n2, forbidden pairs and a full table return None and change nothing; a bridge between two
 * special nets is stored but joins no net, so it has no path (board/connections.ts).
 *
 * Paths are routed over the real crossbar (routing.ts, board/router.ts): the firmware's path order,
 * its chips and lanes, so a board whose lanes are used up leaves a bridge in its net but with -1 in
 * the lanes it found none for (the firmware's own test for "couldn't find a path",
 * NetsToChipConnections.cpp:4478). Bridges in no net have no path at all. The simulator-only
 * `_sim_route_fail` still forces a pair unrouted, for tests that want one without filling the board.
 */
import { pairKey } from '../../board/connections.js';
import { nodeInfo, printName } from '../../board/nodes.js';
import { asInt, asNode, lookupNode, truthy } from './args.js';
import type { Hardware } from './hardware.js';
import { recordBridgeChange, recordClearAll } from './history.js';
import { forcedFailures, type PathInfo, routingOf } from './routing.js';
import type { FirmwareFunctions, FirmwareHost, Json } from './types.js';

export type { PathInfo } from './routing.js';

/** True when a path dict of get_path_info / get_path_between says the router placed it. */
export function pathRouted(p: Pick<PathInfo, 'chips' | 'x' | 'y'>): boolean {
  // NetsToChipConnections.cpp:4494-4504: hops 0 and 1 always, hop 2 when it has a chip.
  for (let j = 0; j < 3; j++) {
    if (j >= 2 && (p.chips[j] ?? -1) === -1) continue;
    if ((p.x[j] ?? -1) < 0 || (p.y[j] ?? -1) < 0) return false;
  }
  return true;
}

/** The primary paths: bridges that sit in a net, by net, probe power first, routed on the crossbar. */
export function primaryPaths(hw: Hardware): PathInfo[] {
  return routingOf(hw).paths.map((p) => ({ ...p, chips: [...p.chips], x: [...p.x], y: [...p.y] }));
}

/**
 * `get_num_paths(include_duplicates)`: primary paths, plus the duplicates that found free lanes
 * (fillUnusedPaths routes them after every primary path, on lanes nobody uses).
 */
export function countPaths(hw: Hardware, includeDuplicates: boolean): number {
  const routing = routingOf(hw);
  return routing.paths.length + (includeDuplicates ? routing.duplicatesRouted : 0);
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
      const set = forcedFailures.get(hw) ?? new Set<string>();
      forcedFailures.set(hw, set);
      const key = pairKey(asInt(n1), asInt(n2));
      if (truthy(on)) set.add(key);
      else set.delete(key);
      return null;
    },
  };
}
