/**
 * Measurements (spec §6.6, §8.5-§8.6, §8.8): voltage at any node through a free ADC, the INA0
 * current sensor, resistance between two nodes, and supply sweeps. Every tool leaves the board as
 * it found it: bridges it adds are removed and supplies it moves are set back, also when the call
 * fails or is cancelled (the board-side helpers restore in `finally`, and the tool checks the
 * bridge list afterwards and repairs it).
 */
import { z } from 'zod';
import { ADC_RANGES, ISENSE_SHUNT_OHMS } from '../board/limits.js';
import { ADC0, ADC3, DAC1, GND, ISENSE_MINUS, ISENSE_PLUS, nodeInfo } from '../board/nodes.js';
import type { BoardClient } from './boardClient.js';
import { type NodeArg, nodeArg, type ResolvedNode, routableNode } from './nodeArg.js';
import { plotPng } from './plot.js';
import { py } from './py.js';
import { checkVolts } from './safety.js';
import {
  type BoardSnapshot,
  type BridgeView,
  netOf,
  nodeLabel,
  readBridges,
  readSnapshot,
  SNAPSHOT_REQUIRES,
  sameBridges,
} from './snapshot.js';
import { defineTool, ToolError } from './tool.js';

export const python = `
def meas_volts(ch, anode, node, settle, n):
    import time as _t
    added = anode is not None and not is_connected(anode, node)
    if added:
        connect(anode, node)
    try:
        if added:
            p = get_path_between(anode, node)
            if p is None or not _jlt.path_routed(p):
                return None
            _t.sleep_ms(settle)
        return [adc_get(ch) for i in range(n)]
    finally:
        if added:
            disconnect(anode, node)
def meas_ina(s, n):
    c = 0.0
    v = 0.0
    w = 0.0
    for i in range(n):
        c += ina_get_current(s)
        v += ina_get_bus_voltage(s)
        w += ina_get_power(s)
    return [c / n, v / n, w / n]
def meas_route(pairs):
    for p in pairs:
        connect(p[0], p[1])
    ok = True
    for p in pairs:
        q = get_path_between(p[0], p[1])
        if q is None or not _jlt.path_routed(q):
            ok = False
    return ok
def meas_unroute(pairs):
    for p in pairs:
        disconnect(p[0], p[1])
def meas_point(ch, v, settle, adc, n, cur):
    import time as _t
    dac_set(ch, v, False)
    _t.sleep_ms(settle)
    a = None
    i = None
    if adc >= 0:
        a = sum([adc_get(adc) for k in range(n)]) / n
    if cur:
        i = sum([ina_get_current(0) for k in range(n)]) / n
    return [a, i]
def meas_dac_back(ch, v):
    dac_set(ch, v, False)
    return dac_get(ch)
def meas_wave():
    return wavegen_get_output() if wavegen_is_running() else None
def meas_res(pairs, ground, ca, cb, v, settle, n):
    import time as _t
    prev = dac_get(1)
    added = []
    out = {'routed': True, 'shunt': [], 'divider': []}
    try:
        for p in pairs:
            connect(p[0], p[1])
            added.append(p)
        for p in pairs:
            q = get_path_between(p[0], p[1])
            if q is None or not _jlt.path_routed(q):
                out['routed'] = False
                return out
        for stage in ('shunt', 'divider'):
            if stage == 'divider':
                disconnect(ground[0], ground[1])
            for volts in (0.0, v):
                dac_set(1, volts, False)
                _t.sleep_ms(settle)
                va = 0.0
                vb = 0.0
                i = 0.0
                for k in range(n):
                    va += adc_get(ca)
                    vb += adc_get(cb)
                    i += ina_get_current(0)
                out[stage].append([va / n, vb / n, i / n])
        return out
    finally:
        dac_set(1, prev, False)
        for p in added:
            disconnect(p[0], p[1])
`;

