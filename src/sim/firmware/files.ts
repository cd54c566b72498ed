/**
 * The flash filesystem behind the `jfs` module, JFSFile, the `fs_*` helpers and the VFS that `os`
 * and `open()` use (modjumperless.c:4602-5774 over JumperlessMicroPythonAPI.cpp:2303-3012), on the
 * FAT volume of fatVolume.ts.
 *
 * Paths arrive as a str or as `[hex]` (a bytes path, byte for byte); file contents and names that
 * Python must decode travel as hex, so the Python side raises UnicodeError where the firmware's
 * mp_obj_new_str would. Errors are the firmware's: `OSError(2)` from jfs and open, `OSError(5)` from
 * the os functions, `OSError(20)` from mkdir of anything that exists.
 */
import { asInt } from './args.js';
import { FatVolume, joinPath, nameToOem, parsePath } from './fatVolume.js';
import { type FirmwareFunctions, type Json, PyError, type VirtualFs } from './types.js';

/** A JFSFile method reads at most this much per call (modjumperless.c:4712-4715). */
const READ_CAP = 8192;
/** `fs_read` fills a static 4096-byte buffer, terminator included (API.cpp:2361-2385). */
const FS_READ_CAP = 4095;
/** `jl_fs_listdir` stops and appends `...` once its comma-joined text passes this (API.cpp:2351-2354). */
const LISTDIR_CAP = 1900;
/** MAX_JFS_OPEN_FILES (API.cpp:2468): handles past these work, but their close() neither flushes nor frees. */
const TRACKED_SLOTS = 4;
/**
 * Each open file costs the board about 4.2 KB of C heap (a FIL with its sector buffer, FF_FS_TINY 0)
 * and nothing else limits them; a board that runs out does not raise. The sim refuses the open past
 * this many (OSError(2), what any failed open gives) so that a runaway loop ends.
 */
const MAX_OPEN = 64;
/**
 * `jfs.read(f, n)` mallocs n+1 bytes from the C heap (modjumperless.c:5277-5282). The free C heap of
 * a running board is not known here; past this the sim answers as a failed malloc (ENOMEM).
 */
const C_HEAP_READ_MAX = 64 * 1024;
/**
 * The volume: the V5's FatFS partition is 4 MB (scripts/lock_fs_partition.py, FS_START 0x10BFF000
 * to FS_END 0x10FFF000; platformio.ini `board_build.filesystem_size = 4m`). SPIFTL keeps 3 erase
 * blocks for its garbage collection and 10 for its metadata out of the 1024, leaving 8088 sectors of
 * 512 bytes (SPIFTL.h constructor, Architeuthis-Flux/SPIFTL@7de1f31). FatFSImpl::format makes FAT16
 * with one FAT, 128 root entries and one 512-byte sector per cluster (FatFS.cpp:250-260, FatFS.h:46);
 * f_mkfs (ff.cpp:7060-7120) then leaves 1 reserved sector, 32 FAT sectors and 8 root-directory
 * sectors, so 8047 clusters. FatFS.info() reports those as the total (FatFS.h:98-104).
 */
export const CLUSTER_BYTES = 512;
export const VOLUME_CLUSTERS = 8047;
const VOLUME_BYTES = VOLUME_CLUSTERS * CLUSTER_BYTES;
/** A directory entry; a long name takes one more per 13 characters (FF_USE_LFN 1, ffconf.h:116). */
const DIR_ENTRY_BYTES = 32;

const ENOENT = 2;
const EIO = 5;
const ENOMEM = 12;
const ENOTDIR = 20;

const oserror = (errno: number): PyError => new PyError('OSError', '', errno);
const closedFile = (): PyError => new PyError('ValueError', 'I/O operation on closed file');

const encoder = new TextEncoder();
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A path argument (`mp_obj_str_get_str`): a str as its UTF-8 bytes, or `[hex]` for a bytes path. */
function pathArg(x: Json | undefined): Uint8Array {
  if (typeof x === 'string') return encoder.encode(x);
  if (Array.isArray(x) && typeof x[0] === 'string') return Uint8Array.from(Buffer.from(x[0], 'hex'));
  throw new PyError('TypeError', "can't convert to str implicitly");
}

