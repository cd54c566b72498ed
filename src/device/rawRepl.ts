/**
 * The MicroPython REPL's byte protocol as a pure module: the raw-REPL frames (an incremental
 * decoder fed arbitrary chunks, plus encoders), and the two lines that say the board reset
 * (`BannerWatch`). No timers, no I/O: the driver feeds every chunk to both, and decides what to
 * expect and when to give up (spec §3.2). Every input, however hostile, either fits the current
 * expectation or is counted as stray and dropped; memory stays bounded by the output cap.
 */
import { DeviceError } from './errors.js';

export const RAW_HEADER = 'raw REPL; CTRL-B to exit\r\n>';
export const CTRL_A = 0x01;
export const CTRL_B = 0x02;
export const CTRL_C = 0x03;
export const CTRL_D = 0x04;
/** Default cap per stream (stdout, stderr) kept from one exec. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;

/** What the driver is waiting for; set with `expect()` just before writing the matching request. */
export type Expectation =
  /** Nothing: bytes are stray (late echoes, garbage) and dropped. */
  | 'idle'
  /** The raw-REPL header, after a Ctrl-C and `\x03\x01` (ReplDriver.enterRaw). Anything before it is ignored. */
  | 'prompt'
  /** `OK` after code + Ctrl-D, then stdout/stderr. Stray bytes before `OK` are tolerated. */
  | 'exec'
  /** `R\x01`+window (raw-paste accepted), `R\x00` (refused) or the header (not understood). */
  | 'pasteReply'
  /** After the host sent Ctrl-D ending a raw paste: the device's `\x04` acknowledgement. */
  | 'pasteEnd'
  /** stdout `\x04` stderr `\x04` `>`, used after a paste abort. */
  | 'output';

export type ReplEvent =
  | { kind: 'prompt' }
  | { kind: 'ok' }
  | { kind: 'result'; stdout: string; stderr: string; truncated: boolean; anomaly: boolean }
  | { kind: 'pasteAccepted'; window: number }
  /** `answered`: the device said `R\x00`; otherwise it did not know raw-paste and re-sent the header. */
  | { kind: 'pasteRefused'; answered: boolean }
  /** Raw-paste flow control: room for one more window. */
  | { kind: 'pasteWindow' }
  /** `\x04` during a raw paste: the device ended it (compile error, Ctrl-C); output follows. */
  | { kind: 'pasteAbort' }
  /** The device acknowledged the end of a raw paste; output follows. */
  | { kind: 'pasteDone' };

type Mode = Expectation | 'pasteWindowBytes' | 'pasteFlow' | 'stdout' | 'stderr' | 'promptChar';

const HEADER = Buffer.from(RAW_HEADER, 'latin1');
/** Shared "nothing left": allocating one per step shows up in profiles. */
const EMPTY = Buffer.alloc(0);
const OK = Buffer.from('OK', 'latin1');
/** How much of what came before `OK` is kept (`preOk`). */
const PRE_OK_KEPT = 64;

/** What is left of `chunk` after `from`, without making an empty view. */
function rest(chunk: Buffer, from: number): Buffer {
  return from >= chunk.length ? EMPTY : chunk.subarray(from);
}

/** One output stream with a cap: keeps the first `cap` bytes, counts the rest. */
class CappedBuffer {
  private chunks: Buffer[] = [];
  private kept = 0;
  dropped = 0;
  constructor(private readonly cap: number) {}

  clear(): void {
    this.chunks = [];
    this.kept = 0;
    this.dropped = 0;
  }

  add(bytes: Buffer): void {
    if (bytes.length === 0) return;
    const room = this.cap - this.kept;
    if (room >= bytes.length) {
      // A view, not a copy: streams hand out fresh buffers (or fresh slices of a read pool).
      this.chunks.push(bytes);
      this.kept += bytes.length;
      return;
    }
    if (room > 0) {
      this.chunks.push(Buffer.from(bytes.subarray(0, room)));
      this.kept += room;
    }
    this.dropped += bytes.length - Math.max(room, 0);
  }