/** ADC0-ADC3: the ±8 V channels every firmware's `adc_get` accepts (spec §6.6). */
const ADCS = [0, 1, 2, 3].map((ch) => ADC0 + ch);
const ADC_SPAN = ADC_RANGES[0] ?? { min: -8.9, max: 8.9 };
/** One ADC step (12 bits over the ±8.9 V span). */
const ADC_LSB_VOLTS = (ADC_SPAN.max - ADC_SPAN.min) / 4095;
/** INA219 current register step as the firmware configures it (1 A / 32768). */
const INA_LSB_AMPS = 1 / 32768;
/** The shunt ADC saturates at ±320 mV over the 2 ohm shunt (spec §8.6). */
const INA_MAX_AMPS = 0.32 / ISENSE_SHUNT_OHMS;
/** ADC input impedance, "about 1 Mohm" (spec §8.5); the divider method depends on it. */
const ADC_INPUT_OHMS = 1e6;
const ADC_INPUT_TOLERANCE = 0.1;
/** Gain error assumed for the ADCs and the INA together. */
const GAIN_TOLERANCE = 0.02;
/** Settling after routing or moving a supply (spec §8.8: 2-10 ms, 20 ms per DAC step). */
const SETTLE_MS = 10;
const SWEEP_SETTLE_MS = 20;

const isAdc = (id: number): boolean => id >= ADC0 && id <= ADC3;
const touches = (bridges: readonly BridgeView[], id: number): boolean =>
  bridges.some((b) => b.node1 === id || b.node2 === id);

/** A bridge-free ADC, not `exclude`; undefined when all four are routed. */
function freeAdcs(snapshot: BoardSnapshot): number[] {
  return ADCS.filter((id) => !touches(snapshot.bridges, id) && netOf(snapshot, id) === undefined);
}

/** The ADC to read `node` with: one already on its net, or a free one to route there. */
function adcFor(snapshot: BoardSnapshot, node: ResolvedNode): { adc: number; route: boolean } {
  if (isAdc(node.id)) return { adc: node.id, route: false };
  const onNet = netOf(snapshot, node.id)?.node_ids.find(isAdc);
  if (onNet !== undefined) return { adc: onNet, route: false };
  const free = freeAdcs(snapshot)[0];
  if (free === undefined) {
    throw new ToolError(
      'no_free_adc',
      'ADC0-ADC3 are all routed elsewhere: disconnect one (or measure a node already on an ADC net).',
    );
  }
  return { adc: free, route: true };
}

const noSignal = { signal: undefined } as const;

const WAVE_SUPPLIES = ['DAC0', 'DAC1', 'TOP_RAIL', 'BOTTOM_RAIL'];

/**
 * Refuses what a running waveform generator spoils: a supply it drives (it overwrites every dac_set
 * within microseconds, WaveGen.cpp:262-300), and temporary routing, which the firmware pauses while
 * the generator runs on core 2 (HelpDocs.cpp:1163-1164; from 1 kHz core 2 never leaves the wave,
 * WaveGen.cpp:274-280), so the bridge may not be made before the reading.
 */
async function assertNoWave(board: BoardClient, use: { supply?: number; routing: boolean }): Promise<void> {
  const output = z
    .number()
    .nullable()
    .parse(await board.call('_jlt.meas_wave()'));
  if (output === null) return;
  const name = WAVE_SUPPLIES[output] ?? `output ${output}`;
  if (use.supply === output) {
    throw new ToolError(
      'busy',
      `The waveform generator is running on ${name}; stop it first (wavegen_stop).`,
    );
  }
  if (use.routing) {
    throw new ToolError(
      'busy',
      `The waveform generator is running (on ${name}): the firmware pauses routing updates while it runs, so the measurement's temporary bridges may not be made. Stop it first (wavegen_stop), or route an ADC to the node yourself.`,
    );
  }
}

/**
 * Puts the bridge list back as `before`: removes the `added` bridges if still there (board-side
 * `finally` blocks normally did), then checks. Runs without the call's signal so that a cancelled
 * call still cleans up.
 */
async function restoreBridges(
  board: BoardClient,
  before: readonly BridgeView[],
  added: ReadonlyArray<readonly [number, number]>,
): Promise<void> {
  let now = await readBridges(board, noSignal);
  if (sameBridges(before, now)) return;
  const leftover = added.filter(([a, b]) =>
    now.some((x) => (x.node1 === a && x.node2 === b) || (x.node1 === b && x.node2 === a)),
  );
  if (leftover.length > 0) {
    await board.call(py`_jlt.meas_unroute(${leftover.map(([a, b]) => [a, b])})`, noSignal);
    now = await readBridges(board, noSignal);
  }
  if (!sameBridges(before, now)) {
    throw new ToolError('routing_not_restored', 'The bridge list differs from before the measurement.', {
      details: {
        before: before.map((b) => [b.node1_name, b.node2_name, b.duplicates]),
        after: now.map((b) => [b.node1_name, b.node2_name, b.duplicates]),
      },
    });
  }
}

