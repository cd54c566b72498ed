/** Routable GPIO and PWM (spec §6.7): pins 1-8 = GPIO_1..8, 9 = UART TX, 10 = UART RX. */
import { z } from 'zod';
import {
  GPIO_PINS,
  PWM_DUTY,
  PWM_FREQ_HZ,
  PWM_PINS,
  PWM_SLOW_BELOW_HZ,
  pwmSlicePartner,
} from '../board/limits.js';
import { ToolError } from '../core/errors.js';
import { isDeviceError } from '../device/errors.js';
import { py } from '../device/pyLiteral.js';
import { assertCanDrive, gpioPinNode, netOfNode, readState, type StateDocument } from './boardState.js';
import { knownPwm, type PinState, pwmLeftRunning, recordChange } from './journal.js';
import type { PythonPart } from './pythonParts.js';
import { defineDeviceTool, type ToolContext } from './tool.js';

/**
 * Python run on the board, inside `_jlt`. Directions go as the strings 'OUTPUT'/'INPUT': a plain
 * int follows the firmware convention 0 = OUTPUT, 1 = INPUT (spec §6.7, §12).
 *
 * - `gpio_info` reads the pull before the level: gpio_get on a bus-keeper input that reads HIGH
 *   leaves it a pull-up (Peripherals.cpp:797-806, 883), so the keeper is put back after the read.
 *   UART TX/RX (9, 10) always read LOW (Peripherals.cpp:769-773): their level is not sampled.
 * - `gpio_dir` writes an output's level before the direction: gpio_set stores it in gpioState, which
 *   every later routing refresh drives (Peripherals.cpp:753-756); a direction change alone would
 *   drive the old latch now and a stale gpioState (HIGH for a former input) at the next refresh.
 * - `gpio_pull` does not sample a new bus keeper at all.
 */
export const python: readonly PythonPart[] = [
  {
    name: 'gpio',
    source: `
def gpio_info(p):
    pull = str(gpio_get_pull(p))
    d = str(gpio_get_dir(p))
    if p >= 9:
        return {'state': 'UNKNOWN', 'direction': d, 'pull': pull}
    s = str(gpio_get(p))
    if pull == 'BUS_KEEPER' and str(gpio_get_pull(p)) != pull:
        gpio_set_pull(p, pull)
    return {'state': s, 'direction': d, 'pull': pull}
def gpio_dir(p, d, v):
    if d == 'OUTPUT':
        gpio_set(p, v)
    gpio_set_dir(p, d)
    return _jlt.gpio_info(p)
def gpio_pull(p, v):
    gpio_set_pull(p, v)
    if v == 'BUS_KEEPER':
        return {'state': 'UNKNOWN', 'direction': str(gpio_get_dir(p)), 'pull': str(gpio_get_pull(p))}
    return _jlt.gpio_info(p)
def gpio_pwm(p, f, d):
    pwm(p, f, d)
    return _jlt.gpio_info(p)
def gpio_pwm_stop(p):
    pwm_stop(p)
    return _jlt.gpio_info(p)
def gpio_pads():
    return [str(gpio_get_dir(p)) for p in range(1, 9)]
`,
  },
];

const LEVELS = ['HIGH', 'LOW'] as const;
const STATES = ['HIGH', 'LOW', 'FLOATING', 'UNKNOWN'] as const;
const DIRECTIONS = ['INPUT', 'OUTPUT'] as const;
const PULLS = ['PULLUP', 'PULLDOWN', 'NO_PULL', 'BUS_KEEPER'] as const;
/** UART TX/RX: GP0/GP1, which the firmware never reads and gpio_set would take from the UART. */
const UART_PINS = [9, 10];

const info = z.object({
  state: z.enum(STATES),
  direction: z.enum(DIRECTIONS),
  pull: z.enum(PULLS),
});
type Info = z.infer<typeof info>;

const pinNumber = z.number().int().min(GPIO_PINS.min).max(GPIO_PINS.max);
const pinField = pinNumber.describe('GPIO_1..8; 9-10 UART_TX/RX');
const pwmPinField = z.number().int().min(PWM_PINS.min).max(PWM_PINS.max);

