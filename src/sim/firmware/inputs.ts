/**
 * The probe, its two buttons and select/measure switch, and the clickwheel (spec §6.10), driven by
 * input events from outside (tests, the CLI) and by the simulated-input functions.
 *
 * - A probe touch rests on the pad until `probe_release` (or another touch); a touch that ends
 *   before any read is kept, so quick taps are not lost. A blocking read returns the pad under the
 *   tip at once, again and again while it rests there (JumperlessMicroPythonAPI.cpp:2054-2074,
 *   justReadProbe(false)); a non-blocking read reports the same pad at most every 500 ms and NO_PAD
 *   in between (Probing.cpp:5951-5981).
 * - A button event is a click: the firmware latches the last press until a consuming read takes it
 *   (Probing.cpp:402-461), and shows it as held for CLICK_MS to non-consuming reads.
 * - The clickwheel position counts raw encoder steps (RotaryEncoder.cpp:912-917), RAW_PER_CLICK per
 *   detent here; clickwheel_up/down only set the direction (JumperlessMicroPythonAPI.cpp:2161-2171).
 *   The button state is read without being consumed; RELEASED and DOUBLECLICKED clear themselves
 *   after WHEEL_EVENT_MS (RotaryEncoder.h:37-58).
 * - Blocking waits poll the inputs every 5 ms and end with KeyboardInterrupt('Ctrl+Q') on Ctrl-C.
 */
import { padName } from '../../board/nodes.js';
import { asInt, truthy } from './args.js';
import type { Hardware } from './hardware.js';
import { type FirmwareFunctions, type FirmwareHost, type InputEvent, PyError } from './types.js';

const POLL_MS = 5;
const CLICK_MS = 200;
/** Older events are dropped rather than queued without bound. */
const MAX_QUEUED = 16;
/** Probing.cpp:5953-5959: a non-blocking read repeats the same pad after this long. */
const DUPLICATE_MS = 500;
/**
 * Raw quadrature counts per detent of the wheel. Inferred: the firmware's logical step is
 * rotaryDivider = 8 raw counts (RotaryEncoder.cpp:234); we take one detent as one step.
 */
export const RAW_PER_CLICK = 8;
/** RotaryEncoder.h:37-58: RELEASED and DOUBLECLICKED hold for about 15 ms, then IDLE. */
const WHEEL_EVENT_MS = 15;

export const WHEEL_NONE = 0;
export const WHEEL_UP = 1;
export const WHEEL_DOWN = 2;
export const WHEEL_IDLE = 0;
export const WHEEL_PRESSED = 1;
export const WHEEL_HELD = 2;
export const WHEEL_RELEASED = 3;
export const WHEEL_DOUBLECLICKED = 4;
/** RotaryEncoder.h:60: states without module constants. */
export const WHEEL_LONG_HELD = 5;
export const WHEEL_MEDIUM_HELD = 6;

export interface InputState {
  /** Touch events not yet taken by a read. */
  touches: number[];
  /** The latched button press (1 connect, 2 remove; 0 none), kept until a consuming read. */
  press: number;
  /** lastRowProbed and lastDuplicateTime of the non-blocking duplicate filter. */
  lastPad: number;
  lastPadAt: number;
  /** Until when (host time) the last click shows as held. */
  heldUntil: number;
  /** Where the switch physically is; `check_switch_position` reads it into the firmware's value. */
  physicalSwitch: 0 | 1;
  /** Raw encoder counts since the last reset. */
  wheelPosition: number;
  wheelDirection: number;
  wheelButton: number;
  /** When wheelButton was set (RELEASED and DOUBLECLICKED expire). */
  wheelButtonAt: number;
  /** config `[dacs] auto_connect_probe` (config.h:58: on by default). */
  autoconnect: boolean;
  /** Blocking probe reads since boot, for the firmware's interrupt debug line. */
  probeReadCalls: number;
}

