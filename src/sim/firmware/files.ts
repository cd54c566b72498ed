/**
 * The flash filesystem as the `jfs` module and the `fs_*` functions see it (spec §6.13), on top of the
 * VM's own filesystem, so Python's `open()` and `os` see the same files.
 *
 * Behaviour follows the firmware's FatFS wrappers: paths are absolute (relative ones start at `/`,
 * the firmware's only working directory); an open file keeps its own position and writes go straight
 * to the file (the firmware buffers until flush/close; nothing else reads in between here); reads and
 * writes of zero bytes fail with EIO as they do on the board.
 */
import { asInt } from './args.js';
import { type FirmwareFunctions, type Json, PyError, type VirtualFs } from './types.js';

/** Cap of one `file.read()` (spec §6.13). */
const READ_CAP = 8192;
/** `fs_read` returns at most this many bytes (the firmware's static buffer, less the terminator). */
const FS_READ_CAP = 4095;
/** `listdir` stops and appends `...` past this many characters (the firmware's static buffer). */
const LISTDIR_CAP = 1900;
/**
 * Open files at once. The firmware's limit is its heap, and it closes files it garbage-collects;
 * Python classes get no finalizer in this MicroPython, so a dropped file stays open until the next
 * `>` line or soft reset. The cap keeps such a leak bounded.
 */
const MAX_OPEN = 64;
/** Volume size reported by `jfs.info()`, and the cluster size used to count usage. */
const VOLUME_BYTES = 12 * 1024 * 1024;
const CLUSTER = 4096;

const ENOENT = 2;
const EIO = 5;
const ENOMEM = 12;
const EEXIST = 17;
const ENOTDIR = 20;

interface Handle {
  path: string;
  /** The path as the script gave it (`name()` returns it). */
  given: string;
  readable: boolean;
  writable: boolean;
  binary: boolean;
  pos: number;
}

