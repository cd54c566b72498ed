/**
 * A write to the board's flash is whole or not at all: overwrites of a 100 KB file meet an
 * unplug, a reset or a hang at chosen points of the call (a board job counted through
 * interceptBoard), and the file afterwards holds its old content or the whole new one, never a
 * mix; a call that failed says the old content survived, and the next write leaves nothing behind.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interceptBoard } from '../../test/support/interceptBoard.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { ToolError } from '../core/errors.js';
import { fileRead, fileWrite, READ_MAX_BYTES } from './files.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());

const PATH = '/images/big.bin';
const pattern = (seed: number) =>
  Buffer.from(Array.from({ length: 100 * 1024 }, (_, i) => (i * seed + (i >> 9)) % 251));
const OLD = pattern(7);
const NEW = pattern(13);

async function readWhole(path: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let offset = 0, more = true; more; ) {
    const read = await h.run<{ content: string; read_bytes: number; truncated: boolean; encoding: string }>(
      fileRead,
      { path, offset_bytes: offset, max_bytes: READ_MAX_BYTES },
    );
    parts.push(Buffer.from(read.result.content, read.result.encoding === 'base64' ? 'base64' : 'utf8'));
    offset += read.result.read_bytes;
    more = read.result.truncated;
  }
  return Buffer.concat(parts);
}

/** Until the board answers again after a fault (the session reconnects by itself). */
async function boardBack(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await h.python('1');
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error('the board did not come back');
}

type Fault = 'unplug' | 'reboot' | 'hang';
/** Starts the fault; returns what ends it once the job it hit has settled (a hang lasts that long). */
function inject(fault: Fault): () => void {
  if (fault === 'unplug') {
    void h.board.faults.unplug().then(async () => {
      await sleep(300);
      await h.board.faults.replug();
    });
  } else if (fault === 'reboot') {
    void h.board.faults.reboot();
  } else {
    h.board.faults.hang(true);
    return () => h.board.faults.hang(false);
  }
  return () => {};
}

describe('file_write under faults', () => {
  // Job 1 puts leftovers in order, 2-26 write the 25 chunks of the copy aside, 27 reads it back,
  // 28 puts it in the file's place. A fault before 28 must fail the call; at 28 either outcome
  // is right, as long as it is whole.
  const COMMIT_JOB = 28;
  const cases: Array<[Fault, number]> = [
    ['unplug', 3],
    ['reboot', 12],
    ['hang', 20],
    ['unplug', 24],
    ['reboot', 26],
    ['hang', 6],
    ['reboot', 27],
    ['unplug', COMMIT_JOB],
  ];

  it.each(cases)(
    'a 100 KB overwrite meeting %s at job %i leaves the old file whole',
    async (fault, at) => {
      await boardBack();
      await h.run(fileWrite, {
        path: PATH,
        content: OLD.toString('base64'),
        encoding: 'base64',
        overwrite: true,
      });
      let jobs = 0;
      const faulty = interceptBoard(h.client, {
        call: (expression, options, inner) => {
          if (++jobs !== at) return inner.call(expression, options);
          const end = inject(fault);
          return inner.call(expression, options).finally(end);
        },
      });
      const outcome = await h
        .run(
          fileWrite,
          { path: PATH, content: NEW.toString('base64'), encoding: 'base64', overwrite: true },
          { board: faulty },
        )
        .then(
          () => 'written' as const,
          (error: unknown) => error,
        );
      await boardBack();
      const now = await readWhole(PATH);
      if (outcome === 'written') {
        expect(now.equals(NEW)).toBe(true);
      } else {
        expect(outcome).toBeInstanceOf(ToolError);
        const failure = outcome as ToolError;
        if (at === COMMIT_JOB && !now.equals(OLD)) {
          // The cable went while the commit itself ran: the board may have swapped the file in.
          expect(failure.message).toMatch(/holds its old content or the whole new one/);
          expect(now.equals(NEW)).toBe(true);
        } else if (at === COMMIT_JOB && !/is unchanged/.test(failure.message)) {
          expect(failure.message).toMatch(/holds its old content or the whole new one/);
          expect(now.equals(OLD)).toBe(true);
        } else {
          expect(failure.message).toMatch(/big\.bin is unchanged \(its old content survived\)/);
          expect(failure.options.details?.old_content).toBe('kept');
          expect(now.length).toBe(OLD.length);
          expect(now.equals(OLD)).toBe(true);
        }
      }
      // The next write goes through and leaves no copy aside.
      await h.run(fileWrite, {
        path: PATH,
        content: NEW.toString('base64'),
        encoding: 'base64',
        overwrite: true,
      });
      expect((await readWhole(PATH)).equals(NEW)).toBe(true);
      expect(
        await h.python(
          `[__import__('jfs').exists(p) for p in ('/images/.big.bin.jlw', '/images/.big.bin.jlo')]`,
        ),
      ).toEqual([false, false]);
    },
    60_000,
  );
});

/** Runs statements on the board (exec returns None). */
const run = (code: string) => h.python(`exec(${JSON.stringify(code)})`);
const exists = (path: string) => h.python<boolean>(`__import__('jfs').exists(${JSON.stringify(path)})`);

