/**
 * resistance_measure (spec §8.5-§8.6): what a two-legged part between two free nodes is, by its
 * current against its voltage. DAC1 drives end a; end b returns through the ISENSE shunt to GND
 * (the shunt on the low side, as the firmware's own part measurement does it, so no ADC current
 * passes the shunt); two ADCs read both ends, so the crossbar paths do not count (Kelvin).
 *
 * It picks range and method itself:
 * 1. a survey at +-0.5..2 V (+-5 V if nothing conducts) tells a resistor (the same conductance
 *    both ways), a diode or LED (one way only), something non-ohmic, or an open;
 * 2. a resistor is then measured at nine drives across the range that keeps it under 10 mA
 *    (+-8 V at most), and its resistance is the slope of a straight line through them: offsets of
 *    the ADCs and the current sensor drop out, and the scatter of the points about the line gives
 *    the uncertainty honestly (a 95 % bound, plus the gain tolerance of the instruments);
 * 3. a diode is stepped forward to 10 mA, where its forward voltage is read (LED datasheets quote
 *    it there), never driven backwards beyond 5 V (an LED's reverse rating).
 */
import { z } from 'zod';
import {
  ADC0,
  BOTTOM_RAIL,
  DAC0,
  DAC1,
  GND,
  GPIO_1,
  GPIO_8,
  ISENSE_MINUS,
  ISENSE_PLUS,
  nodeInfo,
  SUPPLY_3V3,
  SUPPLY_5V,
  SUPPLY_8V_N,
  SUPPLY_8V_P,
  TOP_RAIL,
} from '../board/nodes.js';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import {
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
import type { PythonPart } from './pythonParts.js';
import type { SafetyPolicy } from './safety.js';
import { nodeValue } from './shapes.js';
import { nodeLabel, readSnapshot } from './snapshot.js';
import { defineDeviceTool } from './tool.js';

/** Board-side helper, inside `_jlt`: drive DAC1 at each voltage, average both ADCs and INA0. */
export const resistancePython: PythonPart = {
  name: 'resistance',
  source: `
def meas_ramp(ca, cb, vs, settle, n, lim):
    import time as _t
    out = []
    for v in vs:
        dac_set(1, v, False)
        _t.sleep_ms(settle)
        sa = 0.0
        sb = 0.0
        si = 0.0
        qi = 0.0
        for k in range(n):
            sa += adc_get(ca)
            sb += adc_get(cb)
            x = ina_get_current(0)
            si += x
            qi += x * x
        out.append([v, sa / n, sb / n, si / n, qi / n])
        if abs(si / n) > lim:
            break
    return out
`,
};

/** INA219 current register step as firmware 5.7.0.13 configures it (1 A / 32768). */
const INA_LSB_AMPS = 1 / 32768;
/** Gain error of the ADCs and the current sensor together, after the firmware's calibration. */
const GAIN_TOLERANCE = 0.01;
/** The most current the measurement drives through a part. */
const MAX_AMPS = 0.01;
/** DAC1's series path to a, b's path and the shunt back to GND: about, for choosing the drive. */
const LOOP_OHMS = 150;
/** The highest reverse voltage a part sees (an LED's rating). */
const REVERSE_MAX_VOLTS = 5;
const SURVEY_VOLTS = [0.5, 1, 2];
const WIDE_VOLTS = [3, 4, 5];
const SURVEY_SAMPLES = 16;
/** Points and samples for the line: more where the current is a few sensor steps only. */
const PRECISION = { points: 9, samples: 32 } as const;
const PRECISION_SMALL_CURRENT = { points: 13, samples: 64, belowAmps: 50 * (1 / 32768) } as const;
const DIODE_STEP_VOLTS = 0.1;
const DIODE_SAMPLES = 8;
const DIODE_AMPS = 0.01;

interface Point {
  drive: number;
  /** Volts across the part (Kelvin: ADC at a minus ADC at b). */
  volts: number;
  amps: number;
  /** Standard error of `amps`. */
  ampsError: number;
  /** Volts at each end against GND. */
  ends?: [number, number];
}

const pointSchema = z.array(z.tuple([z.number(), z.number(), z.number(), z.number(), z.number()]));

async function ramp(
  board: BoardClient,
  adcs: readonly [number, number],
  drives: readonly number[],
  samples: number,
  limit: number,
): Promise<Point[]> {
  if (drives.length === 0) return [];
  const rows = pointSchema.parse(
    await board.call(
      py`_jlt.meas_ramp(${adcs[0] - ADC0}, ${adcs[1] - ADC0}, ${[...drives]}, ${SETTLE_MS}, ${samples}, ${limit})`,
      { timeoutMs: 15_000 },
    ),
  );
  return rows.map(([drive, va, vb, amps, square]) => ({
    drive,
    volts: va - vb,
    amps,
    ampsError: Math.sqrt(Math.max(0, square - amps * amps) / samples),
    ends: [va, vb],
  }));
}

/** The current a point must exceed to count as flowing, over its noise and the sensor's step. */
const flowThreshold = (p: Point): number => Math.max(5 * p.ampsError, INA_LSB_AMPS / 2);

/** Least squares of amps on volts: conductance, offset, the conductance's standard error. */
export function fitLine(points: readonly Point[]): { g: number; c: number; se: number; residual: number } {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.volts, 0) / n;
  const my = points.reduce((s, p) => s + p.amps, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.volts - mx) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.volts - mx) * (p.amps - my), 0);
  const g = sxx > 0 ? sxy / sxx : 0;
  const c = my - g * mx;
  const ss = points.reduce((s, p) => s + (p.amps - (g * p.volts + c)) ** 2, 0);
  // A scatter below a tenth of a sensor step is not believed: rounding alone makes that much.
  const residual = Math.max(Math.sqrt(ss / Math.max(1, n - 2)), INA_LSB_AMPS / 10);
  return { g, c, se: sxx > 0 ? residual / Math.sqrt(sxx) : Number.POSITIVE_INFINITY, residual };
}

