import { loadMicroPython } from '@micropython/micropython-webassembly-pyscript/micropython.mjs';
import { beforeEach, describe, expect, it } from 'vitest';
import { virtualFs } from '../flashSync.js';
import { nameToOem, oemToName, parsePath } from './fatVolume.js';
import { createFiles, openFlags, seedFlash } from './files.js';
import { PyError, type VirtualFs } from './types.js';

let fs: VirtualFs;
let call: (name: string, ...args: unknown[]) => unknown;

beforeEach(async () => {
  const mp = await loadMicroPython({ linebuffer: false, stdout: () => {}, stderr: () => {} });
  mp.FS.mkdirTree('/tmp/.jumperless');
  fs = virtualFs(mp.FS);
  const files = createFiles(() => fs);
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

const hex = (s: string) => Buffer.from(s).toString('hex');
const text = (h: unknown) => Buffer.from(h as string, 'hex').toString();
const file = (path: string) => Buffer.from(fs.readFile(path)).toString();
const bytesPath = (b: number[]) => [Buffer.from(b).toString('hex')];

describe('FatFS names (ffconf.h, create_name/follow_path)', () => {
  it('matches names in any case and keeps the stored case', () => {
    fs.writeFile('/config.txt', 'abc');
    expect(call('jfs_exists', '/CONFIG.TXT')).toBe(true);
    const h = call('jfs_open', '/Config.Txt', 'w');
    call('jfs_write', h, hex('XY'));
    call('jfs_close', h);
    expect(fs.readdir('/')).toContain('config.txt');
    expect(fs.readdir('/')).not.toContain('Config.Txt');
    expect(file('/config.txt')).toBe('XY');
    expect(call('jfs_listdir', '/')).toContain('config.txt');
  });

  it('takes up to 64 characters per name, refuses * : < > | " ? and DEL, drops trailing dots and spaces', () => {
    const at = (p: string) => parsePath(Buffer.from(p));
    expect(at(`/${'a'.repeat(64)}`)).toEqual(['a'.repeat(64)]);
    expect(at(`/${'a'.repeat(65)}`)).toBeUndefined();
    for (const bad of ['/a*', '/a:b', '/a?', '/a"', '/a|b', '/a<', '/a>', '/a\x7f', '/...', '/ ']) {
      expect(at(bad), bad).toBeUndefined();
    }
    expect(at('/x.txt. .')).toEqual(['x.txt']);
    expect(at('a\\b//c/')).toEqual(['a', 'b', 'c']);
    // A control character ends the path (create_name stops there).
    expect(at('/a/b\x01/c')).toEqual(['a', 'b']);
    expect(at('/')).toEqual([]);
  });

  it('has no . or .. and resolves relative paths from the root (FF_FS_RPATH 0)', () => {
    fs.writeFile('/r.txt', 'root');
    expect(call('jfs_exists', 'r.txt')).toBe(true);
    expect(call('jfs_exists', '/slots/../r.txt')).toBe(false);
    expect(call('jfs_exists', '/./r.txt')).toBe(false);
  });

  it('stores bytes as code page 437 characters; a name that is not UTF-8 makes listings fail', () => {
    expect(oemToName(Uint8Array.from([0x63, 0x82]))).toBe('cé');
    expect(Array.from(nameToOem('cé😀'))).toEqual([0x63, 0x82, 0x3f]);
    const h = call('jfs_open', bytesPath([0x2f, 0x78, 0x82]), 'w');
    call('jfs_close', h);
    expect(fs.readdir('/')).toContain('xé');
    expect(call('jfs_listdir', '/')).toBeNull();
    expect(call('vfs_ilistdir', '/')).toBeNull();
    expect(call('jfs_exists', bytesPath([0x2f, 0x58, 0x82]))).toBe(true);
    // UTF-8 from Python round-trips: each byte is a character of its own on the volume.
    call('jfs_close', call('jfs_open', '/é', 'w'));
    call('jfs_remove', bytesPath([0x2f, 0x78, 0x82]));
    expect(call('jfs_listdir', '/')).toContain('é');
    expect(fs.readdir('/')).toContain('├⌐');
  });

  it('hides the VM runtime folders', () => {
    expect(call('jfs_listdir', '/')).not.toContain('tmp/');
    expect(call('jfs_exists', '/tmp/.jumperless')).toBe(false);
    expect(call('vfs_ilistdir', '/')).toEqual([]);
  });
});

describe('jfs.open modes (FS.cpp sflags, FatFS.h:184-201, ff.cpp:4280-4330)', () => {
  it('parses r, w, a with an optional +, ignoring b and t', () => {
    expect(openFlags('rb')).toEqual({ read: true, write: false, create: false });
    expect(openFlags('r+b')).toEqual({ read: true, write: true, create: false });
    expect(openFlags('w')).toEqual({ read: false, write: true, create: true });
    expect(openFlags('a+')).toEqual({ read: true, write: true, create: true });
    expect(openFlags('')).toEqual(openFlags('r'));
    expect(openFlags('r+x')).toEqual(openFlags('r+'));
    for (const bad of ['x', 'rw', 'wa', '+']) expect(openFlags(bad), bad).toBeUndefined();
  });

  it('r needs the file; w creates and truncates; a truncates too, and starts at 0', () => {
    expect(raised(() => call('jfs_open', '/a.txt', 'r'))).toBe('OSError:2:');
    const w = call('jfs_open', '/a.txt', 'w');
    expect(call('jfs_write', w, hex('hello'))).toBe(5);
    call('jfs_close', w);
    const a = call('jfs_open', '/a.txt', 'a');
    expect(call('jfs_tell', a)).toBe(0);
    expect(call('jfs_size', a)).toBe(0);
    call('jfs_write', a, hex('!'));
    call('jfs_close', a);
    expect(file('/a.txt')).toBe('!');
  });

  it('r+ writes in place without truncating: the way to append is r+ and a seek to the end', () => {
    fs.writeFile('/b.txt', 'abc');
    const h = call('jfs_open', '/b.txt', 'r+b');
    expect(call('jfs_seek', h, 0, 2)).toBe(true);
    expect(call('jfs_tell', h)).toBe(3);
    call('jfs_write', h, hex('de'));
    call('jfs_seek', h, 0, 0);
    expect(text(call('jfs_read', h, null))).toBe('abcde');
    call('jfs_close', h);
    expect(file('/b.txt')).toBe('abcde');
  });

  it('a creating open makes one missing parent, not two; folders and the root never open', () => {
    const h = call('jfs_open', '/new/x.txt', 'w');
    call('jfs_close', h);
    expect(fs.isDir('/new')).toBe(true);
    expect(raised(() => call('jfs_open', '/no/deeper/x.txt', 'w'))).toBe('OSError:2:');
    expect(fs.exists('/no')).toBe(false);
    expect(raised(() => call('jfs_open', '/none/x.txt', 'r'))).toBe('OSError:2:');
    expect(fs.exists('/none')).toBe(false);
    fs.mkdir('/d');
    for (const mode of ['r', 'w', 'a']) expect(raised(() => call('jfs_open', '/d', mode))).toBe('OSError:2:');
    expect(raised(() => call('jfs_open', '/', 'r'))).toBe('OSError:2:');
    expect(raised(() => call('jfs_open', '', 'r'))).toBe('OSError:2:');
    expect(raised(() => call('jfs_open', '/x.txt', 'x'))).toBe('OSError:2:');
    expect(fs.exists('/x.txt')).toBe(false);
  });
});

describe('JFSFile I/O (modjumperless.c:4691-4851)', () => {
  it('read() takes what is left, at most 8192 per call; read(n) is capped too', () => {
    fs.writeFile('/big', 'z'.repeat(10_000));
    const h = call('jfs_open', '/big', 'r');
    expect(text(call('jfs_read', h, null)).length).toBe(8192);
    expect(call('jfs_available', h)).toBe(1808);
    expect(text(call('jfs_read', h, -1)).length).toBe(1808);
    expect(call('jfs_read', h, null)).toBe('');
    expect(call('jfs_read', h, 5)).toBe('');
  });

  it('zero-byte reads and writes, and I/O against the handle direction, fail with EIO', () => {
    fs.writeFile('/e.txt', 'abc');
    const r = call('jfs_open', '/e.txt', 'r');
    expect(raised(() => call('jfs_read', r, 0))).toBe('OSError:5:');
    expect(raised(() => call('jfs_write', r, hex('x')))).toBe('OSError:5:');
    const w = call('jfs_open', '/f.txt', 'w');
    expect(raised(() => call('jfs_write', w, ''))).toBe('OSError:5:');
    expect(raised(() => call('jfs_read', w, 1))).toBe('OSError:5:');
    expect(call('jfs_read', w, null)).toBe('');
  });

  it('jfs.read(f, n) has no cap, reads 1024 by default; -1 is EIO, less or too much ENOMEM', () => {
    fs.writeFile('/g.txt', 'q'.repeat(20_000));
    const h = call('jfs_open', '/g.txt', 'r');
    expect(text(call('jfs_read_str', h, null)).length).toBe(1024);
    expect(text(call('jfs_read_str', h, 10_000)).length).toBe(10_000);
    expect(raised(() => call('jfs_read_str', h, -1))).toBe('OSError:5:');
    expect(raised(() => call('jfs_read_str', h, -2))).toBe('OSError:12:');
    expect(raised(() => call('jfs_read_str', h, 100_000))).toBe('OSError:12:');
  });

  it('seeks with an unsigned position: SEEK_END is size - pos, SEEK_CUR wraps, reads stop at the end', () => {
    fs.writeFile('/s.txt', 'abcdef');
    const h = call('jfs_open', '/s.txt', 'r');
    expect(call('jfs_seek', h, 1, 2)).toBe(true);
    expect(call('jfs_tell', h)).toBe(5);
    expect(call('jfs_seek', h, -1, 2)).toBe(true);
    expect(call('jfs_tell', h)).toBe(6);
    expect(call('jfs_seek', h, -2, 1)).toBe(true);
    expect(call('jfs_tell', h)).toBe(4);
    expect(call('jfs_seek', h, -1, 0)).toBe(true);
    expect(call('jfs_tell', h)).toBe(6);
    const w = call('jfs_open', '/s.txt', 'r+');
    expect(call('jfs_seek', w, 10, 0)).toBe(true);
    expect(call('jfs_size', w)).toBe(10);
    expect(call('jfs_seek', w, -1, 0)).toBe(false);
  });

  it('a closed handle raises ValueError, except available()', () => {
    const h = call('jfs_open', '/c.txt', 'w');
    call('jfs_close', h);
    call('jfs_close', h);
    for (const name of ['jfs_read', 'jfs_write', 'jfs_seek', 'jfs_tell', 'jfs_size', 'jfs_flush']) {
      expect(raised(() => call(name, h, hex('x'), 0))).toBe('ValueError::I/O operation on closed file');
    }
    expect(call('jfs_available', h)).toBe(0);
  });
});

describe('the 4 tracked handles (JumperlessMicroPythonAPI.cpp:2468-2697)', () => {
  it('writes reach the volume, stat and other handles only on flush or close (f_sync)', () => {
    const w = call('jfs_open', '/v.txt', 'w');
    call('jfs_write', w, hex('abc'));
    expect(call('jfs_size', w)).toBe(3);
    expect((call('jfs_stat', '/v.txt') as number[])[6]).toBe(0);
    const r = call('jfs_open', '/v.txt', 'r');
    expect(call('jfs_size', r)).toBe(0);
    call('jfs_flush', w);
    expect((call('vfs_stat', '/v.txt') as number[])[6]).toBe(3);
    call('jfs_write', w, hex('de'));
    expect(file('/v.txt')).toBe('abc');
    call('jfs_close', w);
    expect(file('/v.txt')).toBe('abcde');
  });

  it('a 5th handle works, but its close() neither flushes nor frees: unflushed data is lost', () => {
    const first = [1, 2, 3, 4].map((i) => call('jfs_open', `/t${i}.txt`, 'w'));
    const fifth = call('jfs_open', '/t5.txt', 'w');
    call('jfs_write', fifth, hex('lost'));
    expect(call('jfs_size', fifth)).toBe(4);
    call('jfs_close', fifth);
    expect(file('/t5.txt')).toBe('');
    const sixth = call('jfs_open', '/t6.txt', 'w');
    call('jfs_write', sixth, hex('kept'));
    call('jfs_flush', sixth);
    call('jfs_close', sixth);
    expect(file('/t6.txt')).toBe('kept');
    for (const h of first) call('jfs_write', h, hex('ok'));
    for (const h of first) call('jfs_close', h);
    expect(file('/t4.txt')).toBe('ok');
  });

  it('an idle board does what its GC does to dropped files: flushes the tracked ones, frees their slots', () => {
    const dropped = [1, 2, 3, 4].map((i) => call('jfs_open', `/d${i}.txt`, 'w'));
    call('jfs_write', dropped[0], hex('landed'));
    call('_service');
    expect(file('/d1.txt')).toBe('landed');
    const h = call('jfs_open', '/after.txt', 'w');
    call('jfs_write', h, hex('saved'));
    call('jfs_close', h);
    expect(file('/after.txt')).toBe('saved');
  });

  it('soft reset and `>` lines close every handle', () => {
    const h = call('jfs_open', '/x.txt', 'w');
    call('_jfs_close_all');
    expect(raised(() => call('jfs_tell', h))).toBe('ValueError::I/O operation on closed file');
  });
});

describe('listings (jl_fs_listdir, FatFSImpl::openDir)', () => {
  it('marks folders with /, skips dot names, lists prefix matches for a path that is no folder', () => {
    fs.mkdir('/sub');
    fs.writeFile('/sub/a.txt', '1');
    fs.writeFile('/sub/.hidden', '');
    fs.mkdir('/sub/inner');
    expect(call('jfs_listdir', '/sub')).toEqual(['a.txt', 'inner/']);
    expect(call('jfs_listdir', '/sub/')).toEqual(['a.txt', 'inner/']);
    expect(call('jfs_listdir', '/sub/a.txt')).toEqual(['a.txt']);
    expect(call('jfs_listdir', '/sub/in')).toEqual(['inner/']);
    expect(call('jfs_listdir', '/sub/IN')).toEqual([]);
    expect(call('jfs_listdir', '/nowhere/x')).toEqual([]);
    // Without a `/` only a folder lists: FatFSDirImpl opens the path itself as the folder.
    expect(call('jfs_listdir', 'sub')).toEqual(['a.txt', 'inner/']);
    expect(call('jfs_listdir', 'su')).toEqual([]);
    expect(call('jfs_exists', '/sub/.hidden')).toBe(true);
  });

  it('splits names on commas, drops leading spaces, cuts past 1900 characters with ...', () => {
    fs.mkdir('/l');
    fs.writeFile('/l/a,b', '');
    fs.writeFile('/l/ c', '');
    expect(call('jfs_listdir', '/l')).toEqual(['a', 'b', 'c']);
    fs.mkdir('/many');
    for (let i = 0; i < 60; i++) fs.writeFile(`/many/${String(i).padStart(2, '0')}${'n'.repeat(38)}`, '');
    const names = call('jfs_listdir', '/many') as string[];
    expect(names.length).toBeLessThan(60);
    expect(names.at(-1)?.endsWith('...')).toBe(true);
    expect(names.join(',').length).toBeGreaterThan(1900);
  });

  it('os.ilistdir gives (name, 0x4000 or 0x8000, 0, size)', () => {
    fs.mkdir('/o');
    fs.writeFile('/o/f.txt', 'hello');
    fs.mkdir('/o/d');
    expect(call('vfs_ilistdir', '/o')).toEqual([
      ['f.txt', 0x8000, 0, 5],
      ['d', 0x4000, 0, 0],
    ]);
  });
});

describe('stat, mkdir, remove, rename (jfs and the os VFS)', () => {
  it('jfs.stat calls everything a file; os.stat tells folders apart; missing is ENOENT', () => {
    fs.writeFile('/s.txt', '12345');
    fs.mkdir('/sd');
    expect(call('jfs_stat', '/S.TXT')).toEqual([0x8000, 0, 0, 1, 0, 0, 5, 0, 0, 0]);
    expect(call('jfs_stat', '/sd')).toEqual([0x8000, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect(call('vfs_stat', '/s.txt')).toEqual([0x81ff, 0, 0, 1, 0, 0, 5, 0, 0, 0]);
    expect(call('vfs_stat', '/SD')).toEqual([0x41ff, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect(raised(() => call('jfs_stat', '/nope'))).toBe('OSError:2:');
    expect(raised(() => call('vfs_stat', '/nope'))).toBe('OSError:2:');
    expect(raised(() => call('jfs_stat', '/'))).toBe('OSError:2:');
    expect(call('jfs_exists', '/')).toBe(false);
  });

  it('mkdir of anything that exists is ENOTDIR (20); a missing parent is EIO', () => {
    fs.mkdir('/m');
    fs.writeFile('/m.txt', '');
    expect(raised(() => call('vfs_mkdir', '/M'))).toBe('OSError:20:');
    expect(raised(() => call('jfs_mkdir', '/m.txt'))).toBe('OSError:20:');
    expect(raised(() => call('vfs_mkdir', '/x/y'))).toBe('OSError:5:');
    expect(raised(() => call('jfs_mkdir', '/'))).toBe('OSError:5:');
    expect(call('vfs_mkdir', '/m/n')).toBeNull();
    expect(fs.isDir('/m/n')).toBe(true);
  });

  it('remove and rmdir both unlink a file or an empty folder; failures are ENOENT (jfs) or EIO (os)', () => {
    fs.writeFile('/f', '');
    fs.mkdir('/e');
    fs.mkdir('/full');
    fs.writeFile('/full/x', '');
    call('jfs_rmdir', '/f');
    call('jfs_remove', '/E');
    expect(fs.exists('/f') || fs.exists('/e')).toBe(false);
    expect(raised(() => call('jfs_remove', '/full'))).toBe('OSError:2:');
    expect(raised(() => call('vfs_remove', '/full'))).toBe('OSError:5:');
    expect(raised(() => call('vfs_remove', '/missing'))).toBe('OSError:5:');
  });

  it('rename refuses an existing target, except the same entry in another case', () => {
    fs.writeFile('/a.txt', 'a');
    fs.writeFile('/b.txt', 'b');
    expect(raised(() => call('jfs_rename', '/a.txt', '/B.TXT'))).toBe('OSError:2:');
    expect(raised(() => call('vfs_rename', '/a.txt', '/b.txt'))).toBe('OSError:5:');
    call('jfs_rename', '/a.txt', '/A.TXT');
    expect(fs.readdir('/')).toContain('A.TXT');
    call('vfs_rename', '/a.txt', '/slots-c.txt');
    expect(file('/slots-c.txt')).toBe('a');
  });

  it('info and statvfs report the same volume in bytes', () => {
    const [total, used, free] = call('jfs_info') as number[];
    expect(total).toBe((used as number) + (free as number));
    expect(call('vfs_statvfs')).toEqual([1, 1, total, free, free, 0, 0, 0, 0, 0]);
  });
});

describe('capacity: the 4 MB FatFS partition (lock_fs_partition.py, SPIFTL, f_mkfs)', () => {
  /** 8047 clusters of one 512-byte sector: what FatFS.info() reports for the V5's partition. */
  const TOTAL = 8047 * 512;
  const free = () => (call('jfs_info') as number[])[2] as number;

  it('reports the volume the board formats, counted in 512-byte clusters', () => {
    const [total, used] = call('jfs_info') as number[];
    expect(total).toBe(TOTAL);
    const before = free();
    fs.writeFile('/one.txt', 'x');
    expect(free()).toBe(before - 512);
    expect(used).toBe(TOTAL - before);
  });

  it('fills: a write takes what fits (f_write stops at the last free cluster), then 0, and free reaches 0', () => {
    const room = free();
    const h = call('jfs_open', '/fill.bin', 'wb');
    const chunk = 'ab'.repeat(8192);
    let written = 0;
    for (let i = 0; i < 1000 && written < room; i++) written += call('jfs_write', h, chunk) as number;
    expect(written).toBe(room);
    // Clusters are taken as f_write writes, before any flush: the full volume shows already.
    expect(free()).toBe(0);
    expect(call('jfs_write', h, 'cd')).toBe(0);
    call('jfs_close', h);
    expect(fs.size('/fill.bin')).toBe(room);
    // A new file opens (a name needs no cluster in a folder with room) but takes nothing.
    const g = call('jfs_open', '/more.bin', 'wb');
    expect(call('jfs_write', g, 'cd')).toBe(0);
    call('jfs_close', g);
    expect(fs.size('/more.bin')).toBe(0);
    // fs_write reports the short write as False and leaves what it wrote (safeFileWriteAllRaw).
    expect(call('fs_write', '/more.bin', hex('hello'))).toBe(false);
    expect(raised(() => call('jfs_mkdir', '/newdir'))).toBe('OSError:5:');
    call('jfs_remove', '/fill.bin');
    expect(free()).toBe(room);
  });
});

describe('fs_* helpers (API.cpp:2361-2397, FilesystemStuff.cpp:3871-4005)', () => {
  it('fs_read gives at most 4095 bytes, up to a NUL, null for a folder or a missing file', () => {
    fs.writeFile('/long.txt', 'y'.repeat(5000));
    expect(text(call('fs_read', '/long.txt')).length).toBe(4095);
    fs.writeFile('/nul.txt', 'ab\0cd');
    expect(text(call('fs_read', '/NUL.txt'))).toBe('ab');
    expect(call('fs_read', '/missing.txt')).toBeNull();
    expect(call('fs_read', '/tmp')).toBeNull();
  });

  it('fs_write writes up to a NUL, creates one missing parent, reports success', () => {
    expect(call('fs_write', '/w.txt', hex('hé\0llo'))).toBe(true);
    expect(file('/w.txt')).toBe('hé');
    expect(call('fs_write', '/p/w.txt', hex(''))).toBe(true);
    expect(fs.exists('/p/w.txt')).toBe(true);
    expect(call('fs_write', '/no/such/dir.txt', hex('x'))).toBe(false);
    expect(call('fs_cwd')).toBe('/');
  });
});

describe('seedFlash', () => {
  it('seeds the board layout once and keeps existing files', () => {
    fs.writeFile('/config.txt', 'mine');
    seedFlash(fs);
    seedFlash(fs);
    expect(file('/config.txt')).toBe('mine');
    for (const dir of ['/slots', '/python_scripts/lib', '/python_scripts/examples', '/images', '/screens']) {
      expect(fs.isDir(dir)).toBe(true);
    }
    expect(fs.exists('/python_scripts/history.txt')).toBe(true);
  });
});
