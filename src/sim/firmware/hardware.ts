/**
 * The simulated board's hardware: what the firmware groups share and read. One object per boot;
 * it survives a soft reset (only the VM is rebuilt), as the board's RAM state does (spec §3.2).
 *
 * Fields, by owner:
 * - `conns`, `power`, `slot`, `context`, `dirty`, `history`: the active slot's RAM state (the
 *   firmware's `globalState`) and its bookkeeping: connections, slots and state groups; everyone reads.
 * - `overlays`: how get_state lists overlays and set_state replaces them; index.ts wires it to the
 *   overlays group (empty until then).
 * - `dacOut`: power group (dac_set) and wavegen; read by the circuit.
 * - `gpio`: gpio and pwm groups; read by the circuit and get_state. `direction` and `pull` are the
 *   config (what get_state's direction reports); the pad follows `padDirection(pin)`/`padPull(pin)`.
 * - `gpioRefreshed`: gpio group (which routing refresh it last put the GPIO config on).
 * - `wavegen`: wavegen group; read by the circuit (the output channel follows the wave).
 * - `probe`: the inputs group writes it (probe touches, buttons, switch); the circuit reads the
 *   switch position (the probe's supply current on DAC0 depends on it, which INA1 sees).
 * - `lastAdc`: the adc group stores each reading (get_state shows an ADC net's last reading).
 * - `rng`: measurement noise (adc, ina), present only when the board was started with a seed.
 * - `version`: bumped by anything that changes a voltage; the circuit caches its solution on it.
 */

import { Connections } from '../../board/connections.js';
import { FIRMWARE, type FirmwareProfile, NEWEST_FIRMWARE } from '../../board/firmware.js';
import { DEFAULT_POWER, WAVEGEN_POWER_ON } from '../../board/limits.js';
import { BUFFER_IN, DAC0 } from '../../board/nodes.js';
import type { OverlayInput } from '../../board/state.js';
import { mulberry32, type Rng } from '../noise.js';
import type { PlacedPart } from './partsDb.js';
import type { FirmwareEnv } from './types.js';

/** `dac_set` channels: 0 DAC0, 1 DAC1, 2 TOP_RAIL, 3 BOTTOM_RAIL (spec §6.5). */
export type DacChannel = 0 | 1 | 2 | 3;

/** A hardware PWM output (10 Hz and up) as the pad sees it. */
export interface PwmState {
  freq: number;
  duty: number;
  /** `now()` when it started: the output level follows the time. */
  startedAt: number;
  /**
   * Set when the slice was disabled under the pin (its slice partner's `pwm_stop`): the output
   * holds this level while the pad stays in the PWM function.
   */
  frozen?: 0 | 1;
}

/** The timer of a slow PWM (below 10 Hz): every ms it writes the SIO output latch. */
export interface SlowPwmState {
  periodMs: number;
  /** Milliseconds HIGH in each period. */
  dutyMs: number;
  startedAt: number;
}

