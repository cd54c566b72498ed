import { EventEmitter } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import { type FirmwareVersion, NEWEST_FIRMWARE } from '../board/firmware.js';
import { resolveNode } from '../board/nodes.js';
import { PtyExposure, type Refusal, TcpExposure } from './exposure.js';
import type { InputEvent } from './firmware/types.js';
import { parsePartsFile } from './parts.js';
import { SimPort } from './simPort.js';
import { sourceWorkerScript, withoutLoaders } from './sourceWorker.js';
import { heapBytesOf, psramHeapBytesOf } from './vmRuntime.js';
import {
  CONTROL,
  type FromWorker,
  INTERRUPT,
  PORT_NAMES,
  type PortName,
  type WorkerInit,
} from './workerProtocol.js';

export interface SimBoardOptions {
  /** Text of a parts file (see src/sim/parts.ts). */
  partsFileText?: string;
  /** Keep the flash in this folder (created if missing); otherwise it lives in memory. */
  fsDir?: string;
  /** Seed for measurement noise; omitted = noiseless readings. */
  noiseSeed?: number;
  /**
   * How long a script may ignore Ctrl-C before the board "reboots" (a pure-Python loop that never
   * calls the firmware cannot be interrupted inside the WebAssembly VM; see README).
   */
  watchdogMs?: number;
  /**
   * A board with PSRAM: the firmware adds most of the chip to the GC heap, so gc reports about
   * 6.2 MB instead of 64 KB (96000 bytes on 5.7.0.13; see psramHeapBytesOf). Default false.
   */
  psram?: boolean;
  /** The firmware release to behave as (board/firmware.ts); default the newest. */
  firmware?: FirmwareVersion;
}

/** `refused`: a second host was turned away from a port (one host at a time, exposure.ts). */
type Events = { unplug: []; replug: []; reboot: []; ready: []; refused: [Refusal] };

/**
 * A Ctrl-C the board never saw: it reached a port while a script ran and another byte waited ahead
 * of it. The firmware only peeks at the first byte waiting, so the script runs on; one that does
 * not end by itself holds the board (every port silent) until a power cycle (issue 21).
 */
export interface Wedge {
  port: PortName;
  /** The byte that waited at the head of the port's input. */
  parked: number;
  at: number;
}

/** A second interrupt byte this soon after one is swallowed (Python_Proper.cpp:528). */
const INTERRUPT_DEBOUNCE_MS = 20;

/**
 * The virtual Jumperless V5: a VM worker ("core 0") behind four USB serial ports, with fault
 * injection and scripted inputs. Offers byte streams only; whoever drives it (tests, the CLI, the
 * device layer) decides how to reach them.
 */
export class SimBoard extends EventEmitter<Events> {
  private worker: Worker | undefined;
  private control = new Int32Array(new SharedArrayBuffer(16));
  private inputPort: import('node:worker_threads').MessagePort | undefined;
  private readonly ports = new Map<PortName, SimPort>();
  private readonly flash = new Map<string, Uint8Array>();
  private isPlugged = false;
  private hung = false;
  private byteDelayMs = 0;
  private watchdog: NodeJS.Timeout | undefined;
  private stopped = false;
  private tcp: TcpExposure | undefined;
  private pty: PtyExposure | undefined;
  /** Per port: the main-loop turn during which bytes were queued behind a running script, and the first of them. */
  private readonly parkedDuringTurn = new Map<PortName, { turn: number; head: number }>();
  private lastInterruptAt = 0;
  /**
   * Power changes (reboot, unplug, replug, stop) run one at a time, in order: two that overlapped
   * each started a VM and left all but the last running, unreachable, until the process ran out
   * of memory (issue 23: it exited once in about 440 reboot faults).
   */
  private power: Promise<void> = Promise.resolve();
  /** A reboot asked for while another waits its turn joins it. */
  private queuedReboot: Promise<void> | undefined;
  private wedge: Wedge | undefined;

  private constructor(private readonly options: SimBoardOptions) {
    super();
  }

  /** Starts the board; a malformed parts file is refused with its line and the reason. */
  static async start(options: SimBoardOptions = {}): Promise<SimBoard> {
    if (options.partsFileText !== undefined) {
      const parsed = parsePartsFile(options.partsFileText);
      if (!parsed.ok) throw new Error(`parts file refused: ${parsed.errors.join('; ')}`);
    }
    const board = new SimBoard(options);
    if (options.fsDir) board.loadFlashFolder(options.fsDir);
    board.isPlugged = true;
    await board.powerOn(false);
    return board;
  }

