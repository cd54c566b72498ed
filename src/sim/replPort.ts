/**
 * CDC2, the MicroPython REPL port (spec §3.2), in front of MicroPython's own event-driven REPL:
 * adds what the WebAssembly build lacks or does differently -- raw-paste mode, LF-only program output,
 * the firmware's banner, the friendly-mode byte filter, and the soft-reset replies.
 */
import type { FirmwareVersion } from '../board/firmware.js';
import { BOARD_IDENTITY, machineName, NAME_AND_VERSION } from './vmRuntime.js';

/** The banner Ctrl-B prints on a release (MICROPY_BANNER_MACHINE names the firmware version). */
export const firmwareBanner = (version: FirmwareVersion): string =>
  `${NAME_AND_VERSION}; ${machineName(version)}\r\nType "help()" for more information.\r\n`;
export const FIRMWARE_BANNER = `${NAME_AND_VERSION}; ${BOARD_IDENTITY.machine}\r\nType "help()" for more information.\r\n`;
const VM_BANNER_LINE = /MicroPython v[^\r\n]*\r\nType "help\(\)" for more information\.\r\n/;
const RAW_HEADER = 'raw REPL; CTRL-B to exit\r\n>';
/** Raw-paste flow-control window (bytes), as upstream derives it from its stdin buffer. */
export const RAW_PASTE_WINDOW = 128;
/**
 * jl_soft_reboot spends at least 15 ms in delay(1) calls between the exec's end and `soft reboot`
 * (JumperlessMicroPythonAPI.cpp:1354-1357, 1431-1434), so the host sees separate transfers.
 */
export const SOFT_REBOOT_GAP_MS = 15;
/** `soft reboot\r\n` and the header are two flushed writes (MpRemoteService.cpp:277-280, 361-388). */
const HEADER_GAP_MS = 1;

/**
 * Control bytes the friendly REPL is given (MpRemoteService.cpp:174-190); any other C0 byte is
 * dropped while not in raw mode (0x0E, 0x0F, 0x11, 0x13 from terminals' handshakes).
 */
const FRIENDLY_CONTROLS = new Set([0x01, 0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0a, 0x0d, 0x1b]);

export interface ReplEngine {
  /** The Ctrl-B banner of the firmware release; default FIRMWARE_BANNER. */
  banner?: string;
  /** Feeds one byte to the VM's REPL; true when the VM asks for a soft reset. */
  feed(byte: number): boolean;
  /** Takes (and clears) what the VM printed since the last call. */
  takeOutput(): Uint8Array;
  /** Rebuilds the VM, keeping the hardware state (spec §3.2 soft reset). */
  softReset(): void;
  /** Called when code is about to run, after `OK` went out: the host must see it now. */
  beforeRun?(): void;
  /**
   * Brackets a feed that may run a script: only then does the firmware peek at waiting bytes for
   * Ctrl-C/Ctrl-D (Python_Proper.cpp:507-548); bytes that arrive otherwise wait for the REPL.
   */
  scriptRunning?(running: boolean): void;
  /** Sends what was written so far to the host now, as its own transfer. */
  publish?(): void;
  /** Waits, serving nothing, as the firmware's delay() calls do. */
  pause?(ms: number): void;
  /** True (once) when Ctrl-D arrived while the last exec ran: the firmware soft-resets after it. */
  takeResetRequest?(): boolean;
}

/** `closing`: a raw paste was interrupted and the board waits for 0x03/0x04 (pyexec.c:280-292). */
type Mode = 'friendly' | 'raw' | 'paste' | 'closing';

export class ReplPort {
  private mode: Mode = 'friendly';
  private rawLineEmpty = true;
  private pasteHeader = 0;
  private paste: number[] = [];
  private pasteSinceAck = 0;
  private carriageHeld = false;
  /** The VM's own `OK` for the running exec is still to come: drop it (ours went out, or none is due). */
  private dropVmOk = false;
  private resetting = false;

  constructor(
    private readonly engine: ReplEngine,
    private readonly write: (bytes: Uint8Array) => void,
  ) {}

  /** Output produced while code runs (flushed from firmware calls), already transformed. */
  streamOutput(): void {
    if (this.resetting) return;
    const bytes = this.engine.takeOutput();
    if (bytes.length > 0) this.emit(this.programText(bytes));
  }

