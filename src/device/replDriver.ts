/**
 * Drives the raw REPL over a DeviceLink: enter raw mode, run code (plain or raw-paste), send
 * interrupts. Owns the decoder and the event queue; knows nothing of jobs or deadlines, which
 * the session adds. `exec` never times out by itself: the session decides when to interrupt.
 */
import { BannerWatch, type ResetEvent } from './banner.js';
import { DeviceError } from './errors.js';
import type { DeviceLink } from './link.js';
import {
  CTRL_A,
  CTRL_B,
  CTRL_C,
  CTRL_D,
  ENTER_RAW,
  ENTER_RAW_WITH_BANNER,
  PASTE_REQUEST,
  RawReplDecoder,
  type ReplEvent,
} from './rawRepl.js';

export interface ExecOutcome {
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** The reply had bytes out of place: the session resyncs before trusting the link again. */
  anomaly: boolean;
}

export interface DriverOptions {
  maxOutputBytes?: number;
  /** Code at least this long (bytes) goes through raw-paste, which the device compiles as it reads. */
  pasteThreshold?: number;
  /** Called for every banner or soft reboot seen on the line, whatever the driver is doing. */
  onReset?: (event: ResetEvent) => void;
}

type Kind = ReplEvent['kind'];
const MAX_QUEUED_EVENTS = 10_000;
/** Between resends of the raw-mode request while a board reboots or drains old output. */
const ENTER_RAW_RETRY_MS = 300;
const RAW_REQUEST = Buffer.of(CTRL_A);
const INTERRUPT = Buffer.of(CTRL_C);
const RESULT: readonly Kind[] = ['result'];
/**
 * After the lone Ctrl-C that starts enterRaw: time for a running script to take it and print its
 * traceback. The board polls every millisecond and swallows a second interrupt byte within 20 ms
 * (Python_Proper.cpp:528, 621-624), so the next Ctrl-C must come later than that.
 */
export const INTERRUPT_SETTLE_MS = 100;

export class ReplDriver {
  private readonly decoder: RawReplDecoder;
  private readonly banner = new BannerWatch();
  private events: ReplEvent[] = [];
  private waiter:
    | { kinds: readonly Kind[]; resolve: (event: ReplEvent) => void; reject: (error: DeviceError) => void }
    | undefined;
  private failure: DeviceError | undefined;
  private readonly unsubscribe: Array<() => void>;
  /** undefined = not tried yet on this connection. */
  private pasteSupported: boolean | undefined;
  /** The device acknowledged the current exec with `OK` (or a raw-paste acceptance). */
  started = false;
  private syncCounter = 0;

  constructor(
    readonly link: DeviceLink,
    private readonly options: DriverOptions = {},
  ) {
    this.decoder = new RawReplDecoder(options.maxOutputBytes);
    this.unsubscribe = [
      link.onData((chunk) => this.onData(chunk)),
      link.onClose((reason) => this.fail(reason)),
    ];
  }

  dispose(): void {
    for (const off of this.unsubscribe) off();
    this.fail(new DeviceError('disconnected', 'the session was closed'));
  }

  get strayBytes(): number {
    return this.decoder.strayBytes;
  }

  /** Forget what we learned about the device (after a reopen the board may be a different one). */
  resetCapabilities(): void {
    this.pasteSupported = undefined;
  }