/** Runs `body`, then restores; a restore failure is reported even when `body` failed too. */
async function restoring<T>(body: () => Promise<T>, restore: () => Promise<void>): Promise<T> {
  let result: T;
  try {
    result = await body();
  } catch (error) {
    try {
      await restore();
    } catch (restoreError) {
      const first = error instanceof Error ? error.message : String(error);
      const second = restoreError instanceof Error ? restoreError.message : String(restoreError);
      throw new ToolError('routing_not_restored', `${first} Restoring the board also failed: ${second}`, {
        details: { error: first, restore: second },
      });
    }
    throw error;
  }
  await restore();
  return result;
}

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const round = (v: number, digits = 4): number => Number(v.toPrecision(digits));

export const voltageMeasure = defineTool({
  name: 'voltage_measure',
  title: 'Measure voltage at a node',
  description:
    'Measure the voltage at any node (-8.9..+8.9 V, about 4.5 mV steps): routes a free ADC to it, waits to settle, averages, then removes the ADC bridge again. A node nothing drives reads about 0 V. Routing an ADC is refused while the waveform generator runs (the firmware pauses routing then); a node already on an ADC net can still be read.',
  group: 'measure',
  kind: 'read',
  capability: 'jumperless.read',
  requires: [
    'adc_get',
    'connect',
    'disconnect',
    'is_connected',
    'wavegen_is_running',
    'wavegen_get_output',
    ...SNAPSHOT_REQUIRES,
  ],
  input: z.object({
    node: nodeArg,
    samples: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(4)
      .describe('Readings to average (each is 16 ADC samples)'),
    settle_ms: z.number().int().min(0).max(1000).default(SETTLE_MS).describe('Wait after routing, ms'),
  }),
  output: z.object({
    node: z.string(),
    volts: z.number(),
    min_volts: z.number(),
    max_volts: z.number(),
    samples: z.number(),
    adc: z.string().describe('ADC used'),
    routed_temporarily: z.boolean().describe('The ADC was bridged for this reading and removed after'),
    clipped: z.boolean().describe('At the edge of the ADC range: the true voltage may be beyond it'),
  }),
  handle: async ({ node: arg, samples, settle_ms }, { board }) => {
    const node = routableNode(arg);
    const snapshot = await readSnapshot(board);
    const { adc, route } = adcFor(snapshot, node);
    if (route) await assertNoWave(board, { routing: true });
    const reads = await restoring(
      () =>
        board.call<number[] | null>(
          py`_jlt.meas_volts(${adc - ADC0}, ${route ? adc : null}, ${node.id}, ${settle_ms}, ${samples})`,
        ),
      () => (route ? restoreBridges(board, snapshot.bridges, [[adc, node.id]]) : Promise.resolve()),
    );
    if (reads === null) {
      throw new ToolError(
        'unrouted',
        `The board could not route ${nodeLabel(adc)} to ${node.name} (net full or no free path); nothing was measured.`,
      );
    }
    const values = z.array(z.number()).min(1).parse(reads);
    const volts = mean(values);
    return {
      node: node.name,
      volts: round(volts),
      min_volts: Math.min(...values),
      max_volts: Math.max(...values),
      samples: values.length,
      adc: nodeLabel(adc),
      routed_temporarily: route,
      clipped: volts >= ADC_SPAN.max - 0.05 || volts <= ADC_SPAN.min + 0.05,
    };
  },
});

