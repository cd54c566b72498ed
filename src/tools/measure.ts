/**
 * The measure group (spec §6.6, §8.5-§8.6, §8.8): voltage at any node through a free ADC and the
 * INA0 current sensor here; resistance between two nodes (resistance.ts) and supply sweeps
 * (sweep.ts); the instrument routing they share, and how each tool leaves the board as it found it,
 * in measureRouting.ts.
 */
import { z } from 'zod';
import { ISENSE_SHUNT_OHMS, PATH_OHMS } from '../board/limits.js';
import { ADC0, ISENSE_MINUS, ISENSE_PLUS } from '../board/nodes.js';
import { ToolError } from '../core/errors.js';
import { py } from '../device/pyLiteral.js';
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
import type { PythonPart } from './pythonParts.js';
import { resistanceMeasure, resistancePython } from './resistance.js';
import { nodeLabel, readSnapshot, SNAPSHOT_REQUIRES, snapshotPython } from './snapshot.js';
import { sweepPython, voltageSweep } from './sweep.js';
import { historyPython } from './system.js';
import { defineDeviceTool } from './tool.js';

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
def meas_window(ms, every):
    import time as _t
    t0 = _t.ticks_ms()
    out = []
    while True:
        t = _t.ticks_diff(_t.ticks_ms(), t0)
        out.append([t, ina_get_current(0)])
        if t >= ms:
            break
        _t.sleep_ms(every)
    return [out, ina_get_bus_voltage(0)]
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

/**
 * The reference of every reading, in the result: a trial asked to read a battery-fed divider could
 * not tell whether the volts were against the board's GND or the battery's minus (issue 20). An
 * ADC reads its node against the board's ground, which its 1 Mohm input returns to (spec
 * jumperless-v5.md §D; src/sim/firmware/circuit.ts models it so).
 */
const AGAINST =
  "the board's GND: a battery or outside supply reads right only with its minus joined to GND" as const;

/*
 * Why voltage_measure routes an ADC on 5.7.11 too, though the board lists get_node_voltage: nothing
 * says how old the scan's number is, and it can be the board as it was before the caller's last
 * change. It is a blend of taps (30 % each) kept while younger than 5 s, a supply change does not
 * clear it, the wipe after a routing change waits for the scan's next pass, and no pass runs within
 * 100 ms of user input, raw-REPL traffic included (Architeuthis-Flux/JumperlOS@09391b7
 * src/NetVoltageScan.cpp: kVoltageFreshMs, serviceNetVoltageScan; SophisticaSean/JumperlOS@d66858f
 * src/snakes/MpRemoteService.cpp: noteUserInput after each raw-REPL batch). No call reports its age
 * or runs a pass on demand (modjumperless.c@796c56c), so a host cannot know a value is fresh.
 */
export const voltageMeasure = defineDeviceTool({
  name: 'voltage_measure',
  title: 'Measure voltage at a node',
  description:
    "Volts at a node vs the board's GND (-8.9..+8.9 V) by an ADC (1 Mohm load) routed to it; undriven: ~0 V. Refused while the wave runs, unless on an ADC.",
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
    samples: z.number().int().min(1).max(64).default(4).describe('Averaged; raise if noisy'),
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
    against: z.literal(AGAINST).describe('What the volts are measured against'),
    loading: z.string().describe('How much the ADC loads the node'),
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
      against: AGAINST,
      loading: LOADING,
    };
  },
});

/**
 * The ADCs' input resistance: about 1 Mohm (spec jumperless-v5.md §D, "Input impedance about 1 MΩ"),
 * as the virtual board models it (src/sim/firmware/circuit.ts ADC_INPUT_OHMS). A model reading a
 * divider 0.5 % low could not tell whether the ADC loaded it (issue 20).
 */
const ADC_INPUT_OHMS = 1e6;
const LOADING = `About ${ADC_INPUT_OHMS / 1e6} Mohm to GND: a source of R ohms reads low by about R / ${ADC_INPUT_OHMS / 1e6} Mohm (a 10k/10k divider, 5 k: 0.5 % low).`;

/** Time between current samples over a window: a 50 Hz blink is still seen edge by edge. */
const WINDOW_EVERY_MS = 5;
/** The window a slow blink is read again over (two periods of 0.5 Hz). */
const LONG_WINDOW_MS = 4000;