  /**
   * Stops whatever runs, asks for raw mode (`\x01`) and waits for the header. The firmware notices
   * an interrupt only when it is the first byte waiting (Python_Proper.cpp:507-548), so the first
   * Ctrl-C goes alone; a second one, with the raw-mode request, follows once the first had time to
   * work. With `banner`, passes through friendly mode (Ctrl-B) so the board prints its banner.
   * Until `timeoutMs` it resends only `\x01`: a script that survived two Ctrl-Cs will not stop
   * for more, and what is left to catch is the prompt of a board that comes back from a reset.
   */
  async enterRaw(timeoutMs: number, options: { banner?: boolean } = {}): Promise<void> {
    this.begin();
    const deadline = Date.now() + timeoutMs;
    this.decoder.expect('prompt');
    this.link.write(INTERRUPT);
    await sleep(Math.min(INTERRUPT_SETTLE_MS, timeoutMs));
    for (let attempt = 0; ; attempt++) {
      this.decoder.expect('prompt');
      if (attempt > 0) this.link.write(RAW_REQUEST);
      else this.link.write(options.banner ? ENTER_RAW_WITH_BANNER : ENTER_RAW);
      const left = deadline - Date.now();
      const event = await this.nextWithin(['prompt'], Math.min(left, ENTER_RAW_RETRY_MS));
      if (event) return;
      if (Date.now() >= deadline) {
        throw new DeviceError(
          'no_repl',
          `${this.link.id} gave no raw-REPL prompt within ${timeoutMs} ms: it does not answer like the board's MicroPython REPL`,
          { port: this.link.id },
        );
      }
    }
  }

  /** Leaves raw mode (Ctrl-B); the board prints its banner and a friendly prompt. */
  leaveRaw(): void {
    this.abandon(new DeviceError('protocol', 'left raw mode'));
    this.link.write(Buffer.of(CTRL_B));
  }

  /**
   * Runs an exec request (code + Ctrl-D, from `encodeExec`) and resolves with its output.
   * Rejects when the link drops or `abandon()` is called; never on its own.
   */
  exec(request: Buffer): Promise<ExecOutcome> {
    this.begin();
    if (request.length > (this.options.pasteThreshold ?? 1024) && this.pasteSupported !== false) {
      return this.pasteOrPlain(request);
    }
    return this.plainExec(request);
  }

  /** Not async on purpose: this is every small job's path, and each await is a turn. */
  private plainExec(request: Buffer): Promise<ExecOutcome> {
    this.decoder.expect('exec');
    try {
      this.link.write(request);
    } catch (error) {
      return Promise.reject(error);
    }
    // A result event carries every ExecOutcome field.
    return this.next(RESULT) as Promise<ReplEvent & ExecOutcome>;
  }

  private async pasteOrPlain(request: Buffer): Promise<ExecOutcome> {
    const pasted = await this.pasteExec(request.subarray(0, -1));
    return pasted ?? this.plainExec(request);
  }

  /** Ctrl-C: interrupts running code (or a raw paste); the exec then completes with KeyboardInterrupt. */
  interrupt(): void {
    this.link.write(INTERRUPT);
  }

  /** Gives up on the current operation: its promise rejects with `reason`; later bytes are stray. */
  abandon(reason: DeviceError): void {
    this.decoder.expect('idle');
    this.fail(reason);
  }

  /**
   * Proves the line is clean: runs a print of a fresh token and waits for exactly that output,
   * skipping replies left over from interrupted jobs. False when it does not come in time.
   */
  async sync(timeoutMs: number): Promise<boolean> {
    const token = `jl-sync-${++this.syncCounter}-${Date.now().toString(36)}`;
    this.begin();
    // Stale replies may come first, even in the same chunk as ours: keep reading replies.
    this.decoder.expect('exec', { rearm: true });
    this.link.write(Buffer.from(`print('${token}')\x04`, 'latin1'));
    const deadline = Date.now() + timeoutMs;
    try {
      while (Date.now() < deadline) {
        const event = await this.nextWithin(['result'], deadline - Date.now());
        if (event?.kind !== 'result') return false;
        if (event.stdout.trim() === token && event.stderr === '') return true;
      }
      return false;
    } finally {
      this.decoder.expect('idle');
    }
  }

