import type { FirmwareVersion } from '../board/firmware.js';
/** Messages between the SimBoard (main thread) and the VM worker. */
import type { InputEvent } from './firmware/types.js';

export type PortName = 'main' | 'uart' | 'repl' | 'backchannel';
export const PORT_NAMES: readonly PortName[] = ['main', 'uart', 'repl', 'backchannel'];

/** Indices into the shared control array. */
export const CONTROL = {
  /** INTERRUPT bits, set by the main thread when a control byte reaches a running script. */
  interrupt: 0,
  /** 1 while the worker runs code (so interrupt bytes are routed through `interrupt`). */
  busy: 1,
  /** Bumped (and notified) when an input event was posted, to wake a sleeping script. */
  wake: 2,
  /** Bumped at the start of every main-loop turn (tells the main thread a new script started). */
  turn: 3,
} as const;

/** What a control byte seen while a script runs asks for (Python_Proper.cpp:514-546). */
export const INTERRUPT = {
  /** 0x03 or 0x11: KeyboardInterrupt. */
  keyboard: 1,
  /** 0x04: SystemExit now, then a soft reset. */
  softReset: 2,
} as const;

/** machine.reset_cause() values (modmachine_jl.inc:11-12). */
export const RESET_CAUSE = { powerOn: 1, watchdog: 3 } as const;

export interface WorkerInit {
  control: SharedArrayBuffer;
  inputPort: import('node:worker_threads').MessagePort;
  /** The flash contents at boot: path -> bytes. */
  files: Array<[string, Uint8Array]>;
  partsFileText?: string;
  noiseSeed?: number;
  /** True when a host may be listening at boot: print the banner on CDC2. */
  announceBoot: boolean;
  /** The GC heap the board reports (96000 without PSRAM on 5.7.0.13, 64000 on 5.7.11). */
  heapBytes: number;
  /** The release the board runs. */
  firmware: FirmwareVersion;
  psram: boolean;
  /** Why the board came up: a watchdog reboot (machine.reset, a hung script) or power. */
  resetCause: 'power' | 'watchdog';
}

/** `at`: when the host wrote the bytes (Date.now()), so a soft reset can drop what came before it. */
export type ToWorker = { t: 'bytes'; port: PortName; data: Uint8Array; at: number };

export type FromWorker =
  | { t: 'ready' }
  | { t: 'out'; port: PortName; data: Uint8Array }
  /** Changed files since the last sync: bytes, or null when deleted. */
  | { t: 'fs'; changes: Array<[string, Uint8Array | null]> }
  /** machine.reset(): reboot the board. */
  | { t: 'reboot'; cause: 'watchdog' };

export type InputMessage = InputEvent;
