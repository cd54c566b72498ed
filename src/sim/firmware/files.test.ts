import { loadMicroPython } from '@micropython/micropython-webassembly-pyscript/micropython.mjs';
import { beforeEach, describe, expect, it } from 'vitest';
import { virtualFs } from '../flashSync.js';
import { createFiles, normalizePath, seedFlash } from './files.js';
import { PyError, type VirtualFs } from './types.js';

let fs: VirtualFs;
let call: (name: string, ...args: unknown[]) => unknown;
let closeAll: () => void;

beforeEach(async () => {
  const mp = await loadMicroPython({ linebuffer: false, stdout: () => {}, stderr: () => {} });
  fs = virtualFs(mp.FS);
  const files = createFiles(() => fs);
  closeAll = files.closeAll;
  call = (name, ...args) => {
    const fn = files.functions[name];
    if (!fn) throw new Error(`no ${name}`);
    return fn(...(args as never[]));
  };
});

/** The Python exception a call raises, as `type:errno:message`. */
function raised(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof PyError) return `${e.pyType}:${e.errno ?? ''}:${e.message}`;
    throw e;
  }
  return 'nothing';
}

const bytes = (s: string) => Array.from(Buffer.from(s));

describe('jfs.open modes (spec §6.13)', () => {
  it('r needs the file; w creates and truncates; a appends at the end', () => {
    expect(raised(() => call('jfs_open', '/a.txt', 'r'))).toBe('OSError:2:');
    const w = call('jfs_open', '/a.txt', 'w');
    expect(call('jfs_write', w, bytes('hello'))).toBe(5);
    call('jfs_close', w);
    const a = call('jfs_open', 'a.txt', 'a');
    expect(call('jfs_tell', a)).toBe(5);
    call('jfs_write', a, bytes('!'));
    call('jfs_close', a);
    expect(Buffer.from(fs.readFile('/a.txt')).toString()).toBe('hello!');
    call('jfs_close', call('jfs_open', '/a.txt', 'w'));
    expect(fs.size('/a.txt')).toBe(0);
  });

  it('r+ reads and writes in place; w+ and a+ read too', () => {
    fs.writeFile('/b.txt', 'abcdef');
    const h = call('jfs_open', '/b.txt', 'r+');
    call('jfs_seek', h, 2, 0);
    call('jfs_write', h, bytes('XY'));
    call('jfs_seek', h, 0, 0);
    expect(call('jfs_read', h, null)).toBe('abXYef');
    const ap = call('jfs_open', '/b.txt', 'a+');
    call('jfs_seek', ap, 0, 0);
    expect(call('jfs_read', ap, 2)).toBe('ab');
  });

  it('refuses unknown modes, folders, missing parents and the root with OSError(2)', () => {
    fs.writeFile('/c.txt', 'x');
    fs.mkdir('/python_scripts');
    for (const [path, mode] of [
      ['/c.txt', 'rw'],
      ['/c.txt', 'x'],
      ['/python_scripts', 'r'],
      ['/no/such/file.txt', 'w'],
      ['/', 'r'],
    ]) {
      expect(raised(() => call('jfs_open', path, mode))).toBe('OSError:2:');
    }
  });

  it('opens at most 64 files at once', () => {
    fs.writeFile('/d.txt', 'x');
    for (let i = 0; i < 64; i++) call('jfs_open', '/d.txt', 'r');
    expect(raised(() => call('jfs_open', '/d.txt', 'r'))).toBe('OSError:2:');
    closeAll();
    expect(typeof call('jfs_open', '/d.txt', 'r')).toBe('number');
  });
});

describe('reading and writing', () => {
  it('text mode returns str, binary mode byte values; read() takes what is left, at most 8192', () => {
    fs.writeFile('/big.bin', new Uint8Array(10000).fill(65));
    const t = call('jfs_open', '/big.bin', 'r');
    expect((call('jfs_read', t, null) as string).length).toBe(8192);
    expect((call('jfs_read', t, null) as string).length).toBe(1808);
    expect(call('jfs_read', t, null)).toBe('');
    expect(call('jfs_read', t, 10)).toBe('');
    const b = call('jfs_open', '/big.bin', 'rb');
    expect(call('jfs_read', b, 3)).toEqual([65, 65, 65]);
    expect((call('jfs_read', b, 100000) as number[]).length).toBe(8192);
    expect((call('jfs_read', b, -1) as number[]).length).toBe(1805);
  });

  it('zero-byte reads and writes fail with EIO, as on the board', () => {
    fs.writeFile('/e.txt', 'abc');
    const h = call('jfs_open', '/e.txt', 'r+');
    expect(raised(() => call('jfs_read', h, 0))).toBe('OSError:5:');
    expect(raised(() => call('jfs_write', h, []))).toBe('OSError:5:');
    expect(raised(() => call('jfs_read_str', h, 0))).toBe('OSError:5:');
  });

  it('writes to a read-only file write nothing; jfs.read(f) reads 1024 as str', () => {
    fs.writeFile('/f.txt', 'x'.repeat(2000));
    const h = call('jfs_open', '/f.txt', 'r');
    expect(call('jfs_write', h, bytes('zz'))).toBe(0);
    expect((call('jfs_read_str', h, null) as string).length).toBe(1024);
    expect(call('jfs_available', h)).toBe(976);
    expect(call('jfs_size', h)).toBe(2000);
    expect(call('jfs_name', h)).toBe('/f.txt');
  });

  it('seeks from start, current and end; past the end grows a writable file only', () => {
    fs.writeFile('/g.txt', '0123456789');
    const r = call('jfs_open', '/g.txt', 'r');
    expect(call('jfs_seek', r, -3, 2)).toBe(true);
    expect(call('jfs_read', r, 10)).toBe('789');
    expect(call('jfs_seek', r, -20, 1)).toBe(false);
    expect(call('jfs_seek', r, 50, 0)).toBe(true);
    expect(call('jfs_tell', r)).toBe(10);
    const w = call('jfs_open', '/g.txt', 'r+');
    expect(call('jfs_seek', w, 12, 0)).toBe(true);
    call('jfs_write', w, bytes('!'));
    expect(Array.from(fs.readFile('/g.txt'))).toEqual([...bytes('0123456789'), 0, 0, 33]);
    expect(call('jfs_seek', w, 2 ** 31, 0)).toBe(false);
    expect(fs.size('/g.txt')).toBe(13);
  });

  it('a closed handle raises ValueError, except available() and name()', () => {
    fs.writeFile('/h.txt', 'x');
    const h = call('jfs_open', '/h.txt', 'r');
    call('jfs_close', h);
    call('jfs_close', h);
    for (const name of ['jfs_read', 'jfs_write', 'jfs_seek', 'jfs_tell', 'jfs_size', 'jfs_flush']) {
      expect(raised(() => call(name, h, 1, 0))).toBe('ValueError::I/O operation on closed file');
    }
    expect(call('jfs_available', h)).toBe(0);
    expect(call('jfs_name', h)).toBeNull();
    const h2 = call('jfs_open', '/h.txt', 'r');
    call('_jfs_close_all');
    expect(raised(() => call('jfs_read', h2, null))).toBe('ValueError::I/O operation on closed file');
  });
});

