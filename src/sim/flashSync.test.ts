/**
 * The board's flash as a whole: the VM's runtime files hidden from it, mpremote's own file snippets
 * against it, handles across raw execs and soft resets, and `--fs` folders given as relative paths.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Wire } from '../../test/support/simWire.js';
import { SimBoard } from './simBoard.js';

let board: SimBoard | undefined;
afterEach(async () => {
  await board?.stop();
  board = undefined;
});

async function rawRepl(options = {}): Promise<Wire> {
  board = await SimBoard.start(options);
  const repl = new Wire(board.port('repl'));
  repl.write('\r\x03\x03\x01');
  await repl.until('raw REPL; CTRL-B to exit\r\n>');
  return repl;
}

describe('the flash as the board shows it', () => {
  it('holds only the flash at /: the VM runtime files are nowhere to be found', async () => {
    const repl = await rawRepl();
    const [out] = await repl.exec(
      [
        'import os',
        "print([n for n in os.listdir('/') if n in ('tmp', 'dev', 'proc', 'home')])",
        "print(jfs.exists('/tmp/.jumperless/jumperless.py'), fs_read('/tmp/.jumperless/jumperless.py'))",
        'try:',
        "    open('/tmp/.jumperless/jumperless.py')",
        'except OSError as e:',
        '    print(e)',
      ].join('\n'),
    );
    expect(out).toBe('[]\nFalse None\n[Errno 2] ENOENT\n');
  });

  it("answers mpremote's fs snippets as the board does (stat ENOENT, 4-tuples, r/w bound methods)", async () => {
    const repl = await rawRepl();
    // fs_stat of a new destination: mpremote looks for ENOENT in the traceback.
    expect((await repl.exec("import os\nos.stat('/new.bin')"))[1]).toContain('OSError: [Errno 2] ENOENT');
    expect(await repl.exec("f=open('/new.bin','wb')\nw=f.write")).toEqual(['', '']);
    expect(await repl.exec("print(w(b'\\x00\\x01abc'))")).toEqual(['5\n', '']);
    expect(await repl.exec('f.close()')).toEqual(['', '']);
    expect(await repl.exec("f=open('/new.bin','rb')\nr=f.read\nprint(r(256), r(256))\nf.close()")).toEqual([
      "b'\\x00\\x01abc' b''\n",
      '',
    ]);
    expect(await repl.exec("for f in os.ilistdir('/'):\n print(repr(f), end=',')")).toEqual([
      expect.stringContaining("('new.bin', 32768, 0, 5),"),
      '',
    ]);
    // The hash check (fs_hashfile) needs readinto, which the board's file lacks too.
    expect((await repl.exec("with open('/new.bin', 'rb') as f:\n f.readinto(bytearray(4))"))[1]).toContain(
      "AttributeError: 'JFSFile' object has no attribute 'readinto'",
    );
  });

  it('serves a filesystem a script mounts (mpremote mount) beside the flash', async () => {
    const repl = await rawRepl();
    const [out, err] = await repl.exec(
      [
        'import os, sys, io',
        'class RamFS:',
        '    def mount(self, readonly, mkfs): pass',
        '    def umount(self): pass',
        '    def chdir(self, p): pass',
        "    def getcwd(self): return '/'",
        "    def ilistdir(self, p): return iter([('m.py', 0x8000, 0, 6)])",
        '    def stat(self, p):',
        "        if p.lstrip('/') == 'm.py': return (0x8000, 0, 0, 0, 0, 0, 6, 0, 0, 0)",
        "        if p.lstrip('/') == '': return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)",
        '        raise OSError(2)',
        "    def open(self, p, mode): return io.BytesIO(b'x = 7\\n')",
        "os.mount(RamFS(), '/remote')",
        "print(os.listdir('/remote'), [m[1] for m in os.mount()], os.listdir('/')[0])",
        "os.chdir('/remote')",
        "sys.path.insert(0, '')",
        'import m',
        "print(m.x, os.getcwd(), open('m.py').read())",
        "os.chdir('/')",
        "os.umount('/remote')",
        "print(os.getcwd(), 'remote' in os.listdir('/'), 'slots' in os.listdir())",
      ].join('\n'),
    );
    expect(err).toBe('');
    expect(out).toBe("['m.py'] ['/remote', '/'] remote\n7 /remote b'x = 7\\n'\n/ False True\n");
  });

  it('forgets a mounted filesystem at a soft reset, as the board does: imports come from the flash again', async () => {
    const repl = await rawRepl();
    await repl.exec("fs_write('/python_scripts/lib/onflash.py', 'where = \\'flash\\'')");
    const [, mountErr] = await repl.exec(
      [
        'import os, io',
        'class HostFS:',
        '    # What mpremote mount puts there: every call is a request to the host (here a print).',
        '    def mount(self, readonly, mkfs): pass',
        "    def umount(self): print('UMOUNT CALLED')",
        '    def chdir(self, p): pass',
        "    def getcwd(self): return '/'",
        "    def ilistdir(self, p): print('ASKED THE HOST'); return iter([])",
        '    def stat(self, p):',
        "        print('ASKED THE HOST')",
        "        if p.lstrip('/') == '': return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)",
        '        raise OSError(2)',
        "    def open(self, p, mode): print('ASKED THE HOST'); raise OSError(2)",
        "os.mount(HostFS(), '/remote')",
        "os.chdir('/remote')",
      ].join('\n'),
    );
    expect(mountErr).toBe('');
    repl.write('\x04');
    expect(await repl.until('raw REPL; CTRL-B to exit\r\n>')).not.toContain('UMOUNT CALLED');
    const [out, err] = await repl.exec(
      [
        'import os',
        "print(os.getcwd(), [point for _, point in os.mount()], 'remote' in os.listdir('/'))",
        'import onflash',
        'print(onflash.where)',
        'try:',
        "    open('/remote/x.py')",
        'except OSError as e:',
        '    print(e)',
      ].join('\n'),
    );
    expect(err).toBe('');
    expect(out).toBe("/ ['/'] False\nflash\n[Errno 2] ENOENT\n");
  });

  it('keeps open files across raw execs; a soft reset closes them', async () => {
    const repl = await rawRepl();
    await repl.exec("f = open('/across.txt', 'w')\nf.write('one')");
    await repl.exec("f.write('two')\nf.close()");
    expect(await repl.exec("print(fs_read('/across.txt'))")).toEqual(['onetwo\n', '']);
    await repl.exec("import builtins\nbuiltins.kept = open('/across.txt')");
    repl.write('\x04');
    await repl.until('raw REPL; CTRL-B to exit\r\n>');
    const [, err] = await repl.exec('kept.read()');
    expect(err).toContain('ValueError: I/O operation on closed file');
  });
});

describe('--fs folders', () => {
  it('saves to and loads from a folder given as a relative path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jl-flash-'));
    try {
      const fsDir = relative(process.cwd(), dir);
      const repl = await rawRepl({ fsDir });
      await repl.exec("fs_write('/python_scripts/saved.py', 'x = 1')");
      await expect
        .poll(() => existsSync(join(dir, 'python_scripts', 'saved.py')), { timeout: 5000 })
        .toBe(true);
      expect(readFileSync(join(dir, 'python_scripts', 'saved.py'), 'utf8')).toBe('x = 1');
      await board?.stop();
      const again = await rawRepl({ fsDir });
      expect(await again.exec("print(fs_read('/python_scripts/saved.py'))")).toEqual(['x = 1\n', '']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