describe('file_write: what a fault can leave, and appends', () => {
  it('puts back a file whose replacement was cut between its two renames', async () => {
    await boardBack();
    // What the board holds when it loses power inside the swap: the old file aside, the new copy whole.
    await run(
      "fs_write('/python_scripts/.swap.py.jlo', 'old = 1')\nfs_write('/python_scripts/.swap.py.jlw', 'new = 2')",
    );
    expect(await exists('/python_scripts/swap.py')).toBe(false);
    // The next write finds the old file first: it is there again, so a plain write is refused...
    await expect(
      h.run(fileWrite, { path: '/python_scripts/swap.py', content: 'x = 3' }),
    ).rejects.toMatchObject({
      code: 'exists',
    });
    expect(await h.python("fs_read('/python_scripts/swap.py')")).toBe('old = 1');
    expect(await exists('/python_scripts/.swap.py.jlo')).toBe(false);
    expect(await exists('/python_scripts/.swap.py.jlw')).toBe(false);
    // ...and an overwrite replaces it.
    await h.run(fileWrite, { path: '/python_scripts/swap.py', content: 'x = 3', overwrite: true });
    expect(await h.python("fs_read('/python_scripts/swap.py')")).toBe('x = 3');
  });

  it('finishes a swap that only lacked removing the old copy', async () => {
    await run("fs_write('/done.txt', 'new')\nfs_write('/.done.txt.jlo', 'old')");
    await h.run(fileWrite, { path: '/done.txt', content: '+', append: true });
    expect(await h.python("fs_read('/done.txt')")).toBe('new+');
    expect(await exists('/.done.txt.jlo')).toBe(false);
  });

  it('keeps the old file whole when an append meets an unplug', async () => {
    await boardBack();
    await h.run(fileWrite, {
      path: PATH,
      content: OLD.toString('base64'),
      encoding: 'base64',
      overwrite: true,
    });
    let jobs = 0;
    const faulty = interceptBoard(h.client, {
      call: (expression, options, inner) => {
        // Jobs 2 and 3 copy the old 100 KB aside (64 KB a job); 4 and on write the appended bytes.
        if (++jobs === 4) inject('unplug');
        return inner.call(expression, options);
      },
    });
    const tail = NEW.subarray(0, 30_000);
    await expect(
      h.run(
        fileWrite,
        { path: PATH, content: tail.toString('base64'), encoding: 'base64', append: true },
        { board: faulty },
      ),
    ).rejects.toMatchObject({ options: { details: { old_content: 'kept' } } });
    await boardBack();
    expect((await readWhole(PATH)).equals(OLD)).toBe(true);
    const appended = await h.run(fileWrite, {
      path: PATH,
      content: tail.toString('base64'),
      encoding: 'base64',
      append: true,
    });
    expect(appended.result).toMatchObject({
      written_bytes: tail.length,
      size_bytes: OLD.length + tail.length,
    });
    expect((await readWhole(PATH)).equals(Buffer.concat([OLD, tail]))).toBe(true);
  });
});

describe('file_write on a full flash', () => {
  const free = async () => ((await h.python<number[]>("__import__('jfs').info()")) as number[])[2] as number;
  /** Fills the flash with a new /filler.bin until `leave` bytes are free (whole clusters). */
  const fillLeaving = (leave: number) =>
    run(
      `import jfs\nf = open('/filler.bin', 'wb')\nn = jfs.info()[2] - ${leave}\nb = bytes(4096)\nwhile n > 0:\n    n -= f.write(b[:min(4096, n)])\nf.close()`,
    );

  it('refuses what does not fit, before writing anything, and leaves the old file', async () => {
    await boardBack();
    await h.run(fileWrite, {
      path: '/keep.bin',
      content: OLD.subarray(0, 60_000).toString('base64'),
      encoding: 'base64',
      overwrite: true,
    });
    await run("import os\ntry:\n    os.remove('/filler.bin')\nexcept OSError:\n    pass");
    await fillLeaving(50 * 1024);
    expect(await free()).toBe(50 * 1024);
    // A new file too large, and a replacement whose copy cannot stand beside the old one.
    await expect(
      h.run(fileWrite, { path: '/new.bin', content: NEW.toString('base64'), encoding: 'base64' }),
    ).rejects.toMatchObject({
      code: 'no_space',
      message: expect.stringMatching(/51200 bytes free.*Nothing was written/),
    });
    expect(await exists('/new.bin')).toBe(false);
    await expect(
      h.run(fileWrite, {
        path: '/keep.bin',
        content: NEW.subarray(0, 60_000).toString('base64'),
        encoding: 'base64',
        overwrite: true,
      }),
    ).rejects.toMatchObject({
      code: 'no_space',
      message: expect.stringMatching(/beside the old one.*keep\.bin is unchanged/),
    });
    expect((await readWhole('/keep.bin')).equals(OLD.subarray(0, 60_000))).toBe(true);
    expect(await free()).toBe(50 * 1024);
  });

  it('removes a copy cut short when the flash fills during the write, and says the file is unchanged', async () => {
    await boardBack();
    await run("import os\ntry:\n    os.remove('/filler.bin')\nexcept OSError:\n    pass");
    await fillLeaving(200 * 1024);
    let jobs = 0;
    // Someone else's data takes the space between the check and the writing (here, in the same turn).
    const squeezed = interceptBoard(h.client, {
      call: async (expression, options, inner) => {
        if (++jobs === 2)
          await inner.call(
            `exec(${JSON.stringify(`f = open('/filler.bin', 'r+b')\nf.seek(0, 2)\nb = bytes(4096)\nfor i in range(36):\n    f.write(b)\nf.close()`)})`,
          );
        return inner.call(expression, options);
      },
    });
    await expect(
      h.run(
        fileWrite,
        { path: '/late.bin', content: NEW.toString('base64'), encoding: 'base64' },
        { board: squeezed },
      ),
    ).rejects.toMatchObject({ code: 'no_space', options: { details: { old_content: 'kept' } } });
    expect(await exists('/late.bin')).toBe(false);
    expect(await exists('/.late.bin.jlw')).toBe(false);
    expect(await free()).toBe(200 * 1024 - 36 * 4096);
    await run("import os\nos.remove('/filler.bin')");
  });
});