export const currentMeasure = defineTool({
  name: 'current_measure',
  title: 'Measure current through ISENSE',
  description:
    'Read INA0: the current through the 2 ohm shunt between ISENSE_PLUS and ISENSE_MINUS (put them in series with the load), the bus voltage at ISENSE_MINUS and the power. Range about ±0.16 A, 30 uA steps.',
  group: 'measure',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['ina_get_current', 'ina_get_bus_voltage', 'ina_get_power', ...SNAPSHOT_REQUIRES],
  input: z.object({
    samples: z.number().int().min(1).max(64).default(4).describe('Readings to average'),
  }),
  output: z.object({
    current_amps: z.number(),
    current_milliamps: z.number(),
    bus_volts: z.number().describe('Voltage at ISENSE_MINUS (never below 0)'),
    power_watts: z.number(),
    shunt_ohms: z.number(),
    in_circuit: z.boolean().describe('ISENSE_PLUS and ISENSE_MINUS are both bridged to something'),
    saturated: z.boolean(),
    note: z.string().optional(),
  }),
  handle: async ({ samples }, { board }) => {
    const snapshot = await readSnapshot(board);
    const [amps, bus, watts] = z
      .tuple([z.number(), z.number(), z.number()])
      .parse(await board.call(py`_jlt.meas_ina(0, ${samples})`));
    const inCircuit = touches(snapshot.bridges, ISENSE_PLUS) && touches(snapshot.bridges, ISENSE_MINUS);
    return {
      current_amps: amps,
      current_milliamps: round(amps * 1000),
      bus_volts: bus,
      power_watts: watts,
      shunt_ohms: ISENSE_SHUNT_OHMS,
      in_circuit: inCircuit,
      saturated: Math.abs(amps) >= INA_MAX_AMPS * 0.97,
      ...(inCircuit
        ? {}
        : {
            note: 'ISENSE_PLUS and ISENSE_MINUS are not both connected: no current can flow through the shunt. Wire them in series with the load.',
          }),
    };
  },
});

/** One resistance estimate, or why the method cannot tell. */
interface Estimate {
  method: 'shunt' | 'divider';
  /** The method had enough signal for a figure. */
  valid: boolean;
  ohms: number;
  /** Bound on the error of `ohms`. */
  errorOhms: number;
  /** When the divider sees no current at all: the resistance is at least this. */
  openAbove?: number;
}

type Reading = readonly [number, number, number];
const invalid = (method: Estimate['method'], openAbove?: number): Estimate => ({
  method,
  valid: false,
  ohms: Number.NaN,
  errorOhms: Number.POSITIVE_INFINITY,
  ...(openAbove === undefined ? {} : { openAbove }),
});

/**
 * Shunt method: DAC1 -> ISENSE shunt -> a, b -> GND. R = drop / current, with the drop measured by
 * ADCs right at a and b (so the crossbar paths do not count) and the current by INA0; two drive
 * levels (0 V and the test voltage) cancel the offsets of all three. The ADC at a draws its own
 * current through the shunt; it is taken out.
 */
export function shuntEstimate(zero: Reading, driven: Reading): Estimate {
  const dVa = driven[0] - zero[0];
  const dVb = driven[1] - zero[1];
  const amps = driven[2] - zero[2] - dVa / ADC_INPUT_OHMS;
  const dV = 2 * ADC_LSB_VOLTS;
  const dI = 2 * INA_LSB_AMPS;
  if (Math.abs(amps) <= dI) return invalid('shunt');
  const ohms = Math.max(0, (dVa - dVb) / amps);
  const errorOhms = ohms * (GAIN_TOLERANCE + dI / Math.abs(amps)) + dV / Math.abs(amps);
  return { method: 'shunt', valid: true, ohms, errorOhms };
}

/**
 * Divider method: the same drive into a, b left floating on its ADC, whose ~1 Mohm input is the
 * lower leg. R = Rin * (Va / Vb - 1). Good for high resistances; its error is dominated by the
 * ADC input impedance tolerance.
 */
export function dividerEstimate(zero: Reading, driven: Reading): Estimate {
  const dVa = driven[0] - zero[0];
  const dVb = driven[1] - zero[1];
  const dV = 2 * ADC_LSB_VOLTS;
  if (Math.abs(dVb) <= dV) return invalid('divider', ADC_INPUT_OHMS * Math.max(0, Math.abs(dVa) / dV - 1));
  const drop = dVa - dVb;
  if (Math.abs(drop) <= dV) return invalid('divider');
  const ohms = Math.max(0, (ADC_INPUT_OHMS * drop) / dVb);
  const rel = ADC_INPUT_TOLERANCE + GAIN_TOLERANCE + dV / Math.abs(drop) + dV / Math.abs(dVb);
  return { method: 'divider', valid: true, ohms, errorOhms: ohms * rel };
}

const RESISTANCE_METHODS = ['auto', 'shunt', 'divider'] as const;

