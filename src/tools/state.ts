/**
 * The state group: the board state as one document (spec §7) here; applying one (stateSet.ts),
 * undo of this server's changes and host-side snapshots (stateUndo.ts, journal.ts), and Wokwi import (wokwi.ts).
 */
import { z } from 'zod';
import { asToolName } from '../board/nodes.js';
import type { BoardClient } from '../device/board.js';
import { renderBoardPicture } from './boardPicture.js';
import {
  overlaySummarySchema,
  ramPython,
  readState,
  type StateDocument,
  type StateSummary,
  stateDocumentSchema,
  withOverlaySummaries,
} from './boardState.js';
import { runsPwm } from './gpio.js';
import { pwmLeftRunning } from './journal.js';
import { ledsPython } from './leds.js';
import type { PythonPart } from './pythonParts.js';
import { restorePlanPython } from './restorePlan.js';
import {
  type BoardSnapshot,
  readBridges,
  readSnapshot,
  SNAPSHOT_REQUIRES,
  snapshotPython,
} from './snapshot.js';
import { stateSet, stateSetPython } from './stateSet.js';
import { undo, undoPython } from './stateUndo.js';
import { defineDeviceTool } from './tool.js';
import { runningWave } from './wavegen.js';
import { wokwiImport } from './wokwi.js';

/** The board-side parts the state tools call: the RAM state, the board image, set_state, the bridges' routes, undo. */
export const python: readonly PythonPart[] = [
  ramPython,
  restorePlanPython,
  stateSetPython,
  snapshotPython,
  ledsPython,
  undoPython,
];

export const stateGet = defineDeviceTool({
  name: 'state_get',
  title: 'Read the board state',
  description:
    "What's on the board now, in one call: supplies, nets, GPIO, LED overlays (pixels: overlay_list), unrouted bridges; power-on defaults left out.",
  group: 'state',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['get_state', 'gpio_get_dir', 'wavegen_is_running', ...SNAPSHOT_REQUIRES],
  input: z.object({}),
  output: stateDocumentSchema.extend({
    power: stateDocumentSchema.shape.power.partial().describe('Supplies not at their power-on 0 V, and DAC0'),
    overlays: z.array(overlaySummarySchema),
    running: z.array(z.string()),
    as_at_power_on: z.string().describe('What is left out because it is as the board powers on'),
    unrouted: z
      .array(z.string())
      .describe('Bridges the firmware stores but has not connected; [] when every bridge is routed'),
  }),
  handle: async (_args, { board }) => {
    const { state } = await readState(board);
    const [pads, wave] = z
      .tuple([z.array(z.string()), z.unknown()])
      .parse(await board.call('[_jlt.gpio_pads(), _jlt.wave_status()]'));
    const answer = leaveOutPowerOn(withOverlaySummaries(withRunning(board, state, pads, wave)));
    // The firmware keeps a bridge it cannot route without a word; said here so no bridges_list is
    // needed, and always, since a model read a missing key as possibly left out (second trial).
    const unrouted = (await readBridges(board))
      .filter((b) => !b.routed && b.route !== 'unknown')
      .map((b) => `${b.node1_name}-${b.node2_name} (${b.route.replaceAll('_', ' ')})`);
    return { ...answer, unrouted };
  },
});

/**
 * The state with what runs on its own told: get_state gives a PWM pin's configured direction (a
 * timer PWM leaves it INPUT, on no net: as at power-on) and says nothing of the wave generator.
 */
function withRunning(
  board: BoardClient,
  state: StateDocument,
  pads: readonly string[],
  wave: unknown,
): StateDocument & { running: string[] } {
  const running: string[] = [];
  const gpio = state.gpio.map((g) => {
    if (typeof g.pin !== 'number' || !runsPwm(state, pads, g.pin)) return g;
    const pwm = pwmLeftRunning(board, g.pin);
    running.push(
      `PWM on GPIO_${g.pin}${pwm ? `: ${pwm.frequency} Hz, duty ${pwm.duty}` : ' (not started here: rate unknown)'}`,
    );
    return { ...g, function: 'PWM', direction: 'OUTPUT' };
  });
  const waveLine = runningWave(wave);
  if (waveLine) running.push(waveLine);
  return { ...state, gpio, running };
}

/** The nets 1-5 as they are at power-on: each supply alone, DAC 0 with the probe's BUFFER_IN. */
const POWER_ON_NETS: Readonly<Record<number, string>> = {
  1: 'GND',
  2: 'TOP_R',
  3: 'BOT_R',
  4: 'DAC_0,BUF_IN',
  5: 'DAC_1',
};

/**
 * A pin as at power-on (JsonState.cpp:245-275 with the boot defaults): on no net, GPIO_1..8 SIO
 * inputs with the pull-down and floating detection, the UART pins in the UART function. Its
 * `reading` does not count: a pin on no net reads nothing of the user's.
 */
function pinAtPowerOn(g: StateDocument['gpio'][number]): boolean {
  if (g.net !== null || g.pull !== 'down') return false;
  if (g.pin === 'TX') return g.function === 'UART' && g.direction === 'OUTPUT' && g.floating_read === 0;
  if (g.pin === 'RX') return g.function === 'UART' && g.direction === 'INPUT' && g.floating_read === 0;
  return g.function === 'SIO' && g.direction === 'INPUT' && g.floating_read === 1;
}

/**
 * The supplies as at power-on (probe slots.fresh_power_defaults): both rails and DAC1 at 0 V.
 * DAC0's is the probe's calibrated output (2.8-5.0 V), so it is always shown.
 */