  text(): string {
    const only = this.chunks.length === 1 ? this.chunks[0] : undefined;
    const text =
      this.kept === 0 ? '' : (only ?? Buffer.concat(this.chunks, this.kept)).toString('utf8', 0, this.kept);
    if (this.dropped === 0) return text;
    return `${text}\n[output truncated: ${this.dropped} more bytes dropped after the first ${this.cap}]\n`;
  }
}

/** Finds `needle` across chunk boundaries, keeping only `needle.length - 1` bytes of history. */
class Matcher {
  private tail = EMPTY;
  constructor(private readonly needle: Buffer) {}

  reset(): void {
    this.tail = EMPTY;
  }

  /** Index in `chunk` just after the first full match, or -1 (and the tail is kept). */
  feed(chunk: Buffer): number {
    const joined = this.tail.length > 0 ? Buffer.concat([this.tail, chunk]) : chunk;
    const at = joined.indexOf(this.needle);
    if (at >= 0) {
      const end = at + this.needle.length - this.tail.length;
      this.tail = EMPTY;
      return end;
    }
    const keep = Math.min(this.needle.length - 1, joined.length);
    this.tail = Buffer.from(joined.subarray(joined.length - keep));
    return -1;
  }
}

export class RawReplDecoder {
  private mode: Mode = 'idle';
  private readonly header = new Matcher(HEADER);
  private readonly ok = new Matcher(OK);
  private readonly stdout: CappedBuffer;
  private readonly stderr: CappedBuffer;
  private pasteBytes: number[] = [];
  private sawR = false;
  private anomaly = false;
  private rearm = false;
  /** Bytes that fit no expectation since the decoder was made (for health and tests). */
  strayBytes = 0;
  /**
   * The first bytes that came before `OK` since the last exec expectation: a friendly REPL that
   * was given our code echoes it here, which tells the session the board read it.
   */
  preOk: Buffer = EMPTY;

  constructor(maxOutputBytes = MAX_OUTPUT_BYTES) {
    this.stdout = new CappedBuffer(maxOutputBytes);
    this.stderr = new CappedBuffer(maxOutputBytes);
  }

  get expecting(): string {
    return this.mode;
  }

  /**
   * Sets what comes next. With `rearm`, an exec expectation survives its result: the decoder
   * goes straight back to waiting for `OK`, so replies queued back to back in one chunk (stale
   * ones ahead of ours) are all seen.
   */
  expect(what: Expectation, options: { rearm?: boolean } = {}): void {
    this.rearm = options.rearm === true && what === 'exec';
    this.mode = what;
    this.header.reset();
    this.ok.reset();
    this.sawR = false;
    this.pasteBytes = [];
    this.preOk = EMPTY;
    if (what === 'exec' || what === 'output' || what === 'pasteReply') this.resetOutput();
  }

  push(input: Uint8Array): ReplEvent[] {
    const events: ReplEvent[] = [];
    let chunk = Buffer.isBuffer(input)
      ? input
      : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    while (chunk.length > 0) chunk = this.step(chunk, events);
    return events;
  }

  private resetOutput(): void {
    this.stdout.clear();
    this.stderr.clear();
    this.anomaly = false;
  }

