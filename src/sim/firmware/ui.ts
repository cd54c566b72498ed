/**
 * The user-facing groups (probe and inputs, OLED, LED overlays, filesystem, misc and help), composed
 * for index.ts: their function tables, their input handler, and the overlay view `hardware` exposes
 * to get_state/set_state.
 */
import { GPIO_1, resolveNode } from '../../board/nodes.js';
import { createFakeGpioState, fakeGpioFunctions } from './fakeGpio.js';
import { createFiles, seedFlash } from './files.js';
import { type Hardware, POWER_KEYS, touch } from './hardware.js';
import { recordChange } from './history.js';
import { createInputs } from './inputs.js';
import { createMiscState, miscFunctions } from './misc.js';
import { createOledState, type OledWiring, oledFunctions } from './oled.js';
import { createScreensState, screensFunctions } from './oledScreens.js';
import { createOverlayState, overlayAccess, overlayFunctions } from './overlays.js';
import type { FirmwareEnv, FirmwareFn, FirmwareFunctions, InputEvent } from './types.js';

export interface UiGroups {
  groups: FirmwareFunctions[];
  applyInput(event: InputEvent): void;
}

/** `lookup` reaches the merged table (a fake GPIO input reads a node voltage from the circuit group). */
export function uiGroups(
  env: FirmwareEnv,
  hw: Hardware,
  lookup: (name: string) => FirmwareFn | undefined,
): UiGroups {
  const fs = () => env.fs;
  const overlays = createOverlayState();
  hw.overlays = overlayAccess(overlays);
  const inputs = createInputs(env.host, hw);
  const files = createFiles(fs);
  const oled = createOledState();
  const call = (name: string, ...args: number[]) => {
    const fn = lookup(name);
    return fn ? fn(...args) : undefined;
  };
  return {
    groups: [
      {
        // A fresh flash gets the firmware's folder layout before anything reads it.
        _boot: () => {
          seedFlash(fs());
          return null;
        },
      },
      inputs.functions,
      oledFunctions(oled, fs, oledWiring(hw)),
      screensFunctions(createScreensState(), {
        oled,
        fs,
        gpio: (pin) => Number(call('gpio_get', pin) ?? -1),
        adc: (channel) => hw.lastAdc[channel] ?? 0,
        dac: (channel) => hw.power[POWER_KEYS[channel] ?? 'dac0'],
        now: () => hw.now(),
      }),
      overlayFunctions(overlays),
      files.functions,
      miscFunctions(createMiscState(), { host: env.host, inputs: inputs.state, hw }),
      fakeGpioFunctions(createFakeGpioState(), lookup, env.host.writeMain),
    ],
    applyInput: inputs.applyInput,
  };
}

/** The display's I2C bridges on a V5 (config.h:188-191: GPIO_7 to NANO_D2, GPIO_8 to NANO_D3). */
const OLED_BRIDGES: readonly (readonly [number, number])[] = [
  [GPIO_1 + 6, resolveNode('NANO_D2') ?? -1],
  [GPIO_1 + 7, resolveNode('NANO_D3') ?? -1],
];

/** addBridgeToState / removeBridgeFromState as oled::connect and oled::disconnect use them. */
function oledWiring(hw: Hardware): OledWiring {
  return {
    i2cBridges: (add) => {
      for (const [a, b] of OLED_BRIDGES) {
        if (add) {
          if (hw.conns.connect(a, b, -1).status !== 'refused') recordChange(hw, `connect ${a}-${b}`);
        } else if (hw.conns.disconnect(a, b) > 0) recordChange(hw, `disconnect ${a}-${b}`);
      }
      touch(hw);
    },
  };
}
