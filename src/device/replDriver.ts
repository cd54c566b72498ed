/**
 * Drives the raw REPL over a DeviceLink: enter raw mode, run code (plain or raw-paste), send
 * interrupts, sync. Owns the decoder, the event queue and the line state (lineState.ts): every
 * byte written is first checked against `mayWrite`, so nothing here can send a byte that would
 * hide a Ctrl-C from the board (the wedge, issue 21), and every reply read moves the state on.
 * Knows nothing of jobs or deadlines, which the session adds: `exec` never times out by itself.
 */
import { DeviceError } from './errors.js';
import {
  advance,
  INITIAL_LINE,
  type LineEvent,
  type LineState,
  mayWrite,
  refusal,
  type Send,
} from './lineState.js';
import type { DeviceLink } from './link.js';
import {
  BannerWatch,
  CTRL_A,
  CTRL_C,
  CTRL_D,
  ENTER_RAW,
  ENTER_RAW_WITH_BANNER,
  PASTE_REQUEST,
  RawReplDecoder,
  type ReplEvent,
  type ResetEvent,
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
const EOT = Buffer.of(CTRL_D);
const RESULT: readonly Kind[] = ['result'];
/** How much of a request's first line is looked for in an echo. */
const ECHO_PROBE = 16;
const ONE_INTERRUPT: readonly Send[] = ['interrupt'];
const ONE_MODE: readonly Send[] = ['mode'];
const ONE_EXEC: readonly Send[] = ['exec'];
const ENTER_RAW_SENDS: readonly Send[] = ['interrupt', 'mode'];
const ENTER_RAW_WITH_BANNER_SENDS: readonly Send[] = ['interrupt', 'mode', 'mode'];
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
  /** What we know of the line; changed only by `note`. */
  private state: LineState = INITIAL_LINE;
  /** A sync reads replies that are not its own: they must not move the line state. */
  private syncing = false;
  private ackWaiters: Array<() => void> = [];
  /** The device acknowledged the current exec with `OK` (or a raw-paste acceptance). */
  started = false;
  /**
   * The current exec's closing 0x04 went out: from then on the board may run the code, whether or
   * not an answer ever comes back (a dropped link says nothing about what the board did).
   */
  codeSent = false;
  /** The raw-paste window the device granted on this connection; undefined until a paste was accepted. */
  pasteWindow: number | undefined;
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

  get line(): LineState {
    return this.state;
  }

  /** The one place the line state changes (see lineState.ts). */
  note(event: LineEvent): void {
    this.state = advance(this.state, event);
    if (this.ackWaiters.length > 0 && this.state.script !== 'starting') {
      for (const wake of this.ackWaiters.splice(0)) wake();
    }
  }

  /**
   * Resolves once the request in flight is acknowledged (or answered, or given up), at once when
   * none is waiting for its `OK`; false after `ms`.
   */
  acknowledgement(ms: number): Promise<boolean> {
    if (this.state.script !== 'starting') return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.ackWaiters = this.ackWaiters.filter((w) => w !== wake);
        resolve(false);
      }, ms);
      this.ackWaiters.push(wake);
    });
  }

  get strayBytes(): number {
    return this.decoder.strayBytes;
  }

  /** The port was (re)opened: forget what we learned about the device, which may be another one. */
  opened(): void {
    this.pasteSupported = undefined;
    this.pasteWindow = undefined;
    this.note({ type: 'opened' });
  }

  /**
   * Asks for raw mode (`\x01`) and waits for the header. Unless a byte of ours may be parked on the
   * board, it first stops whatever runs: the firmware notices an interrupt only when it is the
   * first byte waiting (Python_Proper.cpp:507-548), so the first Ctrl-C goes alone, and a second
   * one, with the raw-mode request, follows once the first had time to work. With `banner`, passes
   * through friendly mode (Ctrl-B) so the board prints its banner. Until `timeoutMs` it resends only
   * `\x01`: a script that survived two Ctrl-Cs will not stop for more, and what is left to catch is
   * the prompt of a board that comes back from a reset or finishes what it runs.
   */
  async enterRaw(timeoutMs: number, options: { banner?: boolean } = {}): Promise<void> {
    this.begin();
    const deadline = Date.now() + timeoutMs;
    const interrupting = mayWrite(this.state, 'interrupt');
    if (interrupting) {
      this.decoder.expect('prompt');
      this.send(ONE_INTERRUPT, INTERRUPT);
      await sleep(Math.min(INTERRUPT_SETTLE_MS, timeoutMs));
    }
    for (let attempt = 0; ; attempt++) {
      this.decoder.expect('prompt');
      if (attempt > 0 || !interrupting || !mayWrite(this.state, 'interrupt')) {
        this.send(ONE_MODE, RAW_REQUEST);
      } else if (options.banner) {
        this.send(ENTER_RAW_WITH_BANNER_SENDS, ENTER_RAW_WITH_BANNER);
      } else {
        this.send(ENTER_RAW_SENDS, ENTER_RAW);
      }
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
    const firstLine = request.indexOf(0x0a);
    this.lastRequestStart = request.subarray(
      0,
      Math.min(ECHO_PROBE, firstLine < 0 ? request.length - 1 : firstLine),
    );
    try {
      this.send(ONE_EXEC, request);
    } catch (error) {
      return Promise.reject(error);
    }
    this.codeSent = true;
    // A result event carries every ExecOutcome field.
    return this.next(RESULT) as Promise<ReplEvent & ExecOutcome>;
  }

  private async pasteOrPlain(request: Buffer): Promise<ExecOutcome> {
    const pasted = await this.pasteExec(request.subarray(0, -1));
    return pasted ?? this.plainExec(request);
  }

  /** Whether a Ctrl-C may go out now (see lineState.ts `mayWrite`). */
  get mayInterrupt(): boolean {
    return mayWrite(this.state, 'interrupt');
  }

  /** Ctrl-C: interrupts running code (or a raw paste); the exec then completes with KeyboardInterrupt. */
  interrupt(): void {
    this.send(ONE_INTERRUPT, INTERRUPT);
  }

  /** Gives up on the current operation: its promise rejects with `reason`; later bytes are stray. */
  abandon(reason: DeviceError): void {
    if (this.state.script === 'starting') {
      this.note({ type: 'abandoned', echoed: this.echoed() });
    }
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
    this.send(ONE_EXEC, Buffer.from(`print('${token}')\x04`, 'latin1'));
    this.syncing = true;
    const deadline = Date.now() + timeoutMs;
    try {
      while (Date.now() < deadline) {
        const event = await this.nextWithin(['result'], deadline - Date.now());
        if (event?.kind !== 'result') break;
        if (event.stdout.trim() === token && event.stderr === '') {
          this.syncing = false;
          this.note({ type: 'synced', strays: this.decoder.strayBytes });
          return true;
        }
      }
      this.syncing = false;
      // Our request may still wait on the board (its replies were not the ones that came).
      this.note({ type: 'abandoned', echoed: false });
      return false;
    } finally {
      this.syncing = false;
      this.decoder.expect('idle');
    }
  }

  /** Writes bytes made of the `sends` in order, each allowed by the line state at its turn. */
  private send(sends: readonly Send[], bytes: Uint8Array): void {
    let state = this.state;
    for (const what of sends) {
      if (!mayWrite(state, what)) {
        throw new DeviceError('protocol', `refused to write to ${this.link.id}: ${refusal(state, what)}`, {
          refused: what,
          line: state,
        });
      }
      state = advance(state, { type: 'sent', what });
    }
    this.link.write(bytes);
    this.state = state;
  }

  /** The request we wrote came back as text before any `OK`: a friendly REPL typed it. */
  private echoed(): boolean {
    const start = this.lastRequestStart;
    return start !== undefined && start.length >= 4 && this.decoder.preOk.includes(start);
  }

  private lastRequestStart: Buffer | undefined;

  private async pasteExec(code: Buffer): Promise<ExecOutcome | undefined> {
    this.decoder.expect('pasteReply');
    this.send(['pasteRequest'], PASTE_REQUEST);
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
    this.pasteWindow = window;
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
        this.send(['pasteData'], code.subarray(sent, sent + size));
        sent += size;
        room -= size;
        continue;
      }
      // The end of data travels with the last chunk: a lone \x04 arriving while the board waits for
      // data could be taken by its interrupt poller for a soft-reset request (Python_Proper.cpp:514-523,
      // polled from mphalport.c:148).
      this.decoder.expect('pasteEnd');
      this.send(['pasteData', 'pasteEnd'], Buffer.concat([code.subarray(sent), EOT]));
      this.codeSent = true;
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
    this.send(ONE_INTERRUPT, INTERRUPT);
    return this.result(await this.next(['result']));
  }

  private result(event: ReplEvent): ExecOutcome {
    if (event.kind !== 'result') throw new DeviceError('protocol', `unexpected ${event.kind} from the board`);
    return { stdout: event.stdout, stderr: event.stderr, truncated: event.truncated, anomaly: event.anomaly };
  }

  private onData(chunk: Buffer): void {
    for (const event of this.decoder.push(chunk)) {
      this.learn(event);
      this.deliver(event);
    }
    for (const event of this.banner.push(chunk)) {
      this.note({ type: event.kind === 'banner' ? 'banner' : 'softReboot' });
      this.options.onReset?.(event);
    }
  }

  /** What a decoded reply tells about the line. */
  private learn(event: ReplEvent): void {
    switch (event.kind) {
      case 'ok':
        this.started = true;
        if (!this.syncing) this.note({ type: 'ok' });
        return;
      case 'result':
        if (!this.syncing) this.note({ type: 'result', anomaly: event.anomaly });
        return;
      case 'prompt':
        this.note({ type: 'prompt' });
        return;
      case 'pasteAccepted':
        this.note({ type: 'pasteAccepted' });
        return;
      case 'pasteRefused':
        this.note({ type: 'pasteRefused' });
        return;
      default:
        return;
    }
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
    this.codeSent = false;
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