  feed(data: Uint8Array): void {
    for (const byte of data) this.feedByte(byte);
  }

  private feedByte(byte: number): void {
    if (this.mode === 'paste') return this.feedPaste(byte);
    if (this.mode === 'closing') return this.feedClosing(byte);
    if (this.mode === 'friendly' && byte < 0x20 && !FRIENDLY_CONTROLS.has(byte)) return;
    if (this.mode === 'raw' && this.rawLineEmpty && this.detectPasteRequest(byte)) return;

    const wasMode = this.mode;
    const runs = wasMode === 'raw' && byte === 0x04 && !this.rawLineEmpty;
    const mayRun = runs || (wasMode === 'friendly' && byte === 0x0d);
    // Marked before `OK` goes out: a host that answers `OK` with Ctrl-C must find the script running.
    if (mayRun) this.engine.scriptRunning?.(true);
    if (runs) {
      // The board says OK before it runs the code; the VM only shows it once it returns.
      this.emit('OK');
      this.dropVmOk = true;
      this.engine.beforeRun?.();
    }
    if (byte === 0x01) this.mode = 'raw';
    else if (byte === 0x02) this.mode = 'friendly';

    const reset = mayRun ? this.runScript(byte) : this.engine.feed(byte);
    const output = this.engine.takeOutput();
    if (this.mode === 'raw') this.rawLineEmpty = byte === 0x04 || byte === 0x03 || byte === 0x01;
    if (runs && this.engine.takeResetRequest?.()) return this.afterCtrlDWhileRunning(output, reset);
    if (reset) {
      // sys.exit() in an exec: `OK`, stdout, \x04\x04 and no prompt (pyexec.c:156-159, 402-404);
      // Ctrl-D on an empty line: the VM's own `OK\r\n` (pyexec.c:392-399).
      this.emit(runs ? this.programText(output) : output);
      this.softReset(wasMode);
      return;
    }
    if (output.length === 0) return;
    let text = new TextDecoder('latin1').decode(output);
    if (byte === 0x02) text = text.replace(VM_BANNER_LINE, this.engine.banner ?? FIRMWARE_BANNER);
    else if (runs) text = this.programText(output);
    else if (wasMode === 'friendly' && byte === 0x0d) text = friendlyResult(text);
    this.emit(latin1(text));
  }

  /**
   * Ctrl-D while a script ran. The firmware schedules the SystemExit *type* (Python_Proper.cpp:514-523),
   * which pyexec does not take for a SystemExit (pyexec.c:166): it prints the object's repr as the
   * exception and the prompt, then the still-pending reset runs (MpRemoteService.cpp:266-281). The
   * bytes are inferred from the source (the board may instead crash on it).
   */
  private afterCtrlDWhileRunning(output: Uint8Array, vmExited: boolean): void {
    let text = this.programText(output);
    if (vmExited) text = text.replace(/\x04\x04$/, "\x04<class 'SystemExit'>\n\x04>");
    this.emit(latin1(text));
    this.softReset('raw');
  }

  /** `\x05A\x01` while the raw line is empty asks for raw-paste mode. */
  private detectPasteRequest(byte: number): boolean {
    const expected = [0x05, 0x41, 0x01][this.pasteHeader];
    if (byte === expected) {
      this.pasteHeader += 1;
      if (this.pasteHeader === 3) {
        this.pasteHeader = 0;
        this.mode = 'paste';
        this.paste = [];
        this.pasteSinceAck = 0;
        this.emit(Uint8Array.from([0x52, 0x01, RAW_PASTE_WINDOW & 0xff, RAW_PASTE_WINDOW >> 8, 0x01]));
      }
      return true;
    }
    if (this.pasteHeader > 0) {
      // Not a paste request after all: hand the swallowed bytes to the REPL.
      const swallowed = [0x05, 0x41].slice(0, this.pasteHeader);
      this.pasteHeader = 0;
      for (const b of swallowed) this.engine.feed(b);
    }
    return false;
  }

