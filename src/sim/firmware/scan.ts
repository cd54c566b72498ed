/**
 * The passive net-current scan of 5.7.11 (src/NetVoltageScan.cpp@09391b7 and @7ce7726, the same in
 * what a host sees; modjumperless.c@796c56c): core 1 taps one node at a time onto a free ADC, so a
 * script reads a node's volts and the current through each path without routing an ADC or adding a
 * bridge. What a host sees:
 *  - `get_node_voltage(node)`: GND, the rails and DACs answer their stored setpoints; an ADC node
 *    bridged into a net its reading; any other node in a net the scan's smoothed reading of it; None
 *    for a node with no reading younger than 5 s (in no net, nothing drives it, the scan off);
 *  - `get_path_current(i)`: signed mA through path i (positive node1 -> node2), from the two end
 *    voltages the scan holds and the path's resistance; a difference under 35 mV reads 0;
 *  - `get_net_current(n)`: the net's path carrying the most current, as
 *    [current_mA, mean voltage, from_node, to_node] (the dict is built on the Python side).
 *
 * The readings lag the board, as on the firmware, and the twin keeps that lag (ScanModel below):
 * a tap every 5 ms round the nodes in nets, each reading blended into the last (30 % of the new
 * tap), nothing cleared by a supply change, the routing-change wipe only on the scan's next pass,
 * and no pass at all within 100 ms of user input (raw-REPL traffic counts on 5.7.11), nor while
 * core 2 is paused. The scan is on (`[display] net_currents`), an assumption: the default of that
 * key is not in the sources read.
 */
import { PATH_OHMS } from '../../board/limits.js';
import { ADC0, ADC4, ADC7, BOTTOM_RAIL, DAC0, DAC1, GND, TOP_RAIL } from '../../board/nodes.js';
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

/** NetVoltageScan.cpp kScanIntervalUs: at least 5 ms between two taps. */
const TAP_INTERVAL_MS = 5;
/** kVoltageFreshMs: a reading older than this is no reading (voltageFresh, nodeVoltageValid). */
const FRESH_MS = 5000;
/** serviceNetVoltageScan: `nodeVoltage += 0.3 * (volts - nodeVoltage)` while the last is fresh. */
const BLEND = 0.3;
/** serviceNetVoltageScan: no pass while `millis() - lastUserInputMs < 100`. */
const INPUT_HOLD_MS = 100;

/** fillKnownSources: the supplies answer their stored setpoints, never a tap. */
function knownSource(hw: Hardware, node: number): number | undefined {
  if (node === GND) return 0;
  if (node === TOP_RAIL) return hw.power.topRail;
  if (node === BOTTOM_RAIL) return hw.power.bottomRail;
  if (node === DAC0) return hw.power.dac0;
  if (node === DAC1) return hw.power.dac1;
  return undefined;
}

/** isScannable: a node the round taps (not a supply, an ADC input or the probe's ADC). */
function scannable(hw: Hardware, node: number): boolean {
  return knownSource(hw, node) === undefined && !(node >= ADC0 && node <= ADC4) && node !== ADC7;
}

/**
 * What the scan holds, advanced lazily to the time of each call: the board's state is constant
 * between two firmware calls (the twin advances the model before every call and every user input),
 * so the taps in between all read the same circuit and their blend has a closed form.
 */
export interface ScanModel {
  /** Runs the scan up to now against the board as it has been since the last call. */
  advance(): void;
  /** The scan's reading of a node now, as get_node_voltage answers it (undefined: None). */
  volts(node: number): number | undefined;
}

