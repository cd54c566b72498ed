/**
 * The instruments behind the measure tools (spec §6.6, §8.8): which ADC reads a node, what a running
 * waveform generator rules out, and putting the board back as it was found: bridges a measurement
 * adds are removed and supplies it moves are set back, also when the call fails or is cancelled
 * (the board-side helpers restore in `finally`, and the tool checks the bridge list afterwards and
 * repairs it).
 */

import { z } from 'zod';
import { ADC_RANGES } from '../board/limits.js';
import { ADC0, ADC3 } from '../board/nodes.js';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import type { ResolvedNode } from './nodeArg.js';
import type { PythonPart } from './pythonParts.js';
import {
  type BoardSnapshot,
  type BridgeView,
  netOf,
  readBridges,
  SNAPSHOT_REQUIRES,
  sameBridges,
} from './snapshot.js';

/** Board-side helpers, inside `_jlt`: routing the instruments and putting a supply back. */
/**
 * The ADCs' input resistance: about 1 Mohm (spec jumperless-v5.md §D, "Input impedance about 1 MΩ"),
 * as the virtual board models it (src/sim/firmware/circuit.ts ADC_INPUT_OHMS). A model reading a
 * divider 0.5 % low could not tell whether the ADC loaded it (issue 20); voltage_measure and
 * voltage_sweep say so in their results (a sweep's 0.496 slope on a 10k/10k divider is this load).
 */
export const ADC_INPUT_OHMS = 1e6;
export const LOADING = `About ${ADC_INPUT_OHMS / 1e6} Mohm to GND: a source of R ohms reads low by about R / ${ADC_INPUT_OHMS / 1e6} Mohm (a 10k/10k divider, 5 k: 0.5 % low).`;

export const measureRoutingPython: PythonPart = {
  name: 'measureRouting',
  source: `
def meas_route(pairs):
    h0 = _jlt.hist_now()
    for p in pairs:
        connect(p[0], p[1])
    ok = True
    for p in pairs:
        q = get_path_between(p[0], p[1])
        if q is None or not _jlt.path_routed(q):
            ok = False
    return [ok, h0]
def meas_lift(lift, pairs):
    h0 = _jlt.hist_now()
    for p in lift:
        disconnect(p[0], p[1])
    r = _jlt.meas_route(pairs)
    return [r[0], h0]
def meas_rejoin(lift, h0):
    for p in lift:
        connect(p[0], p[1], p[2])
    _jlt.hist_mark(h0)
def meas_unroute(pairs, h0):
    for p in pairs:
        disconnect(p[0], p[1])
    _jlt.hist_mark(h0)
def meas_dac_back(ch, v):
    dac_set(ch, v, False)
    return dac_get(ch)
def meas_wave():
    return wavegen_get_output() if wavegen_is_running() else None
`,
};

/** ADC0-ADC3: the ±8 V channels every firmware's `adc_get` accepts (spec §6.6). */
const ADCS = [0, 1, 2, 3].map((ch) => ADC0 + ch);
export const ADC_SPAN = ADC_RANGES[0] ?? { min: -8.9, max: 8.9 };
/** Settling after routing or moving a supply (spec §8.8: 2-10 ms, 20 ms per DAC step). */
export const SETTLE_MS = 10;

const isAdc = (id: number): boolean => id >= ADC0 && id <= ADC3;
export const touches = (bridges: readonly BridgeView[], id: number): boolean =>
  bridges.some((b) => b.node1 === id || b.node2 === id);

/** A bridge-free ADC, not `exclude`; undefined when all four are routed. */
export function freeAdcs(snapshot: BoardSnapshot): number[] {
  return ADCS.filter((id) => !touches(snapshot.bridges, id) && netOf(snapshot, id) === undefined);
}

/** The ADC to read `node` with: one already on its net, or a free one to route there. */
export function adcFor(snapshot: BoardSnapshot, node: ResolvedNode): { adc: number; route: boolean } {
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

/** Call options for the restoring jobs: without the call's signal, so a cancelled call still cleans up. */
export const noSignal = { signal: undefined } as const;

const WAVE_SUPPLIES = ['DAC0', 'DAC1', 'TOP_RAIL', 'BOTTOM_RAIL'];

/**
 * Refuses what a running waveform generator spoils: a supply it drives (it overwrites every dac_set
 * within microseconds, WaveGen.cpp:262-300), and temporary routing, which the firmware pauses while
 * the generator runs on core 2 (HelpDocs.cpp:1163-1164; from 1 kHz core 2 never leaves the wave,
 * WaveGen.cpp:274-280), so the bridge may not be made before the reading.
 */
export async function assertNoWave(
  board: BoardClient,
  use: { supply?: number; routing: boolean },
): Promise<void> {
  const output = z
    .number()
    .nullable()
    .parse(await board.call('_jlt.meas_wave()'));
  if (output === null) return;
  const name = WAVE_SUPPLIES[output] ?? `output ${output}`;
  if (use.supply === output) {
    throw new ToolError(
      'busy',
      `The waveform generator is running on ${name}; stop it first (wavegen_configure with running: false).`,
    );
  }
  if (use.routing) {
    throw new ToolError(
      'busy',
      `The waveform generator is running (on ${name}): the firmware pauses routing updates while it runs, so the measurement's temporary bridges may not be made. Stop it first (wavegen_configure with running: false), or route an ADC to the node yourself.`,
    );
  }
}

/**
 * Puts the bridge list back as `before`: removes the `added` bridges if still there (board-side
 * `finally` blocks normally did), then checks. Runs without the call's signal so that a cancelled
 * call still cleans up.
 */
export async function restoreBridges(
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
    await board.call(py`_jlt.meas_unroute(${leftover.map(([a, b]) => [a, b])}, ${null})`, noSignal);
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
export async function restoring<T>(body: () => Promise<T>, restore: () => Promise<void>): Promise<T> {
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

/** A reading as reported: `digits` significant digits. */
export const round = (v: number, digits = 4): number => Number(v.toPrecision(digits));

/** What a measurement that drives a supply needs of the firmware (resistance, sweep). */
export const SUPPLY_MEASURE_REQUIRES: readonly string[] = [
  'dac_set',
  'dac_get',
  'adc_get',
  'ina_get_current',
  'connect',
  'disconnect',
  'wavegen_is_running',
  'wavegen_get_output',
  ...SNAPSHOT_REQUIRES,
];