  /** The firmware release this board runs. */
  get firmware(): FirmwareVersion {
    return this.options.firmware ?? NEWEST_FIRMWARE;
  }

  get plugged(): boolean {
    return this.isPlugged;
  }

  /** The first Ctrl-C that went unseen behind another byte since power-on (see `Wedge`). */
  get wedged(): Wedge | undefined {
    return this.wedge;
  }

  /** The current stream of a port. Throws while unplugged. */
  port(name: PortName): SimPort {
    const port = this.ports.get(name);
    if (!port || !this.isPlugged) throw new Error(`port ${name} is not there: the board is unplugged`);
    return port;
  }

  /** Files on the board's flash (a copy), e.g. for tests and `sim --fs`. */
  files(): Map<string, Uint8Array> {
    return new Map(this.flash);
  }

  readonly faults = {
    unplug: () => this.unplug(),
    replug: () => this.replug(),
    hang: (on: boolean) => {
      this.hung = on;
    },
    garbage: (port: PortName, bytes?: Uint8Array) => {
      const data = bytes ?? Uint8Array.from({ length: 64 }, () => Math.floor(Math.random() * 256));
      this.ports.get(port)?.deliver(data);
    },
    slow: (msPerByte: number) => {
      this.byteDelayMs = msPerByte;
      for (const port of this.ports.values()) port.setByteDelay(msPerByte);
    },
    reboot: () => this.reboot(),
  };

  readonly inputs = {
    /** A probe touch on a row, a Nano pin or a pad, by id or name (`12`, `'D13'`, `'LOGO_PAD_TOP'`). */
    probeTouch: (pad: number | string) => {
      const id = resolveNode(pad);
      if (id === undefined) throw new Error(`unknown pad: ${String(pad)}`);
      this.input({ kind: 'probe_touch', pad: id });
    },
    probeRelease: () => this.input({ kind: 'probe_release' }),
    button: (button: 'connect' | 'remove') => this.input({ kind: 'button', button }),
    clickwheelTurn: (clicks: number) => this.input({ kind: 'clickwheel_turn', clicks }),
    clickwheelButton: (state: 'pressed' | 'held' | 'released' | 'doubleclicked') =>
      this.input({ kind: 'clickwheel_button', state }),
    switchPosition: (position: 'measure' | 'select') => this.input({ kind: 'switch', position }),
  };

  input(event: InputEvent): void {
    this.inputPort?.postMessage(event);
    this.wakeWorker();
  }

  reboot(cause: WorkerInit['resetCause'] = 'power'): Promise<void> {
    if (this.queuedReboot) return this.queuedReboot;
    const reboot = this.inTurn(async () => {
      this.queuedReboot = undefined;
      // Unplugged or stopped meanwhile: there is no power to cycle.
      if (this.stopped || !this.isPlugged) return;
      await this.powerOff();
      await this.powerOn(true, cause);
      this.emit('reboot');
    });
    this.queuedReboot = reboot;
    return reboot;
  }

  unplug(): Promise<void> {
    return this.inTurn(async () => {
      if (!this.isPlugged) return;
      this.isPlugged = false;
      await this.powerOff();
      for (const port of this.ports.values()) port.destroy();
      this.ports.clear();
      this.emit('unplug');
    });
  }

  replug(): Promise<void> {
    return this.inTurn(async () => {
      if (this.isPlugged || this.stopped) return;
      this.isPlugged = true;
      await this.powerOn(false);
      this.emit('replug');
    });
  }

  /** Runs a power change once the one before it has settled, whatever its outcome. */
  private inTurn(change: () => Promise<void>): Promise<void> {
    const turn = this.power.then(change, change);
    this.power = turn.catch(() => undefined);
    return turn;
  }

  /** Serves every port over TCP on the host (loopback by default); returns the port numbers. */
  async serveTcp(options: { host?: string; basePort?: number } = {}): Promise<Record<PortName, number>> {
    this.tcp ??= await TcpExposure.start(this, options.host, options.basePort);
    return this.tcp.ports;
  }