  /** Consumes a prefix of `chunk` in the current mode; returns what is left. */
  private step(chunk: Buffer, events: ReplEvent[]): Buffer {
    switch (this.mode) {
      case 'idle':
        this.strayBytes += chunk.length;
        return EMPTY;
      case 'prompt': {
        const end = this.header.feed(chunk);
        if (end < 0) return EMPTY;
        this.mode = 'idle';
        events.push({ kind: 'prompt' });
        return rest(chunk, end);
      }
      case 'exec': {
        // Bytes before `OK` are tolerated but counted: the session resyncs after stray output.
        const end = this.ok.feed(chunk);
        if (end < 0) {
          this.strayBytes += chunk.length;
          this.keepPreOk(chunk);
          return EMPTY;
        }
        if (end > OK.length) this.keepPreOk(chunk.subarray(0, end - OK.length));
        this.strayBytes += Math.max(0, end - OK.length);
        this.mode = 'stdout';
        events.push({ kind: 'ok' });
        return rest(chunk, end);
      }
      case 'pasteReply':
        return this.stepPasteReply(chunk, events);
      case 'pasteWindowBytes': {
        const need = 2 - this.pasteBytes.length;
        this.pasteBytes.push(...chunk.subarray(0, need));
        if (this.pasteBytes.length < 2) return EMPTY;
        const window = (this.pasteBytes[0] ?? 0) | ((this.pasteBytes[1] ?? 0) << 8);
        this.mode = 'pasteFlow';
        events.push({ kind: 'pasteAccepted', window });
        return chunk.subarray(need);
      }
      case 'pasteFlow':
      case 'pasteEnd':
        return this.stepPasteFlow(chunk, events);
      case 'output':
        this.mode = 'stdout';
        return chunk;
      case 'stdout':
      case 'stderr': {
        const at = chunk.indexOf(CTRL_D);
        const target = this.mode === 'stdout' ? this.stdout : this.stderr;
        if (at < 0) {
          target.add(chunk);
          return EMPTY;
        }
        target.add(chunk.subarray(0, at));
        this.mode = this.mode === 'stdout' ? 'stderr' : 'promptChar';
        return rest(chunk, at + 1);
      }
      case 'promptChar': {
        const at = chunk.indexOf(0x3e); // '>'
        if (at < 0) {
          this.anomaly = true;
          this.strayBytes += chunk.length;
          return EMPTY;
        }
        if (at > 0) {
          this.anomaly = true;
          this.strayBytes += at;
        }
        this.mode = this.rearm ? 'exec' : 'idle';
        events.push({
          kind: 'result',
          stdout: this.stdout.text(),
          stderr: this.stderr.text(),
          truncated: this.stdout.dropped + this.stderr.dropped > 0,
          anomaly: this.anomaly,
        });
        this.resetOutput();
        return rest(chunk, at + 1);
      }
    }
  }

  private keepPreOk(bytes: Buffer): void {
    if (this.preOk.length >= PRE_OK_KEPT) return;
    this.preOk = Buffer.concat([this.preOk, bytes.subarray(0, PRE_OK_KEPT - this.preOk.length)]);
  }

  private stepPasteReply(chunk: Buffer, events: ReplEvent[]): Buffer {
    // Whichever comes first wins: `R\x00`/`R\x01`, or the header, which proves the device
    // ignored \x05A and simply re-entered raw mode on the \x01. This phase is a few bytes long,
    // so byte-at-a-time matching costs nothing.
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] ?? 0;
      if (this.sawR && (byte === 0x00 || byte === 0x01)) {
        if (byte === 0x01) {
          this.mode = 'pasteWindowBytes';
        } else {
          this.mode = 'idle';
          events.push({ kind: 'pasteRefused', answered: true });
        }
        return chunk.subarray(i + 1);
      }
      this.sawR = byte === 0x52; // 'R'
      if (this.header.feed(chunk.subarray(i, i + 1)) >= 0) {
        this.mode = 'idle';
        events.push({ kind: 'pasteRefused', answered: false }, { kind: 'prompt' });
        return chunk.subarray(i + 1);
      }
    }
    return EMPTY;
  }

  private stepPasteFlow(chunk: Buffer, events: ReplEvent[]): Buffer {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === CTRL_D) {
        events.push({ kind: this.mode === 'pasteEnd' ? 'pasteDone' : 'pasteAbort' });
        this.mode = 'stdout';
        return chunk.subarray(i + 1);
      }
      if (byte === CTRL_A) {
        // Late window grants after the host finished are harmless.
        if (this.mode === 'pasteFlow') events.push({ kind: 'pasteWindow' });
      } else {
        this.strayBytes++;
      }
    }
    return EMPTY;
  }
}

/**
 * A decorator that compiles a function with MicroPython's native, viper or inline-assembler
 * emitter. MicroPython's compiler takes only the literal name `micropython` here (compile.c,
 * compile_built_in_decorator), so an alias cannot hide one.
 */
const FAULTING_DECORATOR = /^[ \t]*@[ \t]*micropython[ \t]*\.[ \t]*(native|viper|asm_thumb)\b/m;