/** Absolute, with `.`/`..` resolved and no trailing slash (except the root). */
export function normalizePath(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

const parent = (path: string): string => path.slice(0, path.lastIndexOf('/')) || '/';

/** FatFS open modes (`b` and `t` ignored, empty means `r`); undefined for anything else. */
interface OpenMode {
  readable: boolean;
  writable: boolean;
  binary: boolean;
  create: boolean;
  truncate: boolean;
  append: boolean;
}

function parseMode(mode: string): OpenMode | undefined {
  const binary = mode.includes('b');
  const base = mode.replace(/[bt]/g, '') || 'r';
  const table: Record<string, [boolean, boolean, boolean, boolean, boolean]> = {
    // readable, writable, create, truncate, append
    r: [true, false, false, false, false],
    'r+': [true, true, false, false, false],
    w: [false, true, true, true, false],
    'w+': [true, true, true, true, false],
    a: [false, true, true, false, true],
    'a+': [true, true, true, false, true],
  };
  const flags = table[base];
  if (!flags) return undefined;
  const [readable, writable, create, truncate, append] = flags;
  return { readable, writable, binary, create, truncate, append };
}

const oserror = (errno: number): PyError => new PyError('OSError', '', errno);
const closed = (): PyError => new PyError('ValueError', 'I/O operation on closed file');

const asStr = (x: Json | undefined): string => {
  if (typeof x !== 'string') throw new PyError('TypeError', "can't convert to str implicitly");
  return x;
};

const asBytes = (x: Json | undefined): Uint8Array =>
  Uint8Array.from(Array.isArray(x) ? x.map((b) => (typeof b === 'number' ? b & 0xff : 0)) : []);

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** The layout a fresh board has (spec §6.13); existing files are left alone. */
export function seedFlash(fs: VirtualFs): void {
  for (const dir of [
    '/slots',
    '/python_scripts',
    '/python_scripts/lib',
    '/python_scripts/examples',
    '/images',
    '/screens',
  ]) {
    if (!fs.exists(dir)) fs.mkdir(dir);
  }
  if (!fs.exists('/config.txt')) fs.writeFile('/config.txt', DEFAULT_CONFIG);
  if (!fs.exists('/python_scripts/history.txt')) fs.writeFile('/python_scripts/history.txt', '');
  if (!fs.exists('/python_scripts/examples/blink_row.py')) {
    fs.writeFile('/python_scripts/examples/blink_row.py', EXAMPLE_SCRIPT);
  }
}

const DEFAULT_CONFIG = `# Jumperless V5 settings (virtual board). Edit with \` on the main port or here.
[hardware]
generation = 5;
probe_revision = 5;

[dacs]
top_rail = 0.00;
bottom_rail = 0.00;
dac_0 = 3.33;
dac_1 = 0.00;
limit_max = 8.00;
limit_min = -8.00;

[routing]
stack_paths = 2;
stack_rails = 3;
stack_dacs = 0;

[display]
terminal_line_buffering = 1;

[serial_1]
function = passthrough;
baud_rate = 115200;

[serial_2]
function = micropython;

[top_oled]
enabled = 1;
`;

const EXAMPLE_SCRIPT = `# Light row 15 in steps of colour, then clear it. Stop with Ctrl-C.
import time

for color in (0x200000, 0x002000, 0x000020):
    overlay_set("demo", 15, 1, 10, 1, [color] * 10)
    time.sleep(0.5)
overlay_clear("demo")
`;

export interface FilesGroup {
  functions: FirmwareFunctions;
  /** Closes every open jfs file (after each `>` line on the main port, and at soft reset). */
  closeAll(): void;
}

export function createFiles(fs: () => VirtualFs): FilesGroup {
  const handles = new Map<number, Handle>();
  let nextId = 1;

  const isFile = (path: string) => fs().exists(path) && !fs().isDir(path);
  const readAll = (path: string): Uint8Array => {
    try {
      return fs().readFile(path);
    } catch {
      return new Uint8Array(0);
    }
  };
  const handle = (id: Json | undefined): Handle => {
    const h = typeof id === 'number' ? handles.get(id) : undefined;
    if (!h) throw closed();
    return h;
  };
  const sizeOf = (h: Handle): number => {
    try {
      return fs().size(h.path);
    } catch {
      return 0;
    }
  };

  const open = (given: string, mode: string): number => {
    const m = parseMode(mode);
    const path = normalizePath(given);
    if (!m || handles.size >= MAX_OPEN || path === '/') throw oserror(ENOENT);
    const exists = fs().exists(path);
    if (exists && fs().isDir(path)) throw oserror(ENOENT);
    if (!exists && !m.create) throw oserror(ENOENT);
    if (!fs().isDir(parent(path))) throw oserror(ENOENT);
    try {
      if (!exists || m.truncate) fs().writeFile(path, new Uint8Array(0));
    } catch {
      throw oserror(ENOENT);
    }
    const id = nextId++;
    const h: Handle = { path, given, readable: m.readable, writable: m.writable, binary: m.binary, pos: 0 };
    if (m.append) h.pos = sizeOf(h);
    handles.set(id, h);
    return id;
  };

  const read = (h: Handle, count: number): Uint8Array => {
    if (!h.readable) return new Uint8Array(0);
    const data = readAll(h.path);
    const start = Math.min(h.pos, data.length);
    const chunk = data.slice(start, start + count);
    h.pos = start + chunk.length;
    return chunk;
  };

  const write = (h: Handle, bytes: Uint8Array): number => {
    if (bytes.length === 0) throw oserror(EIO);
    if (!h.writable) return 0;
    const old = readAll(h.path);
    const end = h.pos + bytes.length;
    const next = new Uint8Array(Math.max(old.length, end));
    next.set(old);
    next.set(bytes, h.pos);
    try {
      fs().writeFile(h.path, next);
    } catch {
      throw oserror(EIO);
    }
    h.pos = end;
    return bytes.length;
  };

  const seek = (h: Handle, offset: number, whence: number): boolean => {
    const size = sizeOf(h);
    const base = whence === 1 ? h.pos : whence === 2 ? size : 0;
    const target = base + offset;
    if (target < 0) return false;
    if (target > size) {
      if (h.writable && target > VOLUME_BYTES) return false;
      // FatFS grows a writable file up to a seek past its end; a read-only one stops at the end.
      if (!h.writable) {
        h.pos = size;
        return true;
      }
      const grown = new Uint8Array(target);
      grown.set(readAll(h.path));
      fs().writeFile(h.path, grown);
    }
    h.pos = target;
    return true;
  };

  const listdir = (given: string): string[] => {
    const path = normalizePath(given);
    if (!fs().isDir(path)) return [];
    const names: string[] = [];
    let length = 0;
    for (const name of fs().readdir(path)) {
      if (name.startsWith('.')) continue;
      const entry = fs().isDir(path === '/' ? `/${name}` : `${path}/${name}`) ? `${name}/` : name;
      names.push(entry);
      length += entry.length + 1;
      if (length > LISTDIR_CAP) {
        names[names.length - 1] = `${entry}...`;
        break;
      }
    }
    return names;
  };

  const usedBytes = (dir: string): number => {
    let used = CLUSTER;
    for (const name of fs().readdir(dir)) {
      const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
      used += fs().isDir(path) ? usedBytes(path) : Math.ceil(fs().size(path) / CLUSTER) * CLUSTER;
    }
    return used;
  };

  const text = (bytes: Uint8Array): string => decoder.decode(bytes);

  const functions: FirmwareFunctions = {
    jfs_open: (path, mode) => open(asStr(path), mode === undefined || mode === null ? 'r' : asStr(mode)),
    /** `file.read([n])`: str in text mode, byte values in binary mode, at most 8192 per call. */
    jfs_read: (id, n) => {
      const h = handle(id);
      let count: number;
      if (n === undefined || n === null) {
        count = Math.max(0, sizeOf(h) - h.pos);
        if (count === 0) return h.binary ? [] : '';
      } else {
        count = asInt(n);
        if (count === 0) throw oserror(EIO);
        if (count < 0) count = READ_CAP;
      }
      const chunk = read(h, Math.min(count, READ_CAP));
      return h.binary ? Array.from(chunk) : text(chunk);
    },
    /** `jfs.read(f, n=1024)`: always a str, no cap. */
    jfs_read_str: (id, n) => {
      const h = handle(id);
      const count = n === undefined || n === null ? 1024 : asInt(n);
      if (count === 0) throw oserror(EIO);
      if (count < 0) throw oserror(ENOMEM);
      return text(read(h, count));
    },
    jfs_write: (id, data) => write(handle(id), asBytes(data)),
    jfs_seek: (id, offset, whence) =>
      seek(handle(id), asInt(offset), whence === undefined || whence === null ? 0 : asInt(whence)),
    jfs_tell: (id) => handle(id).pos,
    jfs_size: (id) => sizeOf(handle(id)),
    jfs_available: (id) => {
      const h = typeof id === 'number' ? handles.get(id) : undefined;
      return h ? Math.max(0, sizeOf(h) - h.pos) : 0;
    },
    jfs_name: (id) => (typeof id === 'number' ? (handles.get(id)?.given ?? null) : null),
    jfs_flush: (id) => {
      handle(id);
      return null;
    },
    jfs_close: (id) => {
      if (typeof id === 'number') handles.delete(id);
      return null;
    },
    _jfs_close_all: () => {
      handles.clear();
      return null;
    },
    jfs_exists: (path) => fs().exists(normalizePath(asStr(path))),
    jfs_listdir: (path) => listdir(asStr(path)),
    jfs_mkdir: (given) => {
      const path = normalizePath(asStr(given));
      if (fs().exists(path)) throw oserror(fs().isDir(path) ? EEXIST : ENOTDIR);
      try {
        fs().mkdir(path);
      } catch {
        throw oserror(EIO);
      }
      return null;
    },
    jfs_rmdir: (given) => {
      const path = normalizePath(asStr(given));
      try {
        if (path === '/' || !fs().isDir(path)) throw oserror(ENOENT);
        fs().rmdir(path);
      } catch {
        throw oserror(ENOENT);
      }
      return null;
    },
    // FatFS f_unlink removes files and empty directories alike.
    jfs_remove: (given) => {
      const path = normalizePath(asStr(given));
      try {
        if (path === '/' || !fs().exists(path)) throw oserror(ENOENT);
        if (fs().isDir(path)) fs().rmdir(path);
        else fs().unlink(path);
      } catch {
        throw oserror(ENOENT);
      }
      return null;
    },
    jfs_rename: (from, to) => {
      const a = normalizePath(asStr(from));
      const b = normalizePath(asStr(to));
      try {
        if (a === '/' || !fs().exists(a) || fs().exists(b)) throw oserror(ENOENT);
        fs().rename(a, b);
      } catch {
        throw oserror(ENOENT);
      }
      return null;
    },
    // The firmware reports every path as a regular file; only the size means something.
    jfs_stat: (given) => {
      const path = normalizePath(asStr(given));
      if (!fs().exists(path)) throw oserror(ENOENT);
      const size = isFile(path) ? fs().size(path) : 0;
      return [0x8000, 0, 0, 1, 0, 0, size, 0, 0, 0];
    },
    jfs_info: () => {
      const used = Math.min(VOLUME_BYTES, usedBytes('/'));
      return [VOLUME_BYTES, used, VOLUME_BYTES - used];
    },
    fs_exists: (path) => fs().exists(normalizePath(asStr(path))),
    fs_listdir: (path) => listdir(asStr(path)),
    fs_read: (given) => {
      const path = normalizePath(asStr(given));
      if (!isFile(path)) return null;
      const bytes = readAll(path).subarray(0, FS_READ_CAP);
      const nul = bytes.indexOf(0);
      return text(nul >= 0 ? bytes.subarray(0, nul) : bytes);
    },
    fs_write: (given, content) => {
      const path = normalizePath(asStr(given));
      if (path === '/' || !fs().isDir(parent(path)) || fs().isDir(path)) return false;
      try {
        fs().writeFile(path, encoder.encode(asStr(content)));
        return true;
      } catch {
        return false;
      }
    },
    fs_cwd: () => '/',
  };

  return { functions, closeAll: () => handles.clear() };
}
