/**
 * The virtual board's crossbar routing: the bridges in nets, in the firmware's path order, routed
 * over the real chip topology by board/router.ts, so a board full of lanes leaves a bridge unrouted
 * as the firmware does (its path keeps its net, no crosspoint closes). Recomputed after every
 * change of the bridge list, as the firmware re-routes everything on each refresh.
 *
 * Fake GPIO bridges (nodes 150-181) stand for nodes the firmware picks at routing time (an ADC, a
 * supply); they are kept routed here without taking lanes.
 */
import { pairKey } from '../../board/connections.js';
import { chipsOfNode } from '../../board/crossbar.js';
import { BUFFER_IN, DAC0, nodeInfo } from '../../board/nodes.js';
import { pathRecord, type Routing, routePaths, type UnroutedCause, usageOf } from '../../board/router.js';
import type { Hardware } from './hardware.js';

export interface PathInfo {
  node1: number;
  node2: number;
  net: number;
  chips: number[];
  x: number[];
  y: number[];
  duplicate: number;
}

export interface BridgeRoute {
  readonly routed: boolean;
  /** Parallel paths the bridge really has (1 + routed duplicates), 0 when unrouted. */
  readonly paths: number;
  readonly cause?: UnroutedCause | 'forced';
}

export interface SimRouting {
  /** The primary paths, in the firmware's order. */
  readonly paths: readonly PathInfo[];
  /** Routed duplicate paths in total. */
  readonly duplicatesRouted: number;
  readonly routing: Routing;
  route(a: number, b: number): BridgeRoute | undefined;
}

/** Pairs a test told the router to fail (simulator only: `_sim_route_fail`). */
export const forcedFailures = new WeakMap<Hardware, Set<string>>();

/** NetsToChipConnections.cpp:1911-1935: user-net bridges touching GPIO, UART, fake GPIO or an ADC get no duplicates. */
function noDuplicates(a: number, b: number): boolean {
  const kind = (n: number): string | undefined => nodeInfo(n)?.kind;
  const adc = (n: number): boolean => n >= 110 && n <= 115;
  return [a, b].some((n) => kind(n) === 'gpio' || kind(n) === 'uart' || kind(n) === 'fake_gpio' || adc(n));
}

const isFake = (n: number): boolean => nodeInfo(n)?.kind === 'fake_gpio';

const cache = new WeakMap<Hardware, { conns: unknown; change: number; forced: string; value: SimRouting }>();

export function routingOf(hw: Hardware): SimRouting {
  const forced = forcedFailures.get(hw) ?? new Set<string>();
  const forcedKey = [...forced].sort().join(',');
  const hit = cache.get(hw);
  if (hit && hit.conns === hw.conns && hit.change === hw.conns.changeCount && hit.forced === forcedKey) {
    return hit.value;
  }
  const value = build(hw, forced);
  cache.set(hw, { conns: hw.conns, change: hw.conns.changeCount, forced: forcedKey, value });
  return value;
}

function build(hw: Hardware, forced: ReadonlySet<string>): SimRouting {
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
  // Fake GPIO bridges and forced failures take no lanes: route the rest, in order.
  const routable = inNets.filter(
    (b) => !isFake(b.node1) && !isFake(b.node2) && !forced.has(pairKey(b.node1, b.node2)),
  );
  const routing = routePaths(
    routable.map((b) => ({
      node1: b.node1,
      node2: b.node2,
      net: b.net,
      extras: b.net > 5 && noDuplicates(b.node1, b.node2) ? 0 : Math.max(0, b.duplicates),
    })),
  );
  const byPair = new Map<string, BridgeRoute>();
  routing.paths.forEach((p) => {
    byPair.set(pairKey(p.node1, p.node2), {
      routed: p.routed,
      paths: p.routed ? 1 + p.extrasRouted : 0,
      ...(p.cause ? { cause: p.cause } : {}),
    });
  });
  let k = 0;
  const paths = inNets.map((b): PathInfo => {
    const key = pairKey(b.node1, b.node2);
    const ends: [number, number] = [chipsOfNode(b.node1)[0] ?? -1, chipsOfNode(b.node2)[0] ?? -1];
    if (isFake(b.node1) || isFake(b.node2)) {
      byPair.set(key, { routed: true, paths: 1 });
      return {
        node1: b.node1,
        node2: b.node2,
        net: b.net,
        chips: [...ends, -1, -1],
        x: [0, 0, -1, -1, -1, -1],
        y: [0, 0, -1, -1, -1, -1],
        duplicate: 0,
      };
    }
    if (forced.has(key)) {
      byPair.set(key, { routed: false, paths: 0, cause: 'forced' });
      return {
        node1: b.node1,
        node2: b.node2,
        net: b.net,
        chips: [...ends, -1, -1],
        x: [-1, -1, -1, -1, -1, -1],
        y: [-1, -1, -1, -1, -1, -1],
        duplicate: 0,
      };
    }
    const routed = routing.paths[k++];
    const record = routed
      ? pathRecord(routed, ends)
      : { chips: [...ends, -1, -1], x: [-1, -1, -1, -1, -1, -1], y: [-1, -1, -1, -1, -1, -1] };
    return { node1: b.node1, node2: b.node2, net: b.net, ...record, duplicate: 0 };
  });
  return {
    paths,
    duplicatesRouted: routing.paths.reduce((n, p) => n + p.extrasRouted, 0),
    routing,
    route: (a, b) => byPair.get(pairKey(a, b)),
  };
}

/** What the crossbar holds now, for the crossbar picture and diagnostics. */
export function crossbarUsage(hw: Hardware) {
  return usageOf(routingOf(hw).routing);
}