/** Student's t at 95 % (two-sided) for a few degrees of freedom. */
const T95 = [12.7, 4.3, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.2];
const t95 = (dof: number): number => T95[Math.min(T95.length, Math.max(1, dof)) - 1] ?? 2;

const E12 = [1.0, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2];
const E24 = [
  1.0, 1.1, 1.2, 1.3, 1.5, 1.6, 1.8, 2.0, 2.2, 2.4, 2.7, 3.0, 3.3, 3.6, 3.9, 4.3, 4.7, 5.1, 5.6, 6.2, 6.8,
  7.5, 8.2, 9.1,
];

/** The standard value of a series nearest to `ohms` (in ratio), written as on a parts list: 4.7k, 220, 1M. */
export function nearestStandard(ohms: number, series: readonly number[]): string {
  const decade = 10 ** Math.floor(Math.log10(ohms));
  const candidates = [...series.map((m) => m * decade), 10 * decade, (series.at(-1) ?? 1) * (decade / 10)];
  const best = candidates.reduce((x, y) =>
    Math.abs(Math.log(y / ohms)) < Math.abs(Math.log(x / ohms)) ? y : x,
  );
  return ohmsText(best);
}

function ohmsText(ohms: number): string {
  const [div, suffix] = ohms >= 1e6 ? [1e6, 'M'] : ohms >= 1e3 ? [1e3, 'k'] : [1, ''];
  return `${Number((ohms / div).toPrecision(2))}${suffix}`;
}

/**
 * What a forward voltage says a diode probably is, with the basis in the words: the volts alone
 * cannot tell an LED's colour (a trial read "LED (green)" as fact when 2.1 V fits yellow or red too).
 */
export function diodeKind(vf: number): string {
  const fits = (what: string) => `${what}: ${round(vf, 2)} V forward fits`;
  if (vf < 0.45) return `${fits('diode')} a Schottky`;
  if (vf < 1.0) return `${fits('diode')} silicon`;
  if (vf < 1.6) return `${fits('LED')} infrared or red (colour not measured)`;
  if (vf < 2.0) return `${fits('LED')} red, orange or yellow (colour not measured)`;
  if (vf < 2.6) return `${fits('LED')} green, yellow, orange or red (colour not measured)`;
  return `${fits('LED')} blue, white or true green (colour not measured)`;
}

