/** Routable GPIO and PWM (spec §6.7): pins 1-8 = GPIO_1..8, 9 = UART TX, 10 = UART RX. */
import { z } from 'zod';
import { GPIO_PINS, PWM_DUTY, PWM_FREQ_HZ, PWM_PINS } from '../board/limits.js';
import { isDeviceError } from '../device/errors.js';
import { assertCanDrive, gpioPinNode, netOfNode, readState } from './boardState.js';
import { py } from './py.js';
import { defineTool, ToolError } from './tool.js';

/**
 * Python run on the board, inside `_jlt`. Directions go as the strings 'OUTPUT'/'INPUT': a plain
 * int follows the firmware convention 0 = OUTPUT, 1 = INPUT (spec §6.7, §12).
 */
export const python = `
def gpio_info(p):
    return {'state': str(gpio_get(p)), 'direction': str(gpio_get_dir(p)), 'pull': str(gpio_get_pull(p))}
def gpio_drive(p, v):
    gpio_set_dir(p, 'OUTPUT')
    gpio_set(p, v)
    return _jlt.gpio_info(p)
def gpio_dir(p, d):
    gpio_set_dir(p, d)
    return _jlt.gpio_info(p)
def gpio_pull(p, v):
    gpio_set_pull(p, v)
    return _jlt.gpio_info(p)
def gpio_pwm(p, f, d):
    pwm(p, f, d)
    return _jlt.gpio_info(p)
def gpio_pwm_stop(p):
    pwm_stop(p)
    return _jlt.gpio_info(p)
`;

const LEVELS = ['HIGH', 'LOW'] as const;
const STATES = ['HIGH', 'LOW', 'FLOATING'] as const;
const DIRECTIONS = ['INPUT', 'OUTPUT'] as const;
const PULLS = ['PULLUP', 'PULLDOWN', 'NO_PULL', 'BUS_KEEPER'] as const;

const info = z.object({
  state: z.enum(STATES),
  direction: z.enum(DIRECTIONS),
  pull: z.enum(PULLS),
});
type Info = z.infer<typeof info>;

const pinField = z
  .number()
  .int()
  .min(GPIO_PINS.min)
  .max(GPIO_PINS.max)
  .describe('1-8 = GPIO_1..GPIO_8, 9 = UART_TX, 10 = UART_RX');
const pwmPinField = z.number().int().min(PWM_PINS.min).max(PWM_PINS.max).describe('GPIO_1..GPIO_8');

const pinResult = z.object({
  pin: z.number(),
  node: z.string(),
  /** What the pad reads now (HIGH/LOW/FLOATING). */
  state: z.enum(STATES),
  direction: z.enum(DIRECTIONS),
  pull: z.enum(PULLS),
  /** Name of the net the pin is routed to, or null. */
  net: z.string().nullable(),
  warnings: z.array(z.string()),
});

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

export const gpioGet = defineTool({
  name: 'gpio_get',
  title: 'Read a GPIO pin',
  description:
    'Read a GPIO pin: level (HIGH, LOW or FLOATING; a weak pull tells floating apart), direction, pull and the net it is routed to.',
  group: 'gpio',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['gpio_get', 'gpio_get_dir', 'gpio_get_pull', 'get_state'],
  input: z.object({ pin: pinField }),
  output: pinResult,
  handle: async ({ pin }, { board }) => {
    const read = await pinInfo(board.call(py`_jlt.gpio_info(${pin})`));
    const { state } = await readState(board);
    return {
      pin,
      node: gpioPinNode(pin),
      ...read,
      net: netOfNode(state, gpioPinNode(pin))?.name ?? null,
      warnings: [],
    };
  },
});

export const gpioSet = defineTool({
  name: 'gpio_set',
  title: 'Drive a GPIO pin high or low',
  description:
    'Make a GPIO pin an output and drive it HIGH (3.3 V) or LOW. Refused when its net holds a supply, GND or another output (a short); the board cannot see external wires.',
  group: 'gpio',
  kind: 'physical',
  capability: 'jumperless.io',
  requires: ['gpio_set', 'gpio_set_dir', 'gpio_get', 'gpio_get_dir', 'gpio_get_pull', 'get_state'],
  input: z.object({ pin: pinField, level: z.enum(LEVELS).describe('HIGH = 3.3 V, LOW = 0 V') }),
  output: pinResult.extend({ level: z.enum(LEVELS) }),
  handle: async ({ pin, level }, { board }) => {
    const { state } = await readState(board);
    assertCanDrive(state, pin, `drive ${gpioPinNode(pin)} ${level}`);
    const after = await pinInfo(board.call(py`_jlt.gpio_drive(${pin}, ${level})`));
    checkReadBack('direction', after.direction, 'OUTPUT', pin);
    const warnings: string[] = [];
    // The firmware reads the pad with its driver released: an opposite level means a load or another source.
    if (after.state !== 'FLOATING' && after.state !== level) {
      warnings.push(
        `The pad reads ${after.state} while driven ${level}: something else on the net pulls it.`,
      );
    }
    const net = netOfNode(state, gpioPinNode(pin))?.name ?? null;
    return { pin, node: gpioPinNode(pin), level, ...after, net, warnings };
  },
});