  private async pasteExec(code: Buffer): Promise<ExecOutcome | undefined> {
    this.decoder.expect('pasteReply');
    this.link.write(PASTE_REQUEST);
    const reply = await this.next(['pasteAccepted', 'pasteRefused']);
    if (reply.kind === 'pasteRefused') {
      this.pasteSupported = false;
      // Not understood: the device re-entered raw mode and printed the header; wait for it.
      if (!reply.answered) await this.next(['prompt']);
      return undefined;
    }
    if (reply.kind !== 'pasteAccepted') return undefined;
    this.pasteSupported = true;
    this.started = true;
    const window = Math.max(1, reply.window);
    let room = window;
    let sent = 0;
    for (;;) {
      // Take grants already queued without waiting; wait only when out of room.
      while (room === 0 || this.has(['pasteWindow', 'pasteAbort'])) {
        const event = await this.next(['pasteWindow', 'pasteAbort']);
        if (event.kind === 'pasteAbort') return this.afterPasteAbort();
        room += window;
      }
      const size = Math.min(room, code.length - sent);
      if (sent + size < code.length) {
        this.link.write(code.subarray(sent, sent + size));
        sent += size;
        room -= size;
        continue;
      }
      // The end of data travels with the last chunk: a lone \x04 arriving while the board waits for
      // data could be taken by its interrupt poller for a soft-reset request (Python_Proper.cpp:514-523,
      // polled from mphalport.c:148).
      this.decoder.expect('pasteEnd');
      this.link.write(Buffer.concat([code.subarray(sent), EOT]));
      break;
    }
    await this.next(['pasteDone', 'pasteAbort']);
    return this.result(await this.next(['result']));
  }

  /**
   * The device ended a raw paste (a compile error, or our Ctrl-C): its reader then waits for one
   * more 0x03 or 0x04 before it frames the error (pyexec.c:280-292). Send 0x03: on an idle line it
   * only clears the input, where a 0x04 would soft-reset the board.
   */
  private async afterPasteAbort(): Promise<ExecOutcome> {
    this.link.write(INTERRUPT);
    return this.result(await this.next(['result']));
  }

  private result(event: ReplEvent): ExecOutcome {
    if (event.kind !== 'result') throw new DeviceError('protocol', `unexpected ${event.kind} from the board`);
    return { stdout: event.stdout, stderr: event.stderr, truncated: event.truncated, anomaly: event.anomaly };
  }

  private onData(chunk: Buffer): void {
    for (const event of this.decoder.push(chunk)) {
      if (event.kind === 'ok') this.started = true;
      this.deliver(event);
    }
    if (this.options.onReset) for (const event of this.banner.push(chunk)) this.options.onReset(event);
  }

  private deliver(event: ReplEvent): void {
    const waiter = this.waiter;
    if (waiter?.kinds.includes(event.kind)) {
      this.waiter = undefined;
      waiter.resolve(event);
      return;
    }
    this.events.push(event);
    if (this.events.length > MAX_QUEUED_EVENTS) this.events.splice(0, this.events.length - MAX_QUEUED_EVENTS);
  }

  private fail(reason: DeviceError): void {
    this.failure = reason;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(reason);
  }

  private begin(): void {
    this.failure = undefined;
    this.events.length = 0;
    this.started = false;
    if (!this.link.isOpen) this.failure = new DeviceError('disconnected', `${this.link.id} is not open`);
  }

  private has(kinds: readonly Kind[]): boolean {
    return this.events.some((event) => kinds.includes(event.kind));
  }

  private next(kinds: readonly Kind[]): Promise<ReplEvent> {
    const index =
      this.events.length === 0 ? -1 : this.events.findIndex((event) => kinds.includes(event.kind));
    if (index >= 0) {
      const event = this.events[index] as ReplEvent;
      this.events.splice(0, index + 1);
      return Promise.resolve(event);
    }
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiter = { kinds, resolve, reject };
    });
  }

  /** Like `next`, but resolves undefined after `ms` instead of waiting on. */
  private async nextWithin(kinds: readonly Kind[], ms: number): Promise<ReplEvent | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
    });
    try {
      const event = await Promise.race([this.next(kinds), timeout]);
      if (!event) this.waiter = undefined;
      return event;
    } finally {
      clearTimeout(timer);
    }
  }
}

const EOT = Buffer.of(CTRL_D);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