const pinResult = z.object({
  pin: z.number(),
  node: z.string(),
  /**
   * What the pad reads now: an output reads the level on its pad (what it drives); an input HIGH or
   * LOW (held_by_pull when only its pull holds it), FLOATING when nothing does; UNKNOWN where it is
   * not sampled (UART pins, a fresh bus keeper).
   */
  state: z.enum(STATES),
  /** The pad's direction (a slow PWM makes it an output). */
  direction: z.enum(DIRECTIONS),
  pull: z.enum(PULLS),
  /** Name of the net the pin is routed to, or null. */
  net: z.string().nullable(),
  warnings: z.array(z.string()),
  /** True when nothing drives the pin: its pull holds it at `state` (the firmware's gpio_get says FLOATING). */
  held_by_pull: z.boolean().optional(),
  /** `state` and `held_by_pull` in plain words: a trial could not tell the level read from the level asked. */
  state_means: z.string().optional(),
  /**
   * PWM runs on the pin (get_state's pad function, or a timer's output pad; probe
   * pwm.state_function_follows_pad): its rate as this server started it, null when something else
   * did (the firmware reports no rate). Issue 20: gpio_get's one level could not tell PWM from steady.
   */
  pwm: z.object({ frequency_hz: z.number().nullable(), duty_cycle: z.number().nullable() }).optional(),
});

const PULL_LEVEL: Readonly<Record<string, 'HIGH' | 'LOW'>> = { PULLUP: 'HIGH', PULLDOWN: 'LOW' };

/**
 * What the pin reads, as a digital read gives it. The firmware's floating detection calls a pin
 * FLOATING when it follows a pull either way, its own pull-up included (Peripherals.cpp:797-870):
 * an open button on a pulled-up input reads HIGH, held there by the pull alone.
 */
export function plainRead(read: Info): Info & { held_by_pull?: boolean; state_means: string } {
  const level = read.state === 'FLOATING' ? PULL_LEVEL[read.pull] : undefined;
  if (!level) return { ...read, state_means: STATE_MEANS };
  return {
    ...read,
    state: level,
    held_by_pull: true,
    state_means: `${STATE_MEANS} held_by_pull: nothing drives the pin; its ${read.pull === 'PULLUP' ? 'pull-up' : 'pull-down'} alone holds it ${level} (an open button reads so).`,
  };
}

const STATE_MEANS = 'state: the level read on the pin now, not the level asked for.';

async function pinInfo(call: Promise<unknown>): Promise<Info> {
  return info.parse(await call);
}

function checkReadBack(what: string, got: string, wanted: string, pin: number): void {
  if (got !== wanted) {
    throw new ToolError(
      'not_applied',
      `${gpioPinNode(pin)}: ${what} reads back ${got} after setting ${wanted}.`,
      {
        details: { pin, [what]: got, requested: wanted },
      },
    );
  }
}

function refuseUartPin(pin: number, action: string): void {
  if (!UART_PINS.includes(pin)) return;
  throw new ToolError(
    'unsupported_pin',
    `Refusing to ${action}: ${gpioPinNode(pin)} belongs to the UART. Driving it would take the pad from the UART (the Arduino link stops), and the firmware cannot read it back (it always reads LOW).`,
    { details: { pin } },
  );
}

/** get_state's live pad function of a pin (PWM, SIO, UART...), upper-case; undefined when unlisted. */
function padFunction(state: StateDocument, pin: number): string | undefined {
  return state.gpio.find((g) => g.pin === pin)?.function.toUpperCase();
}

/** The pad directions of GPIO_1..8 (gpio_get_dir reads the pad; get_state's is the config). */
async function padDirections(board: ToolContext['board']): Promise<string[]> {
  return z.array(z.enum(DIRECTIONS)).parse(await board.call('_jlt.gpio_pads()'));
}

/**
 * The state with every pin that drives its pad counted as an OUTPUT: get_state reports the
 * configured direction, but a hardware PWM drives the pad whatever the direction, and a timer PWM
 * makes the pad an output without touching the config (Peripherals.cpp:2634-2636, 2789).
 */
