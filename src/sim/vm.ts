import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  loadMicroPython,
  type MicroPython,
} from '@micropython/micropython-webassembly-pyscript/micropython.mjs';
import { type FirmwareVersion, NEWEST_FIRMWARE } from '../board/firmware.js';
import { type FirmwareFunctions, type Json, PyError } from './firmware/index.js';
import {
  BOARD_HEAP_BYTES,
  BOOT_GLOBALS,
  BOOT_PY,
  CLEAR_VM,
  gcModule,
  MACHINE_MODULE,
  MODULE_DIR,
  MODULE_RESIDENT_BYTES,
  RESET_GLOBALS,
  RUNTIME_MODULE,
  RUNTIME_SETUP,
  sysModule,
  TIME_MODULE,
} from './vmRuntime.js';

/** The `jumperless` module's Python half: `_core.py` first, then the groups in name order. */
function moduleSource(): string {
  const dir = fileURLToPath(new URL('./python/', import.meta.url));
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.py'))
    .sort((a, b) => (a === '_core.py' ? -1 : b === '_core.py' ? 1 : a.localeCompare(b)));
  return files.map((name) => `# --- ${name}\n${readFileSync(dir + name, 'utf8')}`).join('\n');
}

let cachedSource: string | undefined;

export interface VmOptions {
  functions: FirmwareFunctions;
  /** Receives every byte the VM writes to stdout/stderr (our own module's traceback frames removed). */
  onOutput: (bytes: Uint8Array) => void;
  /** Called at the top of every firmware call: flush pending output, check for Ctrl-C. */
  beforeCall: () => void;
  /** The board's GC heap as `gc` reports it; default BOARD_HEAP_BYTES (no PSRAM). */
  heapBytes?: number;
  /** The release `sys.implementation` names; default the newest. */
  firmware?: FirmwareVersion;
}

/**
 * The VM's first heap area: the board's heap plus what our module keeps resident, with room for
 * the allocation tables (gc.c:146-191: 1 table byte per 4 blocks of 16, 1 finaliser bit per block).
 * The WebAssembly build grows its heap when this fills (split heap), so it never raises
 * MemoryError where the board would; this only makes collections come when they would on the board.
 */
function vmHeapSize(boardBytes: number): number {
  return Math.ceil(((boardBytes + MODULE_RESIDENT_BYTES) * 524) / 512) + 256;
}

/** One MicroPython instance with the `jumperless` module loaded. */
export class Vm {
  /** Traceback of a failed module import at boot: the board still comes up, as a broken one would. */
  bootError: string | undefined;
  /** Heap bytes our runtime (module and stand-ins) held after the last boot; see MODULE_RESIDENT_BYTES. */
  residentBytes = 0;

  private constructor(
    readonly mp: MicroPython,
    private readonly vmGc: { collect(): void; mem_alloc(): number },
  ) {}

  /** Loads MicroPython and our module files; `boot()` then runs the firmware's power-on set-up. */
  static async create(options: VmOptions): Promise<Vm> {
    const frames = new OwnFrameFilter(options.onOutput);
    const mp = await loadMicroPython({
      heapsize: vmHeapSize(options.heapBytes ?? BOARD_HEAP_BYTES),
      linebuffer: false,
      stdout: (bytes) => frames.push(bytes),
      stderr: (bytes) => frames.push(bytes),
    });
    cachedSource ??= moduleSource();
    mp.FS.mkdirTree(MODULE_DIR);
    mp.FS.writeFile(`${MODULE_DIR}/jumperless.py`, cachedSource);
    mp.FS.writeFile(`${MODULE_DIR}/time.py`, TIME_MODULE);
    mp.FS.writeFile(
      `${MODULE_DIR}/_jl_gc.py`,
      gcModule(options.heapBytes ?? BOARD_HEAP_BYTES, MODULE_RESIDENT_BYTES),
    );
    mp.FS.writeFile(`${MODULE_DIR}/_jl_sys.py`, sysModule(options.firmware ?? NEWEST_FIRMWARE));
    mp.FS.writeFile(`${MODULE_DIR}/_jl_machine.py`, MACHINE_MODULE);
    mp.FS.writeFile(`${MODULE_DIR}/_jl_runtime.py`, RUNTIME_MODULE);
    mp.registerJsModule('_fw', {
      call: (name: string, argsJson: string) => callFirmware(options, name, argsJson),
    });
    mp.replInit();
    // The VM's own gc, taken before our stand-in replaces it in sys.modules.
    const vmGc = mp.pyimport('gc') as { collect(): void; mem_alloc(): number };
    return new Vm(mp, vmGc);
  }

