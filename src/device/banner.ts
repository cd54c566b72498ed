/**
 * Spots resets in the byte stream, whatever the raw-REPL decoder expects at the time. A board
 * prints its banner on CDC2 when it boots and on Ctrl-B (spec §3.2), and `soft reboot` after a
 * soft reset; both mean the Python globals (our helper namespace) are gone. Pure, no I/O.
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
