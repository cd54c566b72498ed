/**
 * The simulated board's hardware: what the firmware groups share and read. One object per boot;
 * it survives a soft reset (only the VM is rebuilt), as the board's RAM state does (spec §3.2).
 *
 * Fields, by owner:
 * - `conns`, `power`, `slot`, `context`, `entry`, `history`: the active slot's RAM state (the
 *   firmware's `globalState`) and its bookkeeping: connections, slots and state groups; everyone reads.
 * - `overlays`: how get_state lists overlays and set_state replaces them; index.ts wires it to the
 *   overlays group (empty until then).
 * - `dacOut`: power group (dac_set) and wavegen; read by the circuit.
 * - `gpio`: gpio and pwm groups; read by the circuit and get_state.
 * - `wavegen`: wavegen group; read by the circuit (the output channel follows the wave).
 * - `probe`: the inputs group writes it (probe touches, buttons, switch); the circuit reads the
 *   switch position (the probe's supply current on DAC0 depends on it, which INA1 sees).
 * - `lastAdc`: the adc group stores each reading (get_state shows an ADC net's last reading).
 * - `rng`: measurement noise (adc, ina), present only when the board was started with a seed.
 * - `version`: bumped by anything that changes a voltage; the circuit caches its solution on it.
 */
import { Connections } from '../../board/connections.js';
import { DEFAULT_POWER, WAVEGEN_DEFAULTS } from '../../board/limits.js';
import type { OverlayInput } from '../../board/state.js';
import { mulberry32, type Rng } from '../noise.js';
import type { FirmwareEnv } from './types.js';

/** `dac_set` channels: 0 DAC0, 1 DAC1, 2 TOP_RAIL, 3 BOTTOM_RAIL (spec §6.5). */
export type DacChannel = 0 | 1 | 2 | 3;

export interface PwmState {
  freq: number;
  duty: number;
  /** `now()` when it started: the output level follows the time. */
  startedAt: number;
}

export interface GpioPin {
  /** Firmware convention: 0 = OUTPUT, 1 = INPUT (spec §6.7). */
  direction: 0 | 1;
  /** 1 pull-up, -1 pull-down, 0 none, 2 bus keeper. */
  pull: -1 | 0 | 1 | 2;
  /** The output latch written by `gpio_set`; it drives the pin only while the pin is an output. */
  level: 0 | 1;
  /** `gpio_set_read_floating`: `gpio_get` tells FLOATING apart with a weak pull test. */
  readFloating: boolean;
  /** `gpio_claim_pin`: handed to `machine.Pin` (no electrical effect here). */
  claimed: boolean;
  /** Running PWM, or null. */
  pwm: PwmState | null;
  /** Last PWM settings, kept after `pwm_stop` (a later duty/frequency change restarts with them). */
  pwmFreq: number;
  pwmDuty: number;
}

export interface WaveGenState {
  output: DacChannel;
  freq: number;
  /** 0 sine, 1 triangle, 2 sawtooth, 3 square. */
  wave: 0 | 1 | 2 | 3;
  /** Peak-to-peak volts. */
  amplitude: number;
  offset: number;
  running: boolean;
  startedAt: number;
  sweep: { start: number; end: number; seconds: number };
}

export interface ProbeState {
  /** Pad the probe tip touches now, or -1 (NO_PAD). */
  pad: number;
  /** Button held now: 0 none, 1 connect, 2 remove. */
  button: 0 | 1 | 2;
  /** Probe switch: 0 measure, 1 select, -1 unknown. */
  switchPosition: -1 | 0 | 1;
}

/** Setpoints as stored in the state (what `dac_get` and get_state report), in V. */
export interface PowerSetpoints {
  topRail: number;
  bottomRail: number;
  dac0: number;
  dac1: number;
}

/** The part of the state that undo, `nodes_discard` and slots restore. */
export interface Snapshot {
  conns: Connections;
  power: PowerSetpoints;
}

export interface HistoryEntry {
  label: string;
  conns: Connections;
}

export interface OverlayAccess {
  list(): OverlayInput[];
  replace(overlays: readonly OverlayInput[]): void;
}

