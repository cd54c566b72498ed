import type { FirmwareVersion } from '../../board/firmware.js';

/**
 * The contract between the simulated firmware (plain TypeScript running inside the VM worker) and
 * the `jumperless` MicroPython module. Python calls `_fw.call(name, jsonArgs)`; the worker looks the
 * name up in the firmware's function table and answers `[0, result]` or `[1, type, message, errno]`,
 * which the Python side turns into a return value or a raised exception (JS exceptions must never
 * cross into the VM: they abort it).
 */

export type PyErrorType =
  | 'ValueError'
  | 'TypeError'
  | 'OSError'
  | 'NotImplementedError'
  | 'KeyboardInterrupt'
  | 'RuntimeError'
  | 'IndexError'
  | 'SystemExit';

/** Raised by firmware functions; becomes the Python exception of the same type and message. */
export class PyError extends Error {
  constructor(
    readonly pyType: PyErrorType,
    message: string,
    /** For OSError: the errno argument (`OSError(2)` is ENOENT). */
    readonly errno?: number,
  ) {
    super(message);
  }
}

/** A JSON value as it crosses the Python boundary. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Events a test, the CLI or a person pushes into the board from outside (probe, buttons...). */
export type InputEvent =
  | { kind: 'probe_touch'; pad: number }
  | { kind: 'probe_release' }
  | { kind: 'button'; button: 'connect' | 'remove' }
  | { kind: 'clickwheel_turn'; clicks: number }
  | {
      kind: 'clickwheel_button';
      // long_held and medium_held are the encoder's states 5 and 6 (RotaryEncoder.h:60).
      state: 'pressed' | 'held' | 'released' | 'doubleclicked' | 'long_held' | 'medium_held';
    }
  | { kind: 'switch'; position: 'measure' | 'select' };

/** What the worker offers the firmware functions. */
export interface FirmwareHost {
  /** Interruptible sleep: throws PyError('KeyboardInterrupt') when Ctrl-C arrives meanwhile. */
  sleep(ms: number): void;
  /** Throws PyError('KeyboardInterrupt') when a Ctrl-C is pending (consuming it). */
  checkInterrupt(): void;
  /** Applies input events that arrived from outside (called by sleep too). */
  pollInputs(): void;
  /** Text the firmware prints on the main port (CDC0), e.g. the printers of spec §6.9. */
  writeMain(text: string): void;
  /** Milliseconds since boot. */
  now(): number;
}

/** One firmware function, called with the JSON-decoded positional arguments from Python. */
export type FirmwareFn = (...args: Json[]) => Json | undefined;

export type FirmwareFunctions = Record<string, FirmwareFn>;

/** The flash filesystem as the firmware sees it (the VM's own filesystem, shared with `open()`). */
export interface VirtualFs {
  exists(path: string): boolean;
  isDir(path: string): boolean;
  readFile(path: string): Uint8Array;
  writeFile(path: string, data: Uint8Array | string): void;
  /** Entry names (no `.`/`..`). */
  readdir(path: string): string[];
  mkdir(path: string): void;
  rmdir(path: string): void;
  unlink(path: string): void;
  rename(from: string, to: string): void;
  size(path: string): number;
}

/** Everything a firmware group needs; built once per boot by `createFirmware`. */
export interface FirmwareEnv {
  host: FirmwareHost;
  fs: VirtualFs;
  /** Parts placed on the virtual breadboard (the `--parts` file), already validated. */
  partsFileText?: string;
  /** Seed for measurement noise; undefined = no noise. */
  noiseSeed?: number;
  /** The release to behave as; default the newest (board/firmware.ts). */
  firmware?: FirmwareVersion;
  /** PSRAM fitted. */
  psram?: boolean;
}