function drivingState(state: StateDocument, pads: readonly string[]): StateDocument {
  const gpio = state.gpio.map((g) => {
    const i = typeof g.pin === 'number' ? g.pin - 1 : -1;
    const drives = g.function.toUpperCase() === 'PWM' || pads[i] === 'OUTPUT';
    return drives ? { ...g, direction: 'OUTPUT' } : g;
  });
  return { ...state, gpio };
}

/** A pin runs PWM: in the PWM function, or a pad output the config calls an input (the timer). */
export function runsPwm(state: StateDocument, pads: readonly string[], pin: number): boolean {
  const g = state.gpio.find((x) => x.pin === pin);
  return padFunction(state, pin) === 'PWM' || (pads[pin - 1] === 'OUTPUT' && g?.direction === 'INPUT');
}

function refuseRunningPwm(state: StateDocument, pads: readonly string[], pin: number, action: string): void {
  if (!runsPwm(state, pads, pin)) return;
  throw new ToolError(
    'pwm_running',
    `Refusing to ${action}: ${gpioPinNode(pin)} runs PWM (a timer PWM would overwrite the level within 1 ms). Stop it first (pwm_stop).`,
    { details: { pin } },
  );
}

const PULL_OF_STATE: Readonly<Record<string, PinState['pull']>> = {
  up: 'PULLUP',
  down: 'PULLDOWN',
  none: 'NO_PULL',
  keeper: 'BUS_KEEPER',
};

/** A pin as undo would put it back (journal.ts), from get_state and, when read, the pad directions. */
function pinStateOf(
  board: ToolContext['board'],
  state: StateDocument,
  pads: readonly string[] | undefined,
  pin: number,
): PinState {
  const g = state.gpio.find((x) => x.pin === pin);
  const running = pads ? runsPwm(state, pads, pin) : padFunction(state, pin) === 'PWM';
  const pwm = running ? knownPwm(board, pin) : null;
  return {
    direction: (pads?.[pin - 1] ?? g?.direction) === 'OUTPUT' ? 'OUTPUT' : 'INPUT',
    pull: PULL_OF_STATE[g?.pull ?? 'none'] ?? 'NO_PULL',
    level: g?.reading === 'high' ? 'HIGH' : 'LOW',
    pwm,
    ...(running && !pwm ? { unknown_pwm: true } : {}),
  };
}

const netName = (state: StateDocument, pin: number): string | null =>
  netOfNode(state, gpioPinNode(pin))?.name ?? null;

export const gpioGet = defineDeviceTool({
  name: 'gpio_get',
  title: 'Read a GPIO pin',
  description: "A pin's level (HIGH, LOW, FLOATING), direction, pull and net; 9-10 (UART) read UNKNOWN.",
  group: 'gpio',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['gpio_get', 'gpio_get_dir', 'gpio_get_pull', 'gpio_set_pull', 'get_state'],
  input: z.object({ pin: pinField }),
  output: pinResult,
  handle: async ({ pin }, { board }) => {
    const read = await pinInfo(board.call(py`_jlt.gpio_info(${pin})`));
    const { state } = await readState(board);
    const plain = plainRead(read);
    const pwm = pwmOf(board, state, read, pin);
    return {
      pin,
      node: gpioPinNode(pin),
      ...plain,
      ...(pwm ? { state_means: `${plain.state_means} ${pwmMeans(pwm)}`, pwm } : {}),
      net: netName(state, pin),
      warnings: [],
    };
  },
});

/** The PWM running on a pin, with its rate when this server started it; undefined when none runs. */
function pwmOf(
  board: ToolContext['board'],
  state: StateDocument,
  read: Info,
  pin: number,
): { frequency_hz: number | null; duty_cycle: number | null } | undefined {
  if (UART_PINS.includes(pin)) return undefined;
  const pads: string[] = [];
  pads[pin - 1] = read.direction;
  if (!runsPwm(state, pads, pin)) return undefined;
  const known = pwmLeftRunning(board, pin);
  return { frequency_hz: known?.frequency ?? null, duty_cycle: known?.duty ?? null };
}