export const resistanceMeasure = defineTool({
  name: 'resistance_measure',
  title: 'Measure resistance between two nodes',
  description:
    'Measure a part between two free nodes by driving DAC1 (test_volts, at most ~40 mA) through the ISENSE shunt; returns ohms with an error bound (about ±5% from 10 ohm to 5 kohm, ±15% from 100 kohm to 10 Mohm, up to ±25% between). Borrows DAC1 (its output only: the stored setpoint stays), ISENSE and two ADCs and restores them. Refused while the waveform generator runs (it would drive DAC1, or hold up the routing).',
  group: 'measure',
  kind: 'physical',
  capability: 'jumperless.power',
  timeoutMs: 20_000,
  requires: [
    'dac_set',
    'dac_get',
    'adc_get',
    'ina_get_current',
    'connect',
    'disconnect',
    'wavegen_is_running',
    'wavegen_get_output',
    ...SNAPSHOT_REQUIRES,
  ],
  input: z.object({
    a: nodeArg.describe('One end of the part (a row or Nano pin with nothing else bridged to it)'),
    b: nodeArg.describe('The other end'),
    test_volts: z.number().min(0.2).max(5).default(3.3).describe('Drive voltage on DAC1, 0.2-5 V'),
    method: z.enum(RESISTANCE_METHODS).default('auto').describe('auto picks the smaller error'),
    samples: z.number().int().min(1).max(32).default(4),
  }),
  output: z.object({
    a: z.string(),
    b: z.string(),
    ohms: z.number().nullable().describe('null when the method sees an open circuit'),
    error_ohms: z.number().nullable().describe('Bound on the error of ohms'),
    error_percent: z.number().nullable(),
    open: z.boolean(),
    min_ohms: z.number().optional().describe('When open: the resistance is at least this'),
    method: z.enum(['shunt', 'divider']),
    test_volts: z.number(),
    current_amps: z.number().describe('Current through the part in the shunt stage'),
  }),
  handle: async ({ a: argA, b: argB, test_volts, method, samples }, { board, safety }) => {
    checkVolts(safety, test_volts, 'DAC1');
    const a = partEnd(argA);
    const b = partEnd(argB);
    if (a.id === b.id) throw new ToolError('invalid_node', 'The two ends must be different nodes.');
    const snapshot = await readSnapshot(board);
    for (const end of [a, b]) {
      if (touches(snapshot.bridges, end.id)) {
        throw new ToolError(
          'in_circuit',
          `${end.name} is bridged to other nodes: disconnect it first, so only the part is measured.`,
        );
      }
    }
    for (const id of [DAC1, ISENSE_PLUS, ISENSE_MINUS]) {
      if (touches(snapshot.bridges, id)) {
        throw new ToolError(
          'busy',
          `${nodeLabel(id)} is in use by your circuit; the measurement needs it free.`,
        );
      }
    }
    await assertNoWave(board, { supply: 1, routing: true });
    const [adcA, adcB] = freeAdcs(snapshot);
    if (adcA === undefined || adcB === undefined) {
      throw new ToolError(
        'no_free_adc',
        'The measurement needs two free ADCs (of ADC0-ADC3): disconnect some.',
      );
    }
    const ground: [number, number] = [b.id, GND];
    const pairs: Array<[number, number]> = [
      [DAC1, ISENSE_PLUS],
      [ISENSE_MINUS, a.id],
      [adcA, a.id],
      [adcB, b.id],
      ground,
    ];
    const dacBefore = snapshot.state.power.dac1;
    const raw = await restoring(
      () =>
        board.call(
          py`_jlt.meas_res(${pairs}, ${ground}, ${adcA - ADC0}, ${adcB - ADC0}, ${test_volts}, ${SETTLE_MS}, ${samples})`,
        ),
      async () => {
        await board.call(py`_jlt.meas_dac_back(1, ${dacBefore})`, noSignal);
        await restoreBridges(board, snapshot.bridges, pairs);
      },
    );
    const reading = z.tuple([z.number(), z.number(), z.number()]);
    const out = z
      .object({ routed: z.boolean(), shunt: z.array(reading), divider: z.array(reading) })
      .parse(raw);
    const [s0, s1] = out.shunt;
    const [d0, d1] = out.divider;
    if (!out.routed || !s0 || !s1 || !d0 || !d1) {
      throw new ToolError(
        'unrouted',
        'The board could not route the measurement paths; nothing was measured.',
      );
    }
    const shunt = shuntEstimate(s0, s1);
    const divider = dividerEstimate(d0, d1);
    const allowed = [shunt, divider].filter((c) => c.valid && (method === 'auto' || c.method === method));
    const current = s1[2] - s0[2];
    const base = { a: a.name, b: b.name, test_volts, current_amps: round(current) };
    const best = allowed.reduce<Estimate | undefined>(
      (x, y) => (!x || y.errorOhms < x.errorOhms ? y : x),
      undefined,
    );
    if (best) {
      return {
        ...base,
        ohms: round(best.ohms),
        error_ohms: round(best.errorOhms, 2),
        error_percent: best.ohms > 0 ? round((best.errorOhms / best.ohms) * 100, 2) : null,
        open: false,
        method: best.method,
      };
    }
    if (!shunt.valid && divider.openAbove !== undefined) {
      return {
        ...base,
        ohms: null,
        error_ohms: null,
        error_percent: null,
        open: true,
        min_ohms: round(divider.openAbove, 2),
        method: 'divider' as const,
      };
    }
    throw new ToolError(
      'out_of_range',
      `The ${method} method cannot resolve this resistance: use method "auto" or a higher test_volts.`,
    );
  },
});