export const gpioDirectionSet = defineTool({
  name: 'gpio_direction_set',
  title: 'Set a GPIO pin direction',
  description:
    'Make a GPIO pin an INPUT or an OUTPUT. OUTPUT drives the last level set; refused when its net holds a supply, GND or another output.',
  group: 'gpio',
  kind: 'physical',
  capability: 'jumperless.io',
  requires: ['gpio_set_dir', 'gpio_get', 'gpio_get_dir', 'gpio_get_pull', 'get_state'],
  input: z.object({ pin: pinField, direction: z.enum(DIRECTIONS) }),
  output: pinResult,
  handle: async ({ pin, direction }, { board }) => {
    const { state } = await readState(board);
    if (direction === 'OUTPUT') assertCanDrive(state, pin, `make ${gpioPinNode(pin)} an output`);
    const after = await pinInfo(board.call(py`_jlt.gpio_dir(${pin}, ${direction})`));
    checkReadBack('direction', after.direction, direction, pin);
    const net = netOfNode(state, gpioPinNode(pin))?.name ?? null;
    return { pin, node: gpioPinNode(pin), ...after, net, warnings: [] };
  },
});

export const gpioPullSet = defineTool({
  name: 'gpio_pull_set',
  title: 'Set a GPIO pin pull',
  description:
    'Set the internal pull of a GPIO pin: PULLUP, PULLDOWN, NO_PULL or BUS_KEEPER (weak internal resistors).',
  group: 'gpio',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['gpio_set_pull', 'gpio_get', 'gpio_get_dir', 'gpio_get_pull', 'get_state'],
  input: z.object({ pin: pinField, pull: z.enum(PULLS) }),
  output: pinResult,
  handle: async ({ pin, pull }, { board }) => {
    const after = await pinInfo(board.call(py`_jlt.gpio_pull(${pin}, ${pull})`));
    checkReadBack('pull', after.pull, pull, pin);
    const { state } = await readState(board);
    const net = netOfNode(state, gpioPinNode(pin))?.name ?? null;
    return { pin, node: gpioPinNode(pin), ...after, net, warnings: [] };
  },
});

export const pwmStart = defineTool({
  name: 'pwm_start',
  title: 'Start PWM on a GPIO pin',
  description:
    'Drive a square wave (3.3 V logic) on GPIO_1..8 at frequency_hz (0.001 Hz..62.5 MHz; below 10 Hz a timer drives it) and duty_cycle 0..1. Refused when the net holds a supply, GND or another output.',
  group: 'gpio',
  kind: 'physical',
  capability: 'jumperless.io',
  requires: ['pwm', 'gpio_get', 'gpio_get_dir', 'gpio_get_pull', 'get_state'],
  input: z.object({
    pin: pwmPinField,
    frequency_hz: z.number().min(PWM_FREQ_HZ.min).max(PWM_FREQ_HZ.max).describe('Hz'),
    duty_cycle: z.number().min(PWM_DUTY.min).max(PWM_DUTY.max).default(0.5).describe('0..1, fraction high'),
  }),
  output: pinResult.extend({
    frequency_hz: z.number(),
    duty_cycle: z.number(),
    pwm_active: z.boolean().nullable(),
  }),
  handle: async ({ pin, frequency_hz, duty_cycle }, { board }) => {
    const { state } = await readState(board);
    assertCanDrive(state, pin, `start PWM on ${gpioPinNode(pin)}`);
    let after: Info;
    try {
      after = await pinInfo(board.call(py`_jlt.gpio_pwm(${pin}, ${frequency_hz}, ${duty_cycle})`));
    } catch (error) {
      throw firmwareRefusal(error, `PWM on ${gpioPinNode(pin)} at ${frequency_hz} Hz`);
    }
    // get_state names the pin's function; firmware that does not report it leaves this unknown.
    const { state: now } = await readState(board);
    const fn = now.gpio.find((g) => g.pin === pin)?.function;
    const pwmActive = fn === undefined ? null : fn.toUpperCase() === 'PWM';
    if (pwmActive === false) {
      throw new ToolError(
        'not_applied',
        `${gpioPinNode(pin)} is not in PWM mode after starting PWM (function ${fn}).`,
      );
    }
    const net = netOfNode(now, gpioPinNode(pin))?.name ?? null;
    return {
      pin,
      node: gpioPinNode(pin),
      ...after,
      net,
      warnings: [],
      frequency_hz,
      duty_cycle,
      pwm_active: pwmActive,
    };
  },
});

export const pwmStop = defineTool({
  name: 'pwm_stop',
  title: 'Stop PWM on a GPIO pin',
  description:
    'Stop PWM on GPIO_1..8. A hardware PWM (10 Hz and up) leaves the pin an output driving LOW; a slow one leaves it an input.',
  group: 'gpio',
  kind: 'physical',
  capability: 'jumperless.io',
  requires: ['pwm_stop', 'gpio_get', 'gpio_get_dir', 'gpio_get_pull', 'get_state'],
  input: z.object({ pin: pwmPinField }),
  output: pinResult,
  handle: async ({ pin }, { board }) => {
    const after = await pinInfo(board.call(py`_jlt.gpio_pwm_stop(${pin})`));
    const { state } = await readState(board);
    const net = netOfNode(state, gpioPinNode(pin))?.name ?? null;
    return { pin, node: gpioPinNode(pin), ...after, net, warnings: [] };
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

export default [gpioGet, gpioSet, gpioDirectionSet, gpioPullSet, pwmStart, pwmStop];