  private feedPaste(byte: number): void {
    if (byte === 0x04) {
      this.engine.scriptRunning?.(true);
      this.emit(Uint8Array.of(0x04));
      this.mode = 'raw';
      this.runPasted();
      return;
    }
    if (byte === 0x03 || byte === 0x11) {
      // The board's stdin read takes both as a keyboard interrupt (mphalport.c:125-135), raised while
      // the source is parsed; the reader's close then says \x04 and waits for 0x03/0x04.
      this.paste = [];
      this.mode = 'closing';
      this.emit(Uint8Array.of(0x04));
      return;
    }
    this.paste.push(byte);
    this.pasteSinceAck += 1;
    if (this.pasteSinceAck >= RAW_PASTE_WINDOW) {
      this.pasteSinceAck = 0;
      this.emit(Uint8Array.of(0x01));
    }
  }

  /** After an interrupted paste: anything but 0x03/0x04 is swallowed; then the exception is framed. */
  private feedClosing(byte: number): void {
    if (byte !== 0x03 && byte !== 0x04) return;
    this.mode = 'raw';
    this.rawLineEmpty = true;
    this.emit('\x04KeyboardInterrupt: \n\x04>');
  }

  private runPasted(): void {
    // The VM has no raw-paste of its own: run the code through its raw REPL and drop its `OK`. The
    // board's stdin turns LF into CR (mphalport.c:141-143); the lexer reads a CR as a line end, so
    // only CRLF inside a triple-quoted string changes (two line ends). Bytes 0x01-0x03 would be raw-REPL
    // commands to the VM: they are left out.
    const code = this.paste.filter((b) => b > 0x03 || b === 0x00).map((b) => (b === 0x0a ? 0x0d : b));
    this.paste = [];
    this.dropVmOk = true;
    for (const b of code) this.engine.feed(b);
    const reset = this.runScript(0x04);
    const output = this.engine.takeOutput();
    this.rawLineEmpty = true;
    if (this.engine.takeResetRequest?.()) return this.afterCtrlDWhileRunning(output, reset);
    this.emit(this.programText(output));
    if (reset) this.softReset('raw');
  }

  /** Feeds the byte that runs what the REPL holds (marked running by the caller), then marks it done. */
  private runScript(byte: number): boolean {
    try {
      return this.engine.feed(byte);
    } finally {
      this.engine.scriptRunning?.(false);
    }
  }

  private softReset(mode: Mode): void {
    // What came before goes out first; the board then spends a while re-initialising.
    this.engine.publish?.();
    const started = performance.now();
    // What the VM prints while it re-initialises is not what the board prints: hold it back.
    this.resetting = true;
    try {
      this.engine.softReset();
      if (mode === 'raw') this.engine.feed(0x01);
    } finally {
      this.resetting = false;
    }
    this.engine.takeOutput();
    this.dropVmOk = false;
    this.carriageHeld = false;
    this.rawLineEmpty = true;
    // Nothing is printed after a soft reset in friendly mode, not even a prompt (MpRemoteService.cpp:278).
    if (mode !== 'raw') return;
    this.engine.pause?.(SOFT_REBOOT_GAP_MS - (performance.now() - started));
    this.emit('soft reboot\r\n');
    this.engine.publish?.();
    this.engine.pause?.(HEADER_GAP_MS);
    this.emit(RAW_HEADER);
  }

  private programText(bytes: Uint8Array): string {
    let text = new TextDecoder('latin1').decode(bytes);
    if (this.dropVmOk && text.startsWith('OK')) {
      text = text.slice(2);
      this.dropVmOk = false;
    }
    if (this.carriageHeld) text = `\r${text}`;
    this.carriageHeld = text.endsWith('\r');
    if (this.carriageHeld) text = text.slice(0, -1);
    return lfOnly(text);
  }

  private emit(data: Uint8Array | string): void {
    this.write(typeof data === 'string' ? latin1(data) : data);
  }

  /** Prints the boot banner and prompt, as a host attached during a reboot sees it. */
  bootBanner(): void {
    this.mode = 'friendly';
    this.emit(latin1(`\r\n${this.engine.banner ?? FIRMWARE_BANNER}>>> `));
  }
}

/** Program output on CDC2 is LF-only (spec §3.2: `is_raw_repl_stream`). */
function lfOnly(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

/**
 * After Enter in friendly mode: keep the echoed line break and the prompt in CRLF, make what the
 * program printed in between LF-only.
 */
function friendlyResult(text: string): string {
  const prompt = /(>>> |\.\.\. +)$/.exec(text);
  if (!text.startsWith('\r\n') || !prompt) return text;
  return `\r\n${lfOnly(text.slice(2, prompt.index))}${prompt[1]}`;
}

function latin1(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}
