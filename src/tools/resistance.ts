/**
 * resistance_measure (spec §8.5-§8.6): a part between two free nodes, driven from DAC1 through the
 * ISENSE shunt and read with two ADCs, as two estimates (shunt and divider) with error bounds.
 */
import { z } from 'zod';
import { ADC0, DAC1, GND, ISENSE_MINUS, ISENSE_PLUS, nodeInfo } from '../board/nodes.js';
import { ToolError } from '../core/errors.js';
import {
  ADC_SPAN,
  assertNoWave,
  freeAdcs,
  noSignal,
  restoreBridges,
  restoring,
  round,
  SETTLE_MS,
  SUPPLY_MEASURE_REQUIRES,
  touches,
} from './measureRouting.js';
import { type NodeArg, type ResolvedNode, routableNode } from './nodeArg.js';
import { py } from './py.js';
import type { PythonPart } from './pythonParts.js';
import { checkVolts } from './safety.js';
import { nodeValue } from './shapes.js';
import { nodeLabel, readSnapshot } from './snapshot.js';
import { defineDeviceTool } from './tool.js';

/** Board-side helper, inside `_jlt`: both stages of the measurement in one job, restored in `finally`. */
export const resistancePython: PythonPart = {
  name: 'resistance',
  source: `
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
`,
};

/** One ADC step (12 bits over the ±8.9 V span). */
const ADC_LSB_VOLTS = (ADC_SPAN.max - ADC_SPAN.min) / 4095;
/** INA219 current register step as the firmware configures it (1 A / 32768). */
const INA_LSB_AMPS = 1 / 32768;
/** ADC input impedance, "about 1 Mohm" (spec §8.5); the divider method depends on it. */
const ADC_INPUT_OHMS = 1e6;
const ADC_INPUT_TOLERANCE = 0.1;
/** Gain error assumed for the ADCs and the INA together. */
const GAIN_TOLERANCE = 0.02;

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

export const resistanceMeasure = defineDeviceTool({
  name: 'resistance_measure',
  title: 'Measure resistance between two nodes',
  description:
    'Ohms between two otherwise unbridged nodes. Drives DAC1 (40 mA max); refused while a wave runs.',
  group: 'measure',
  kind: 'physical',
  capability: 'jumperless.power',
  timeoutMs: 20_000,
  requires: SUPPLY_MEASURE_REQUIRES,
  input: z.object({
    a: nodeValue,
    b: nodeValue,
    test_volts: z.number().min(0.2).max(5).default(3.3),
    method: z.enum(RESISTANCE_METHODS).default('auto'),
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