/** File data from Python, as hex. */
function dataArg(x: Json | undefined): Uint8Array {
  if (typeof x !== 'string') throw new PyError('TypeError', 'object with buffer protocol required');
  return Uint8Array.from(Buffer.from(x, 'hex'));
}

const hex = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');

/** What mp_obj_new_str accepts: the text, or undefined when the bytes are not UTF-8 (UnicodeError). */
function strictText(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/**
 * Arduino FS::open's mode parsing (arduino-pico cores/rp2040/FS.cpp `sflags`, outside this repo)
 * after jl_fs_open_file drops `b` and `t` (API.cpp:2580-2597): `r`, `w` or `a`, then `+` or nothing,
 * anything after that ignored. FatFSImpl::_getFlags (FatFS.h:184-201) turns `w` and `a` into
 * FA_CREATE_ALWAYS, and f_open truncates whenever that flag is set (ff.cpp:4280-4330): so `a` and
 * `a+` TRUNCATE an existing file like `w` does (the append seek then lands at 0).
 */
interface OpenFlags {
  read: boolean;
  write: boolean;
  /** FA_CREATE_ALWAYS: create a missing file, truncate an existing one. */
  create: boolean;
}

export function openFlags(mode: string): OpenFlags | undefined {
  const m = mode.replace(/[bt]/g, '') || 'r';
  const kind = m.charAt(0);
  const rest = m.charAt(1);
  if (!['r', 'w', 'a'].includes(kind) || (rest !== '' && rest !== '+')) return undefined;
  const both = rest === '+';
  return { read: kind === 'r' || both, write: kind !== 'r' || both, create: kind !== 'r' };
}

interface Handle {
  /** The file in the VM's filesystem (its stored name, whatever case it was opened with). */
  real: string;
  readable: boolean;
  writable: boolean;
  pos: number;
  /** Holds one of the 4 tracking slots: close() flushes and frees it. */
  tracked: boolean;
  /**
   * The file as this handle sees it since its last flush. FatFS's FIL keeps its own size and
   * buffer and updates the directory entry only in f_sync (flush, seek, close): until then other
   * handles, stat and listings see the file as it was. The clusters it needs are taken at once
   * (f_write's create_chain), so they count as used before the flush.
   */
  unflushed?: Uint8Array;
  /** What `unflushed` is a view of, with room to grow (so a file written in pieces is not copied each time). */
  buffer?: Uint8Array;
}

const clustersOf = (bytes: number): number => Math.ceil(bytes / CLUSTER_BYTES);

/**
 * Whether FatFS stores a name as a short 8.3 entry alone: a body of 1-8 and an extension of 0-3
 * characters FAT allows in short names, each all upper or all lower case (create_name sets the NT
 * case flags then, ff.cpp:3184-3290); any other name adds long-name entries.
 */
function shortNameOnly(name: string): boolean {
  const dot = name.lastIndexOf('.');
  const body = dot < 0 ? name : name.slice(0, dot);
  const ext = dot < 0 ? '' : name.slice(dot + 1);
  const part = (text: string, max: number) =>
    text.length <= max &&
    /^[A-Za-z0-9!#$%&'()@^_`{}~-]*$/.test(text) &&
    (text === text.toUpperCase() || text === text.toLowerCase());
  return body.length > 0 && part(body, 8) && part(ext, 3);
}

/** Directory entries a name takes: its short entry and, for a long name, one per 13 characters. */
const entriesOf = (name: string): number => (shortNameOnly(name) ? 1 : 1 + Math.ceil(name.length / 13));

/** The layout a fresh board has (Python_Proper.cpp:756-764); existing files are left alone. */
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
  /** jl_close_all_jfs_files: after each `>` line on the main port, and at soft reset. */
  closeAll(): void;
}

export function createFiles(fs: () => VirtualFs): FilesGroup {
  const volume = new FatVolume(fs);
  const handles = new Map<number, Handle>();
  /**
   * Handles that hold a tracking slot as far as new opens can tell. After each exec the board's GC
   * finalises a dropped file: a tracked one is flushed and its slot freed (micropython_embed.c:259,
   * modjumperless.c:4977-4986). Python classes get no finaliser in this VM, so the sim cannot tell
   * a dropped file from a kept one: whenever the board is idle it flushes the tracked handles and
   * forgets the slots. Within one script it counts as the board does; across scripts
   * `open(p, 'w').write(s)` lands as on the board, and a kept file only reaches the volume sooner.
   */
  const slots = new Set<number>();
  let nextId = 1;

  const handle = (id: Json | undefined): Handle => {
    const h = typeof id === 'number' ? handles.get(id) : undefined;
    if (!h) throw closedFile();
    return h;
  };
  const fileBytes = (real: string): Uint8Array => {
    try {
      return fs().readFile(real);
    } catch {
      return new Uint8Array(0);
    }
  };
  const storedSize = (real: string): number => {
    try {
      return fs().size(real);
    } catch {
      return 0;
    }
  };
  const view = (h: Handle): Uint8Array => h.unflushed ?? fileBytes(h.real);
  /** f_sync: the handle's data and size reach the volume. */
  const flush = (h: Handle): void => {
    if (h.unflushed === undefined) return;
    const data = h.unflushed.slice();
    h.unflushed = undefined;
    h.buffer = undefined;
    try {
      fs().writeFile(h.real, data);
    } catch {
      // The FIL's data has nowhere to go: as on the board, it is simply not there.
    }
  };
  /** jl_fs_close_file: a tracked handle is flushed and freed; an untracked one is left as it is. */
  const close = (id: number): void => {
    const h = handles.get(id);
    if (h?.tracked) flush(h);
    handles.delete(id);
    slots.delete(id);
  };
  /** jl_close_all_jfs_files: flushes and closes the tracked handles; the others leak, unflushed. */
  const closeAll = (): void => {
    for (const h of handles.values()) if (h.tracked) flush(h);
    handles.clear();
    slots.clear();
  };

  /** f_mkdir (FatFS.h:112-114): a new directory whose parent exists. */
  const mkdir = (path: Uint8Array): boolean => {
    const found = volume.lookup(path);
    if (found.kind !== 'missing') return false;
    // A new folder takes a cluster for its entries (f_mkdir's create_chain: FR_DENIED when full).
    if (clustersToAdd(found.parent, found.name) + 1 > freeClusters()) return false;
    try {
      fs().mkdir(joinPath(found.parent, found.name));
      return true;
    } catch {
      return false;
    }
  };

  /** f_unlink (FatFS.h:108-118, both remove and rmdir): a file, or an empty directory. */
  const unlink = (path: Uint8Array): boolean => {
    const found = volume.lookup(path);
    try {
      if (found.kind === 'file') fs().unlink(found.real);
      else if (found.kind === 'dir' && fs().readdir(found.real).length === 0) fs().rmdir(found.real);
      else return false;
      return true;
    } catch {
      return false;
    }
  };

  /** f_rename (FatFS.h:87-89, ff.cpp:5835-5937): to a free name, or to the same entry in a new case. */
  const rename = (from: Uint8Array, to: Uint8Array): boolean => {
    const old = volume.lookup(from);
    const target = volume.lookup(to);
    if (old.kind !== 'file' && old.kind !== 'dir') return false;
    let dest: string;
    if (target.kind === 'missing') {
      if (clustersToAdd(target.parent, target.name) > freeClusters()) return false;
      dest = joinPath(target.parent, target.name);
    } else if ((target.kind === 'file' || target.kind === 'dir') && target.real === old.real) {
      dest = joinPath(target.parent, parsePath(to)?.at(-1) ?? '');
    } else return false;
    try {
      if (dest !== old.real) fs().rename(old.real, dest);
      return true;
    } catch {
      return false;
    }
  };

  /** FatFS.open: FatFSImpl::open (FatFS.cpp:150-181) then f_open. The real path, or undefined. */
  const openFile = (path: Uint8Array, flags: OpenFlags): string | undefined => {
    if (path.length === 0) return undefined;
    if (flags.create) {
      // A creating open makes the immediate parent first (one level; failure is caught by f_open).
      const slash = path.lastIndexOf(0x2f);
      if (slash > 0) mkdir(path.subarray(0, slash));
    }
    const found = volume.lookup(path);
    try {
      if (found.kind === 'file') {
        if (flags.create) fs().writeFile(found.real, new Uint8Array(0));
        return found.real;
      }
      if (found.kind === 'missing' && flags.create) {
        // The new entry may need another cluster for its folder (dir_register: FR_DENIED when full).
        if (clustersToAdd(found.parent, found.name) > freeClusters()) return undefined;
        const real = joinPath(found.parent, found.name);
        fs().writeFile(real, new Uint8Array(0));
        return real;
      }
    } catch {
      return undefined;
    }
    return undefined;
  };

  /** jl_fs_open_file (API.cpp:2570-2633): a handle id, tracked while a slot is free. */
  const open = (path: Uint8Array, mode: string): number => {
    const flags = openFlags(mode);
    const real = flags && handles.size < MAX_OPEN ? openFile(path, flags) : undefined;
    if (!flags || real === undefined) throw oserror(ENOENT);
    const id = nextId++;
    const tracked = slots.size < TRACKED_SLOTS;
    if (tracked) slots.add(id);
    handles.set(id, { real, readable: flags.read, writable: flags.write, pos: 0, tracked });
    return id;
  };

  /** jl_fs_read_bytes: a failed f_read (a write-only handle, FR_DENIED) is -1, so EIO. */
  const read = (h: Handle, count: number): Uint8Array => {
    if (count <= 0 || !h.readable) throw oserror(EIO);
    const data = view(h);
    const start = Math.min(h.pos, data.length);
    const chunk = data.slice(start, start + count);
    h.pos = start + chunk.length;
    return chunk;
  };

  /**
   * jl_fs_write_bytes: zero bytes or a read-only handle (FR_DENIED) fail with EIO. On a full volume
   * f_write stops where it cannot take another cluster and reports what it wrote, FR_OK
   * (ff.cpp:4603-4624): the count is short, down to 0, and nothing raises.
   */
  const write = (h: Handle, bytes: Uint8Array): number => {
    if (bytes.length === 0 || !h.writable) throw oserror(EIO);
    const old = view(h);
    const room = (clustersOf(old.length) + freeClusters()) * CLUSTER_BYTES;
    const count = Math.max(0, Math.min(bytes.length, room - h.pos));
    if (count === 0) return 0;
    const length = Math.max(old.length, h.pos + count);
    let buffer = h.buffer;
    if (buffer === undefined || h.unflushed === undefined || buffer.length < length) {
      buffer = new Uint8Array(Math.max(length, Math.min(2 * old.length, VOLUME_BYTES)));
      buffer.set(old);
    }
    buffer.set(bytes.subarray(0, count), h.pos);
    h.buffer = buffer;
    h.unflushed = buffer.subarray(0, length);
    h.pos += count;
    return count;
  };

  /**
   * FatFSFileImpl::seek (FatFS.h:257-274) with the position as uint32: SEEK_END goes to
   * `size - pos`, SEEK_CUR wraps (so a negative step works). f_lseek (ff.cpp:5145-5146) stops a
   * read-only handle at the end and stretches a writable file; a stretch the volume cannot hold
   * answers False here (the board fills the volume instead).
   */
  const seek = (h: Handle, offset: number, whence: number): boolean => {
    const data = view(h);
    const pos = offset >>> 0;
    const target = whence === 1 ? (h.pos + pos) >>> 0 : whence === 2 ? (data.length - pos) >>> 0 : pos;
    if (target <= data.length) {
      h.pos = target;
      return true;
    }
    if (!h.writable) {
      h.pos = data.length;
      return true;
    }
    if (clustersOf(target) - clustersOf(data.length) > freeClusters()) return false;
    const grown = new Uint8Array(target);
    grown.set(data);
    h.buffer = grown;
    h.unflushed = grown;
    h.pos = target;
    return true;
  };

  /**
   * Clusters in use under `dir`: a file's ceil(size / 512), a folder's entries (`.`, `..` and one
   * or more per name, 16 to a cluster, at least one cluster). The root's entries live in their own
   * fixed area (FAT16) and take no cluster. FatFS never shrinks a folder when names go; counting
   * the live names only is this sim's approximation.
   */
  const usedClusters = (dir: string): number => {
    let used = 0;
    let entries = 2;
    for (const entry of volume.entries(dir)) {
      entries += entriesOf(entry.name);
      used += entry.isDir ? usedClusters(joinPath(dir, entry.name)) : clustersOf(entry.size);
    }
    return dir === '/' ? used : used + Math.max(1, clustersOf(entries * DIR_ENTRY_BYTES));
  };
  /** Clusters a folder needs beyond its own to hold one more name (the root has a fixed area). */
  const clustersToAdd = (dir: string, name: string): number => {
    if (dir === '/') return 0;
    const entries = 2 + volume.entries(dir).reduce((n, entry) => n + entriesOf(entry.name), 0);
    return (
      Math.max(1, clustersOf((entries + entriesOf(name)) * DIR_ENTRY_BYTES)) -
      Math.max(1, clustersOf(entries * DIR_ENTRY_BYTES))
    );
  };
  const freeClusters = (): number => {
    let used = usedClusters('/');
    // Clusters a handle has taken beyond what the volume's directory entries show yet.
    for (const h of handles.values()) {
      if (h.unflushed !== undefined)
        used += Math.max(0, clustersOf(h.unflushed.length) - clustersOf(storedSize(h.real)));
    }
    return Math.max(0, VOLUME_CLUSTERS - used);
  };
  const freeBytes = (): number => freeClusters() * CLUSTER_BYTES;

  /** jl_fs_listdir (API.cpp:2314-2358): the comma-joined names, `/` after folders, no `.` names. */
  const listing = (path: Uint8Array): Uint8Array => {
    const parts: Uint8Array[] = [];
    let length = 0;
    for (const entry of volume.openDir(path)) {
      const name = nameToOem(entry.name);
      if (name[0] === 0x2e) continue;
      const part = concat(
        parts.length ? encoder.encode(',') : new Uint8Array(0),
        name,
        encoder.encode(entry.isDir ? '/' : ''),
      );
      parts.push(part);
      length += part.length;
      if (length > LISTDIR_CAP) {
        parts.push(encoder.encode('...'));
        break;
      }
    }
    return concat(...parts);
  };
  /** strtok(",") over the listing: no empty tokens. */
  const tokens = (list: Uint8Array): Uint8Array[] => {
    const out: Uint8Array[] = [];
    let start = 0;
    for (let i = 0; i <= list.length; i++) {
      if (i < list.length && list[i] !== 0x2c) continue;
      if (i > start) out.push(list.subarray(start, i));
      start = i + 1;
    }
    return out;
  };

  /** jl_fs_stat_size (API.cpp:2400-2426): -1 when missing; 0 when the first listed entry is a folder. */
  const statSize = (path: Uint8Array): number => {
    if (!volume.exists(path)) return -1;
    if (volume.openDir(path)[0]?.isDir) return 0;
    const found = volume.lookup(path);
    return found.kind === 'file' ? fs().size(found.real) : -1;
  };
  /** jl_fs_stat_isdir (API.cpp:2428-2462): exactly `/`, or something that exists and is no file. */
  const statIsDir = (path: Uint8Array): boolean => {
    if (path.length === 1 && path[0] === 0x2f) return true;
    return volume.exists(path) && volume.lookup(path).kind !== 'file';
  };

  /** jl_fs_mkdir (API.cpp:2885-2939): anything that exists is ENOTDIR (its "is a directory" test opens it as a file). */
  const mkdirErrno = (path: Uint8Array): number => {
    if (volume.exists(path)) return ENOTDIR;
    return mkdir(path) ? 0 : EIO;
  };

  /** Bytes up to the first NUL: what strlen sees of a str the C code got with mp_obj_str_get_str. */
  const cString = (bytes: Uint8Array): Uint8Array => {
    const nul = bytes.indexOf(0);
    return nul < 0 ? bytes : bytes.subarray(0, nul);
  };

  const info = (): number[] => {
    const free = freeBytes();
    return [VOLUME_BYTES, VOLUME_BYTES - free, free];
  };

  const functions: FirmwareFunctions = {
    jfs_open: (path, mode) => open(pathArg(path), typeof mode === 'string' ? mode : 'r'),
    /**
     * JFSFile.read([n]) (modjumperless.c:4691-4741), as hex: without n what is available (nothing
     * to read gives empty without touching the file), at most 8192 either way; a negative n is a
     * huge size_t, so 8192 too.
     */
    jfs_read: (id, n) => {
      const h = handle(id);
      let count: number;
      if (n === undefined || n === null) {
        count = view(h).length - h.pos;
        if (count <= 0) return '';
      } else {
        count = asInt(n);
        if (count < 0) count = READ_CAP;
      }
      return hex(read(h, Math.min(count, READ_CAP)));
    },
    /** jfs.read(f, n=1024) (modjumperless.c:5270-5296), as hex: malloc(n+1), no cap. */
    jfs_read_str: (id, n) => {
      const h = handle(id);
      const count = n === undefined || n === null ? 1024 : asInt(n);
      // n = -1 mallocs 0 bytes, which works, then reads -1 bytes: EIO. Below that malloc fails.
      if (count < -1 || count + 1 > C_HEAP_READ_MAX) throw oserror(ENOMEM);
      return hex(read(h, count));
    },
    jfs_write: (id, data) => write(handle(id), dataArg(data)),
    jfs_seek: (id, offset, whence) =>
      seek(handle(id), asInt(offset), whence === undefined || whence === null ? 0 : asInt(whence)),
    jfs_tell: (id) => handle(id).pos,
    jfs_size: (id) => view(handle(id)).length,
    jfs_available: (id) => {
      const h = typeof id === 'number' ? handles.get(id) : undefined;
      return h ? view(h).length - h.pos : 0;
    },
    jfs_flush: (id) => {
      flush(handle(id));
      return null;
    },
    jfs_close: (id) => {
      if (typeof id === 'number') close(id);
      return null;
    },
    _jfs_close_all: () => {
      closeAll();
      return null;
    },
    /** The board's GC runs between scripts: see `slots`. */
    _service: () => {
      for (const h of handles.values()) if (h.tracked) flush(h);
      slots.clear();
      return null;
    },
    jfs_exists: (path) => volume.exists(pathArg(path)),
    /** jfs.listdir (modjumperless.c:5149-5177): names, leading spaces dropped; null when one is not UTF-8. */
    jfs_listdir: (path) => {
      const names: string[] = [];
      for (const token of tokens(listing(pathArg(path)))) {
        let start = 0;
        while (token[start] === 0x20) start++;
        const name = strictText(token.subarray(start));
        if (name === undefined) return null;
        names.push(name);
      }
      return names;
    },
    jfs_mkdir: (path) => {
      const errno = mkdirErrno(pathArg(path));
      if (errno) throw oserror(errno);
      return null;
    },
    jfs_rmdir: (path) => {
      if (!unlink(pathArg(path))) throw oserror(ENOENT);
      return null;
    },
    jfs_remove: (path) => {
      if (!unlink(pathArg(path))) throw oserror(ENOENT);
      return null;
    },
    jfs_rename: (from, to) => {
      if (!rename(pathArg(from), pathArg(to))) throw oserror(ENOENT);
      return null;
    },
    /** jfs.stat (modjumperless.c:5222-5252): mode 0x8000 for everything; a folder's size is 0. */
    jfs_stat: (path) => {
      const found = volume.lookup(pathArg(path));
      if (found.kind !== 'file' && found.kind !== 'dir') throw oserror(ENOENT);
      return [0x8000, 0, 0, 1, 0, 0, found.kind === 'file' ? fs().size(found.real) : 0, 0, 0, 0];
    },
    jfs_info: () => info(),
    fs_exists: (path) => volume.exists(pathArg(path)),
    fs_listdir: (path) => functions.jfs_listdir?.(path) ?? null,
    /** fs_read (API.cpp:2361-2385): at most 4095 bytes, up to the first NUL, as hex; null if it cannot open. */
    fs_read: (path) => {
      const flags = openFlags('r') as OpenFlags;
      const real = openFile(pathArg(path), flags);
      if (real === undefined) return null;
      return hex(cString(fileBytes(real).subarray(0, FS_READ_CAP)));
    },
    /**
     * fs_write (FilesystemStuff.cpp:3913-4005): open 'w', write up to the first NUL, close; False
     * when the write came up short (a full volume), which leaves what it wrote.
     */
    fs_write: (path, data) => {
      const real = openFile(pathArg(path), openFlags('w') as OpenFlags);
      if (real === undefined) return false;
      const bytes = cString(dataArg(data));
      const fits = Math.min(bytes.length, freeBytes());
      try {
        fs().writeFile(real, bytes.subarray(0, fits));
        return fits === bytes.length;
      } catch {
        return false;
      }
    },
    fs_cwd: () => '/',

    // The VFS methods behind `os` (modjumperless.c:5536-5729); vfs.py does extmod/vfs.c's part.
    /** jl_vfs_ilistdir: (name, 0x4000 or 0x8000, 0, size) per token; null when a name is not UTF-8. */
    vfs_ilistdir: (path) => {
      const base = pathArg(path);
      const atRoot = base.length === 1 && base[0] === 0x2f;
      const entries: Json[] = [];
      for (const token of tokens(listing(base))) {
        const name = token.at(-1) === 0x2f ? token.subarray(0, -1) : token;
        const text = strictText(name);
        if (text === undefined) return null;
        const full = atRoot ? concat(base, name) : concat(base, encoder.encode('/'), name);
        const size = statSize(full);
        entries.push([text, statIsDir(full) ? 0x4000 : 0x8000, 0, Math.max(0, size)]);
      }
      return entries;
    },
    /** jl_vfs_stat: mode 0x41ff or 0x81ff, nlink 1, the size, zero times; ENOENT when missing. */
    vfs_stat: (path) => {
      const p = pathArg(path);
      const size = statSize(p);
      const isDir = statIsDir(p);
      if (size < 0 && !isDir) throw oserror(ENOENT);
      return [isDir ? 0x41ff : 0x81ff, 0, 0, 1, 0, 0, Math.max(0, size), 0, 0, 0];
    },
    vfs_mkdir: (path) => {
      const errno = mkdirErrno(pathArg(path));
      if (errno) throw oserror(errno);
      return null;
    },
    /** jl_vfs_remove/rmdir/rename: any failure is EIO. */
    vfs_remove: (path) => {
      if (!unlink(pathArg(path))) throw oserror(EIO);
      return null;
    },
    vfs_rename: (from, to) => {
      if (!rename(pathArg(from), pathArg(to))) throw oserror(EIO);
      return null;
    },
    /** jl_vfs_statvfs: 1-byte blocks, so blocks, bfree and bavail are bytes; f_namemax 0. */
    vfs_statvfs: () => {
      const [total, , free] = info() as [number, number, number];
      return [1, 1, total, free, free, 0, 0, 0, 0, 0];
    },
  };

  return { functions, closeAll };
}
