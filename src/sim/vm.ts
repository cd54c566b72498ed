import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  loadMicroPython,
  type MicroPython,
} from '@micropython/micropython-webassembly-pyscript/micropython.mjs';
import { type FirmwareFunctions, type Json, PyError } from './firmware/index.js';

/** The `jumperless` module's Python half: `_core.py` first, then the groups in name order. */
function moduleSource(): string {
  const dir = fileURLToPath(new URL('./python/', import.meta.url));
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.py'))
    .sort((a, b) => (a === '_core.py' ? -1 : b === '_core.py' ? 1 : a.localeCompare(b)));
  return files.map((name) => `# --- ${name}\n${readFileSync(dir + name, 'utf8')}`).join('\n');
}

let cachedSource: string | undefined;

/** Where the module sources live inside the VM: outside the board's flash (see flashSync.ts). */
const MODULE_DIR = '/tmp/.jumperless';

/** `time` with sleeps that Ctrl-C can interrupt (the VM's own sleep busy-waits). */
const TIME_MODULE = `
from utime import *
import jumperless as _jl
def sleep_ms(ms):
    _jl._c('_sleep_ms', ms)
def sleep(seconds):
    sleep_ms(seconds * 1000)
def sleep_us(us):
    sleep_ms(us / 1000)
`;

/**
 * Runs once per VM (boot and soft reset), as the firmware does (spec §3.1): builds the `jumperless`
 * module from source, swaps `time` for one whose sleeps are interruptible, imports the globals.
 */
const PRELUDE = `
import sys
sys.path.insert(0, '${MODULE_DIR}')
import jumperless, time
sys.path.pop(0)
if '/python_scripts/lib' not in sys.path:
    sys.path.append('/python_scripts/lib')
import os, math, gc
jumperless._run_boot()
from jumperless import *
`;

const SOFT_RESET = `
def _soft_reset():
    import sys, gc
    for name in list(sys.modules):
        if name not in ('_fw',):
            del sys.modules[name]
    g = globals()
    for name in list(g):
        if name != '__name__':
            del g[name]
    gc.collect()
_soft_reset()
`;

export interface VmOptions {
  functions: FirmwareFunctions;
  /** Receives every byte the VM writes to stdout/stderr. */
  onOutput: (bytes: Uint8Array) => void;
  /** Called at the top of every firmware call: flush pending output, check for Ctrl-C. */
  beforeCall: () => void;
}

/** One MicroPython instance with the `jumperless` module loaded. */
export class Vm {
  /** Traceback of a failed module import at boot: the board still comes up, as a broken one would. */
  bootError: string | undefined;

  private constructor(readonly mp: MicroPython) {}

  static async create(options: VmOptions): Promise<Vm> {
    const mp = await loadMicroPython({
      heapsize: 1024 * 1024,
      linebuffer: false,
      stdout: options.onOutput,
      stderr: options.onOutput,
    });
    cachedSource ??= moduleSource();
    const source = cachedSource;
    mp.FS.mkdirTree(MODULE_DIR);
    mp.FS.writeFile(`${MODULE_DIR}/jumperless.py`, source);
    mp.FS.writeFile(`${MODULE_DIR}/time.py`, TIME_MODULE);
    mp.registerJsModule('_fw', {
      call: (name: string, argsJson: string) => callFirmware(options, name, argsJson),
    });
    mp.replInit();
    const vm = new Vm(mp);
    vm.bootError = vm.runFile(PRELUDE);
    return vm;
  }

  /** Feeds one byte to MicroPython's own event-driven REPL. True when it asks for a soft reset. */
  feedRepl(byte: number): boolean {
    return this.mp.replProcessChar(byte) !== 0;
  }

  /**
   * Soft reset (spec §3.2): Python state starts afresh, the hardware state (held by the firmware, outside
   * the VM) is untouched. The WebAssembly heap cannot be recreated synchronously, so the globals and
   * imported modules are dropped and the prelude runs again.
   */
  softReset(): void {
    this.mp.replInit();
    this.mp.runPython(SOFT_RESET);
    this.bootError = this.runFile(PRELUDE);
  }

  /**
   * Runs code compiled as a file (not as REPL input), as the main port's `>` does (spec §2.4).
   * Returns the traceback text of an uncaught exception instead of throwing.
   */
  runFile(code: string): string | undefined {
    try {
      this.mp.runPython(code);
      return undefined;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      return text.endsWith('\n') ? text : `${text}\n`;
    }
  }
}

function callFirmware(options: VmOptions, name: string, argsJson: string): string {
  try {
    options.beforeCall();
    const fn = options.functions[name];
    if (!fn)
      return JSON.stringify([1, 'NotImplementedError', `${name} is not available on this board`, null]);
    const args = JSON.parse(argsJson) as Json[];
    const result = fn(...args);
    return JSON.stringify([0, result ?? null]);
  } catch (error) {
    if (error instanceof PyError) {
      return JSON.stringify([1, error.pyType, error.message, error.errno ?? null]);
    }
    // A bug in the simulated firmware must not abort the VM: surface it as a Python RuntimeError.
    const message = error instanceof Error ? error.message : String(error);
    return JSON.stringify([1, 'RuntimeError', `simulator error in ${name}: ${message}`, null]);
  }
}
