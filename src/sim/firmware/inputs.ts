/**
 * The probe, its two buttons and select/measure switch, and the clickwheel (spec §6.10), driven by
 * input events from outside (tests, the CLI) and by the simulated-input functions.
 *
 * - A probe touch rests on the pad until `probe_release` (or another touch). Blocking reads wait for
 *   a touch event and take it, so one `probeTouch(12)` answers exactly one `probe_read()`;
 *   non-blocking reads take a waiting event first, else report the pad under the tip.
 * - A button event is a click: it waits to be taken by a blocking or consuming read, and shows as
 *   held for CLICK_MS to non-consuming reads (the firmware reports the held state there).
 * - Blocking waits poll the inputs every 5 ms and end with KeyboardInterrupt on Ctrl-C (spec §3.3).
 */
import { padName } from '../../board/nodes.js';
import { asInt, truthy } from './args.js';
import type { Hardware } from './hardware.js';
import { type FirmwareFunctions, type FirmwareHost, type InputEvent, PyError } from './types.js';

const POLL_MS = 5;
const CLICK_MS = 200;
/** Older events are dropped rather than queued without bound. */
const MAX_QUEUED = 16;

export const WHEEL_NONE = 0;
export const WHEEL_UP = 1;
export const WHEEL_DOWN = 2;
export const WHEEL_IDLE = 0;
export const WHEEL_PRESSED = 1;
export const WHEEL_HELD = 2;
export const WHEEL_RELEASED = 3;
export const WHEEL_DOUBLECLICKED = 4;

export interface InputState {
  /** Touch events not yet taken by a read. */
  touches: number[];
  /** Button clicks (1 connect, 2 remove) not yet taken. */
  presses: number[];
  /** Until when (host time) the last click shows as held. */
  heldUntil: number;
  /** Where the switch physically is; `check_switch_position` reads it into the firmware's value. */
  physicalSwitch: 0 | 1;
  wheelPosition: number;
  wheelDirection: number;
  wheelButton: number;
  autoconnect: boolean;
  /** Blocking probe reads since boot, for the firmware's interrupt debug line. */
  probeReadCalls: number;
}

export function createInputState(hw: Hardware): InputState {
  return {
    touches: [],
    presses: [],
    heldUntil: 0,
    physicalSwitch: hw.probe.switchPosition === 1 ? 1 : 0,
    wheelPosition: 0,
    wheelDirection: WHEEL_NONE,
    wheelButton: WHEEL_IDLE,
    autoconnect: false,
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
};

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
      push(state.presses, button);
      hw.probe.button = button;
      state.heldUntil = now + CLICK_MS;
      return;
    }
    case 'clickwheel_turn': {
      const clicks = Number.isInteger(event.clicks) ? Math.max(-1000, Math.min(1000, event.clicks)) : 0;
      if (clicks === 0) return;
      state.wheelPosition += clicks;
      state.wheelDirection = clicks > 0 ? WHEEL_UP : WHEEL_DOWN;
      return;
    }
    case 'clickwheel_button': {
      const value = WHEEL_BUTTON_STATES[event.state];
      if (value !== undefined) state.wheelButton = value;
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

  const takePress = (): number => {
    const press = state.presses.shift() ?? 0;
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

  const readProbe = (blocking: boolean): number => {
    if (!blocking) {
      host.pollInputs();
      return state.touches.shift() ?? hw.probe.pad;
    }
    const call = ++state.probeReadCalls;
    return waitFor(
      () => state.touches.shift(),
      () => host.writeMain(`DEBUG: Interrupt detected in jl_probe_read_blocking, call #${call}\n`),
    );
  };

  const readButton = (blocking: boolean, consume: boolean): number => {
    if (blocking) return waitFor(() => (state.presses.length > 0 ? takePress() : undefined));
    host.pollInputs();
    return consume ? takePress() : heldButton();
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
    check_switch_position: () => {
      hw.probe.switchPosition = state.physicalSwitch;
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
    clickwheel_get_button: () => {
      host.pollInputs();
      const button = state.wheelButton;
      // Presses, releases and double clicks are events: reported once. Held lasts until released.
      if (button !== WHEEL_HELD) state.wheelButton = WHEEL_IDLE;
      return button;
    },
    clickwheel_is_initialized: () => true,
    clickwheel_up: (clicks) => {
      applyInputEvent(
        hw,
        state,
        { kind: 'clickwheel_turn', clicks: Math.abs(asInt(clicks ?? 1)) },
        host.now(),
      );
      state.wheelDirection = WHEEL_UP;
      return null;
    },
    clickwheel_down: (clicks) => {
      applyInputEvent(
        hw,
        state,
        { kind: 'clickwheel_turn', clicks: -Math.abs(asInt(clicks ?? 1)) },
        host.now(),
      );
      state.wheelDirection = WHEEL_DOWN;
      return null;
    },
    // The firmware simulates a completed press: the button reads RELEASED.
    clickwheel_press: () => {
      state.wheelButton = WHEEL_RELEASED;
      return null;
    },
  };

  return {
    state,
    functions,
    applyInput: (event) => applyInputEvent(hw, state, event, host.now()),
  };
}