const resultSchema = z.object({
  a: z.string(),
  b: z.string(),
  kind: z.enum(['resistor', 'diode', 'open', 'non_ohmic']),
  ohms: z.number().optional(),
  /**
   * Named for what it is: a trial read `error_percent` as the part's tolerance or its distance from
   * the E-series value (issue 20). A 95 % bound on this reading, the instruments' gain tolerance included.
   */
  measurement_uncertainty_percent: z
    .number()
    .optional()
    .describe("This reading's 95 % bound, not the part's tolerance"),
  nearest_e12: z.string().optional().describe('The E12 standard value nearest the reading'),
  nearest_e24: z.string().optional().describe('The E24 standard value nearest the reading'),
  anode: z.string().optional(),
  cathode: z.string().optional(),
  forward_volts: z.number().optional().describe('At forward_milliamps'),
  forward_milliamps: z.number().optional(),
  looks_like: z.string().optional().describe('A guess from forward_volts alone'),
  min_ohms: z.number().optional().describe('When open: at least this'),
  /**
   * The most current the measurement put through the part (it keeps under 10 mA). The drive's own
   * volts are not given: a trial could not tell what `max_drive_volts` was the voltage of.
   */
  most_milliamps_through_part: z.number(),
  bridges_on_rows: z.array(z.string()).describe("The bridges on a's and b's rows ([]: none)"),
  lifted: z.array(z.string()).optional().describe("isolate: the rows' bridges, off during the measurement"),
  restored: z.boolean().optional().describe('isolate: the lifted bridges were put back (checked)'),
  note: z.string().optional(),
});
type Result = z.infer<typeof resultSchema>;

