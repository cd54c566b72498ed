/**
 * The simulated firmware: one function table for the `jumperless` Python module (and the ports'
 * direct calls), composed from one group per API area. Groups share the board through `Hardware`
 * (hardware.ts) and the circuit (circuit.ts); each returns its functions by name.
 */

import { NEWEST_FIRMWARE } from '../../board/firmware.js';
import { parsePartsFile, partsToElements } from '../parts.js';
import type { Element } from '../solver.js';
import { adcGroup } from './adc.js';
import { wireAutosave } from './autosave.js';
import { type Circuit, createCircuit, nodeName } from './circuit.js';
import { connectionsGroup } from './connections.js';
import { gpioGroup } from './gpio.js';
import { createHardware, type Hardware } from './hardware.js';
import { historyGroup } from './history.js';
import { inaGroup } from './ina.js';
import { createLogicAnalyzer, laGroup } from './la.js';
import { netsGroup } from './nets.js';
import { type KnownPart, partsDbGroup } from './partsDb.js';
import { powerGroup } from './power.js';
import { pwmGroup } from './pwm.js';
import { createScanModel, scanGroup } from './scan.js';
import { slotsGroup } from './slots.js';
import type { FirmwareEnv, FirmwareFunctions, InputEvent } from './types.js';
import { uiGroups } from './ui.js';
import { usbAudioGroup } from './usbAudio.js';
import { wavegenGroup } from './wavegen.js';

export type { FirmwareEnv, FirmwareFunctions, FirmwareHost, InputEvent, Json, VirtualFs } from './types.js';
export { PyError } from './types.js';

/** The release a board runs unless told otherwise. */
export const FIRMWARE_VERSION = NEWEST_FIRMWARE;

export interface Firmware {
  /** Every function the `jumperless` Python module can call, by name. */
  functions: FirmwareFunctions;
  /** Applies one input event (probe touch, button...) to the hardware state. */
  applyInput(event: InputEvent): void;
  /** The board's state, for tests and diagnostics. */
  hardware: Hardware;
  /** The board as a DC circuit (node voltages, part currents), for tests and diagnostics. */
  circuit: Circuit;
  /**
   * User input now (a byte on a port that counts as input, a button, the clickwheel): the autosave
   * and the net scan wait for quiet after it (noteUserInput in the firmware).
   */
  noteUserInput(): void;
}

/**
 * Hooks every group may have, run in group order: `_boot` once the VM is up, `_service` whenever the
 * board's main loop is idle (no script running; the worker calls it every SERVICE_INTERVAL_MS).
 */
const HOOKS = ['_boot', '_service'] as const;

/** How often the idle main loop runs its services (the firmware's loop is much faster; this is enough). */
export const SERVICE_INTERVAL_MS = 50;

/** Merges the groups' tables. A name defined twice is a bug, except the HOOKS. */
export function mergeGroups(groups: readonly FirmwareFunctions[]): FirmwareFunctions {
  const functions: FirmwareFunctions = {};
  const hooks = new Map<string, NonNullable<FirmwareFunctions[string]>[]>(HOOKS.map((h) => [h, []]));
  for (const group of groups) {
    for (const [name, fn] of Object.entries(group)) {
      const hook = hooks.get(name);
      if (hook) hook.push(fn);
      else if (name in functions) throw new Error(`firmware function ${name} is defined by two groups`);
      else functions[name] = fn;
    }
  }
  for (const [name, fns] of hooks) {
    functions[name] = () => {
      for (const fn of fns) fn();
      return null;
    };
  }
  return functions;
}

/**
 * The parts file's elements. The simulator validates the file before it boots the firmware (a
 * malformed file is refused there, with its line); here a bad file only means no parts.
 */
function partElements(text: string | undefined): Element[] {
  if (text === undefined) return [];
  const parsed = parsePartsFile(text);
  return parsed.ok ? partsToElements(parsed.parts, nodeName) : [];
}

/** The parts file's two-terminal parts, for part_identify. */
function knownParts(text: string | undefined): KnownPart[] {
  if (text === undefined) return [];
  const parsed = parsePartsFile(text);
  if (!parsed.ok) return [];
  return parsed.parts.flatMap((p): KnownPart[] =>
    p.type === 'resistor' ? [{ kind: 'resistor', a: p.between[0], b: p.between[1], ohms: p.ohms }] : [],
  );
}

/**
 * Builds the firmware for one boot. The hardware state lives in `hardware` and survives a soft
 * reset, which only rebuilds the VM.
 */
export function createFirmware(env: FirmwareEnv): Firmware {
  const hw = createHardware(env);
  const circuit = createCircuit(hw, partElements(env.partsFileText));
  const fs = () => env.fs;
  const scan = createScanModel(hw, circuit);
  // The scan's taps between two calls read the board as it was before the second one.
  const noteUserInput = (): void => {
    scan.advance();
    hw.lastUserInput = hw.now();
  };
  const inputHandlers: ((event: InputEvent) => void)[] = [];
  const ui = uiGroups(env, hw, (name) => functions[name]);
  inputHandlers.push(ui.applyInput);
  // Button and clickwheel activity holds off the autosave (noteUserInput, autosave.ts).
  inputHandlers.push((event) => {
    if (event.kind === 'button' || event.kind.startsWith('clickwheel')) noteUserInput();
  });
  const groups: FirmwareFunctions[] = [
    ...ui.groups,
    {
      firmware_version: () => hw.firmware.version,
      // What the module lists on this release: _exports.py removes every other public name.
      _api_surface: () => [...hw.firmware.api],
      _bg_set: (on) => {
        hw.bgActive = on === true;
        return null;
      },
    },
    powerGroup(hw),
    adcGroup(hw, circuit),
    inaGroup(hw, circuit),
    gpioGroup(hw, circuit, env.host),
    pwmGroup(hw),
    wavegenGroup(hw),
    laGroup(createLogicAnalyzer(), env.host),
    connectionsGroup(hw, env.host),
    netsGroup(hw, env.host),
    slotsGroup(hw, circuit, env.host, fs),
    historyGroup(hw),
    scanGroup(hw, scan),
    partsDbGroup(hw, fs, knownParts(env.partsFileText)),
    usbAudioGroup(env.host),
  ];
  const functions = mergeGroups(groups);
  wireAutosave(functions, hw);
  if (hw.firmware.api.has('get_node_voltage')) {
    // Core 1 scans while core 0 runs anything: catch the scan up before every call, so a call that
    // changes the board (dac_set, connect...) is seen by the taps after it, never by those before.
    for (const [name, fn] of Object.entries(functions)) {
      if (!fn) continue;
      functions[name] = (...args) => {
        scan.advance();
        return fn(...args);
      };
    }
  }
  return {
    functions,
    applyInput: (event) => {
      for (const handle of inputHandlers) handle(event);
    },
    hardware: hw,
    circuit,
    noteUserInput,
  };
}