const pwmMeans = (pwm: { frequency_hz: number | null }): string =>
  pwm.frequency_hz === null
    ? 'pwm: PWM drives the pin (started outside this server: the firmware does not report its rate); state is one moment of it.'
    : 'pwm: PWM drives the pin at this rate (as this server started it: pwm_start or a slot restore); state is one moment of it.';

/** What driving a pin takes: the level and direction, then the read-back of all three settings. */
const DRIVE_REQUIRES = [
  'gpio_set',
  'gpio_set_dir',
  'gpio_get',
  'gpio_get_dir',
  'gpio_get_pull',
  'gpio_set_pull',
  'get_state',
] as const;

/**
 * One tool for a pin's setup (it replaced gpio_set, gpio_direction_set and gpio_pull_set): every
 * refusal is checked before anything changes, then the pull, then the level before the direction.
 */
const configInput = z
  .object({
    // The description names pins 9-10 as UART's, so the pin's own words are not repeated here.
    pin: pinNumber,
    direction: z.enum(DIRECTIONS).optional(),
    level: z.enum(LEVELS).optional(),
    pull: z.enum(PULLS).optional(),
  })
  .refine((a) => a.direction !== undefined || a.level !== undefined || a.pull !== undefined, {
    message: 'give direction, level or pull',
  })
  .refine((a) => !(a.direction === 'INPUT' && a.level !== undefined), {
    message: 'an INPUT drives no level: leave level out or make it an OUTPUT',
    path: ['level'],
  });

/**
 * "reads back; any order with connect" in the description is the probe
 * gpio.output_holds_in_either_order_with_connect: connect refreshes the routing, whose setGPIO puts
 * the configured direction and pulls back on the pad and drives an output to the level gpio_set
 * stored (Peripherals.cpp:693-758, Commands.cpp:455).
 */
export const gpioConfig = defineDeviceTool({
  name: 'gpio_config',
  title: 'Configure a GPIO pin',
  description:
    "Set a pin's direction, pull, level (HIGH 3.3 V, LOW 0 V; level alone makes it an output driving it); reads back; any order with connect. Refused: driving in PWM, UART pins 9-10, supplied, GND or driven nets.",
  group: 'gpio',
  kind: 'physical',
  capability: 'jumperless.io',
  requires: DRIVE_REQUIRES,
  // Reading the pin back (gpio_info) may restore a bus keeper: every call reads and may set the pull;
  // only a direction needs gpio_set_dir, and only an output gpio_set.
  requiresFor: ({ direction, level }) => {
    const target = direction ?? (level === undefined ? undefined : 'OUTPUT');
    return [
      'get_state',
      'gpio_get',
      'gpio_get_dir',
      'gpio_get_pull',
      'gpio_set_pull',
      ...(target === undefined ? [] : ['gpio_set_dir']),
      ...(target === 'OUTPUT' ? ['gpio_set'] : []),
    ];
  },
  input: configInput,
  output: pinResult.extend({ level: z.enum(LEVELS).optional() }),
  handle: async ({ pin, direction, level, pull }, { board }) => {
    const target = direction ?? (level === undefined ? undefined : 'OUTPUT');
    const { state } = await readState(board);
    let pads: string[] | undefined;
    if (target !== undefined) {
      pads = await padDirections(board);
      const action =
        target === 'OUTPUT'
          ? `drive ${gpioPinNode(pin)} ${level ?? 'LOW'}`
          : `make ${gpioPinNode(pin)} an input`;
      refuseRunningPwm(state, pads, pin, action);
      if (target === 'OUTPUT') {
        refuseUartPin(pin, action);
        assertCanDrive(drivingState(state, pads), pin, action);
      }
    }
    let after: Info | undefined;
    if (pull !== undefined) {
      after = await pinInfo(board.call(py`_jlt.gpio_pull(${pin}, ${pull})`));
      checkReadBack('pull', after.pull, pull, pin);
    }
    if (target !== undefined) {
      const drives = level ?? 'LOW';
      after = await pinInfo(board.call(py`_jlt.gpio_dir(${pin}, ${target}, ${drives})`));
      checkReadBack('direction', after.direction, target, pin);
    }
    const done = after as Info;
    const before = pinStateOf(board, state, pads, pin);
    recordChange(board, {
      tool: 'gpio_config',
      label: `gpio_config GPIO ${pin} ${[target, target === 'OUTPUT' ? (level ?? 'LOW') : undefined, pull].filter(Boolean).join(' ')}`,
      pins: [
        {
          pin,
          before,
          after: {
            ...before,
            direction: done.direction,
            pull: done.pull,
            ...(target === 'OUTPUT' ? { level: level ?? 'LOW' } : {}),
          },
        },
      ],
    });
    return {
      pin,
      node: gpioPinNode(pin),
      ...(target === 'OUTPUT' ? { level: level ?? 'LOW' } : {}),
      ...plainRead(after as Info),
      net: netName(state, pin),
      warnings: [],
    };
  },
});