export const currentMeasure = defineDeviceTool({
  name: 'current_measure',
  title: 'Measure current through ISENSE',
  description:
    "mA through ISENSE (in series with the load, +-160 mA) over a window: mean, min, max; a blink's on/off mA, frequency (+-), duty. 1000 ms times >= 2 Hz; slower: read again over 4 s.",
  group: 'measure',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['ina_get_current', 'ina_get_bus_voltage', ...SNAPSHOT_REQUIRES],
  timeoutMs: 30_000,
  input: z.object({
    window_ms: z.number().int().min(0).max(10_000).default(1000),
  }),
  output: z.object({
    milliamps: z.number().describe('Mean over the window'),
    min_milliamps: z.number().describe('Smallest single reading'),
    max_milliamps: z.number().describe('Largest single reading (one spike counts)'),
    on_milliamps: z.number().optional().describe("A switching current's mean while on"),
    off_milliamps: z.number().optional().describe("A switching current's mean while off"),
    changing: z.boolean().describe('The current moved by more than the noise within the window'),
    frequency_hz: z.number().optional().describe('Of a current that switches on and off'),
    window_extended: z.string().optional().describe('The window was lengthened to time a slow blink'),
    frequency_plus_minus_hz: z
      .number()
      .optional()
      .describe('One standard deviation, from the sample spacing'),
    duty: z.number().optional().describe('Fraction of the time at the high level'),
    samples: z.number(),
    window_ms: z.number(),
    isense_minus_volts: z
      .number()
      .describe('Load side of the shunt: supply less shunt and crossbar drops; >= 0'),
    in_circuit: z.boolean().describe('ISENSE_PLUS and ISENSE_MINUS are both bridged to something'),
    saturated: z.boolean(),
    note: z.string().optional(),
  }),
  handle: async ({ window_ms }, { board }) => {
    const snapshot = await readSnapshot(board);
    const read = async (ms: number) =>
      z
        .tuple([z.array(z.tuple([z.number(), z.number()])).min(1), z.number()])
        .parse(await board.call(py`_jlt.meas_window(${ms}, ${WINDOW_EVERY_MS})`, { timeoutMs: ms + 10_000 }));
    let [samples, bus] = await read(window_ms);
    let shape = currentShape(samples);
    // A switching current with too few edges to time is slower than the window: look once more, longer,
    // rather than leave the model to guess a window for a period it does not know.
    let extended: string | undefined;
    if (shape.changing && shape.frequency === undefined && window_ms < LONG_WINDOW_MS) {
      [samples, bus] = await read(LONG_WINDOW_MS);
      shape = currentShape(samples);
      extended = `It switched but showed under two like edges in ${window_ms} ms, so it was read again over ${LONG_WINDOW_MS} ms (sees blinks from ${round(2000 / LONG_WINDOW_MS, 2)} Hz).`;
    }
    const inCircuit = touches(snapshot.bridges, ISENSE_PLUS) && touches(snapshot.bridges, ISENSE_MINUS);
    return {
      ...(extended ? { window_extended: extended } : {}),
      milliamps: round(shape.mean * 1000),
      min_milliamps: round(shape.min * 1000),
      max_milliamps: round(shape.max * 1000),
      changing: shape.changing,
      ...(shape.on === undefined ? {} : { on_milliamps: round(shape.on * 1000) }),
      ...(shape.off === undefined ? {} : { off_milliamps: round(shape.off * 1000) }),
      ...(shape.frequency === undefined
        ? {}
        : {
            frequency_hz: round(shape.frequency, 3),
            frequency_plus_minus_hz: round(shape.frequencyError ?? 0, 2),
          }),
      ...(shape.duty === undefined ? {} : { duty: round(shape.duty, 2) }),
      samples: samples.length,
      window_ms: samples.at(-1)?.[0] ?? 0,
      isense_minus_volts: round(bus),
      in_circuit: inCircuit,
      saturated: Math.max(Math.abs(shape.min), Math.abs(shape.max)) >= INA_MAX_AMPS * 0.97,
      ...(inCircuit
        ? Math.abs(shape.max) >= 0.0005
          ? { note: pathNote(Math.abs(shape.on ?? shape.mean)) }
          : {}
        : {
            note: 'ISENSE_PLUS and ISENSE_MINUS are not both connected: no current can flow through the shunt. Wire them in series with the load.',
          }),
    };
  },
});

/**
 * What a model reading isense_minus_volts below the supply cannot know: a bridge is a crossbar path
 * of about PATH_OHMS, not a wire (a trial blamed the rail). The drop is per path at this current.
 */
function pathNote(amps: number): string {
  const drop = round(amps * PATH_OHMS, 2);
  return `Each bridge is a crossbar path of about ${PATH_OHMS} ohm (extra parallel paths lower it), not 0: at ${round(amps * 1000, 2)} mA each path drops about ${drop} V, the shunt ${round(amps * ISENSE_SHUNT_OHMS, 3)} V.`;
}

/** INA219 current register step as firmware 5.7.0.13 configures it (1 A / 32768). */
const INA_LSB_AMPS = 1 / 32768;
/** A swing smaller than this is noise, not a change (a few sensor steps). */
const CHANGE_AMPS = 4 * INA_LSB_AMPS;