/** A resistance end: a row or Nano pin (the supplies and internal nodes are the instrument). */
function partEnd(arg: NodeArg): ResolvedNode {
  const node = routableNode(arg);
  const kind = nodeInfo(node.id)?.kind;
  if (kind !== 'row' && kind !== 'nano') {
    throw new ToolError(
      'invalid_node',
      `${node.name} is not a breadboard row or Nano pin: measure between rows.`,
    );
  }
  return node;
}

const SWEEP_SUPPLIES = ['DAC1', 'TOP_RAIL', 'BOTTOM_RAIL'] as const;
const SWEEP_CHANNEL: Record<(typeof SWEEP_SUPPLIES)[number], number> = {
  DAC1: 1,
  TOP_RAIL: 2,
  BOTTOM_RAIL: 3,
};
const POWER_KEY = { DAC1: 'dac1', TOP_RAIL: 'top_rail', BOTTOM_RAIL: 'bottom_rail' } as const;

const sweepPoint = z.object({
  supply_volts: z.number(),
  node_volts: z.number().optional(),
  current_amps: z.number().optional(),
});

export const voltageSweep = defineTool({
  name: 'voltage_sweep',
  title: 'Sweep a supply and measure (I-V curve)',
  description:
    'Step DAC1 or a rail from start_volts to stop_volts; at each point read the voltage at a node (through a free ADC) and/or the ISENSE current. Returns the points and a plot (I-V curve when both are read). Drives real hardware; the steps move the output only (the stored setpoint, which get_state and power_get report meanwhile, stays), and the output is driven back to that setpoint afterwards, also when cancelled. Refused while the waveform generator drives the supply, or runs at all when an ADC must be routed.',
  group: 'measure',
  kind: 'physical',
  capability: 'jumperless.power',
  timeoutMs: 120_000,
  requires: [
    'dac_set',
    'dac_get',
    'adc_get',
    'ina_get_current',
    'connect',
    'disconnect',
    'wavegen_is_running',
    'wavegen_get_output',
    ...SNAPSHOT_REQUIRES,
  ],
  input: z.object({
    supply: z.enum(SWEEP_SUPPLIES).describe('Supply to sweep (DAC0 powers the probe and is left alone)'),
    start_volts: z.number().min(-8).max(8),
    stop_volts: z.number().min(-8).max(8),
    points: z.number().int().min(2).max(101).default(11),
    node: nodeArg.optional().describe('Node whose voltage to read at each point'),
    measure_current: z.boolean().default(true).describe('Read the ISENSE current (INA0) at each point'),
    settle_ms: z.number().int().min(0).max(1000).default(SWEEP_SETTLE_MS),
    samples: z.number().int().min(1).max(16).default(2),
  }),
  output: z.object({
    supply: z.enum(SWEEP_SUPPLIES),
    node: z.string().optional(),
    points: z.array(sweepPoint),
    restored_volts: z
      .number()
      .describe(
        'The stored setpoint the supply was driven back to after the sweep (a setpoint, not a reading: the sweep never changes it)',
      ),
    plot: z.string().describe('What the attached plot shows'),
  }),
  handle: async (args, context) => {
    const { board, safety, signal } = context;
    checkVolts(safety, args.start_volts, args.supply);
    checkVolts(safety, args.stop_volts, args.supply);
    const node = args.node === undefined ? undefined : routableNode(args.node);
    if (!node && !args.measure_current) {
      throw new ToolError('invalid_arguments', 'Nothing to measure: give a node, or set measure_current.');
    }
    const snapshot = await readSnapshot(board);
    const channel = SWEEP_CHANNEL[args.supply];
    const before = snapshot.state.power[POWER_KEY[args.supply]];
    const adc = node ? adcFor(snapshot, node) : undefined;
    await assertNoWave(board, { supply: channel, routing: adc?.route === true });
    const added: Array<[number, number]> = adc?.route && node ? [[adc.adc, node.id]] : [];
    let restoredVolts = before;
    const points: Array<z.infer<typeof sweepPoint>> = [];
    await restoring(
      async () => {
        if (added.length > 0) {
          const routed = z.boolean().parse(await board.call(py`_jlt.meas_route(${added})`));
          if (!routed) throw new ToolError('unrouted', `Could not route an ADC to ${node?.name}.`);
        }
        for (let i = 0; i < args.points; i++) {
          if (signal.aborted) {
            throw new ToolError('canceled', `Sweep cancelled after ${i} of ${args.points} points.`, {
              details: { points },
            });
          }
          const volts = round(
            args.start_volts + ((args.stop_volts - args.start_volts) * i) / (args.points - 1),
            6,
          );
          const [nodeVolts, amps] = z
            .tuple([z.number().nullable(), z.number().nullable()])
            .parse(
              await board.call(
                py`_jlt.meas_point(${channel}, ${volts}, ${args.settle_ms}, ${adc ? adc.adc - ADC0 : -1}, ${args.samples}, ${args.measure_current})`,
              ),
            );
          points.push({
            supply_volts: volts,
            ...(nodeVolts === null ? {} : { node_volts: round(nodeVolts) }),
            ...(amps === null ? {} : { current_amps: amps }),
          });
          context.progress(i + 1, args.points, progressText(points.at(-1)));
        }
      },
      async () => {
        restoredVolts = z
          .number()
          .parse(await board.call(py`_jlt.meas_dac_back(${channel}, ${before})`, noSignal));
        if (added.length > 0) await restoreBridges(board, snapshot.bridges, added);
      },
    );
    const plot = sweepPlot(args.supply, node?.name, points);
    context.attachImage({ mimeType: 'image/png', data: Buffer.from(plot.png).toString('base64') });
    return {
      supply: args.supply,
      ...(node ? { node: node.name } : {}),
      points,
      restored_volts: restoredVolts,
      plot: plot.caption,
    };
  },
});