/**
 * Refuses code the board hard-faults on. Every V5 firmware since June 2026 enables the native
 * emitters without MICROPY_MAKE_POINTER_CALLABLE, so the first call of a native, viper or
 * asm_thumb function branches to an even address and the board reboots (the firmware team's note,
 * CodeDocs/HANDOFF_2026-09-07_DOCS_SWEEP.md at Architeuthis-Flux/JumperlOS ad0f1d9, "the
 * native-code crash"; spec field-2026-12.md §1.1). The fix there was built but not released, and
 * version numbers do not say which builds carry it, so the code is refused on every board: the
 * virtual one runs 5.7.0.13 or 5.7.11.0, both affected. A safety net for code sent as text, not a
 * sandbox: `exec()` of a built string or an imported module is not seen.
 */
export function refuseFaultingCode(code: string): void {
  const match = FAULTING_DECORATOR.exec(code);
  if (!match) return;
  const line = code.slice(0, match.index).split('\n').length;
  throw new DeviceError(
    'invalid_code',
    `line ${line}: @micropython.${match[1]} code hard-faults the Jumperless V5 on its first call, and the board reboots: ` +
      'every firmware since June 2026 (5.7.0.13 and 5.7.11.0 included) builds the native emitters without ' +
      "MICROPY_MAKE_POINTER_CALLABLE, and no released firmware has the fix (the firmware team's note, " +
      'JumperlOS CodeDocs/HANDOFF_2026-09-07_DOCS_SWEEP.md). Nothing was sent; without the decorator the ' +
      'function runs as ordinary MicroPython',
    { decorator: `micropython.${match[1]}`, line },
  );
}

/**
 * Checks code before it goes on the wire, the one place every piece of code passes. In raw mode
 * 0x01-0x05 are commands and 0x03/0x11 interrupt a running script on either port (spec §3.2,
 * §3.3), so no C0 control byte other than tab, LF and CR may appear; callers build Python with
 * escapes (see pyLiteral.ts). Code the board would hard-fault on is refused too
 * (`refuseFaultingCode`).
 */
export function encodeCode(code: string, withEot = false): Buffer {
  refuseFaultingCode(code);
  const size = Buffer.byteLength(code, 'utf8');
  const bytes = Buffer.allocUnsafe(size + (withEot ? 1 : 0));
  bytes.write(code, 0, 'utf8');
  if (withEot) bytes[size] = CTRL_D;
  for (let i = 0; i < size; i++) {
    const byte = bytes[i] ?? 0;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) {
      throw new DeviceError(
        'invalid_code',
        `code contains control byte 0x${byte.toString(16).padStart(2, '0')} at offset ${i}; ` +
          'write it as an escape inside a string literal instead',
        { offset: i, byte },
      );
    }
  }
  return bytes;
}

/** Code + Ctrl-D: one raw-REPL exec request. */
export function encodeExec(code: string): Buffer {
  return encodeCode(code, true);
}

/**
 * Sent after a lone Ctrl-C (see ReplDriver.enterRaw): stops what may still run, clears the input
 * line, enters raw mode, from friendly or raw mode.
 */
export const ENTER_RAW = Buffer.from('\x03\x01', 'latin1');
/** The same through friendly mode (Ctrl-B), which prints the banner with the versions (spec §3.2). */
export const ENTER_RAW_WITH_BANNER = Buffer.from('\x03\x02\x01', 'latin1');
export const PASTE_REQUEST = Buffer.from('\x05A\x01', 'latin1');

// ---- resets ------------------------------------------------------------------------------------

/*
 * Resets in the byte stream, spotted whatever the raw-REPL decoder expects at the time. A board
 * prints its banner on CDC2 when it boots and on Ctrl-B (spec §3.2), and `soft reboot` after a
 * soft reset; both mean the Python globals (our helper namespace) are gone.
 *
 * The banner is framed by CRLF while program output on CDC2 is LF-only, so a script printing
 * `sys.version` is not mistaken for a reboot.
 */