export interface GpioPin {
  /**
   * The configured direction (`globalState.config.gpioDirection`, what get_state reports), 0 =
   * OUTPUT, 1 = INPUT. The pad follows it unless `padDirection` says otherwise.
   */
  direction: 0 | 1;
  /**
   * The pad's SIO direction when it differs from `direction`: a slow PWM makes the pad an output
   * and its stop an input without touching the config (Peripherals.cpp:2635, 2756). null: as configured.
   */
  padDirection: 0 | 1 | null;
  /**
   * The configured pull (`globalState.config.gpioPulls`): 1 pull-up, -1 pull-down, 0 none, 2 bus
   * keeper. The pad follows it unless `padPull` says otherwise.
   */
  pull: -1 | 0 | 1 | 2;
  /**
   * The pad's pulls when they differ from the config until the next routing refresh: a `gpio_get`
   * leaves a bus keeper a pull-up, an unknown `gpio_set_pull` value turns both off. null: as configured.
   */
  padPull: -1 | 0 | 1 | 2 | null;
  /** The SIO output latch; it drives the pin only while the pad is an output. */
  level: 0 | 1;
  /**
   * The firmware's gpioState: the value `gpio_set` stored, or after a routing refresh an input's
   * pull code (2, 3, 4, 7); a refresh drives a configured output to it (Peripherals.cpp:715-757).
   */
  gpioState: number;
  /** `gpio_set_read_floating`: `gpio_get` tells FLOATING apart with a weak pull test. */
  readFloating: boolean;
  /** `gpio_claim_pin`: handed to `machine.Pin` (no electrical effect here). */
  claimed: boolean;
  /** Hardware PWM driving the pad (pad function PWM), or null (pad function SIO). */
  pwm: PwmState | null;
  /** gpioPWMEnabled: a hardware PWM was set up (it stays set when `gpio_set` takes the pad back). */
  pwmEnabled: boolean;
  /** Slow-PWM timer writing the output latch, or null. */
  slowPwm: SlowPwmState | null;
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

/** One undo step (history.ts): `revert` undoes it, `apply` does it again. */
export interface HistoryTxn {
  label: string;
  /** A supply change (channel, setpoints, when): the next one on its channel may merge into it. */
  supply?: { ch: number; prev: number; next: number; at: number };
  revert(): void;
  apply(): void;
}

/** One slot's undo list; `cursor` transactions are applied, the rest are undone (redo-able). */
export interface SlotHistory {
  txns: HistoryTxn[];
  cursor: number;
}

export interface OverlayAccess {
  list(): OverlayInput[];
  replace(overlays: readonly OverlayInput[]): void;
}

export interface Hardware {
  /** The release this board runs (firmware.ts): its API surface and behaviour. */
  firmware: FirmwareProfile;
  /** PSRAM fitted: the undo ring and the heap are larger. */
  psram: boolean;
  /** Parts placed with place_part (5.7.11, partsDb.ts). */
  parts: PlacedPart[];
  /** The background net-current scan (`[display] net_currents`, scan.ts) is on. */
  netCurrentScan: boolean;
  /** A bg_start callback is registered (the main loop ticks it between scripts). */
  bgActive: boolean;
  /** The active state's bridges and nets. Replace it (do not mutate a snapshot) when restoring. */
  conns: Connections;
  power: PowerSetpoints;
  /** `CURRENT_SLOT()` (the firmware's netSlot): 0-7, or 99 after `nodes_save(99)`. */
  slot: number;
  /** `context_get()`: where Python's changes go (spec §6.4). */
  context: 'global' | 'python';
  /**
   * `pause_core2(True)` holds core 2 (LED and crossbar updates). It lasts across REPL jobs (the
   * after-exec hooks are compiled out, mpconfigport.h:517-523) until the next full routing refresh
   * clears it (Commands.cpp:175): nodes_clear, nodes_save, switch_slot and set_state.
   */
  core2Paused: boolean;
  /**
   * The state's dirty flag (JumperlessState::markDirty): the idle autosave writes the state to the
   * current slot's file and clears it (slots.ts, autosave.ts).
   */
  dirty: boolean;
  /** `now()` of the last user input (probe button, clickwheel); autosave waits 750 ms after it. */
  lastUserInput: number;
  /** Undo history per slot (history.ts); `last` is the connections as of the last recorded step. */
  history: { slots: Map<number, SlotHistory>; snapshots: number; last: Connections };
  overlays: OverlayAccess;
  /** DAC outputs as driven now, indexed by channel: follows every dac_set, also with save=False. */
  dacOut: [number, number, number, number];
  /** Index 0-7 = GPIO_1..GPIO_8, 8 = UART TX, 9 = UART RX (pins 1-10 of spec §6.7). */
  gpio: GpioPin[];
  /** The connections a routing refresh last put the GPIO config on (gpio.ts `syncGpioRefresh`). */
  gpioRefreshed: { conns: Connections | undefined; count: number };
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
 * What a DAC really puts out for a setpoint: the 12-bit code `volts*4095/spread + zero` in single
 * precision, truncated to an int and clipped to 0..4095 (Peripherals.cpp:1390, 1402-1407), so
 * about -8.7 V to +12.8 V in 5.25 mV steps. The float-to-int conversion of the RP2350 turns NaN
 * into code 0 (the lowest output) and saturates infinities.
 */
export function dacOutputVolts(volts: number): number {
  const raw = Math.fround(Math.fround(Math.fround(volts * 4095) / DAC_SPREAD) + DAC_ZERO);
  const code = Number.isNaN(raw) ? 0 : Math.min(4095, Math.max(0, Math.trunc(raw)));
  return ((code - DAC_ZERO) * DAC_SPREAD) / 4095;
}

function freshPin(index: number): GpioPin {
  return {
    direction: 1,
    // Config default: inputs with pull-downs, the UART pins too: every routing refresh puts the
    // config on their pads (States.cpp:516-520, Peripherals.cpp:693-758).
    pull: -1,
    padPull: null,
    level: 0,
    gpioState: 4,
    padDirection: null,
    // gpioReadFloating starts 1 for GPIO_1..8 and 0 for the UART pins (Peripherals.cpp:269).
    readFloating: index < 8,
    claimed: false,
    pwm: null,
    pwmEnabled: false,
    slowPwm: null,
    // gpioPWMFrequency / gpioPWMDutyCycle start at 1 kHz and 0.5 (Peripherals.cpp:357-359).
    pwmFreq: 1000,
    pwmDuty: 0.5,
  };
}

/** The pad's SIO direction (what `gpio_get_dir` reads): 0 OUTPUT, 1 INPUT. */
export function padDirection(pin: GpioPin): 0 | 1 {
  return pin.padDirection ?? pin.direction;
}

/** The pad's pulls (what `gpio_get_pull` and get_state read). */
export function padPull(pin: GpioPin): -1 | 0 | 1 | 2 {
  return pin.padPull ?? pin.pull;
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

/**
 * A fresh slot: the probe-power bridge BUFFER_IN-DAC0 that boot adds with duplicates 0
 * (main.cpp:704 routableBufferPower; Probing.cpp:5385-5389), and the default setpoints.
 */
export function freshConnections(firmware: FirmwareProfile = FIRMWARE[NEWEST_FIRMWARE]): Connections {
  const conns = emptyConnections(firmware);
  conns.connect(BUFFER_IN, DAC0, 0);
  return conns;
}

/** An empty bridge list that names and numbers nets as this release does. */
export function emptyConnections(firmware: FirmwareProfile, stackPaths?: number): Connections {
  return new Connections({
    ...(stackPaths === undefined ? {} : { stackPaths }),
    namedNets: firmware.behaviour.namedNets,
    netIndexLimit: firmware.behaviour.netIndexLimit,
  });
}

export function createHardware(
  env: Pick<FirmwareEnv, 'host' | 'noiseSeed' | 'firmware' | 'psram'>,
): Hardware {
  const firmware = FIRMWARE[env.firmware ?? NEWEST_FIRMWARE];
  const conns = freshConnections(firmware);
  return {
    firmware,
    psram: env.psram === true,
    parts: [],
    netCurrentScan: true,
    bgActive: false,
    conns,
    power: freshPower(),
    slot: 0,
    context: 'global',
    core2Paused: false,
    dirty: false,
    lastUserInput: 0,
    history: { slots: new Map(), snapshots: 0, last: conns.clone() },
    overlays: { list: () => [], replace: () => {} },
    dacOut: [
      dacOutputVolts(DEFAULT_POWER.dac0),
      dacOutputVolts(DEFAULT_POWER.dac1),
      dacOutputVolts(DEFAULT_POWER.topRail),
      dacOutputVolts(DEFAULT_POWER.bottomRail),
    ],
    gpio: Array.from({ length: 10 }, (_, i) => freshPin(i)),
    gpioRefreshed: { conns: undefined, count: 0 },
    wavegen: {
      output: WAVEGEN_POWER_ON.output,
      freq: WAVEGEN_POWER_ON.freq,
      wave: WAVEGEN_POWER_ON.wave,
      amplitude: WAVEGEN_POWER_ON.amplitude,
      offset: WAVEGEN_POWER_ON.offset,
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

/** The gpioState setGPIO gives an input for each configured pull. */
const INPUT_STATE: Record<GpioPin['pull'], number> = { [-1]: 4, 1: 3, 0: 2, 2: 7 };

/**
 * Applies the setGPIO of every routing refresh since the last call: pads back to the config,
 * outputs to their gpioState (which is non-zero, so HIGH, for a pin that was an input at the
 * refresh before), inputs' gpioState to their pull code. Pins with PWM configured are skipped.
 */
export function syncGpioRefresh(hw: Hardware): void {
  const seen = hw.gpioRefreshed;
  if (seen.conns === hw.conns && seen.count === hw.conns.changeCount) return;
  hw.gpioRefreshed = { conns: hw.conns, count: hw.conns.changeCount };
  for (const pin of hw.gpio) {
    if (pin.pwmEnabled || pin.slowPwm) continue;
    pin.padDirection = null;
    pin.padPull = null;
    if (pin.direction === 1) pin.gpioState = INPUT_STATE[pin.pull];
    else pin.level = pin.gpioState !== 0 ? 1 : 0;
  }
  touch(hw);
}