/**
 * What a current does over a window of [ms, amps] samples: its mean, extremes, whether it moves,
 * and when it switches between two levels (a blinking LED, PWM slow enough to follow), how often
 * and for what part of the time it is high. Edges are counted with hysteresis about the middle.
 */
export function currentShape(samples: ReadonlyArray<readonly [number, number]>): {
  mean: number;
  min: number;
  max: number;
  changing: boolean;
  frequency?: number;
  /** One standard deviation of `frequency`, from the sample gaps the edges fell in. */
  frequencyError?: number;
  duty?: number;
  on?: number;
  off?: number;
  /** Rising edges seen. */
  edges?: number;
} {
  const amps = samples.map(([, a]) => a);
  // Each reading stands for the time until the next one: readings come unevenly on a busy board,
  // and counting them alike read a 2 Hz, half-on blink as 29 % on over one second.
  const weights = heldFor(samples);
  const total = weights.reduce((s, w) => s + w, 0);
  const mean = amps.reduce((s, a, i) => s + a * (weights[i] ?? 0), 0) / total;
  const min = Math.min(...amps);
  const max = Math.max(...amps);
  const changing = max - min > CHANGE_AMPS;
  if (!changing) return { mean, min, max, changing };
  const high = min + 0.6 * (max - min);
  const low = min + 0.4 * (max - min);
  let state: boolean | undefined;
  /** When the current was last seen at its old level: an edge lies between then and the next sample. */
  let lastSeen: number | undefined;
  const rises: Edge[] = [];
  const falls: Edge[] = [];
  let above = 0;
  // The levels a blink sits at: the mean of the readings beyond each threshold, edges left out.
  const on = { sum: 0, n: 0 };
  const off = { sum: 0, n: 0 };
  for (const [i, [t, a]] of samples.entries()) {
    if (a >= (low + high) / 2) above += weights[i] ?? 0;
    const level = a >= high ? on : a <= low ? off : undefined;
    if (level) {
      level.sum += a;
      level.n++;
    }
    const next = a >= high ? true : a <= low ? false : state;
    // The edge is timed at the middle of the gap it fell in, give or take half the gap: timing it at
    // the sample after (as before) made a late edge of each gap, and a 2 Hz blink read 1.78 Hz under load.
    if (state !== undefined && next !== state && lastSeen !== undefined) {
      (next ? rises : falls).push({ at: (lastSeen + t) / 2, within: (t - lastSeen) / 2 });
    }
    if (next !== undefined && (a >= high || a <= low)) lastSeen = t;
    state = next;
  }
  const duty = above / total;
  const onMean = on.n > 0 ? on.sum / on.n : undefined;
  const offMean = off.n > 0 ? off.sum / off.n : undefined;
  const base = { mean, min, max, changing, duty, on: onMean, off: offMean, edges: rises.length };
  const rate = [periodsOf(rises), periodsOf(falls)].reduce<ReturnType<typeof periodsOf>>(
    (x, y) => (y && (!x || y.span > x.span) ? y : x),
    undefined,
  );
  if (!rate) return base;
  return { ...base, frequency: rate.frequency, frequencyError: rate.error };
}

/**
 * How long each reading stands for: the time to the next reading, the last one the typical gap
 * (a lone reading stands for 1). Readings of one instant share it equally.
 */
function heldFor(samples: ReadonlyArray<readonly [number, number]>): number[] {
  const gaps = samples.slice(1).map(([t], i) => t - (samples[i]?.[0] ?? t));
  const typical = [...gaps].sort((x, y) => x - y)[Math.floor(gaps.length / 2)] ?? 1;
  const weights = [...gaps, typical].map((gap) => Math.max(gap, 0));
  return weights.every((w) => w === 0) ? weights.map(() => 1) : weights;
}

interface Edge {
  /** Middle of the sample gap the edge fell in, ms. */
  at: number;
  /** Half that gap: the edge lies within at +- within. */
  within: number;
}

/** Whole periods between the first and last edge of one kind, over the time between them. */
function periodsOf(edges: readonly Edge[]): { frequency: number; error: number; span: number } | undefined {
  const first = edges[0];
  const last = edges.at(-1);
  if (edges.length < 2 || !first || !last || last.at <= first.at) return undefined;
  const span = last.at - first.at;
  const frequency = ((edges.length - 1) * 1000) / span;
  // Each end is uniform within +-within: its standard deviation is within / sqrt(3); two of them add.
  const error = (frequency * Math.sqrt((first.within ** 2 + last.within ** 2) / 3)) / span;
  return { frequency, error, span };
}

export default [voltageMeasure, currentMeasure, resistanceMeasure, voltageSweep];