export interface BannerInfo {
  /** The whole banner line, e.g. `MicroPython v1.28.0-dirty on 2026-06-01; jumperless-v5 v5.7.0.13 with rp2350b`. */
  line: string;
  /** `1.28.0-dirty` */
  micropython: string;
  /** `5.7.0.13`, when the machine part carries a version. */
  firmware?: string;
  /** `jumperless-v5 v5.7.0.13 with rp2350b` */
  machine: string;
}

export type ResetEvent = { kind: 'banner'; info: BannerInfo } | { kind: 'softReboot' };

const BANNER_START = '\r\nMicroPython v';
const SOFT_REBOOT = 'soft reboot\r\n';
const MAX_LINE = 200;
const CR = 0x0d;
/** Enough history to match a marker split across chunks. */
const KEEP = Math.max(BANNER_START.length, SOFT_REBOOT.length) - 1;
const NONE: readonly ResetEvent[] = Object.freeze([]);

/**
 * The last `keep` chars of tail + chunk, decoding only what is kept, and nothing at all when
 * they hold no possible start of a marker (CR for the banner, `s` for `soft reboot`).
 */
function latin1Tail(tail: string, chunk: Uint8Array, keep: number): string {
  const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
  const start = Math.max(0, bytes.length - keep);
  const maybeMarker = bytes.indexOf(CR, start) >= 0 || bytes.indexOf(0x73, start) >= 0;
  if (bytes.length >= keep) return maybeMarker ? bytes.toString('latin1', start) : '';
  if (tail === '' && !maybeMarker) return ''; // the usual case: short program output
  return (tail + bytes.toString('latin1')).slice(-keep);
}

export function parseBanner(line: string): BannerInfo | undefined {
  const match = /^MicroPython v(\S+)(?: on [^;]*)?;\s*(.+?)\s*$/.exec(line);
  if (!match) return undefined;
  const micropython = match[1] ?? '';
  const machine = match[2] ?? '';
  return { line, micropython, machine, ...firmwareOf(machine) };
}

/** `jumperless-v5 v5.7.0.13 with rp2350b` -> `{firmware: '5.7.0.13'}`. */
export function firmwareOf(machine: string): { firmware?: string } {
  const match = /\bv(\d+(?:\.\d+){1,3})\b/.exec(machine);
  return match?.[1] ? { firmware: match[1] } : {};
}

export class BannerWatch {
  /** Last few bytes seen, to match markers split across chunks. */
  private tail = '';
  /** Text after `\r\nMicroPython v` while the banner line is still arriving. */
  private line: string | undefined;

  push(chunk: Uint8Array): readonly ResetEvent[] {
    // Both markers contain CR and program output on CDC2 is LF-only (spec §3.2): a chunk
    // without CR, after a tail without CR and outside a banner line, cannot complete either.
    if (this.line === undefined && !this.tail.includes('\r') && !chunk.includes(CR)) {
      this.tail = latin1Tail(this.tail, chunk, KEEP);
      return NONE;
    }
    const events: ResetEvent[] = [];
    // latin1 maps bytes 1:1 to chars, so indexes stay byte indexes and nothing can throw.
    let text = this.tail + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    this.tail = '';
    while (text.length > 0) {
      if (this.line !== undefined) {
        const pending = this.line + text;
        const end = pending.indexOf('\r\n');
        if (end < 0) {
          if (pending.length <= MAX_LINE) {
            this.line = pending;
            return events;
          }
          this.line = undefined; // too long for a banner: scan it as ordinary bytes
          continue;
        }
        const info = parseBanner(`MicroPython v${pending.slice(0, end)}`);
        if (info) events.push({ kind: 'banner', info });
        this.line = undefined;
        text = pending.slice(end);
        continue;
      }
      const banner = text.indexOf(BANNER_START);
      const soft = text.indexOf(SOFT_REBOOT);
      if (soft >= 0 && (banner < 0 || soft < banner)) {
        events.push({ kind: 'softReboot' });
        text = text.slice(soft + SOFT_REBOOT.length);
        continue;
      }
      if (banner >= 0) {
        this.line = '';
        text = text.slice(banner + BANNER_START.length);
        continue;
      }
      this.tail = text.slice(-KEEP);
      return events;
    }
    return events;
  }
}
