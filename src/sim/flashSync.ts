import type { EmscriptenFs } from '@micropython/micropython-webassembly-pyscript/micropython.mjs';
import type { VirtualFs } from './firmware/types.js';

/**
 * Folders of the WebAssembly runtime that are not part of the board's flash (the VM keeps its own
 * module sources in /tmp/.jumperless): the board's listings, lookups and the synced copy skip them.
 */
const RUNTIME_DIRS = new Set(['/dev', '/proc', '/tmp', '/home']);

/** The VM's filesystem as the firmware's VirtualFs (spec §6.13: one FAT volume mounted at `/`). */
export function virtualFs(fs: EmscriptenFs): VirtualFs {
  const exists = (path: string) => fs.analyzePath(path).exists;
  return {
    exists,
    isDir: (path) => exists(path) && fs.isDir(fs.stat(path).mode),
    readFile: (path) => fs.readFile(path),
    writeFile: (path, data) => fs.writeFile(path, data),
    readdir: (path) =>
      fs
        .readdir(path)
        .filter((name) => name !== '.' && name !== '..' && !(path === '/' && RUNTIME_DIRS.has(`/${name}`))),
    mkdir: (path) => fs.mkdir(path),
    rmdir: (path) => fs.rmdir(path),
    unlink: (path) => fs.unlink(path),
    rename: (from, to) => fs.rename(from, to),
    size: (path) => fs.stat(path).size,
  };
}

type Signature = string;

/**
 * Tracks which flash files changed since the last look, so the main thread can keep the copy that
 * survives a power cycle (and optionally a folder on disk) without copying everything each time.
 */
export class FlashTracker {
  private known = new Map<string, Signature>();

  constructor(private readonly fs: EmscriptenFs) {}

  /** Writes the boot contents into the VM's filesystem and remembers them as synced. */
  load(files: Array<[string, Uint8Array]>): void {
    for (const [path, data] of files) {
      if (path.endsWith('/')) {
        this.mkdirs(path);
        continue;
      }
      this.mkdirs(path.slice(0, path.lastIndexOf('/')));
      this.fs.writeFile(path, data);
    }
    this.changes();
  }

  /** Files added or changed (with their bytes) and removed (null) since the previous call. */
  changes(): Array<[string, Uint8Array | null]> {
    const seen = new Map<string, Signature>();
    this.walk('/', seen);
    const changes: Array<[string, Uint8Array | null]> = [];
    for (const [path, signature] of seen) {
      if (this.known.get(path) !== signature) {
        changes.push([path, signature === 'dir' ? new Uint8Array(0) : this.fs.readFile(path)]);
      }
    }
    for (const path of this.known.keys()) if (!seen.has(path)) changes.push([path, null]);
    this.known = seen;
    return changes;
  }

  private walk(dir: string, seen: Map<string, Signature>): void {
    for (const name of this.fs.readdir(dir)) {
      if (name === '.' || name === '..') continue;
      const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
      if (RUNTIME_DIRS.has(path)) continue;
      const stat = this.fs.stat(path);
      if (this.fs.isDir(stat.mode)) {
        seen.set(`${path}/`, 'dir');
        this.walk(path, seen);
      } else {
        seen.set(path, `${stat.size}:${stat.mtime.getTime()}`);
      }
    }
  }

  private mkdirs(dir: string): void {
    let path = '';
    for (const part of dir.split('/').filter(Boolean)) {
      path += `/${part}`;
      if (!this.fs.analyzePath(path).exists) this.fs.mkdir(path);
    }
  }
}