export function createInputState(hw: Hardware): InputState {
  return {
    touches: [],
    press: 0,
    lastPad: -1,
    lastPadAt: 0,
    heldUntil: 0,
    physicalSwitch: hw.probe.switchPosition === 1 ? 1 : 0,
    wheelPosition: 0,
    wheelDirection: WHEEL_NONE,
    wheelButton: WHEEL_IDLE,
    wheelButtonAt: 0,
    autoconnect: true,
    probeReadCalls: 0,
  };
}

const push = (queue: number[], value: number): void => {
  queue.push(value);
  if (queue.length > MAX_QUEUED) queue.shift();
};

const WHEEL_BUTTON_STATES: Record<string, number> = {
  pressed: WHEEL_PRESSED,
  held: WHEEL_HELD,
  released: WHEEL_RELEASED,
  doubleclicked: WHEEL_DOUBLECLICKED,
  long_held: WHEEL_LONG_HELD,
  medium_held: WHEEL_MEDIUM_HELD,
};

/** The wheel button now: a RELEASED or DOUBLECLICKED older than WHEEL_EVENT_MS has gone IDLE. */
export function wheelButtonNow(state: InputState, now: number): number {
  const event = state.wheelButton === WHEEL_RELEASED || state.wheelButton === WHEEL_DOUBLECLICKED;
  if (event && now - state.wheelButtonAt > WHEEL_EVENT_MS) state.wheelButton = WHEEL_IDLE;
  return state.wheelButton;
}

/** Applies one event from outside; malformed events are ignored (they come from the host side). */
export function applyInputEvent(hw: Hardware, state: InputState, event: InputEvent, now: number): void {
  switch (event?.kind) {
    case 'probe_touch':
      if (!Number.isInteger(event.pad)) return;
      hw.probe.pad = event.pad;
      push(state.touches, event.pad);
      return;
    case 'probe_release':
      hw.probe.pad = -1;
      return;
    case 'button': {
      const button = event.button === 'connect' ? 1 : event.button === 'remove' ? 2 : 0;
      if (button === 0) return;
      state.press = button;
      hw.probe.button = button;
      state.heldUntil = now + CLICK_MS;
      return;
    }
    case 'clickwheel_turn': {
      const clicks = Number.isInteger(event.clicks) ? Math.max(-1000, Math.min(1000, event.clicks)) : 0;
      if (clicks === 0) return;
      state.wheelPosition += clicks * RAW_PER_CLICK;
      state.wheelDirection = clicks > 0 ? WHEEL_UP : WHEEL_DOWN;
      return;
    }
    case 'clickwheel_button': {
      const value = WHEEL_BUTTON_STATES[event.state];
      if (value !== undefined) {
        state.wheelButton = value;
        state.wheelButtonAt = now;
      }
      return;
    }
    case 'switch':
      if (event.position !== 'measure' && event.position !== 'select') return;
      state.physicalSwitch = event.position === 'select' ? 1 : 0;
      hw.probe.switchPosition = state.physicalSwitch;
      return;
    default:
      return;
  }
}

export interface InputsGroup {
  state: InputState;
  functions: FirmwareFunctions;
  applyInput(event: InputEvent): void;
}