export const pwmStart = defineDeviceTool({
  name: 'pwm_start',
  title: 'Start PWM on a GPIO pin',
  description:
    '3.3 V square wave on GPIO_1..8 (below 10 Hz a timer drives it). Pins 1/2, 3/4, 5/6, 7/8 share a frequency: share_slice retunes the partner too. Refused onto a driven net.',
  group: 'gpio',
  kind: 'physical',
  capability: 'jumperless.io',
  requires: ['pwm', 'gpio_get', 'gpio_get_dir', 'gpio_get_pull', 'gpio_set_pull', 'get_state'],
  input: z.object({
    pin: pwmPinField,
    frequency_hz: z.number().min(PWM_FREQ_HZ.min).max(PWM_FREQ_HZ.max),
    duty_cycle: z.number().min(PWM_DUTY.min).max(PWM_DUTY.max).default(0.5).describe('Fraction high'),
    share_slice: z.boolean().default(false),
  }),
  output: pinResult.extend({
    frequency_hz: z.number(),
    duty_cycle: z.number(),
    mode: z
      .enum(['hardware', 'timer'])
      .describe('hardware: PWM slice (>= 10 Hz); timer: slow PWM on an output'),
    pwm_active: z.boolean().nullable(),
  }),
  handle: async ({ pin, frequency_hz, duty_cycle, share_slice }, { board }) => {
    const { state } = await readState(board);
    const pads = await padDirections(board);
    assertCanDrive(drivingState(state, pads), pin, `start PWM on ${gpioPinNode(pin)}`);
    const timer = frequency_hz < PWM_SLOW_BELOW_HZ;
    const partner = pwmSlicePartner(pin);
    const partnerBusy = !timer && padFunction(state, partner) === 'PWM';
    if (partnerBusy && !share_slice) {
      throw new ToolError(
        'slice_shared',
        `${gpioPinNode(partner)} runs PWM on the slice ${gpioPinNode(pin)} shares: hardware PWM here would retune it to ${frequency_hz} Hz and change its duty cycle. Stop it, use a pin of another pair, or pass share_slice.`,
        { details: { pin, partner } },
      );
    }
    let after: Info;
    try {
      after = await pinInfo(board.call(py`_jlt.gpio_pwm(${pin}, ${frequency_hz}, ${duty_cycle})`));
    } catch (error) {
      throw firmwareRefusal(error, `PWM on ${gpioPinNode(pin)} at ${frequency_hz} Hz`);
    }
    // get_state names the pad's live function: PWM for hardware PWM, SIO for the timer's output.
    const { state: now } = await readState(board);
    const fn = padFunction(now, pin);
    const expected = timer ? 'SIO' : 'PWM';
    const active = fn === undefined ? null : fn === expected && (!timer || after.direction === 'OUTPUT');
    if (active === false) {
      throw new ToolError(
        'not_applied',
        `${gpioPinNode(pin)} is not running PWM after starting it (pad function ${fn}, direction ${after.direction}).`,
      );
    }
    recordChange(board, {
      tool: 'pwm_start',
      label: `pwm_start GPIO ${pin} ${frequency_hz} Hz, duty ${duty_cycle}`,
      pins: [
        {
          pin,
          before: pinStateOf(board, state, pads, pin),
          after: {
            direction: after.direction,
            pull: after.pull,
            level: 'LOW',
            pwm: { frequency: frequency_hz, duty: duty_cycle },
          },
        },
      ],
    });
    const warnings = partnerBusy
      ? [
          `${gpioPinNode(partner)} shares the PWM slice: it now runs at ${frequency_hz} Hz and its duty cycle changed.`,
        ]
      : [];
    return {
      pin,
      node: gpioPinNode(pin),
      ...after,
      net: netName(now, pin),
      warnings,
      frequency_hz,
      duty_cycle,
      mode: timer ? ('timer' as const) : ('hardware' as const),
      pwm_active: active,
    };
  },
});

