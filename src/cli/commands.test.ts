/**
 * The CLI's board commands in this process against one virtual board over TCP (its REPL port),
 * through the real app, runTool, session and link: state, call, fs, library, firmware-probe.
 */
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimBoard } from '../sim/index.js';
import { runCall } from './callCommand.js';
import { runExec } from './execCommand.js';
import { groupReadiness, runFirmwareProbe } from './firmwareProbeCommand.js';
import { runFs } from './fsCommand.js';
import { LIBRARY_PATH, runLibrary } from './libraryCommand.js';
import { runState } from './stateCommand.js';

let board: SimBoard;
let device: string;
const dir = mkdtempSync(join(tmpdir(), 'jl-cli-'));

beforeAll(async () => {
  board = await SimBoard.start();
  device = `tcp://127.0.0.1:${(await board.serveTcp()).repl}`;
}, 60_000);
afterAll(async () => {
  await board.stop();
  rmSync(dir, { recursive: true, force: true });
});

function io() {
  let out = '';
  let err = '';
  const stdout = {
    write: (chunk: string | Buffer) => {
      out += chunk.toString();
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const stderr = {
    write: (chunk: string) => {
      err += chunk;
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  return { stdout, stderr, out: () => out, err: () => err };
}

describe('call and state', () => {
  it('sets a DAC through call, and state reads it back; bad calls exit 2, a tool failure 1', async () => {
    const set = io();
    expect(await runCall('dac_set', { device, args: '{"channel":"DAC1","volts":1.25}' }, set)).toBe(0);
    expect(JSON.parse(set.out())).toMatchObject({ channel: 'DAC1', volts: 1.25 });

    const state = io();
    expect(await runState({ device, json: true }, state)).toBe(0);
    expect(JSON.parse(state.out()).power.dac1).toBe(1.25);
    const text = io();
    expect(await runState({ device }, text)).toBe(0);
    expect(text.out()).toMatch(/DAC1 1\.25 V/);

    const notJson = io();
    expect(await runCall('dac_set', { device, args: '{volts: 1}' }, notJson)).toBe(2);
    expect(notJson.err()).toMatch(/--args is not JSON/);
    const unknown = io();
    expect(await runCall('no_such_tool', { device }, unknown)).toBe(2);
    expect(unknown.err()).toMatch(/Unknown tool: no_such_tool/);
    const invalid = io();
    expect(await runCall('dac_set', { device, args: '{"channel":"DAC9"}' }, invalid)).toBe(2);
    expect(invalid.err()).toMatch(/Invalid arguments for tool dac_set/);

    // Within the schema but above the operator's limit (the CLI honours JUMPERLESS_MCP_MAX_VOLTS):
    // the tool refuses, and says so as JSON on stderr.
    const refused = io();
    process.env.JUMPERLESS_MCP_MAX_VOLTS = '5';
    try {
      expect(await runCall('dac_set', { device, args: '{"channel":"DAC1","volts":6}' }, refused)).toBe(1);
    } finally {
      delete process.env.JUMPERLESS_MCP_MAX_VOLTS;
    }
    expect(JSON.parse(refused.err())).toMatchObject({ retryable: false });
    expect(refused.out()).toBe('');
    const after = io();
    await runState({ device, json: true }, after);
    expect(JSON.parse(after.out()).power.dac1).toBe(1.25);
  }, 60_000);
});

describe('a refused command', () => {
  it('says only why it was refused, not that the board it never used is closed', async () => {
    const written: string[] = [];
    const original = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(String(chunk));
      return (original as (...args: unknown[]) => boolean).call(process.stderr, chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      for (let i = 0; i < 5; i++) {
        const refused = io();
        expect(await runCall('no_such_tool', { device }, refused)).toBe(2);
        expect(refused.err()).toMatch(/Unknown tool: no_such_tool/);
      }
      // What the board's opening had to say, if anything, has been said by now.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      process.stderr.write = original;
    }
    expect(written.join('')).not.toMatch(/the board is closed/);
  }, 60_000);
});

describe('call with progress', () => {
  it("shows a sweep's progress on stderr as lines (not a terminal), and its result on stdout", async () => {
    const sweep = io();
    const args = '{"supply":"DAC1","start_volts":0,"stop_volts":1,"points":5,"node":10}';
    expect(await runCall('voltage_sweep', { device, args }, sweep)).toBe(0);
    expect(JSON.parse(sweep.out()).points).toHaveLength(5);
    const lines = sweep.err().trimEnd().split('\n');
    const progress = lines.filter((line) => line.startsWith('voltage_sweep: '));
    expect(progress.at(-1)).toMatch(/^voltage_sweep: 5\/5 \(100%\)/);
    expect(progress.length).toBeGreaterThanOrEqual(5);
    // The sweep's plot is an image: the last line says how to have it.
    expect(lines.at(-1)).toMatch(
      /^jumperless-mcp call: the result holds an image \(image\/png, \d+ bytes\): add --out FILE\.png to write it$/,
    );
    expect(sweep.err()).not.toMatch(/[\r\x1b]/);
  }, 60_000);
});

describe('call with an image', () => {
  it('writes the PNG of oled_show to --out, and says there is one without it (issue 24)', async () => {
    // The OLED is fitted but not started on a stock board.
    expect(await runExec('oled_connect()', { device, timeout: '10' }, io())).toBe(0);
    const out = join(dir, 'oled.png');
    const saved = io();
    expect(await runCall('oled_show', { device, out }, saved)).toBe(0);
    const png = readFileSync(out);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(saved.err()).toBe(`jumperless-mcp call: wrote ${out} (image/png, ${png.length} bytes)\n`);
    // The JSON on stdout is the same as without --out.
    const plain = io();
    expect(await runCall('oled_show', { device }, plain)).toBe(0);
    expect(plain.out()).toBe(saved.out());
    expect(plain.err()).toMatch(/the result holds an image \(image\/png, \d+ bytes\): add --out FILE\.png/);
    const none = io();
    expect(await runCall('power_get', { device, out: join(dir, 'none.png') }, none)).toBe(1);
    expect(none.err()).toBe(
      `jumperless-mcp call: power_get's result holds no image to write to ${join(dir, 'none.png')}\n`,
    );
  }, 60_000);
});

describe('exec and the operator grant', () => {
  it('refuses Python when JUMPERLESS_MCP_GRANT leaves jumperless.exec out, as call python_exec is refused', async () => {
    const env = { ...process.env, JUMPERLESS_MCP_GRANT: 'jumperless.read,jumperless.wire' };
    const refused = io();
    expect(await runExec("print('ran')", { device, timeout: '10' }, refused, env)).toBe(2);
    expect(refused.out()).toBe('');
    expect(refused.err()).toBe(
      "jumperless-mcp exec: refused: running Python needs jumperless.exec, and the operator's grant (JUMPERLESS_MCP_GRANT=jumperless.read,jumperless.wire) leaves it out\n",
    );
    const granted = io();
    expect(
      await runExec("print('ran')", { device, timeout: '10' }, granted, {
        ...env,
        JUMPERLESS_MCP_GRANT: '*',
      }),
    ).toBe(0);
    expect(granted.out()).toBe('ran\n');
  }, 60_000);

  it('names a --file that is not there, exit 2', async () => {
    const missing = io();
    expect(await runExec(undefined, { device, timeout: '10', file: join(dir, 'nope.py') }, missing)).toBe(2);
    expect(missing.err()).toBe(`jumperless-mcp exec: --file ${join(dir, 'nope.py')}: no such file\n`);
  });
});

describe('fs', () => {
  it('puts and gets a binary file larger than one call moves, lists and removes it', async () => {
    const bytes = randomBytes(140 * 1024);
    const local = join(dir, 'in.bin');
    writeFileSync(local, bytes);
    const put = io();
    expect(await runFs('put', [local, '/blob.bin'], { device }, put)).toBe(0);
    expect(put.err()).toMatch(/put \/blob\.bin: 143360\/143360 \(100%\)/);
    const again = io();
    expect(await runFs('put', [local, '/blob.bin'], { device }, again)).toBe(1);
    expect(again.err()).toMatch(/exists/);

    const ls = io();
    expect(await runFs('ls', ['/'], { device, json: true }, ls)).toBe(0);
    expect(JSON.parse(ls.out()).entries).toContainEqual({
      name: 'blob.bin',
      kind: 'file',
      size_bytes: bytes.length,
    });

    const back = join(dir, 'out.bin');
    expect(await runFs('get', ['/blob.bin', back], { device }, io())).toBe(0);
    expect(readFileSync(back).equals(bytes)).toBe(true);

    expect(await runFs('rm', ['/blob.bin'], { device }, io())).toBe(0);
    const gone = io();
    expect(await runFs('get', ['/blob.bin'], { device }, gone)).toBe(1);
    expect(gone.err()).toMatch(/not_found/);
    const bad = io();
    expect(await runFs('get', ['relative.txt'], { device }, bad)).toBe(1);
    expect(bad.err()).toMatch(/bad_path/);
    const usage = io();
    expect(await runFs('put', ['only-one'], { device }, usage)).toBe(2);
    expect(usage.err()).toMatch(/usage: jumperless-mcp fs put LOCAL_FILE BOARD_FILE/);
  }, 120_000);

  it('dumps a folder tree into a local folder', async () => {
    const put = (name: string, text: string) => {
      const local = join(dir, 'src.txt');
      writeFileSync(local, text);
      return runFs('put', [local, name], { device, overwrite: true }, io());
    };
    expect(
      await runExec(
        'import os\nos.mkdir("/dumpme")\nos.mkdir("/dumpme/sub")',
        { device, timeout: '10' },
        io(),
      ),
    ).toBe(0);
    expect(await put('/dumpme/a.txt', 'alpha\n')).toBe(0);
    expect(await put('/dumpme/sub/b.txt', 'beta\n')).toBe(0);
    const out = join(dir, 'dumped');
    const dump = io();
    expect(await runFs('dump', ['/dumpme'], { device, out, json: true }, dump)).toBe(0);
    expect(readFileSync(join(out, 'a.txt'), 'utf8')).toBe('alpha\n');
    expect(readFileSync(join(out, 'sub', 'b.txt'), 'utf8')).toBe('beta\n');
    expect(JSON.parse(dump.out()).folders).toEqual(['/dumpme/sub']);
    expect(dump.err()).toMatch(/2 files, 11 bytes ->/);
  }, 120_000);
});

describe('fs dump stays inside --out', () => {
  it('never follows a link already in the destination, and writes nothing outside it', async () => {
    const local = join(dir, 'src2.txt');
    writeFileSync(local, 'inside\n');
    expect(
      await runExec('import os\nos.mkdir("/linky")\nos.mkdir("/linky/sub")', { device, timeout: '10' }, io()),
    ).toBe(0);
    expect(await runFs('put', [local, '/linky/a.txt'], { device }, io())).toBe(0);
    expect(await runFs('put', [local, '/linky/sub/b.txt'], { device }, io())).toBe(0);
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'victim.txt'), 'keep\n');
    // A file link and a folder link, planted where the dump will write.
    const out = join(dir, 'linked-out');
    mkdirSync(out);
    symlinkSync(join(outside, 'victim.txt'), join(out, 'a.txt'));
    symlinkSync(outside, join(out, 'sub'));
    const dump = io();
    expect(await runFs('dump', ['/linky'], { device, out }, dump)).toBe(1);
    expect(dump.err()).toMatch(/linked-out\/(a\.txt|sub) is a symbolic link already in/);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('keep\n');
    expect(existsSync(join(outside, 'b.txt'))).toBe(false);
    // Each link alone is refused too, and nothing lands outside.
    rmSync(join(out, 'sub'));
    const file = io();
    expect(await runFs('dump', ['/linky'], { device, out }, file)).toBe(1);
    expect(file.err()).toMatch(/a\.txt is a symbolic link/);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('keep\n');
    rmSync(join(out, 'a.txt'));
    symlinkSync(outside, join(out, 'sub'));
    const again = io();
    expect(await runFs('dump', ['/linky'], { device, out }, again)).toBe(1);
    expect(again.err()).toMatch(/sub is a symbolic link/);
    expect(existsSync(join(outside, 'b.txt'))).toBe(false);
    // Board paths never climb out either: .. is refused before anything is read.
    const climb = io();
    expect(await runFs('dump', ['/linky/..'], { device, out: join(dir, 'climb') }, climb)).toBe(1);
    expect(climb.err()).toMatch(/bad_path/);
  }, 120_000);
});

describe('fs put, whole or not at all', () => {
  const local = (name: string, bytes: Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  /** The board file's bytes, or undefined when it is not there. */
  const boardBytes = async (path: string): Promise<Buffer | undefined> => {
    const back = join(dir, 'back.bin');
    rmSync(back, { force: true });
    if ((await runFs('get', [path, back], { device }, io())) !== 0) return undefined;
    return readFileSync(back);
  };

  it('names the shell flag when the file exists', async () => {
    const path = local('hint.txt', Buffer.from('hint'));
    expect(await runFs('put', [path, '/hint.txt'], { device }, io())).toBe(0);
    const again = io();
    expect(await runFs('put', [path, '/hint.txt'], { device }, again)).toBe(1);
    expect(again.err()).toMatch(/exists.*--overwrite/);
    expect(again.err()).not.toMatch(/overwrite: true/);
  }, 60_000);

  it('keeps the old file whole when the board goes away in the middle of a put --overwrite', async () => {
    const old = randomBytes(300 * 1024);
    const fresh = randomBytes(300 * 1024);
    expect(await runFs('put', [local('old.bin', old), '/whole.bin'], { device, overwrite: true }, io())).toBe(
      0,
    );
    const put = io();
    let pulled = false;
    const stderr = {
      write: (chunk: string) => {
        // Past half of the new content (beyond what one file_write call takes): the cable goes,
        // and comes back a moment later.
        const done = /(\d+)\/307200/.exec(chunk);
        if (!pulled && done && Number(done[1]) > 150 * 1024) {
          pulled = true;
          void board.faults.unplug().then(() => setTimeout(() => void board.faults.replug(), 300));
        }
        return put.stderr.write(chunk);
      },
    } as unknown as NodeJS.WritableStream;
    const code = await runFs(
      'put',
      [local('new.bin', fresh), '/whole.bin'],
      { device, overwrite: true },
      {
        stdout: put.stdout,
        stderr,
      },
    );
    expect(pulled).toBe(true);
    expect(code).toBe(1);
    expect(put.err()).toMatch(/whole\.bin is unchanged/);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await boardBytes('/whole.bin'))?.equals(old)).toBe(true);
  }, 120_000);

  it('refuses a put the flash cannot hold, the way the board fails, and leaves nothing of it', async () => {
    const info = io();
    expect(await runFs('ls', ['/'], { device, json: true }, info)).toBe(0);
    const free = JSON.parse(info.out()).free_bytes as number;
    const tooBig = local('huge.bin', Buffer.alloc(free + 4096, 7));
    const put = io();
    expect(await runFs('put', [tooBig, '/huge.bin'], { device }, put)).toBe(1);
    expect(put.err()).toMatch(/no_space: .*do not fit: the flash has \d+ bytes free/);
    expect(await boardBytes('/huge.bin')).toBeUndefined();
    const after = io();
    expect(await runFs('ls', ['/'], { device, json: true }, after)).toBe(0);
    expect(JSON.parse(after.out()).free_bytes).toBe(free);
  }, 120_000);
});

describe('exec', () => {
  it('refuses native code before it reaches the board, and says why', async () => {
    const refused = io();
    expect(
      await runExec(
        'import micropython\n@micropython.native\ndef f():\n    pass\nf()',
        { device, timeout: '10' },
        refused,
      ),
    ).toBe(1);
    expect(refused.err()).toMatch(
      /invalid_code: line 2: @micropython\.native code hard-faults the Jumperless V5/,
    );
    expect(refused.out()).toBe('');
  });
});

describe('library', () => {
  it('is installed only when asked, checked, importable on the board, and removed', async () => {
    const absent = io();
    expect(await runLibrary('check', { device }, absent)).toBe(1);
    expect(absent.out()).toMatch(/not installed/);
    const install = io();
    expect(await runLibrary('install', { device }, install)).toBe(0);
    expect(install.out()).toMatch(`installed version 4 at ${LIBRARY_PATH}`);
    expect(install.err()).toMatch(/library install: \d+\/\d+ \(100%\)/);
    expect(await runLibrary('check', { device }, io())).toBe(0);

    const onBoard = io();
    expect(
      await runExec(
        'import jumperless_mcp\nprint(jumperless_mcp.VERSION, jumperless_mcp._jlh.V)',
        { device, timeout: '10' },
        onBoard,
      ),
    ).toBe(0);
    expect(onBoard.out()).toBe('4 4\n');

    // Another version on the board: check says it differs, install puts ours back.
    expect(
      await runExec(
        `f = open('${LIBRARY_PATH}', 'w')\nf.write('VERSION = 3\\n')\nf.close()`,
        { device, timeout: '10' },
        io(),
      ),
    ).toBe(0);
    const differs = io();
    expect(await runLibrary('check', { device, json: true }, differs)).toBe(1);
    expect(JSON.parse(differs.out())).toMatchObject({ state: 'other', version: 3 });
    expect(await runLibrary('install', { device }, io())).toBe(0);
    expect(await runLibrary('check', { device }, io())).toBe(0);

    const remove = io();
    expect(await runLibrary('uninstall', { device, json: true }, remove)).toBe(0);
    expect(JSON.parse(remove.out())).toEqual({ path: LIBRARY_PATH, removed: true });
    expect(await runLibrary('check', { device }, io())).toBe(1);
    const bad = io();
    expect(await runLibrary('upgrade', { device }, bad)).toBe(2);
  }, 120_000);
});

describe('firmware-probe', () => {
  it('reports versions, the module functions and that every group runs', async () => {
    const probe = io();
    expect(await runFirmwareProbe({ device, json: true }, probe)).toBe(0);
    const report = JSON.parse(probe.out());
    expect(report.firmware).toBe('5.7.11.0');
    expect(report.micropython).toMatch(/^1\.\d+/);
    expect(report.functions).toContain('dac_set');
    expect(report.groups.every((g: { unusable: unknown[] }) => g.unusable.length === 0)).toBe(true);
  }, 60_000);

  it('names the tools a firmware without a function cannot run', () => {
    const groups = groupReadiness(new Set(['dac_get']));
    const power = groups.find((g) => g.group === 'power');
    expect(power?.unusable).toContainEqual({
      tool: 'dac_set',
      missing: ['dac_set', 'wavegen_is_running', 'wavegen_get_output'],
    });
    expect(power?.unusable.map((u) => u.tool)).not.toContain('power_get');
  });
});
