/** Messages between the SimBoard (main thread) and the VM worker. */
import type { InputEvent } from './firmware/types.js';

export type PortName = 'main' | 'uart' | 'repl' | 'backchannel';
export const PORT_NAMES: readonly PortName[] = ['main', 'uart', 'repl', 'backchannel'];

/** Indices into the shared control array. */
export const CONTROL = {
  /** Set by the main thread when Ctrl-C (or Ctrl-Q) reaches a busy CDC2 or CDC0. */
  interrupt: 0,
  /** 1 while the worker runs code (so interrupt bytes are routed through `interrupt`). */
  busy: 1,
  /** Bumped (and notified) when an input event was posted, to wake a sleeping script. */
  wake: 2,
} as const;

export interface WorkerInit {
  control: SharedArrayBuffer;
  inputPort: import('node:worker_threads').MessagePort;
  /** The flash contents at boot: path -> bytes. */
  files: Array<[string, Uint8Array]>;
  partsFileText?: string;
  noiseSeed?: number;
  /** True when a host may be listening at boot: print the banner on CDC2. */
  announceBoot: boolean;
}

export type ToWorker = { t: 'bytes'; port: PortName; data: Uint8Array };

export type FromWorker =
  | { t: 'ready' }
  | { t: 'out'; port: PortName; data: Uint8Array }
  /** Changed files since the last sync: bytes, or null when deleted. */
  | { t: 'fs'; changes: Array<[string, Uint8Array | null]> };

export type InputMessage = InputEvent;
