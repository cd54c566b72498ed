/**
 * Slots, state and context, as JumperlOS 5.7.0.13 does them over the REPL port:
 *
 * - `switch_slot(N)` only renumbers: the current slot becomes N and the bridges in RAM are routed
 *   again; no file is read (JumperlessMicroPythonAPI.cpp:1559-1585). No module function loads a slot.
 * - `nodes_save(N)` writes the RAM state to N's file and makes N the current slot (States.cpp:2998);
 *   it accepts 0-7 and 99 (`/slots/slotPython.yaml`), refuses anything else with a line on the main
 *   port (FileParsing.cpp:419-426), and returns N either way (API.cpp:1301).
 * - The board autosaves: a dirty state is written to the current slot once the board is idle
 *   (autosave.ts). So `switch_slot(N)` followed by any change writes the old wiring into slot N.
 * - `nodes_has_changes()` is False and `nodes_discard()` does nothing: both use a backup that only
 *   the built-in `p` REPL takes (API.cpp:1303-1334, 1475-1486; States.cpp:3530-3571).
 * - Power-on: slot 0's file is loaded (main.cpp:1234-1236) and the probe power is wired: the bridge
 *   BUFFER_IN-DAC0 (duplicates 0) if missing, DAC0 at the measure voltage (main.cpp:704,
 *   Probing.cpp:5291-5390). Both mark the state dirty, so the first autosave writes slot 0.
 * - `set_state` is the firmware's substring scanner (stateScanner.ts); Wokwi diagrams are not
 *   supported. Failures print `set_state error: ...` on the main port and return -1.
 * - `context_toggle()` flips global/python; only the built-in REPL reads the flag, so it has no
 *   effect over the REPL port.
 */
import { firmwareColorName, firmwareParseColor } from '../../board/colors.js';
import { DEFAULT_POWER } from '../../board/limits.js';
import { BUFFER_IN, DAC0 } from '../../board/nodes.js';
import { isSavableSlot, parseSlotYaml, type SlotData, slotPath } from '../../board/slots.js';
import {
  buildState,
  formatState,
  type GpioInput,
  type GpioPullName,
  type GpioReading,
} from '../../board/state.js';
import { ADC_CHANNELS, readAdc } from './adc.js';
import { asInt, truthy } from './args.js';
import { AUTOSAVE_QUIET_MS, slotTextOfHardware } from './autosave.js';
import type { Circuit } from './circuit.js';
import { readPin } from './gpio.js';
import { applyPower, emptyConnections, type GpioPin, type Hardware, padPull } from './hardware.js';
import { applyJsonState } from './stateScanner.js';
import { type FirmwareFunctions, type FirmwareHost, PyError, type VirtualFs } from './types.js';

const PULL_NAMES: Record<number, GpioPullName> = { 1: 'up', [-1]: 'down', 0: 'none', 2: 'keeper' };
const READINGS: readonly GpioReading[] = ['low', 'high', 'float'];
/** Slot config pull code (0 down, 1 up, 2 none, 3 keeper) -> hw pull. */
const PULL_OF_CONFIG: Readonly<Record<number, GpioPin['pull']>> = { 0: -1, 1: 1, 2: 0, 3: 2 };
/** calibration.measure_mode_output_voltage default (config.h:121). */
const MEASURE_VOLTS = DEFAULT_POWER.dac0;

/**
 * Puts a parsed slot into RAM and onto the hardware, as loadSlot does (States.cpp:2795-2919):
 * bridges in order (the nets and their numbers follow from them), names by net number, colours only
 * where the user set them, supplies, GPIO direction and pulls (applyStateToHardware), overlays.
 */
export function loadSlotData(hw: Hardware, slot: SlotData): void {
  const conns = emptyConnections(hw.firmware, slot.config.routing.stackPaths);
  for (const b of slot.bridges) conns.connect(b.n1, b.n2, b.dup);
  for (const n of slot.nets) {
    if (n.name) conns.setNetName(n.num, n.name);
    const rgb = n.user && n.color ? firmwareParseColor(n.color) : undefined;
    if (rgb !== undefined) conns.setNetColor(n.num, { rgb, name: firmwareColorName(rgb) });
  }
  hw.conns = conns;
  hw.power = { ...slot.power };
  applyPower(hw);
  hw.gpio.forEach((g, i) => {
    g.direction = slot.config.gpio.direction[i] === 0 ? 0 : 1;
    g.pull = PULL_OF_CONFIG[slot.config.gpio.pulls[i] ?? 2] ?? 0;
    g.readFloating = (slot.config.gpio.readFloating[i] ?? 0) !== 0;
  });
  hw.overlays.replace(slot.overlays.map((o) => ({ ...o })));
}

