/**
 * Test fixture: a firmware environment with an in-memory flash, a controllable clock and a record
 * of what the firmware printed on the main port. Used by the groups' unit tests.
 */
import type { FirmwareVersion } from '../../src/board/firmware.js';
import { createFirmware, type Firmware } from '../../src/sim/firmware/index.js';
import {
  type FirmwareEnv,
  type FirmwareHost,
  PyError,
  type VirtualFs,
} from '../../src/sim/firmware/types.js';

export interface TestBoard extends Firmware {
  env: FirmwareEnv;
  /** Text the firmware wrote to the main port since the last `takeMain()`. */
  takeMain(): string;
  files: Map<string, Uint8Array>;
  /** Advances the clock (ms). */
  advance(ms: number): void;
  /** Calls a firmware function; a PyError becomes `{ error: 'Type: message' }`. */
  call(name: string, ...args: unknown[]): unknown;
}

export function memoryFs(files: Map<string, Uint8Array>, dirs: Set<string>): VirtualFs {
  const enoent = (): never => {
    throw new PyError('OSError', '', 2);
  };
  return {
    exists: (p) => files.has(p) || dirs.has(p),
    isDir: (p) => dirs.has(p),
    readFile: (p) => files.get(p) ?? enoent(),
    writeFile: (p, data) => {
      files.set(p, typeof data === 'string' ? new TextEncoder().encode(data) : data);
    },
    readdir: (p) => {
      const prefix = p.endsWith('/') ? p : `${p}/`;
      return [...files.keys(), ...dirs]
        .filter((f) => f.startsWith(prefix) && !f.slice(prefix.length).includes('/'))
        .map((f) => f.slice(prefix.length));
    },
    mkdir: (p) => {
      dirs.add(p);
    },
    rmdir: (p) => {
      dirs.delete(p);
    },
    unlink: (p) => {
      files.delete(p);
    },
    rename: (a, b) => {
      const data = files.get(a) ?? enoent();
      files.delete(a);
      files.set(b, data);
    },
    size: (p) => files.get(p)?.length ?? enoent(),
  };
}

export function testBoard(
  options: {
    partsFileText?: string;
    noiseSeed?: number;
    files?: Map<string, Uint8Array>;
    firmware?: FirmwareVersion;
  } = {},
): TestBoard {
  let now = 0;
  let main = '';
  const files = options.files ?? new Map<string, Uint8Array>();
  const host: FirmwareHost = {
    sleep: (ms) => {
      now += ms;
    },
    checkInterrupt: () => {},
    pollInputs: () => {},
    writeMain: (text) => {
      main += text;
    },
    now: () => now,
  };
  const env: FirmwareEnv = {
    host,
    fs: memoryFs(files, new Set(['/'])),
    ...(options.partsFileText === undefined ? {} : { partsFileText: options.partsFileText }),
    ...(options.noiseSeed === undefined ? {} : { noiseSeed: options.noiseSeed }),
    ...(options.firmware === undefined ? {} : { firmware: options.firmware }),
  };
  const firmware = createFirmware(env);
  firmware.functions._boot?.();
  return {
    ...firmware,
    env,
    files,
    takeMain: () => {
      const text = main;
      main = '';
      return text;
    },
    advance: (ms) => {
      now += ms;
    },
    call: (name, ...args) => {
      const fn = firmware.functions[name];
      if (!fn) throw new Error(`no firmware function ${name}`);
      try {
        return fn(...(args as Parameters<typeof fn>));
      } catch (error) {
        if (error instanceof PyError) return { error: `${error.pyType}: ${error.message}` };
        throw error;
      }
    },
  };
}