describe('directories and whole files', () => {
  it('listdir marks folders with / and skips dot names; a missing folder lists empty', () => {
    fs.mkdir('/dir');
    fs.mkdir('/dir/sub');
    fs.writeFile('/dir/a.py', '');
    fs.writeFile('/dir/.hidden', '');
    expect((call('jfs_listdir', '/dir/') as string[]).sort()).toEqual(['a.py', 'sub/']);
    expect(call('fs_listdir', 'dir')).toEqual(call('jfs_listdir', '/dir'));
    expect(call('jfs_listdir', '/nowhere')).toEqual([]);
  });

  it('mkdir: EEXIST for a folder, ENOTDIR for a file, EIO without a parent', () => {
    fs.writeFile('/file', 'x');
    call('jfs_mkdir', '/new');
    expect(fs.isDir('/new')).toBe(true);
    expect(raised(() => call('jfs_mkdir', '/new'))).toBe('OSError:17:');
    expect(raised(() => call('jfs_mkdir', '/file'))).toBe('OSError:20:');
    expect(raised(() => call('jfs_mkdir', '/a/b/c'))).toBe('OSError:5:');
  });

  it('rmdir, remove and rename fail with OSError(2)', () => {
    fs.mkdir('/full');
    fs.writeFile('/full/x', '1');
    fs.mkdir('/empty');
    expect(raised(() => call('jfs_rmdir', '/full'))).toBe('OSError:2:');
    expect(raised(() => call('jfs_rmdir', '/missing'))).toBe('OSError:2:');
    expect(raised(() => call('jfs_remove', '/missing'))).toBe('OSError:2:');
    call('jfs_remove', '/empty');
    expect(fs.exists('/empty')).toBe(false);
    fs.writeFile('/y', '2');
    expect(raised(() => call('jfs_rename', '/y', '/full/x'))).toBe('OSError:2:');
    call('jfs_rename', '/y', '/full/z');
    expect(call('jfs_exists', '/full/z')).toBe(true);
    call('jfs_remove', '/full/z');
    call('jfs_remove', '/full/x');
    call('jfs_rmdir', '/full');
    expect(call('jfs_exists', '/full')).toBe(false);
  });

  it('stat is a 10-tuple that calls everything a regular file; info adds up', () => {
    fs.writeFile('/s.txt', '12345');
    expect(call('jfs_stat', '/s.txt')).toEqual([0x8000, 0, 0, 1, 0, 0, 5, 0, 0, 0]);
    fs.mkdir('/sd');
    expect((call('jfs_stat', '/sd') as number[])[0]).toBe(0x8000);
    expect(raised(() => call('jfs_stat', '/nope'))).toBe('OSError:2:');
    const [total, used, free] = call('jfs_info') as number[];
    expect(total).toBe((used as number) + (free as number));
    expect(used).toBeGreaterThan(0);
  });

  it('fs_read returns at most 4095 bytes, None for a missing file; fs_write reports success', () => {
    fs.writeFile('/long.txt', 'y'.repeat(5000));
    expect((call('fs_read', '/long.txt') as string).length).toBe(4095);
    expect(call('fs_read', '/missing.txt')).toBeNull();
    expect(call('fs_write', '/w.txt', 'héllo')).toBe(true);
    expect(call('fs_read', '/w.txt')).toBe('héllo');
    expect(call('fs_write', '/no/dir.txt', 'x')).toBe(false);
    expect(call('fs_cwd')).toBe('/');
  });

  it('normalizes paths like the firmware working directory /', () => {
    expect(normalizePath('a/b/../c//d/')).toBe('/a/c/d');
    expect(normalizePath('../..')).toBe('/');
  });

  it('seeds the board layout once and keeps existing files', () => {
    fs.writeFile('/config.txt', 'mine');
    seedFlash(fs);
    seedFlash(fs);
    expect(Buffer.from(fs.readFile('/config.txt')).toString()).toBe('mine');
    for (const dir of ['/slots', '/python_scripts/lib', '/python_scripts/examples', '/images', '/screens']) {
      expect(fs.isDir(dir)).toBe(true);
    }
    expect(fs.exists('/python_scripts/history.txt')).toBe(true);
  });
});