export interface Hardware {
  /** The active state's bridges and nets. Replace it (do not mutate a snapshot) when restoring. */
  conns: Connections;
  power: PowerSetpoints;
  /** Active slot 0-7 (`CURRENT_SLOT()`). */
  slot: number;
  /** `context_get()`: where Python's changes go (spec §6.4). */
  context: 'global' | 'python';
  /** State when Python was entered: `nodes_discard` restores it, `nodes_has_changes` compares to it. */
  entry: Snapshot;
  /** Undo journal: `entries[position]` is the present. */
  history: { entries: HistoryEntry[]; position: number; forced: number };
  overlays: OverlayAccess;
  /** DAC outputs as driven now, indexed by channel: follows every dac_set, also with save=False. */
  dacOut: [number, number, number, number];
  /** Index 0-7 = GPIO_1..GPIO_8, 8 = UART TX, 9 = UART RX (pins 1-10 of spec §6.7). */
  gpio: GpioPin[];
  wavegen: WaveGenState;
  probe: ProbeState;
  /** Last reading per ADC channel 0-7, in V. */
  lastAdc: number[];
  rng: Rng | undefined;
  /** Milliseconds since boot. */
  now(): number;
  version: number;
}

/** MCP4728 calibration defaults (config `[calibration] *_zero = 1650`, `*_spread = 21.5`). */
const DAC_ZERO = 1650;
const DAC_SPREAD = 21.5;

/**
 * What a DAC really puts out for a setpoint: the 12-bit code `volts*4095/spread + zero`, clipped to
 * 0..4095 (spec §6.5), so about -8.7 V to +12.8 V in 5.25 mV steps.
 */
export function dacOutputVolts(volts: number): number {
  if (Number.isNaN(volts)) return 0;
  const code = Math.min(4095, Math.max(0, Math.round((volts * 4095) / DAC_SPREAD + DAC_ZERO)));
  return ((code - DAC_ZERO) * DAC_SPREAD) / 4095;
}

function freshPin(index: number): GpioPin {
  return {
    direction: 1,
    // GPIO_1..8 come up as inputs with pull-downs (the get_state example of spec §7); UART pins bare.
    pull: index < 8 ? -1 : 0,
    level: 0,
    readFloating: true,
    claimed: false,
    pwm: null,
    pwmFreq: 0,
    pwmDuty: -1,
  };
}

/** The channel order of `dac_set`: DAC0, DAC1, TOP_RAIL, BOTTOM_RAIL. */
export const POWER_KEYS = ['dac0', 'dac1', 'topRail', 'bottomRail'] as const;

export function freshPower(): PowerSetpoints {
  return { ...DEFAULT_POWER };
}

/** Makes the DAC outputs follow the stored setpoints (after a slot load, set_state, discard...). */
export function applyPower(hw: Hardware): void {
  POWER_KEYS.forEach((key, ch) => {
    hw.dacOut[ch] = dacOutputVolts(hw.power[key]);
  });
  touch(hw);
}

/** A fresh slot: the probe-power bridge BUFFER_IN-DAC0 and the default setpoints (spec §6.3, §6.5). */
export function freshConnections(): Connections {
  const conns = new Connections();
  conns.clear();
  return conns;
}

export function createHardware(env: Pick<FirmwareEnv, 'host' | 'noiseSeed'>): Hardware {
  const conns = freshConnections();
  return {
    conns,
    power: freshPower(),
    slot: 0,
    context: 'global',
    entry: { conns: conns.clone(), power: freshPower() },
    history: { entries: [{ label: 'boot', conns: conns.clone() }], position: 0, forced: 0 },
    overlays: { list: () => [], replace: () => {} },
    dacOut: [
      dacOutputVolts(DEFAULT_POWER.dac0),
      dacOutputVolts(DEFAULT_POWER.dac1),
      dacOutputVolts(DEFAULT_POWER.topRail),
      dacOutputVolts(DEFAULT_POWER.bottomRail),
    ],
    gpio: Array.from({ length: 10 }, (_, i) => freshPin(i)),
    wavegen: {
      output: WAVEGEN_DEFAULTS.output,
      freq: WAVEGEN_DEFAULTS.freq,
      wave: WAVEGEN_DEFAULTS.wave,
      amplitude: WAVEGEN_DEFAULTS.amplitude,
      offset: WAVEGEN_DEFAULTS.offset,
      running: false,
      startedAt: 0,
      sweep: { start: 0, end: 0, seconds: 0 },
    },
    probe: { pad: -1, button: 0, switchPosition: 0 },
    lastAdc: [0, 0, 0, 0, 0, 0, 0, 0],
    rng: env.noiseSeed === undefined ? undefined : mulberry32(env.noiseSeed),
    now: () => env.host.now(),
    version: 0,
  };
}

/** Marks a change that may move a voltage. */
export function touch(hw: Hardware): void {
  hw.version++;
}