export const pwmStop = defineDeviceTool({
  name: 'pwm_stop',
  title: 'Stop PWM on a GPIO pin',
  description: 'Stop PWM on a pin; hardware PWM stops its partner pin (1/2, 3/4, 5/6, 7/8) too.',
  group: 'gpio',
  kind: 'physical',
  capability: 'jumperless.io',
  requires: ['pwm_stop', 'gpio_get', 'gpio_get_dir', 'gpio_get_pull', 'gpio_set_pull', 'get_state'],
  input: z.object({ pin: pwmPinField }),
  output: pinResult.extend({ stopped: z.boolean().describe('pwm_stop was sent (the pin may have run PWM)') }),
  handle: async ({ pin }, { board }) => {
    const { state } = await readState(board);
    const partner = pwmSlicePartner(pin);
    const hardware = padFunction(state, pin) === 'PWM';
    const partnerPwm = padFunction(state, partner) === 'PWM';
    const before = await pinInfo(board.call(py`_jlt.gpio_info(${pin})`));
    // A timer PWM keeps the pad an output, so an input pad runs none. firmware pwm_stop on a pin
    // without one would still disable the slice under the partner (Peripherals.cpp:2910-2913).
    if (!hardware && before.direction === 'INPUT') {
      return {
        pin,
        node: gpioPinNode(pin),
        ...before,
        net: netName(state, pin),
        warnings: [],
        stopped: false,
      };
    }
    const after = await pinInfo(board.call(py`_jlt.gpio_pwm_stop(${pin})`));
    const warnings: string[] = [];
    // An output pad with an INPUT config is the timer's doing; a configured output may be either.
    const maybePlainOutput = !hardware && state.gpio.find((g) => g.pin === pin)?.direction === 'OUTPUT';
    if (hardware && partnerPwm) {
      warnings.push(
        `${gpioPinNode(partner)} shares the PWM slice: its PWM stopped too (its output holds its last level). Start it again with pwm_start.`,
      );
    } else if (maybePlainOutput) {
      const slice = partnerPwm ? `, and disabled the PWM slice of ${gpioPinNode(partner)}` : '';
      warnings.push(
        `${gpioPinNode(pin)} is a configured output: if it ran no timer PWM, the stop drove it LOW${slice}.`,
      );
    }
    const { state: now } = await readState(board);
    const was = pinStateOf(board, state, undefined, pin);
    recordChange(board, {
      tool: 'pwm_stop',
      label: `pwm_stop GPIO ${pin}`,
      pins: [
        {
          pin,
          before: {
            ...was,
            direction: before.direction,
            pwm: knownPwm(board, pin),
            ...(knownPwm(board, pin) ? {} : { unknown_pwm: true }),
          },
          after: { direction: after.direction, pull: after.pull, level: 'LOW', pwm: null },
        },
      ],
    });
    return { pin, node: gpioPinNode(pin), ...after, net: netName(now, pin), warnings, stopped: true };
  },
});

/** A firmware ValueError (`PWM setup failed`, ...) as a tool error that names the request. */
export function firmwareRefusal(error: unknown, what: string): unknown {
  if (!isDeviceError(error, 'python_error')) return error;
  return new ToolError(
    'refused',
    `The firmware refused ${what}: ${error.details.pythonMessage ?? error.message}.`,
  );
}

export default [gpioGet, gpioConfig, pwmStart, pwmStop];
