/**
 * voltage_sweep (spec §8.8): steps DAC1 or a rail, reads a node and/or the ISENSE current at each
 * point, drives the supply back to its setpoint after, and plots what it read.
 */
import { z } from 'zod';
import { ADC0, BOTTOM_RAIL, DAC1, ISENSE_MINUS, ISENSE_PLUS, TOP_RAIL } from '../board/nodes.js';
import { ToolError } from '../core/errors.js';
import { py } from '../device/pyLiteral.js';
import {
  adcFor,
  assertNoWave,
  LOADING,
  noSignal,
  restoreBridges,
  restoring,
  round,
  SUPPLY_MEASURE_REQUIRES,
  touches,
} from './measureRouting.js';
import { routableNode } from './nodeArg.js';
import { plotPng } from './plot.js';
import type { PythonPart } from './pythonParts.js';
import { checkVolts } from './safety.js';
import { nodeValue, voltsArg } from './shapes.js';
import { type BoardSnapshot, netOf, nodeLabel, readSnapshot } from './snapshot.js';
import { defineDeviceTool } from './tool.js';

/** Board-side helper, inside `_jlt`: one point of the sweep. */
export const sweepPython: PythonPart = {
  name: 'sweep',
  source: `
def meas_point(ch, v, settle, adc, n, ina):
    import time as _t
    dac_set(ch, v, False)
    _t.sleep_ms(settle)
    a = None
    i = None
    if adc >= 0:
        a = sum([adc_get(adc) for k in range(n)]) / n
    if ina:
        i = sum([ina_get_current(0) for k in range(n)]) / n
    return [a, i]
`,
};

/**
 * Settling after each step (spec §8.8: 20 ms per DAC step) and reads averaged per point: fixed,
 * so the tool fits a model's budget; a circuit that settles slower is stepped with dac_set and
 * voltage_measure (which take both).
 */
const SWEEP_SETTLE_MS = 20;
const SWEEP_SAMPLES = 2;

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