  /** Power-on: what initMicroPythonProper runs into __main__, then the first boot.py found. */
  boot(): { bootPyError?: string } {
    this.bootError = this.runMeasured(RUNTIME_SETUP) ?? this.run(BOOT_GLOBALS);
    const bootPyError = this.bootError ? undefined : this.runFile(BOOT_PY);
    return bootPyError ? { bootPyError } : {};
  }

  /** Feeds one byte to MicroPython's own event-driven REPL. True when it asks for a soft reset. */
  feedRepl(byte: number): boolean {
    return this.mp.replProcessChar(byte) !== 0;
  }

  /**
   * Soft reset (jl_soft_reboot): Python state starts afresh, the hardware state (held by the
   * firmware, outside the VM) is untouched. The WebAssembly heap cannot be recreated, so the
   * globals and imported modules are dropped and the firmware's re-init runs.
   */
  softReset(): void {
    this.mp.replInit();
    this.mp.runPython(CLEAR_VM);
    this.bootError = this.run(RUNTIME_SETUP + RESET_GLOBALS);
  }

  /**
   * Runs code compiled as a file (not as REPL input), as the main port's `>` does (spec §2.4).
   * Returns the traceback text of an uncaught exception instead of throwing.
   */
  runFile(code: string): string | undefined {
    const traceback = this.run(code);
    return traceback === undefined ? undefined : withoutOwnFrames(traceback);
  }

  /** Runs code of ours; a traceback keeps every frame (a failure here is a bug of the sim). */
  private run(code: string): string | undefined {
    try {
      this.mp.runPython(code);
      return undefined;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      return text.endsWith('\n') ? text : `${text}\n`;
    }
  }

  /** runFile, noting how much heap what it leaves behind takes (our runtime's set-up at boot). */
  private runMeasured(code: string): string | undefined {
    this.vmGc.collect();
    const before = this.vmGc.mem_alloc();
    const error = this.run(code);
    this.vmGc.collect();
    this.residentBytes = this.vmGc.mem_alloc() - before;
    return error;
  }
}

/** A traceback line of a frame in our own module files, which on the board are C and leave none. */
const OWN_FRAME = `  File "${MODULE_DIR}/`;
const OWN_FRAME_LINE = new RegExp(`^ {2}File "${MODULE_DIR.replace(/\./g, '\\.')}/[^\\n]*\\n`, 'gm');

export function withoutOwnFrames(text: string): string {
  return text.replace(OWN_FRAME_LINE, '');
}

/**
 * Removes our own module's traceback frames from the VM's output stream, line by line: a line that
 * starts like one is held until its end shows whether it is one.
 */
export class OwnFrameFilter {
  private held: number[] | undefined;
  private atLineStart = true;

  constructor(private readonly out: (bytes: Uint8Array) => void) {}

  push(bytes: Uint8Array): void {
    const pass: number[] = [];
    for (const byte of bytes) {
      if (this.held) {
        this.held.push(byte);
        if (byte === 0x0a) {
          if (!this.isOwnFrame(this.held)) pass.push(...this.held);
          this.held = undefined;
          this.atLineStart = true;
        } else if (
          this.held.length <= OWN_FRAME.length &&
          OWN_FRAME.charCodeAt(this.held.length - 1) !== byte
        ) {
          pass.push(...this.held);
          this.held = undefined;
          this.atLineStart = false;
        }
        continue;
      }
      if (this.atLineStart && byte === OWN_FRAME.charCodeAt(0)) {
        this.held = [byte];
        continue;
      }
      pass.push(byte);
      this.atLineStart = byte === 0x0a;
    }
    if (pass.length > 0) this.out(Uint8Array.from(pass));
  }

  private isOwnFrame(line: number[]): boolean {
    return line.length > OWN_FRAME.length;
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
