/**
 * The firmware's slot autosave (SlotManager::service, States.cpp:4108-4165): whenever the state is
 * dirty and the system is idle, it writes the state to the current slot (`netSlot`,
 * syncFromGlobalNetSlot, States.cpp:3058-3066) and clears the flag. Idle means no user input for
 * 750 ms (externVars.cpp:230-247, systemIdleForFlush(750)): the main port, the probe buttons and the
 * clickwheel count as input (main.cpp:1084-1091, Probing.cpp:299, RotaryEncoder.cpp:1106-1113); the
 * REPL port does not, so a change made over it is saved as soon as the script has ended.
 *
 * What makes the state dirty: every setter of the state marks it (States.cpp:569-579 and its
 * callers), even when the value does not change. Here a call of a function in DIRTY_CALLS marks it,
 * and anything else that changes what the slot file would hold (a probe connection, undo, a net
 * renumbering...) is caught by comparing the file text with the one at the last save.
 */

import {
  defaultSlotConfig,
  formatSlotYaml,
  type SlotConfig,
  type SlotData,
  slotFromConnections,
} from '../../board/slots.js';
import type { OverlayInput } from '../../board/state.js';
import { truthy } from './args.js';
import type { GpioPin, Hardware } from './hardware.js';
import { SERVICES } from './misc.js';
import type { FirmwareFunctions, Json } from './types.js';

/** systemIdleForFlush's default quiet window (externVars.h:58). */
export const AUTOSAVE_QUIET_MS = 750;

/**
 * Module functions that mark the state dirty whenever they return, with the firmware line that does
 * it; a predicate says when the arguments matter (dac_set only stores with save=True).
 */
const DIRTY_CALLS: Readonly<Record<string, (args: readonly Json[]) => boolean>> = {
  // addBridgeToState marks even an existing bridge (FileParsing.cpp:287; States.cpp:609-625).
  connect: () => true,
  fast_connect: () => true,
  // clearAllConnections (States.cpp:730).
  nodes_clear: () => true,
  // setDacVoltage / setRailVoltage with save=1 (Peripherals.cpp:1334, 1358, 1426, 1470; States.cpp:993, 1011).
  dac_set: (args) => args.length < 3 || truthy(args[2] ?? true),
  // setGpioDirection / setGpioPull / gpio_set_read_floating (States.cpp:1043-1057; API.cpp:636).
  gpio_set_dir: () => true,
  gpio_set_pull: () => true,
  gpio_set_read_floating: () => true,
  // set_net_name / set_net_color* (JumperlessMicroPythonAPI.cpp:773, 839, 861, 922).
  set_net_name: () => true,
  set_net_color: () => true,
  set_net_color_hsv: () => true,
  // PWM start/duty/stop write the config (Peripherals.cpp:2668, 2702, 2759, 2825, 2921).
  pwm: () => true,
  pwm_set_duty_cycle: () => true,
  pwm_set_frequency: () => true,
  pwm_stop: () => true,
  // Overlays are part of the slot (GraphicOverlays.cpp:132, 166, 189, 199).
  overlay_set: () => true,
  overlay_set_pixel: () => true,
  overlay_clear: () => true,
  overlay_clear_all: () => true,
  overlay_shift: () => true,
  overlay_place: () => true,
};

/** SlotManager's service name (States.h:401), as `force_service` takes it. */
const SLOT_SERVICE = 'States';

/**
 * Wires the autosave into the merged table: each DIRTY_CALLS function that returns marks
 * `hw.dirty`, and `force_service('States')` (or its index) runs the slot service at once, as
 * jOSmanager::forceServiceByName does (JumperlOS.cpp:406-430), so a script can autosave.
 */
export function wireAutosave(functions: FirmwareFunctions, hw: Hardware): void {
  for (const [name, marks] of Object.entries(DIRTY_CALLS)) {
    const fn = functions[name];
    if (!fn) continue;
    functions[name] = (...args) => {
      const result = fn(...args);
      if (marks(args)) hw.dirty = true;
      return result;
    };
  }
  const service = functions._autosave_service;
  const byName = functions.force_service;
  const byIndex = functions.force_service_by_index;
  if (!service) return;
  if (byName) {
    functions.force_service = (...args) => {
      const found = byName(...args);
      if (found === true && args[0] === SLOT_SERVICE) service();
      return found;
    };
  }
  if (byIndex) {
    functions.force_service_by_index = (...args) => {
      const found = byIndex(...args);
      const index = typeof args[0] === 'number' ? args[0] & 0xff : -1;
      if (found === true && SERVICES[index] === SLOT_SERVICE) service();
      return found;
    };
  }
}

/** hw pull (1 up, -1 down, 0 none, 2 keeper) -> config code (0 down, 1 up, 2 none, 3 keeper). */
const PULL_CONFIG: Readonly<Record<GpioPin['pull'], number>> = { [-1]: 0, 1: 1, 0: 2, 2: 3 };

/** The `config:` section of the hardware's state. */
export function configOfHardware(hw: Hardware): SlotConfig {
  const defaults = defaultSlotConfig();
  const running = (g: GpioPin): boolean => g.pwm !== null || g.slowPwm !== null;
  return {
    ...defaults,
    routing: { ...defaults.routing, stackPaths: hw.conns.stackPaths },
    gpio: {
      direction: hw.gpio.map((g) => g.direction),
      // The UART pins' pads are bare while their config keeps the default pull-down: only pins
      // 1-8 report a pull-down/none difference here.
      pulls: hw.gpio.map((g, i) => (i >= 8 && g.pull === 0 ? 0 : PULL_CONFIG[g.pull])),
      pwmFrequency: hw.gpio.map((g, i) => (running(g) ? g.pwmFreq : (defaults.gpio.pwmFrequency[i] ?? 1))),
      pwmDutyCycle: hw.gpio.map((g, i) => (running(g) ? g.pwmDuty : (defaults.gpio.pwmDutyCycle[i] ?? 0.5))),
      pwmEnabled: hw.gpio.map(running),
      readFloating: hw.gpio.map((g) => (g.readFloating ? 1 : 0)),
    },
  };
}

const overlayOfInput = (o: OverlayInput) => ({
  name: o.name,
  row: o.row,
  col: o.col,
  width: o.width,
  height: o.height,
  colors: o.colors,
});

/** What saving now would write. */
export function slotOfHardware(hw: Hardware): SlotData {
  return slotFromConnections(hw.conns, hw.power, {
    config: configOfHardware(hw),
    overlays: hw.overlays.list().map(overlayOfInput),
  });
}

export const slotTextOfHardware = (hw: Hardware): string => formatSlotYaml(slotOfHardware(hw));