  /** Gives every port a real pseudo-terminal under `dir` (made by socat or python3, see ptyBridge.ts); returns the device paths. */
  async servePty(dir: string): Promise<Record<PortName, string>> {
    await this.serveTcp();
    this.pty ??= await PtyExposure.start(this, this.tcp as TcpExposure, dir);
    return this.pty.paths;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.isPlugged = false;
    await this.pty?.close();
    await this.tcp?.close();
    await this.inTurn(() => this.powerOff());
    for (const port of this.ports.values()) port.destroy();
    this.ports.clear();
  }

  private async powerOn(
    announceBoot: boolean,
    resetCause: WorkerInit['resetCause'] = 'power',
  ): Promise<void> {
    const script = await workerScript();
    this.control = new Int32Array(new SharedArrayBuffer(16));
    this.parkedDuringTurn.clear();
    this.wedge = undefined;
    const channel = new MessageChannel();
    this.inputPort = channel.port1;
    const init: WorkerInit = {
      control: this.control.buffer as SharedArrayBuffer,
      inputPort: channel.port2,
      files: [...this.flash.entries()],
      announceBoot,
      heapBytes: this.options.psram ? psramHeapBytesOf(this.firmware) : heapBytesOf(this.firmware),
      firmware: this.firmware,
      psram: this.options.psram === true,
      resetCause,
      ...(this.options.partsFileText === undefined ? {} : { partsFileText: this.options.partsFileText }),
      ...(this.options.noiseSeed === undefined ? {} : { noiseSeed: this.options.noiseSeed }),
    };
    const worker = new Worker(script.url, {
      workerData: init,
      transferList: [channel.port2],
      ...(script.execArgv ? { execArgv: script.execArgv } : {}),
    });
    this.worker = worker;
    if (!this.ports.size) for (const name of PORT_NAMES) this.ports.set(name, this.makePort(name));
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromWorker) => {
        if (message.t === 'ready') resolve();
        // What a VM that lost its power sends late: its flash writes landed, its output and its
        // requests went with it.
        else if (this.worker === worker || (message.t === 'fs' && this.worker === undefined))
          this.fromWorker(message);
      });
      worker.once('error', (error) => {
        reject(error);
        // A crash of the VM thread is a board reset: come back up rather than take the host down.
        if (this.worker === worker && !this.stopped) {
          this.reboot('watchdog').catch((failure: unknown) =>
            process.stderr.write(`[sim] reboot after a crash failed: ${String(failure)}\n`),
          );
        }
      });
      worker.once('exit', () => resolve());
    });
  }

  private async powerOff(): Promise<void> {
    clearTimeout(this.watchdog);
    this.watchdog = undefined;
    const worker = this.worker;
    this.worker = undefined;
    this.inputPort?.close();
    this.inputPort = undefined;
    if (worker) await worker.terminate();
  }

  private makePort(name: PortName): SimPort {
    const port = new SimPort((data) => this.toWorker(name, data));
    port.setByteDelay(this.byteDelayMs);
    return port;
  }

  private toWorker(name: PortName, data: Buffer): void {
    if (!this.isPlugged || this.hung || !this.worker) return;
    let bytes: Uint8Array = data;
    if ((name === 'repl' || name === 'main') && Atomics.load(this.control, CONTROL.busy) === 1) {
      bytes = this.takeControlBytes(name, bytes);
    }
    if (bytes.length > 0) this.worker.postMessage({ t: 'bytes', port: name, data: bytes, at: Date.now() });
  }

  /**
   * While a script runs the firmware peeks at the first byte waiting on CDC0 and on CDC2
   * (check_stream_for_interrupt, Python_Proper.cpp:497-549 and 635-642 at 5.7.0.13) and consumes it
   * when it is 0x03 or 0x11 (KeyboardInterrupt, on either port) or 0x04 (SystemExit, then a soft
   * reset; here on CDC2 only). Any other byte stays at the head, and a control byte behind it is never
   * seen: they all wait for the REPL, which only reads once the script has ended. That is the wedge
   * when the script never ends (`wedged`). The 5.7.6+ skip of leading CR/LF on CDC2 applies only to
   * scripts that do not own that port (src/snakes/Python_Proper.cpp at 313f52e); every script here
   * starts from a REPL, so it is not modelled.
   */
  private takeControlBytes(name: PortName, bytes: Uint8Array): Uint8Array {
    const turn = Atomics.load(this.control, CONTROL.turn);
    const parked = this.parkedDuringTurn.get(name);
    if (parked?.turn === turn) {
      this.noteHidden(name, parked.head, bytes);
      return bytes;
    }
    let taken = 0;
    for (; taken < bytes.length; taken++) {
      const byte = bytes[taken];
      if (byte === 0x03 || byte === 0x11) this.interrupt(INTERRUPT.keyboard);
      else if (byte === 0x04 && name === 'repl') this.interrupt(INTERRUPT.softReset);
      else break;
    }
    const head = bytes[taken];
    if (head !== undefined) {
      this.parkedDuringTurn.set(name, { turn, head });
      this.noteHidden(name, head, bytes.subarray(taken + 1));
    }
    return bytes.subarray(taken);
  }

  private noteHidden(port: PortName, parked: number, behind: Uint8Array): void {
    if (this.wedge || !behind.some((byte) => byte === 0x03 || byte === 0x11)) return;
    this.wedge = { port, parked, at: Date.now() };
  }

  private interrupt(kind: number): void {
    const now = Date.now();
    const bounce = now - this.lastInterruptAt <= INTERRUPT_DEBOUNCE_MS;
    this.lastInterruptAt = now;
    if (kind === INTERRUPT.keyboard && bounce) return;
    Atomics.or(this.control, CONTROL.interrupt, kind);
    this.wakeWorker();
    this.armWatchdog();
  }

  private fromWorker(message: FromWorker): void {
    if (message.t === 'out') {
      if (!this.hung) this.ports.get(message.port)?.deliver(message.data);
    } else if (message.t === 'reboot') {
      this.reboot(message.cause).catch((error: unknown) =>
        process.stderr.write(`[sim] reboot failed: ${String(error)}\n`),
      );
    } else if (message.t === 'fs') {
      for (const [path, data] of message.changes) {
        if (data === null) this.flash.delete(path);
        else this.flash.set(path, data);
      }
      if (this.options.fsDir) this.saveFlashFolder(this.options.fsDir, message.changes);
    }
  }

  private wakeWorker(): void {
    Atomics.add(this.control, CONTROL.wake, 1);
    Atomics.notify(this.control, CONTROL.wake);
  }

  /** A script that never looks at the interrupt flag gets the board reset (the simulated watchdog). */
  private armWatchdog(): void {
    // Armed once per ignored Ctrl-C: further Ctrl-Cs must not push the reset back.
    if (this.watchdog) return;
    const control = this.control;
    this.watchdog = setTimeout(() => {
      this.watchdog = undefined;
      if (control === this.control && Atomics.load(control, CONTROL.interrupt) !== 0) {
        this.reboot('watchdog').catch((error: unknown) =>
          process.stderr.write(`[sim] reboot failed: ${String(error)}\n`),
        );
      }
    }, this.options.watchdogMs ?? 1000);
    this.watchdog.unref();
  }

  private loadFlashFolder(dir: string): void {
    mkdirSync(dir, { recursive: true });
    const walk = (folder: string, prefix: string) => {
      for (const name of readdirSync(folder)) {
        const full = join(folder, name);
        if (statSync(full).isDirectory()) {
          this.flash.set(`${prefix}/${name}/`, new Uint8Array(0));
          walk(full, `${prefix}/${name}`);
        } else {
          this.flash.set(`${prefix}/${name}`, readFileSync(full));
        }
      }
    };
    walk(dir, '');
  }

  private saveFlashFolder(dir: string, changes: Array<[string, Uint8Array | null]>): void {
    // Compared as absolute paths: `--fs ./flash` must save as `--fs /abs/flash` does.
    const root = resolve(dir);
    for (const [path, data] of changes) {
      const target = resolve(root, ...path.split('/').filter(Boolean));
      if (!target.startsWith(root + sep)) continue;
      if (data === null) rmSync(target, { recursive: true, force: true });
      else if (path.endsWith('/')) mkdirSync(target, { recursive: true });
      else {
        mkdirSync(join(target, '..'), { recursive: true });
        writeFileSync(target, data);
      }
    }
  }
}

/** The VM worker's script; from TypeScript sources (tests, `npm start`) its modules come bundled in one file. */
async function workerScript(): Promise<{ url: URL; execArgv?: string[] }> {
  if (!import.meta.url.endsWith('.ts')) return { url: new URL('./vmWorker.js', import.meta.url) };
  return {
    url: await sourceWorkerScript(new URL('./vmWorker.ts', import.meta.url)),
    // The bundle is plain JavaScript: the loaders that run the sources (tsx's) would only slow its start.
    execArgv: withoutLoaders(process.execArgv),
  };
}