export function createScanModel(hw: Hardware, circuit: Circuit): ScanModel {
  let at = hw.now();
  let fingerprint: string | undefined;
  let list: number[] = [];
  let index = 0;
  let nextTapAt = at;
  /** nodeVoltage / nodeVoltageMs of the round's nodes, and of the supplies and bridged ADCs. */
  const reading = new Map<number, { volts: number; at: number }>();

  // connectionsFingerprint: the paths (node1, node2, net) and the number of nets. Worked out again
  // only when the routing was (routingOf keeps one object while the bridges stay as they are).
  let fingerprintOf: { routing: unknown; text: string } | undefined;
  const fingerprintNow = (): string => {
    const routing = routingOf(hw);
    if (fingerprintOf?.routing !== routing) {
      const paths = routing.paths.map((p) => `${p.node1}-${p.node2}-${p.net}`).join(',');
      fingerprintOf = { routing, text: `${hw.conns.getNumNets()}|${paths}` };
    }
    return fingerprintOf.text;
  };

  // rebuildScanList: every node of every net (net 1 up), in net order, each once.
  const scanList = (): number[] => {
    const nodes: number[] = [];
    for (const net of hw.conns.nets()) {
      for (const node of net.nodes) if (scannable(hw, node) && !nodes.includes(node)) nodes.push(node);
    }
    return nodes.slice(0, 128);
  };

  const advance = (): void => {
    const to = hw.now();
    if (to <= at) return;
    const from = at;
    at = to;
    if (!hw.netCurrentScan) {
      reading.clear(); // "Leave nothing stale behind": the scan turned off wipes every reading
      return;
    }
    if (hw.core2Paused) return; // pauseCore2: the pass returns before it reads anything
    const start = Math.max(from, hw.lastUserInput + INPUT_HOLD_MS);
    if (start >= to) return;
    // The first pass after a routing change wipes every reading (a merged or split net).
    const fp = fingerprintNow();
    if (fp !== fingerprint) {
      fingerprint = fp;
      list = scanList();
      if (index >= list.length) index = 0;
      reading.clear();
    }
    // fillKnownSources, on every pass: the setpoints and the bridged ADCs' readings.
    const solution = circuit.solve();
    for (const node of [GND, TOP_RAIL, BOTTOM_RAIL, DAC0, DAC1]) {
      reading.set(node, { volts: knownSource(hw, node) ?? 0, at: to });
    }
    for (let node = ADC0; node <= ADC4; node++) {
      const net = hw.conns.netOf(node);
      if (net !== undefined && net >= 1)
        reading.set(node, { volts: solution.voltage(nodeName(node)), at: to });
    }
    // The taps: none while the wave generator owns the DACs and ADCs. (The once-a-second GND tap
    // that zeroes the ADC takes one slot in 200; the twin leaves it out, so it is a shade fresher.)
    if (list.length === 0 || hw.wavegen.running) return;
    const first = Math.max(start, nextTapAt);
    if (first > to) return;
    const taps = Math.floor((to - first) / TAP_INTERVAL_MS) + 1;
    nextTapAt = first + taps * TAP_INTERVAL_MS;
    const driven = drivenNodes(circuit);
    const n = list.length;
    list.forEach((node, position) => {
      const offset = (position - index + n) % n;
      const count = Math.floor(taps / n) + (offset < taps % n ? 1 : 0);
      // A floating node drifts while tapped and is rejected: its reading stays as it was.
      if (count === 0 || !driven(nodeName(node))) return;
      const tapped = solution.voltage(nodeName(node));
      const firstTap = first + offset * TAP_INTERVAL_MS;
      const lastTap = firstTap + (count - 1) * n * TAP_INTERVAL_MS;
      const held = reading.get(node);
      const fresh = held !== undefined && firstTap - held.at < FRESH_MS;
      const volts = fresh ? tapped + (held.volts - tapped) * (1 - BLEND) ** count : tapped;
      reading.set(node, { volts, at: lastTap });
    });
    index = (index + taps) % n;
  };

  return {
    advance,
    volts: (node) => {
      advance();
      const held = reading.get(node);
      return held !== undefined && hw.now() - held.at < FRESH_MS ? held.volts : undefined;
    },
  };
}

export function scanGroup(hw: Hardware, scan: ScanModel): FirmwareFunctions {
  const nodeVolts = (node: number): number | undefined => scan.volts(node);
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