export function createInputs(host: FirmwareHost, hw: Hardware): InputsGroup {
  const state = createInputState(hw);

  const heldButton = (): number => {
    if (hw.probe.button !== 0 && host.now() > state.heldUntil) hw.probe.button = 0;
    return hw.probe.button;
  };

  /** ProbeButton::getButtonPress(true): the latched press, cleared. */
  const takePress = (): number => {
    const press = state.press;
    state.press = 0;
    if (press !== 0) {
      hw.probe.button = 0;
      state.heldUntil = 0;
    }
    return press;
  };

  /** Polls until `take` yields something; Ctrl-C raises KeyboardInterrupt('Ctrl+Q') as the firmware does. */
  const waitFor = (take: () => number | undefined, onInterrupt?: () => void): number => {
    try {
      for (;;) {
        host.pollInputs();
        const value = take();
        if (value !== undefined) return value;
        host.sleep(POLL_MS);
      }
    } catch (error) {
      if (error instanceof PyError && error.pyType === 'KeyboardInterrupt') {
        onInterrupt?.();
        throw new PyError('KeyboardInterrupt', 'Ctrl+Q');
      }
      throw error;
    }
  };

  /** A tap that ended before a read, else the pad under the tip (-1: none). */
  const touched = (): number => state.touches.shift() ?? hw.probe.pad;

  const readProbe = (blocking: boolean): number => {
    if (!blocking) {
      host.pollInputs();
      const pad = touched();
      if (pad === -1) return -1;
      // justReadProbe(true): the same pad again within 500 ms of the last accepted read is refused.
      if (pad === state.lastPad && host.now() - state.lastPadAt < DUPLICATE_MS) return -1;
      state.lastPad = pad;
      state.lastPadAt = host.now();
      return pad;
    }
    const call = ++state.probeReadCalls;
    const pad = waitFor(
      () => {
        const p = touched();
        return p === -1 ? undefined : p;
      },
      () => host.writeMain(`DEBUG: Interrupt detected in jl_probe_read_blocking, call #${call}\n`),
    );
    state.lastPad = pad;
    return pad;
  };

  // Blocking reads wait for the latched press (consume) or the held state (JumperlessMicro-
  // PythonAPI.cpp:2112-2158); non-blocking ones read either once.
  const readButton = (blocking: boolean, consume: boolean): number => {
    const once = (): number => (consume ? takePress() : heldButton());
    if (blocking) return waitFor(() => once() || undefined);
    host.pollInputs();
    return once();
  };

  const functions: FirmwareFunctions = {
    probe_read: (blocking) => {
      const pad = readProbe(blocking === undefined || truthy(blocking));
      return [pad, padName(pad)];
    },
    /** What a ProbePad with this value prints (for `ProbePad(n)` and the pad constants). */
    _pad_names: (pads) => (Array.isArray(pads) ? pads.map((p) => padName(asInt(p))) : []),
    // The firmware leaves this as a stub (spec §6.10).
    probe_tap: () => null,
    probe_button: (blocking, consume) =>
      readButton(blocking === undefined || truthy(blocking), consume !== undefined && truthy(consume)),
    get_switch_position: () => hw.probe.switchPosition,
    set_switch_position: (position) => {
      const p = asInt(position);
      if (p >= -1 && p <= 1) hw.probe.switchPosition = p as -1 | 0 | 1;
      return null;
    },
    // Probing.cpp:4994-4997: with autoconnect off the answer is forced to SELECT.
    check_switch_position: () => {
      hw.probe.switchPosition = state.autoconnect ? state.physicalSwitch : 1;
      return hw.probe.switchPosition;
    },
    probe_autoconnect: (enable) => {
      if (enable !== undefined && enable !== null) state.autoconnect = truthy(enable);
      return state.autoconnect;
    },
    clickwheel_get_position: () => state.wheelPosition,
    clickwheel_reset_position: () => {
      state.wheelPosition = 0;
      return null;
    },
    clickwheel_get_direction: (consume) => {
      host.pollInputs();
      const direction = state.wheelDirection;
      if (consume === undefined || truthy(consume)) state.wheelDirection = WHEEL_NONE;
      return direction;
    },
    // encoderButtonState as it is: reading does not consume it.
    clickwheel_get_button: () => {
      host.pollInputs();
      return wheelButtonNow(state, host.now());
    },
    clickwheel_is_initialized: () => true,
    // The count is ignored and the position stays: only the direction is set.
    clickwheel_up: () => {
      state.wheelDirection = WHEEL_UP;
      return null;
    },
    clickwheel_down: () => {
      state.wheelDirection = WHEEL_DOWN;
      return null;
    },
    // A completed press: the button reads RELEASED (until it expires).
    clickwheel_press: () => {
      state.wheelButton = WHEEL_RELEASED;
      state.wheelButtonAt = host.now();
      return null;
    },
  };

  return {
    state,
    functions,
    applyInput: (event) => applyInputEvent(hw, state, event, host.now()),
  };
}
