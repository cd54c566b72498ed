/**
 * The board's one FAT volume as FatFS (lib/FatFS, configured by lib/FatFS/src/ffconf.h) presents it,
 * kept in the VM's own filesystem (MEMFS, case-sensitive) so that `import` finds the same files:
 *
 * - a path is bytes: a str path reaches FatFS as its UTF-8 bytes, and each byte is one code page 437
 *   character (FF_CODE_PAGE 437, FF_LFN_UNICODE 0; ffconf.h:87, 136), stored as that character;
 * - names match case-insensitively (ff.cpp:2075-2092) and keep the case they were created with;
 * - `/` and `\` separate segments, empty segments are skipped, relative paths start at the root
 *   (FF_FS_RPATH 0, ffconf.h:156), so `.` and `..` are names like any other (and invalid, see below);
 * - a segment holds at most 64 characters (FF_MAX_LFN, ffconf.h:116-117), none of `*:<>|"?` or DEL,
 *   loses trailing spaces and dots, and must not end up empty (create_name, ff.cpp:3184-3252);
 * - the first byte below 0x20 ends the path (create_name stops there).
 */
import { FILE_NAME_MAX } from '../../board/limits.js';
import type { VirtualFs } from './types.js';

/** Code page 437, bytes 0x80-0xFF (what FatFS's ff_oem2uni maps them to). */
const CP437_HIGH =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0';

/** Name bytes (as FatFS takes them) to the characters the volume stores. */
export function oemToName(bytes: Uint8Array): string {
  let name = '';
  for (const b of bytes) name += b < 0x80 ? String.fromCharCode(b) : CP437_HIGH.charAt(b - 0x80);
  return name;
}

/** A stored name back to the bytes FatFS's readdir gives (`?` for a character CP437 lacks). */
export function nameToOem(name: string): Uint8Array {
  const out: number[] = [];
  for (const ch of name) {
    const code = ch.codePointAt(0) ?? 0x3f;
    const high = CP437_HIGH.indexOf(ch);
    out.push(code < 0x80 ? code : high >= 0 ? 0x80 + high : 0x3f);
  }
  return Uint8Array.from(out);
}

/** ff_wtoupper, close enough: a character's upper case when that is one character. */
function fold(name: string): string {
  let out = '';
  for (const ch of name) {
    const upper = ch.toUpperCase();
    out += upper.length === ch.length ? upper : ch;
  }
  return out;
}

const SEPARATOR = new Set([0x2f, 0x5c]);
const FORBIDDEN = new Set([...'*:<>|"?\x7f'].map((c) => c.charCodeAt(0)));

/** The segments of a path as stored names; undefined when FatFS rejects it (FR_INVALID_NAME). */
export function parsePath(path: Uint8Array): string[] | undefined {
  const end = path.findIndex((b) => b < 0x20);
  const bytes = end < 0 ? path : path.subarray(0, end);
  const segments: string[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && !SEPARATOR.has(bytes[i] ?? 0)) continue;
    const segment = bytes.subarray(start, i);
    start = i + 1;
    if (segment.length === 0) continue;
    if (segment.length > FILE_NAME_MAX || segment.some((b) => FORBIDDEN.has(b))) return undefined;
    let length = segment.length;
    while (length > 0 && (segment[length - 1] === 0x20 || segment[length - 1] === 0x2e)) length--;
    if (length === 0) return undefined;
    segments.push(oemToName(segment.subarray(0, length)));
  }
  return segments;
}

/** Where a path leads on the volume. `real` and `parent` are paths in the VM's filesystem. */
export type Lookup =
  /** FatFS refuses the name (a bad segment). */
  | { kind: 'invalid' }
  /** The root directory itself: it can be listed, not opened, stat'ed or removed. */
  | { kind: 'root' }
  /** A directory on the way is missing or is a file (FR_NO_PATH). */
  | { kind: 'nopath' }
  /** Everything but the last segment exists: `name` may be created in `parent`. */
  | { kind: 'missing'; parent: string; name: string }
  | { kind: 'file' | 'dir'; real: string; parent: string };

export const joinPath = (dir: string, name: string): string => (dir === '/' ? `/${name}` : `${dir}/${name}`);

/** The FAT volume over the VM's filesystem; every method takes a path as bytes. */
export class FatVolume {
  constructor(private readonly fs: () => VirtualFs) {}

  /** Follows a path the way follow_path does (ff.cpp:3449-3530), matching names in any case. */
  lookup(path: Uint8Array): Lookup {
    const segments = parsePath(path);
    if (!segments) return { kind: 'invalid' };
    if (segments.length === 0) return { kind: 'root' };
    let dir = '/';
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as string;
      const stored = this.find(dir, segment);
      const last = i === segments.length - 1;
      if (stored === undefined)
        return last ? { kind: 'missing', parent: dir, name: segment } : { kind: 'nopath' };
      const real = joinPath(dir, stored);
      const isDir = this.fs().isDir(real);
      if (last) return { kind: isDir ? 'dir' : 'file', real, parent: dir };
      if (!isDir) return { kind: 'nopath' };
      dir = real;
    }
    return { kind: 'nopath' };
  }

  /** The stored name in `dir` that matches `name` in any case. */
  private find(dir: string, name: string): string | undefined {
    const wanted = fold(name);
    return this.fs()
      .readdir(dir)
      .find((entry) => fold(entry) === wanted);
  }

  /** f_stat succeeds: an existing file or directory (not the root, ff.cpp:5457-5458). */
  exists(path: Uint8Array): boolean {
    const found = this.lookup(path).kind;
    return found === 'file' || found === 'dir';
  }

  /** The directory's entries in the order they were made, as stored names. */
  entries(dir: string): Array<{ name: string; isDir: boolean; size: number }> {
    return this.fs()
      .readdir(dir)
      .map((name) => {
        const real = joinPath(dir, name);
        const isDir = this.fs().isDir(real);
        return { name, isDir, size: isDir ? 0 : this.fs().size(real) };
      });
  }

  /**
   * FatFSImpl::openDir (lib/FatFS/src/FatFS.cpp:183-246) with FatFSDirImpl, which opens the
   * path it is given again (FatFS.h:366-373) and filters in next() (FatFS.h:432-448): a directory
   * lists its entries; any other path with a `/` lists the entries of the directory before its
   * last `/` whose names START with what follows it, compared byte for byte (case-sensitive). So a
   * file lists itself, a partial name its completions, a missing name nothing; without a `/` such
   * a path opens as no directory at all and lists nothing.
   */
  openDir(path: Uint8Array): Array<{ name: string; isDir: boolean; size: number }> {
    let end = path.length;
    while (end > 0 && path[end - 1] === 0x2f) end--;
    const trimmed = path.subarray(0, end);
    if (trimmed.length === 0) return this.entries('/');
    const found = this.lookup(trimmed);
    if (found.kind === 'dir') return this.entries(found.real);
    const slash = trimmed.lastIndexOf(0x2f);
    if (slash < 0) return [];
    const parent = this.lookup(trimmed.subarray(0, slash));
    const dir = parent.kind === 'root' ? '/' : parent.kind === 'dir' ? parent.real : undefined;
    if (dir === undefined) return [];
    const filter = trimmed.subarray(slash + 1);
    return this.entries(dir).filter((entry) => {
      const name = nameToOem(entry.name);
      return filter.every((b, i) => name[i] === b);
    });
  }
}