export const resistanceMeasure = defineDeviceTool({
  name: 'resistance_measure',
  title: 'Measure a part between two nodes',
  description:
    "What a part between two rows is: ohms (uncertainty, nearest E12/E24), a diode/LED (anode, forward volts), or open. Picks its range; drives DAC1 (10 mA max). Refuses rows with volts on them (also via a part), naming the supply bridge to lift. isolate: true lifts only these two rows' bridges meanwhile.",
  group: 'measure',
  kind: 'physical',
  capability: 'jumperless.power',
  timeoutMs: 30_000,
  requires: SUPPLY_MEASURE_REQUIRES,
  input: z.object({ a: nodeValue, b: nodeValue, isolate: z.boolean().default(false) }),
  output: resultSchema,
  handle: async ({ a: argA, b: argB, isolate }, { board, safety }) => {
    const a = partEnd(argA);
    const b = partEnd(argB);
    if (a.id === b.id) throw new ToolError('invalid_node', 'The two ends must be different nodes.');
    const snapshot = await readSnapshot(board);
    // The user's bridges on either end: lifted for the measurement with isolate, else named in the refusal.
    const lift = snapshot.bridges.filter((v) => [a.id, b.id].some((id) => v.node1 === id || v.node2 === id));
    const liftNames = lift.map((v) => `${v.node1_name}-${v.node2_name}`);
    if (lift.length > 0 && !isolate) {
      throw new ToolError(
        'in_circuit',
        `${[a, b]
          .filter((end) => touches(snapshot.bridges, end.id))
          .map((end) => end.name)
          .join(
            ' and ',
          )} ${lift.length === 1 ? 'has a bridge' : 'have bridges'} (${liftNames.join(', ')}): the measurement would include what they join. isolate: true lifts ${lift.length === 1 ? 'it' : 'them'} for the measurement and puts ${lift.length === 1 ? 'it' : 'them'} back after; or disconnect ${lift.length === 1 ? 'it' : 'them'} yourself.`,
        { details: { bridges: liftNames } },
      );
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
    const pairs: Array<[number, number]> = [
      [DAC1, a.id],
      [b.id, ISENSE_PLUS],
      [ISENSE_MINUS, GND],
      [adcA, a.id],
      [adcB, b.id],
    ];
    const dacBefore = snapshot.state.power.dac1;
    // What could power the rows from elsewhere, for a `powered` refusal (the lifted bridges are off).
    const feeds = snapshot.bridges
      .filter((v) => !lift.includes(v) && (feedsBoard(v.node1, v.node2) || feedsBoard(v.node2, v.node1)))
      .map((v) => `${v.node1_name}-${v.node2_name}`);
    const lifted = lift.map((v) => [v.node1, v.node2, v.duplicates]);
    let history: [number, number] | null = null;
    const result = await restoring(
      async () => {
        const [routed, h0] = z
          .tuple([z.boolean(), z.tuple([z.number(), z.number()]).nullable()])
          .parse(
            await board.call(
              lift.length > 0 ? py`_jlt.meas_lift(${lifted}, ${pairs})` : py`_jlt.meas_route(${pairs})`,
            ),
          );
        history = h0;
        if (!routed) {
          throw new ToolError(
            'unrouted',
            'The board could not route the measurement paths; nothing was measured.',
          );
        }
        return measurePart(board, safety, [adcA, adcB], a, b, feeds);
      },
      async () => {
        await board.call(py`_jlt.meas_dac_back(1, ${dacBefore})`, noSignal);
        // The lifted bridges go back after the measurement's own come out, and the history mark
        // from before the lift covers both (seen to hold on a short history; see the test).
        await board.call(py`_jlt.meas_unroute(${pairs}, ${null})`, noSignal);
        if (lift.length > 0) await board.call(py`_jlt.meas_rejoin(${lifted}, ${history})`, noSignal);
        else await board.call(py`_jlt.meas_unroute(${[]}, ${history})`, noSignal);
        await restoreBridges(board, snapshot.bridges, pairs);
      },
    );
    if (lift.length === 0) return { ...result, bridges_on_rows: [] };
    // restoring() has checked the bridges are back as they were (restoreBridges throws otherwise).
    return {
      ...result,
      bridges_on_rows: liftNames,
      lifted: liftNames,
      restored: true,
      note: 'The lifted bridges are back as they were. Parts on the breadboard still join these rows to the rest of the circuit: a reading that differs from the part alone comes from them.',
    };
  },
});

/** The three stages: survey, then the resistor's line or the diode's forward step. */
async function measurePart(
  board: BoardClient,
  safety: SafetyPolicy,
  adcs: readonly [number, number],
  a: ResolvedNode,
  b: ResolvedNode,
  feeds: readonly string[],
): Promise<Omit<Result, 'bridges_on_rows'>> {
  const up = (volts: readonly number[]) => volts.filter((v) => v <= safety.maxVolts);
  const down = (volts: readonly number[]) =>
    volts.map((v) => -v).filter((v) => v >= Math.max(safety.minVolts, -REVERSE_MAX_VOLTS));
  // Before anything is driven: with the drive at 0 V both ends sit at 0 V and nothing flows,
  // unless something else on the breadboard powers a row (a part to a rail, a GPIO).
  const all: Point[] = await ramp(board, adcs, [0], SURVEY_SAMPLES, MAX_AMPS);
  assertUnpowered(all[0], a, b, feeds);
  const survey = async (volts: readonly number[]) => {
    all.push(...(await ramp(board, adcs, up(volts), SURVEY_SAMPLES, MAX_AMPS)));
    all.push(...(await ramp(board, adcs, down(volts), SURVEY_SAMPLES, MAX_AMPS)));
  };
  await survey(SURVEY_VOLTS);
  let shape = classify(all);
  if (shape === 'open') {
    await survey(WIDE_VOLTS);
    shape = classify(all);
  }
  const base = { a: a.name, b: b.name };
  if (shape === 'open') {
    const widest = all.reduce((x, p) => (Math.abs(p.volts) > Math.abs(x.volts) ? p : x));
    return {
      ...base,
      kind: 'open',
      min_ohms: round(Math.abs(widest.volts) / flowThreshold(widest), 2),
      ...extent(all),
    };
  }
  if (shape === 'resistor') return { ...base, ...(await preciseResistor(board, safety, adcs, all)) };
  if (shape === 'non_ohmic') {
    const { g } = fitLine(all);
    return { ...base, kind: 'non_ohmic', ...(g > 0 ? { ohms: round(1 / g, 3) } : {}), ...extent(all) };
  }
  return {
    ...base,
    ...(await diodeForward(
      board,
      safety,
      adcs,
      all,
      shape === 'diode_forward' ? a : b,
      shape === 'diode_forward' ? b : a,
      shape === 'diode_forward' ? 1 : -1,
    )),
  };
}

/** Volts at an end, and current, at 0 V drive that mean an outside source (far above the noise). */
const POWERED_VOLTS = 0.1;
const POWERED_AMPS = 0.0002;

/** Nodes that put volts on the breadboard through a bridge: supplies, rails, DACs, GPIO pins. */
const SUPPLIES = new Set([
  TOP_RAIL,
  BOTTOM_RAIL,
  SUPPLY_3V3,
  SUPPLY_5V,
  SUPPLY_8V_P,
  SUPPLY_8V_N,
  DAC0,
  DAC1,
]);
const isSupply = (id: number): boolean => SUPPLIES.has(id) || (id >= GPIO_1 && id <= GPIO_8);
/** A supply bridged to a breadboard row or Nano pin (ids below GND), not the board's own (DAC0 to the probe's buffer). */
const feedsBoard = (supply: number, to: number): boolean => isSupply(supply) && to < GND;

/**
 * What to lift, exactly (issue 20: "dac_set 0 V" left the supply's path in parallel with the part,
 * so the reading was still wrong, and it changed the user's setpoint). The board sees bridges, not
 * parts: it names every bridge that brings a supply onto the breadboard; a part plugged straight
 * into a rail strip needs no bridge, so that case is named too.
 */
export function poweredAdvice(feeds: readonly string[]): string {
  const setting =
    'Setting the supply to 0 V is not the same: its path stays in parallel with the part (a wrong reading) and your setpoint changes.';
  if (feeds.length === 0) {
    return `No bridge brings a supply onto the breadboard, so a part plugged into a rail strip (or an outside source) feeds these rows: unplug that lead, measure, plug it back. ${setting}`;
  }
  return `Bridges that bring a supply onto the breadboard now: ${feeds.join(', ')}. The board cannot see parts, so the feed is one of these or a part plugged into a rail strip: disconnect that bridge, measure, then connect it back (or unplug the lead from the rail). ${setting}`;
}

function assertUnpowered(
  rest: Point | undefined,
  a: ResolvedNode,
  b: ResolvedNode,
  feeds: readonly string[],
): void {
  if (rest === undefined) return;
  const live = [a, b]
    .map((end, i) => ({ name: end.name, volts: rest.ends?.[i] ?? 0 }))
    .filter((end) => Math.abs(end.volts) > POWERED_VOLTS);
  if (live.length === 0 && Math.abs(rest.amps) <= POWERED_AMPS) return;
  const where =
    live.length > 0
      ? live.map((end) => `row ${end.name} sits at ${round(end.volts, 3)} V`).join(' and ')
      : `${round(rest.amps * 1000, 3)} mA flows`;
  throw new ToolError(
    'powered',
    `With the measurement's drive at 0 V, ${where}: something else on the breadboard powers these rows (a part to a rail, a supply or a GPIO), and its current would be read as the part's. Nothing was driven and the board is as it was. ${poweredAdvice(feeds)}`,
    { details: { ends: live, milliamps: round(rest.amps * 1000, 3), supply_bridges: feeds } },
  );
}

type Shape = 'open' | 'resistor' | 'diode_forward' | 'diode_reverse' | 'non_ohmic';

/** What the survey shows: which way current flows, and whether in proportion to the voltage. */
export function classify(points: readonly Point[]): Shape {
  const zero = points.find((p) => p.drive === 0);
  const base = zero?.amps ?? 0;
  const flows = (p: Point) => Math.abs(p.amps - base) > flowThreshold(p);
  const forward = points.some((p) => p.drive > 0 && flows(p));
  const backward = points.some((p) => p.drive < 0 && flows(p));
  if (!forward && !backward) return 'open';
  if (forward !== backward) return forward ? 'diode_forward' : 'diode_reverse';
  const { g, c } = fitLine(points);
  const ohmic = points.every(
    (p) => Math.abs(p.amps - (g * p.volts + c)) <= 4 * p.ampsError + INA_LSB_AMPS + 0.03 * Math.abs(p.amps),
  );
  return ohmic && g > 0 ? 'resistor' : 'non_ohmic';
}

/** Nine drives across the range that keeps the part under MAX_AMPS, and the line through them. */
async function preciseResistor(
  board: BoardClient,
  safety: SafetyPolicy,
  adcs: readonly [number, number],
  survey: readonly Point[],
): Promise<Omit<Result, 'a' | 'b' | 'bridges_on_rows'>> {
  const estimate = 1 / Math.max(fitLine(survey).g, 1e-9);
  const reach = Math.min(8, MAX_AMPS * (estimate + LOOP_OHMS));
  const top = Math.min(reach, safety.maxVolts);
  const bottom = Math.max(-reach, safety.minVolts);
  const plan =
    top / (estimate + LOOP_OHMS) < PRECISION_SMALL_CURRENT.belowAmps ? PRECISION_SMALL_CURRENT : PRECISION;
  const drives = Array.from({ length: plan.points }, (_, i) =>
    round(bottom + ((top - bottom) * i) / (plan.points - 1), 4),
  );
  const points = await ramp(board, adcs, drives, plan.samples, 1.5 * MAX_AMPS);
  const { g, se } = fitLine(points);
  if (!(g > 0)) {
    throw new ToolError(
      'unstable',
      'The readings did not settle on a resistance; check the part is seated and try again.',
    );
  }
  const ohms = 1 / g;
  const relative = (t95(points.length - 2) * se) / g + GAIN_TOLERANCE;
  return {
    kind: 'resistor',
    ohms: round(ohms, 4),
    measurement_uncertainty_percent: round(relative * 100, 2),
    nearest_e12: nearestStandard(ohms, E12),
    nearest_e24: nearestStandard(ohms, E24),
    ...extent(points),
  };
}

/** Steps a diode forward to DIODE_AMPS (or the drive's end) and reads its forward voltage there. */
async function diodeForward(
  board: BoardClient,
  safety: SafetyPolicy,
  adcs: readonly [number, number],
  survey: readonly Point[],
  anode: ResolvedNode,
  cathode: ResolvedNode,
  sign: 1 | -1,
): Promise<Omit<Result, 'a' | 'b' | 'bridges_on_rows'>> {
  const forward = survey.filter((p) => Math.sign(p.drive) === sign);
  const start = forward.reduce((x, p) => Math.max(x, Math.abs(p.drive)), 0);
  const limit = sign > 0 ? Math.min(8, safety.maxVolts) : Math.min(8, -safety.minVolts);
  const drives: number[] = [];
  for (let v = start + DIODE_STEP_VOLTS; v <= limit + 1e-9; v += DIODE_STEP_VOLTS)
    drives.push(round(sign * v, 4));
  const stepped = await ramp(board, adcs, drives, DIODE_SAMPLES, DIODE_AMPS);
  const points = [...forward, ...stepped]
    .map((p) => ({ ...p, volts: sign * p.volts, amps: sign * p.amps }))
    .sort((x, y) => x.amps - y.amps);
  const above = points.find((p) => p.amps >= DIODE_AMPS);
  const below = [...points].reverse().find((p) => p.amps < DIODE_AMPS);
  let volts: number;
  let amps: number;
  if (above && below && above.amps > below.amps) {
    const f = (DIODE_AMPS - below.amps) / (above.amps - below.amps);
    volts = below.volts + f * (above.volts - below.volts);
    amps = DIODE_AMPS;
  } else {
    const last = points.at(-1) as Point;
    volts = last.volts;
    amps = last.amps;
  }
  return {
    kind: 'diode',
    anode: anode.name,
    cathode: cathode.name,
    forward_volts: round(volts, 3),
    forward_milliamps: round(amps * 1000, 3),
    looks_like: diodeKind(volts),
    ...extent([...survey, ...stepped]),
  };
}

function extent(points: readonly Point[]): { most_milliamps_through_part: number } {
  return {
    most_milliamps_through_part: round(points.reduce((x, p) => Math.max(x, Math.abs(p.amps)), 0) * 1000, 3),
  };
}

/** A part end: a row or Nano pin (the supplies and internal nodes are the instrument). */
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