function progressText(point: z.infer<typeof sweepPoint> | undefined): string {
  if (!point) return '';
  const parts = [`${point.supply_volts} V`];
  if (point.node_volts !== undefined) parts.push(`node ${point.node_volts} V`);
  if (point.current_amps !== undefined) parts.push(`${round(point.current_amps * 1000)} mA`);
  return parts.join(', ');
}

/** I-V curve when both were read, else the one reading against the supply. */
function sweepPlot(
  supply: string,
  node: string | undefined,
  points: ReadonlyArray<z.infer<typeof sweepPoint>>,
): { png: Uint8Array; caption: string } {
  const haveV = node !== undefined;
  const haveI = points.some((p) => p.current_amps !== undefined);
  const ma = (p: z.infer<typeof sweepPoint>) => (p.current_amps ?? Number.NaN) * 1000;
  const nv = (p: z.infer<typeof sweepPoint>) => p.node_volts ?? Number.NaN;
  if (haveV && haveI) {
    const caption = `I-V curve: ISENSE current (mA) against the voltage at ${node} (V), sweeping ${supply}`;
    return {
      caption,
      png: plotPng({
        title: `I-V AT ${node}`,
        xLabel: `V(${node}) (V)`,
        yLabel: 'CURRENT (MA)',
        points: points.map((p) => [nv(p), ma(p)]),
      }),
    };
  }
  if (haveV) {
    return {
      caption: `Voltage at ${node} (V) against the ${supply} setpoint (V)`,
      png: plotPng({
        title: `V(${node}) VS ${supply}`,
        xLabel: `${supply} (V)`,
        yLabel: `V(${node}) (V)`,
        points: points.map((p) => [p.supply_volts, nv(p)]),
      }),
    };
  }
  return {
    caption: `ISENSE current (mA) against the ${supply} setpoint (V)`,
    png: plotPng({
      title: `CURRENT VS ${supply}`,
      xLabel: `${supply} (V)`,
      yLabel: 'CURRENT (MA)',
      points: points.map((p) => [p.supply_volts, ma(p)]),
    }),
  };
}

export default [voltageMeasure, currentMeasure, resistanceMeasure, voltageSweep];
