/**
 * The passive net-current scan of 5.7.11 (src/NetVoltageScan.cpp@7ce7726; modjumperless.c@796c56c):
 * the board taps one node at a time onto a free ADC for a moment, so a script reads a node's volts
 * and the current through each path without routing an ADC or adding a bridge. What a host sees:
 *  - `get_node_voltage(node)`: GND, the rails and DACs answer their setpoints; an ADC node bridged
 *    into a net its reading; any other node in a net the voltage the tap reads; None for a node in
 *    no net, or one nothing drives (a floating net drifts while tapped and is rejected);
 *  - `get_path_current(i)`: signed mA through path i (positive node1 -> node2), from the two end
 *    voltages and the path's resistance; a difference under 35 mV reads 0;
 *  - `get_net_current(n)`: the net's path carrying the most current, as
 *    [current_mA, mean voltage, from_node, to_node] (the dict is built on the Python side).
 * The virtual board reads the circuit's solution directly instead of tapping; the scan is on
 * (`[display] net_currents`), an assumption: the default of that key is not in the sources read.
 */
import { PATH_OHMS } from '../../board/limits.js';
import { ADC0, ADC4, BOTTOM_RAIL, DAC0, DAC1, GND, TOP_RAIL } from '../../board/nodes.js';
import { GROUND } from '../solver.js';
import { asInt, asNode, pyFloat } from './args.js';
import { type Circuit, nodeName } from './circuit.js';
import type { Hardware } from './hardware.js';
import { routingOf } from './routing.js';
import type { FirmwareFunctions, Json } from './types.js';

/** NetVoltageScan.cpp: below this end-to-end difference a path reads 0 mA (ADC noise). */
const DEADBAND_VOLTS = 0.035;

/** Nodes the circuit ties to something that sets their voltage (a source, or a path to ground). */
function drivenNodes(circuit: Circuit): (name: string) => boolean {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r) as string;
    return r;
  };
  const union = (a: string, b: string): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  const driven = new Set<string>();
  for (const e of circuit.elements()) {
    if (e.kind === 'source') driven.add(e.node);
    else if (e.kind === 'resistor') union(e.a, e.b);
    else union(e.anode, e.cathode);
  }
  const roots = new Set([...driven, GROUND].map(find));
  return (name) => roots.has(find(name));
}

export function scanGroup(hw: Hardware, circuit: Circuit): FirmwareFunctions {
  const knownSource = (node: number): number | undefined => {
    if (node === GND) return 0;
    if (node === TOP_RAIL) return hw.power.topRail;
    if (node === BOTTOM_RAIL) return hw.power.bottomRail;
    if (node === DAC0) return hw.power.dac0;
    if (node === DAC1) return hw.power.dac1;
    return undefined;
  };
  const nodeVolts = (node: number): number | undefined => {
    if (!hw.netCurrentScan) return undefined;
    const source = knownSource(node);
    if (source !== undefined) return source;
    const net = hw.conns.netOf(node);
    if (net === undefined || net < 1) return undefined;
    const solution = circuit.solve();
    if (node >= ADC0 && node <= ADC4) return solution.voltage(nodeName(node));
    if (!drivenNodes(circuit)(nodeName(node))) return undefined;
    return solution.voltage(nodeName(node));
  };
  const pathCurrent = (
    i: number,
  ): { mA: number; v1: number; v2: number; n1: number; n2: number; net: number } | undefined => {
    const path = routingOf(hw).paths[i];
    if (!path || path.net < 1) return undefined;
    const route = routingOf(hw).route(path.node1, path.node2);
    if (!route?.routed) return undefined;
    const v1 = nodeVolts(path.node1);
    const v2 = nodeVolts(path.node2);
    if (v1 === undefined || v2 === undefined) return undefined;
    const bridge = hw.conns
      .bridges()
      .find(
        (b) =>
          (b.node1 === path.node1 && b.node2 === path.node2) ||
          (b.node1 === path.node2 && b.node2 === path.node1),
      );
    const paths = Math.max(1, Math.min(bridge?.duplicates ?? 1, route.paths));
    const dv = Math.abs(v1 - v2) < DEADBAND_VOLTS ? 0 : v1 - v2;
    return { mA: (dv / (PATH_OHMS / paths)) * 1000, v1, v2, n1: path.node1, n2: path.node2, net: path.net };
  };
  return {
    get_node_voltage: (node) => {
      const v = nodeVolts(asNode(node));
      return v === undefined ? null : pyFloat(v);
    },
    get_path_current: (i) => {
      const p = pathCurrent(asInt(i));
      return p === undefined ? null : pyFloat(p.mA);
    },
    get_net_current: (n) => {
      const net = asInt(n);
      let best: ReturnType<typeof pathCurrent>;
      routingOf(hw).paths.forEach((p, i) => {
        if (p.net !== net) return;
        const c = pathCurrent(i);
        if (c && (!best || Math.abs(c.mA) > Math.abs(best.mA))) best = c;
      });
      if (!best) return null;
      const [from, to] = best.v1 >= best.v2 ? [best.n1, best.n2] : [best.n2, best.n1];
      return [pyFloat(Math.abs(best.mA)), pyFloat((best.v1 + best.v2) / 2), from, to] as Json;
    },
  };
}
