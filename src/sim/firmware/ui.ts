/**
 * The user-facing groups (probe and inputs, OLED, LED overlays, filesystem, misc and help), composed
 * for index.ts: their function tables, their input handler, and the overlay view `hardware` exposes
 * to get_state/set_state.
 */
import { createFakeGpioState, fakeGpioFunctions } from './fakeGpio.js';
import { createFiles, seedFlash } from './files.js';
import type { Hardware } from './hardware.js';
import { createInputs } from './inputs.js';
import { createMiscState, miscFunctions } from './misc.js';
import { createOledState, oledFunctions } from './oled.js';
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
      oledFunctions(createOledState(), fs),
      overlayFunctions(overlays),
      files.functions,
      miscFunctions(createMiscState(), { host: env.host, inputs: inputs.state }),
      fakeGpioFunctions(createFakeGpioState(), lookup),
    ],
    applyInput: inputs.applyInput,
  };
}