export function slotsGroup(
  hw: Hardware,
  circuit: Circuit,
  host: FirmwareHost,
  fs: () => VirtualFs,
): FirmwareFunctions {
  /** The slot file text as of the last save or load: a state that differs from it is dirty. */
  let savedText = '';

  const isDirty = (): boolean => hw.dirty || slotTextOfHardware(hw) !== savedText;

  /** SlotManager::saveSlot: write, then the slot becomes current and the state is clean. */
  const save = (slot: number): boolean => {
    if (!isSavableSlot(slot)) return false;
    const files = fs();
    if (!files.exists('/slots')) files.mkdir('/slots');
    const text = slotTextOfHardware(hw);
    files.writeFile(slotPath(slot), text);
    hw.slot = slot;
    hw.dirty = false;
    savedText = text;
    return true;
  };

  /** The autosave step of SlotManager::service (States.cpp:4130-4146). */
  const autosave = (): void => {
    if (hw.now() - hw.lastUserInput <= AUTOSAVE_QUIET_MS) return;
    if (isDirty()) save(hw.slot);
  };

  const gpioInputs = (): GpioInput[] =>
    hw.gpio.map((g, i) => ({
      // The UART pins run the Arduino passthrough UART from startup on (AsyncPassthrough.cpp:1621-1626,
      // 2152-2160, config.h:161). Hardware PWM puts a pad in the PWM function; slow PWM drives it as
      // SIO (Peripherals.cpp:2635).
      function: i >= 8 ? 'UART' : g.pwm ? 'PWM' : 'SIO',
      direction: g.direction === 0 ? 'OUTPUT' : 'INPUT',
      // getPullName reads the pad, not the config (JsonState.cpp:270, Peripherals.cpp).
      pull: PULL_NAMES[padPull(g)] ?? 'none',
      reading: READINGS[readPin(hw, circuit, i)] ?? 'unknown',
      floatingRead: g.readFloating,
    }));

  return {
    _boot: () => {
      const files = fs();
      const path = slotPath(hw.slot);
      const parsed = files.exists(path)
        ? parseSlotYaml(new TextDecoder().decode(files.readFile(path)))
        : undefined;
      if (parsed?.ok) loadSlotData(hw, parsed.slot);
      else hw.conns = emptyConnections(hw.firmware);
      savedText = slotTextOfHardware(hw);
      // routableBufferPower(1, 0): the probe-power bridge and DAC0 at the measure voltage.
      if (!hw.conns.isConnected(BUFFER_IN, DAC0)) hw.conns.connect(BUFFER_IN, DAC0, 0);
      hw.power.dac0 = MEASURE_VOLTS;
      applyPower(hw);
      hw.dirty = true;
      // The boot load is not undo history (main.cpp:1203 undoBeginIngest).
      hw.history.last = hw.conns.clone();
      return null;
    },
    _service: () => {
      autosave();
      return null;
    },
    // SlotManager::service alone, for force_service('States') (autosave.ts).
    _autosave_service: () => {
      autosave();
      return null;
    },
    nodes_save: (slot = -1) => {
      const s = asInt(slot);
      const target = s === -1 ? hw.slot : s;
      if (!save(target)) {
        host.writeMain(`Failed to save state to slot ${target}: Invalid slot number: ${target}\n`);
      }
      hw.core2Paused = false; // the refresh after saving ends a pause (API.cpp:1298, Commands.cpp:175)
      return target;
    },
    switch_slot: (slot) => {
      const s = asInt(slot);
      if (s < 0 || s > 7) throw new PyError('ValueError', 'Invalid slot number');
      if (s === hw.slot) return s;
      const previous = hw.slot;
      hw.slot = s;
      hw.core2Paused = false; // re-routing ends a pause (API.cpp:1579, Commands.cpp:175)
      return previous;
    },
    CURRENT_SLOT: () => hw.slot,
    nodes_discard: () => null,
    nodes_has_changes: () => false,
    context_get: () => hw.context,
    context_toggle: () => {
      hw.context = hw.context === 'global' ? 'python' : 'global';
      return null;
    },
    get_state: () => {
      // The board measures in the background, so an ADC net shows a fresh reading.
      for (const ch of ADC_CHANNELS) readAdc(hw, circuit, ch);
      // 5.7.11 leaves out the lonely supply nets and escapes names more strictly (firmware.ts).
      const style = {
        skipLonelyNets: hw.firmware.behaviour.stateSkipsLonelyNets,
        nameEscape: hw.firmware.behaviour.stateNameEscape,
      };
      return formatState(
        buildState(
          hw.conns,
          { power: hw.power, adc: hw.lastAdc, gpio: gpioInputs(), overlays: hw.overlays.list() },
          style,
        ),
        style,
      );
    },
    set_state: (json, clearFirst = true, fromWokwi = false) => {
      if (truthy(fromWokwi)) {
        host.writeMain('set_state wokwi error: Wokwi diagrams are not supported by the simulator\n');
        return -1;
      }
      const text = typeof json === 'string' ? json : '';
      const error = applyJsonState(hw, text, truthy(clearFirst));
      if (error !== undefined) {
        host.writeMain(`set_state error: ${error}\n`);
        return -1;
      }
      // Only a nets section re-routes, and the refresh ends a pause (JsonState.cpp:726-731).
      if (text.includes('"nets"')) hw.core2Paused = false;
      return 0;
    },
    _slot_yaml: () => slotTextOfHardware(hw),
  };
}