export const voltageSweep = defineDeviceTool({
  name: 'voltage_sweep',
  title: 'Sweep a supply and measure',
  description:
    "Step a supply; plot a node's volts (an ADC routed to it) or ISENSE mA if on its circuit; restores both.",
  group: 'measure',
  kind: 'physical',
  capability: 'jumperless.power',
  timeoutMs: 120_000,
  requires: SUPPLY_MEASURE_REQUIRES,
  // Strict: settle_ms, samples and measure_current, which it once took, are refused, not dropped.
  input: z.strictObject(
    {
      // Not DAC0: it powers the probe.
      supply: z.enum(SWEEP_SUPPLIES),
      start_volts: voltsArg,
      stop_volts: voltsArg,
      points: z.number().int().min(2).max(101).default(11),
      node: nodeValue.optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `voltage_sweep takes no ${issue.keys.join(', ')}: it settles ${SWEEP_SETTLE_MS} ms a point and reads the ISENSE current when ISENSE is on the circuit (step slower circuits with dac_set and voltage_measure)`
          : undefined,
    },
  ),
  output: z.object({
    supply: z.enum(SWEEP_SUPPLIES),
    node: z.string().optional(),
    read_by: z
      .string()
      .optional()
      .describe('Which ADC read the node, and whether it was bridged for the sweep only'),
    loading: z.string().optional().describe('How much the ADC loads the node (node_volts read a little low)'),
    points: z.array(sweepPoint),
    current: z.string().describe('Whether the points hold the ISENSE current, and why not when they do not'),
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
    const snapshot = await readSnapshot(board);
    const channel = SWEEP_CHANNEL[args.supply];
    const before = snapshot.state.power[POWER_KEY[args.supply]];
    const adc = node ? adcFor(snapshot, node) : undefined;
    const sensed = senseInCircuit(snapshot, SUPPLY_NODE[args.supply], node?.id);
    if (!node && !sensed.inCircuit) {
      throw new ToolError(
        'nothing_to_measure',
        `Give a node to read against ${args.supply}, or wire ISENSE into its circuit for the current: ${sensed.why}.`,
      );
    }
    await assertNoWave(board, { supply: channel, routing: adc?.route === true });
    const added: Array<[number, number]> = adc?.route && node ? [[adc.adc, node.id]] : [];
    let restoredVolts = before;
    let history: [number, number] | null = null;
    const points: Array<z.infer<typeof sweepPoint>> = [];
    await restoring(
      async () => {
        if (added.length > 0) {
          const [routed, h0] = z
            .tuple([z.boolean(), z.tuple([z.number(), z.number()]).nullable()])
            .parse(await board.call(py`_jlt.meas_route(${added})`));
          history = h0;
          if (!routed) throw new ToolError('unrouted', `Could not route an ADC to ${node?.name}.`);
        }
        // Stopped (a cancel, the deadline): the points so far are the answer, with the supply restored.
        const stopped = () =>
          new ToolError('canceled', `Sweep cancelled after ${points.length} of ${args.points} points.`, {
            details: { points },
          });
        for (let i = 0; i < args.points; i++) {
          if (signal.aborted) throw stopped();
          const volts = round(
            args.start_volts + ((args.stop_volts - args.start_volts) * i) / (args.points - 1),
            6,
          );
          const [nodeVolts, amps] = z.tuple([z.number().nullable(), z.number().nullable()]).parse(
            await board
              .call(
                py`_jlt.meas_point(${channel}, ${volts}, ${SWEEP_SETTLE_MS}, ${adc ? adc.adc - ADC0 : -1}, ${SWEEP_SAMPLES}, ${sensed.inCircuit})`,
              )
              .catch((error: unknown) => {
                throw signal.aborted ? stopped() : error;
              }),
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
        if (added.length > 0) {
          await board.call(py`_jlt.meas_unroute(${added}, ${history})`, noSignal);
          await restoreBridges(board, snapshot.bridges, added);
        }
      },
    );
    const plot = sweepPlot(args.supply, node?.name, points);
    context.attachImage({ mimeType: 'image/png', data: Buffer.from(plot.png).toString('base64') });
    return {
      supply: args.supply,
      ...(node ? { node: node.name } : {}),
      ...(node && adc ? { read_by: readBy(adc, node.name), loading: LOADING } : {}),
      points,
      current: sensed.inCircuit ? 'ISENSE current read at every point' : `not read: ${sensed.why}`,
      restored_volts: restoredVolts,
      plot: plot.caption,
    };
  },
});

/** Which ADC read the node: the sweep bridges one when the node's net has none (a trial's guess). */
function readBy(adc: { adc: number; route: boolean }, node: string): string {
  const name = nodeLabel(adc.adc);
  if (!adc.route) return name === node ? `${name} itself` : `${name}, already on ${node}'s net`;
  return `${name}, bridged to ${node} for the sweep and removed after`;
}

function progressText(point: z.infer<typeof sweepPoint> | undefined): string {
  if (!point) return '';
  const parts = [`${point.supply_volts} V`];
  if (point.node_volts !== undefined) parts.push(`node ${point.node_volts} V`);
  if (point.current_amps !== undefined) parts.push(`${round(point.current_amps * 1000)} mA`);
  return parts.join(', ');
}

/** A node's volts against the supply when a node was given, else the current against the supply. */
function sweepPlot(
  supply: string,
  node: string | undefined,
  points: ReadonlyArray<z.infer<typeof sweepPoint>>,
): { png: Uint8Array; caption: string } {
  if (node !== undefined) {
    return {
      caption: `Voltage at ${node} (V) against the ${supply} setpoint (V)`,
      png: plotPng({
        title: `V(${node}) VS ${supply}`,
        xLabel: `${supply} (V)`,
        yLabel: `V(${node}) (V)`,
        points: points.map((p) => [p.supply_volts, p.node_volts ?? Number.NaN]),
      }),
    };
  }
  return {
    caption: `ISENSE current (mA) against the ${supply} setpoint (V)`,
    png: plotPng({
      title: `CURRENT VS ${supply}`,
      xLabel: `${supply} (V)`,
      yLabel: 'CURRENT (MA)',
      points: points.map((p) => [p.supply_volts, (p.current_amps ?? Number.NaN) * 1000]),
    }),
  };
}

const SUPPLY_NODE: Record<(typeof SWEEP_SUPPLIES)[number], number> = {
  DAC1,
  TOP_RAIL,
  BOTTOM_RAIL,
};

/**
 * Whether the ISENSE shunt is in the swept circuit: ISENSE_PLUS or ISENSE_MINUS on the supply's net
 * or on the measured node's. The board sees only its own bridges, so a shunt reached through a part
 * on the breadboard does not count; its current could belong to any other circuit (spec §8.6).
 */
export function senseInCircuit(
  snapshot: BoardSnapshot,
  supply: number,
  node: number | undefined,
): { inCircuit: boolean; why: string } {
  const nets = [netOf(snapshot, supply), node === undefined ? undefined : netOf(snapshot, node)];
  const onNet = nets.some((net) => net?.node_ids.some((id) => id === ISENSE_PLUS || id === ISENSE_MINUS));
  if (onNet) return { inCircuit: true, why: '' };
  const wired = touches(snapshot.bridges, ISENSE_PLUS) || touches(snapshot.bridges, ISENSE_MINUS);
  const where =
    node === undefined
      ? `the ${nodeLabel(supply)} net`
      : `the ${nodeLabel(supply)} net or ${nodeLabel(node)}'s`;
  return {
    inCircuit: false,
    why: wired
      ? `ISENSE is wired into another circuit, not on ${where}, so its current is not this circuit's`
      : `ISENSE_PLUS and ISENSE_MINUS are not on ${where}`,
  };
}
