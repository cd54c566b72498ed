/**
 * CDC2, the MicroPython REPL port (spec §3.2), in front of MicroPython's own event-driven REPL:
 * adds what the WebAssembly build lacks or does differently -- raw-paste mode, LF-only program output,
 * the firmware's banner, and the soft-reset replies.
 */

export const FIRMWARE_BANNER =
  'MicroPython v1.28.0-dirty on 2026-06-01; jumperless-v5 v5.7.0.13 with rp2350b\r\nType "help()" for more information.\r\n';
const VM_BANNER_LINE = /MicroPython v[^\r\n]*\r\nType "help\(\)" for more information\.\r\n/;
const RAW_HEADER = 'raw REPL; CTRL-B to exit\r\n>';
/** Raw-paste flow-control window (bytes), as upstream derives it from its stdin buffer. */
export const RAW_PASTE_WINDOW = 128;

export interface ReplEngine {
  /** Feeds one byte to the VM's REPL; true when the VM asks for a soft reset. */
  feed(byte: number): boolean;
  /** Takes (and clears) what the VM printed since the last call. */
  takeOutput(): Uint8Array;
  /** Rebuilds the VM, keeping the hardware state (spec §3.2 soft reset). */
  softReset(): void;
  /** Called when code is about to run, after `OK` went out: the host must see it now. */
  beforeRun?(): void;
}

type Mode = 'friendly' | 'raw' | 'paste';

export class ReplPort {
  private mode: Mode = 'friendly';
  private rawLineEmpty = true;
  private pasteHeader = 0;
  private paste: number[] = [];
  private pasteSinceAck = 0;
  private carriageHeld = false;
  /** `OK` already went out for the running exec: drop the VM's own. */
  private okSent = false;
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
    if (this.mode === 'paste') {
      this.feedPaste(byte);
      return;
    }
    if (this.mode === 'raw' && this.rawLineEmpty && this.detectPasteRequest(byte)) return;

    const wasMode = this.mode;
    if (wasMode === 'raw' && byte === 0x04 && !this.rawLineEmpty) {
      // The board says OK before it runs the code; the VM only shows it once it returns.
      this.emit('OK');
      this.okSent = true;
      this.engine.beforeRun?.();
    }
    if (byte === 0x01) this.mode = 'raw';
    else if (byte === 0x02) this.mode = 'friendly';

    const reset = this.engine.feed(byte);
    const output = this.engine.takeOutput();
    if (this.mode === 'raw') this.rawLineEmpty = byte === 0x04 || byte === 0x03 || byte === 0x01;
    if (reset) {
      this.emit(output);
      this.softReset(wasMode);
      return;
    }
    if (output.length === 0) return;
    let text = new TextDecoder('latin1').decode(output);
    if (byte === 0x02) text = text.replace(VM_BANNER_LINE, FIRMWARE_BANNER);
    else if (wasMode === 'raw' && byte === 0x04) text = this.programText(output);
    else if (wasMode === 'friendly' && byte === 0x0d) text = friendlyResult(text);
    this.emit(latin1(text));
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
      this.emit(Uint8Array.of(0x04));
      this.mode = 'raw';
      this.runPasted();
      return;
    }
    if (byte === 0x03) {
      // The firmware reads 0x03 in stdin as a keyboard interrupt: abandon the paste.
      this.mode = 'raw';
      this.paste = [];
      this.emit(new TextEncoder().encode('\x04'));
      return;
    }
    this.paste.push(byte);
    this.pasteSinceAck += 1;
    if (this.pasteSinceAck >= RAW_PASTE_WINDOW) {
      this.pasteSinceAck = 0;
      this.emit(Uint8Array.of(0x01));
    }
  }

  private runPasted(): void {
    // The VM has no raw-paste of its own: run the code through its raw REPL and drop the `OK`.
    const code = this.paste.filter((b) => b > 0x03 || b === 0x00);
    this.paste = [];
    for (const b of code) this.engine.feed(b);
    this.engine.feed(0x04);
    const text = new TextDecoder('latin1').decode(this.engine.takeOutput());
    this.emit(latin1(lfOnly(text.startsWith('OK') ? text.slice(2) : text)));
    this.rawLineEmpty = true;
  }

  private softReset(mode: Mode): void {
    // What the VM prints while it re-initialises is not what the board prints: hold it back.
    this.resetting = true;
    try {
      this.engine.softReset();
      if (mode === 'raw') this.engine.feed(0x01);
    } finally {
      this.resetting = false;
    }
    this.engine.takeOutput();
    if (mode === 'raw') this.emit(latin1(`soft reboot\r\n${RAW_HEADER}`));
    this.rawLineEmpty = true;
  }

  private programText(bytes: Uint8Array): string {
    let text = new TextDecoder('latin1').decode(bytes);
    if (this.okSent && text.startsWith('OK')) {
      text = text.slice(2);
      this.okSent = false;
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
    this.emit(latin1(`\r\n${FIRMWARE_BANNER}>>> `));
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
