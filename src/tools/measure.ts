/**
 * The measure group (spec §6.6, §8.5-§8.6, §8.8): voltage at any node through a free ADC and the
 * INA0 current sensor here; resistance between two nodes (resistance.ts) and supply sweeps
 * (sweep.ts); the instrument routing they share, and how each tool leaves the board as it found it,
 * in measureRouting.ts.
 */
import { z } from 'zod';
import { ISENSE_SHUNT_OHMS } from '../board/limits.js';
import { ADC0, ISENSE_MINUS, ISENSE_PLUS } from '../board/nodes.js';
import type { PythonPart } from './boardClient.js';
import {
  ADC_SPAN,
  adcFor,
  assertNoWave,
  measureRoutingPython,
  restoreBridges,
  restoring,
  round,
  SETTLE_MS,
  touches,
} from './measureRouting.js';
import { nodeArg, routableNode } from './nodeArg.js';
import { py } from './py.js';
import { resistanceMeasure, resistancePython } from './resistance.js';
import { nodeLabel, readSnapshot, SNAPSHOT_REQUIRES, snapshotPython } from './snapshot.js';
import { sweepPython, voltageSweep } from './sweep.js';
import { historyPython } from './system.js';
import { defineDeviceTool, ToolError } from './tool.js';

/** Board-side helpers, inside `_jlt`: a reading at a node (routing an ADC there for it), and INA0. */
const measurePython: PythonPart = {
  name: 'measure',
  source: `
def meas_volts(ch, anode, node, settle, n):
    import time as _t
    added = anode is not None and not is_connected(anode, node)
    h0 = _jlt.hist_now() if added else None
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
            _jlt.hist_mark(h0)
def meas_ina(s, n):
    c = 0.0
    v = 0.0
    w = 0.0
    for i in range(n):
        c += ina_get_current(s)
        v += ina_get_bus_voltage(s)
        w += ina_get_power(s)
    return [c / n, v / n, w / n]
`,
};

/** The board-side parts the measure tools call (the snapshot for the bridge lists and path checks). */
export const python: readonly PythonPart[] = [
  snapshotPython,
  historyPython,
  measureRoutingPython,
  measurePython,
  resistancePython,
  sweepPython,
];

/** The shunt ADC saturates at ±320 mV over the 2 ohm shunt (spec §8.6). */
const INA_MAX_AMPS = 0.32 / ISENSE_SHUNT_OHMS;

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

export const voltageMeasure = defineDeviceTool({
  name: 'voltage_measure',
  title: 'Measure voltage at a node',
  description:
    'Volts at a node (-8.9..+8.9 V) via an ADC routed for the read; an undriven node reads about 0 V. Refused while the wave runs, unless the node is on an ADC.',
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
    samples: z.number().int().min(1).max(64).default(4),
    settle_ms: z.number().int().min(0).max(1000).default(SETTLE_MS),
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

export const currentMeasure = defineDeviceTool({
  name: 'current_measure',
  title: 'Measure current through ISENSE',
  description:
    'Amps through the 2 ohm shunt ISENSE_PLUS to ISENSE_MINUS (in series with the load; about +-0.16 A), with bus volts and power.',
  group: 'measure',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['ina_get_current', 'ina_get_bus_voltage', 'ina_get_power', ...SNAPSHOT_REQUIRES],
  input: z.object({
    samples: z.number().int().min(1).max(64).default(4),
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

export default [voltageMeasure, currentMeasure, resistanceMeasure, voltageSweep];