export const POWER_ON_SUPPLIES = { top_rail: 0, bottom_rail: 0, dac1: 0 } as const;
const SUPPLY_WORDS = { top_rail: 'top rail', bottom_rail: 'bottom rail', dac1: 'DAC1' } as const;

/** A state_get answer with the supplies it left out put back at their power-on 0 V (for the CLI's diff). */
export function withPowerOnSupplies<S extends { power: StatePower }>(
  state: S,
): Omit<S, 'power'> & { power: StateSummary['power'] } {
  return { ...state, power: { ...POWER_ON_SUPPLIES, ...state.power } };
}

/** state_get's supplies: DAC0 always, the others when not at their power-on 0 V. */
type StatePower = Partial<StateSummary['power']> & { dac0: number };

/**
 * state_get's answer: the state without what is as at power-on, and a line naming what went. The
 * supplies at their power-on 0 V go too (issue 20: the words said power-on defaults were left out
 * while all four supplies were listed).
 */
export function leaveOutPowerOn<S extends StateSummary>(
  state: S,
): Omit<S, 'power'> & { power: StatePower; as_at_power_on: string } {
  const quietSupplies = (Object.keys(POWER_ON_SUPPLIES) as Array<keyof typeof POWER_ON_SUPPLIES>).filter(
    (key) => state.power[key] === POWER_ON_SUPPLIES[key],
  );
  const power = Object.fromEntries(
    Object.entries(state.power).filter(
      ([key]) => !quietSupplies.includes(key as keyof typeof POWER_ON_SUPPLIES),
    ),
  ) as StatePower;
  const nets = state.nets.filter((n) => POWER_ON_NETS[n.index] !== n.nodes.join(','));
  const gpio = state.gpio.filter((g) => !pinAtPowerOn(g));
  // 5.7.11's get_state leaves out a net of one node: a supply net 1-5 it leaves out is that supply
  // alone, as at power-on (not net 4, whose power-on form has two nodes).
  const listed = new Set(state.nets.map((n) => n.index));
  const quietNets = [1, 2, 3, 4, 5].filter((index) =>
    listed.has(index) ? !nets.some((n) => n.index === index) : index !== 4,
  );
  const quietPins = state.gpio.filter((g) => !gpio.includes(g)).map((g) => String(g.pin));
  const parts = [
    quietSupplies.length > 0 ? `${quietSupplies.map((key) => SUPPLY_WORDS[key]).join(', ')} at 0 V` : '',
    quietNets.length > 0 ? `nets ${quietNets.join(', ')} (each supply alone)` : '',
    // Net 4 at power-on holds the probe-power bridge: said, so a bridges_list showing it agrees.
    quietNets.includes(4) ? 'net 4 is DAC0 with BUFFER_IN (the probe-power bridge BUFFER_IN-DAC0)' : '',
    quietPins.length > 0
      ? `pins ${quietPins.join(', ')} (on no net, inputs with pull-down; TX/RX the UART)`
      : '',
    state.overlays.length === 0 ? 'no LED overlays' : '',
  ].filter(Boolean);
  // Node names as the tools take them (TOP_RAIL, GPIO_3), not get_state's short ones (TOP_R, GP_3).
  const named = nets.map((n) => ({ ...n, nodes: n.nodes.map(asToolName) }));
  return { ...state, power, nets: named, gpio, as_at_power_on: parts.join('; ') };
}

/**
 * Said in board_picture's result where the text alone would leave the picture unmentioned, and what
 * it can show: a trial model must not claim to see the user's parts (the board cannot see them).
 */
const PICTURE_PLACE =
  "attached to this result as a PNG image of the board's own state (bridges, LEDs, supplies), not of parts plugged into it; summary says the same in words" as const;

/** The picture the board_picture resource has, for clients that only call tools. */
export const boardPicture = defineDeviceTool({
  name: 'board_picture',
  title: 'Picture of the board',
  description: 'A PNG of the breadboard now: LED colours, bridges, rails with voltages, nets.',
  group: 'state',
  kind: 'read',
  capability: 'jumperless.read',
  requires: SNAPSHOT_REQUIRES,
  input: z.object({}),
  // Where the picture is, in words: a trial could not tell what the PNG's size in `bytes` was for.
  output: z.object({ picture: z.literal(PICTURE_PLACE), summary: z.string() }),
  handle: async (_args, { board, attachImage, notes }) => {
    const snapshot = { ...(await readSnapshot(board)), notes };
    const png = renderBoardPicture(snapshot);
    attachImage({ mimeType: 'image/png', data: Buffer.from(png).toString('base64') });
    return { picture: PICTURE_PLACE, summary: pictureSummary(snapshot) };
  },
});

/** Bridges named in a picture's summary before the rest are counted. */
const SUMMARY_BRIDGES = 20;

/** The picture in words, for a model that cannot see images: the supplies and the bridges. */
export function pictureSummary({ state, bridges }: BoardSnapshot): string {
  const { top_rail, bottom_rail, dac0, dac1 } = state.power;
  const named = bridges.slice(0, SUMMARY_BRIDGES).map((b) => {
    const pair = `${b.node1_name}-${b.node2_name}`;
    return b.routed || b.route === 'unknown' ? pair : `${pair} (${b.route.replaceAll('_', ' ')})`;
  });
  const more = bridges.length - named.length;
  const list = named.length === 0 ? 'none' : named.join(', ') + (more > 0 ? ` and ${more} more` : '');
  return `Top rail ${top_rail} V, bottom rail ${bottom_rail} V, DAC0 ${dac0} V, DAC1 ${dac1} V. Bridges: ${list}.`;
}

export default [stateGet, stateSet, undo, wokwiImport, boardPicture];
