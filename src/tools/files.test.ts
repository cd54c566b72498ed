import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileStrings } from '../../test/support/hostileStrings.js';
import { interceptBoard } from '../../test/support/interceptBoard.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { ToolError } from '../core/errors.js';
import {
  checkPath,
  fileDelete,
  fileList,
  fileRead,
  fileWrite,
  READ_MAX_BYTES,
  TRANSFER_CHUNK_BYTES,
} from './files.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());

const refusal = (code: string) => expect.objectContaining({ code });
/** Runs statements on the board (exec returns None). */
const run = (code: string) => h.python(`exec(${JSON.stringify(code)})`);

describe('file tools', () => {
  it('lists a directory with kinds, sizes and free space', async () => {
    const { result } = await h.run(fileList);
    expect(result).toMatchObject({ path: '/', truncated: false });
    expect(result.entries).toEqual(
      expect.arrayContaining([
        { name: 'slots', kind: 'dir', size_bytes: 0 },
        expect.objectContaining({ name: 'config.txt', kind: 'file' }),
      ]),
    );
    expect(result.free_bytes).toBeGreaterThan(0);
    const scripts = await h.run<{ entries: { name: string }[] }>(fileList, { path: '/python_scripts/' });
    expect(scripts.result.entries.map((e) => e.name)).toEqual(
      expect.arrayContaining(['lib', 'examples', 'history.txt']),
    );
    await expect(h.run(fileList, { path: '/nowhere' })).rejects.toEqual(refusal('not_found'));
    await expect(h.run(fileList, { path: '/config.txt' })).rejects.toEqual(refusal('not_found'));
  });

  it('writes text and reads it back byte for byte, refusing to replace unless asked', async () => {
    const text = 'print("héllo")\n# ünïcode 😀\n';
    const { result } = await h.run(fileWrite, { path: '/python_scripts/t.py', content: text });
    expect(result).toEqual({
      path: '/python_scripts/t.py',
      written_bytes: Buffer.byteLength(text),
      size_bytes: Buffer.byteLength(text),
      replaced: false,
    });
    const read = await h.run(fileRead, { path: '/python_scripts/t.py' });
    expect(read.result).toMatchObject({ encoding: 'utf-8', content: text, truncated: false });
    await expect(h.run(fileWrite, { path: '/python_scripts/t.py', content: 'x' })).rejects.toEqual(
      refusal('exists'),
    );
    const replaced = await h.run(fileWrite, { path: '/python_scripts/t.py', content: 'ab', overwrite: true });
    expect(replaced.result).toMatchObject({ size_bytes: 2, replaced: true });
    const empty = await h.run(fileWrite, { path: '/python_scripts/e.txt', content: '' });
    expect(empty.result).toMatchObject({ size_bytes: 0, written_bytes: 0 });
  });

  it("appends without mode 'a', which truncates on the board", async () => {
    await h.run(fileWrite, { path: '/app.txt', content: 'ab' });
    // The board's own 'a' empties the file first (FatFS.h:184-201); the sim does the same.
    await run(
      "f = open('/app2.txt', 'w'); f.write('ab'); f.close(); f = open('/app2.txt', 'a'); f.write('c'); f.close()",
    );
    expect(await h.python("fs_read('/app2.txt')")).toBe('c');
    const appended = await h.run(fileWrite, { path: '/app.txt', content: 'cd', append: true });
    expect(appended.result).toMatchObject({ size_bytes: 4, written_bytes: 2, replaced: false });
    expect((await h.run(fileRead, { path: '/app.txt' })).result.content).toBe('abcd');
    const fresh = await h.run(fileWrite, { path: '/app3.txt', content: 'new', append: true });
    expect(fresh.result).toMatchObject({ size_bytes: 3 });
  });

  it('moves 100 KB both ways in bounded jobs that fit the board heap', async () => {
    const bytes = Buffer.from(Array.from({ length: 100 * 1024 }, (_, i) => (i * 7 + (i >> 8)) % 256));
    let jobs = 0;
    const counting = interceptBoard(h.client, {
      call: (expression, options, inner) => {
        jobs++;
        return inner.call(expression, options);
      },
    });
    const wrote = await h.run(
      fileWrite,
      { path: '/images/big.bin', content: bytes.toString('base64'), encoding: 'base64' },
      { board: counting },
    );
    expect(wrote.result).toMatchObject({ size_bytes: bytes.length, written_bytes: bytes.length });
    expect(jobs).toBeGreaterThanOrEqual(Math.ceil(bytes.length / TRANSFER_CHUNK_BYTES));
    expect(wrote.progress.at(-1)).toBe(bytes.length);
    // A read stops at READ_MAX_BYTES (a result stays under 50 KB): the file comes in parts.
    const parts: Buffer[] = [];
    for (let offset = 0, more = true; more; ) {
      const read = await h.run<{ content: string; read_bytes: number; truncated: boolean }>(fileRead, {
        path: '/images/big.bin',
        offset_bytes: offset,
        max_bytes: READ_MAX_BYTES,
      });
      expect(read.result).toMatchObject({ encoding: 'base64' });
      expect(Buffer.byteLength(JSON.stringify(read.result))).toBeLessThan(50_000);
      parts.push(Buffer.from(read.result.content, 'base64'));
      offset += read.result.read_bytes;
      more = read.result.truncated;
    }
    expect(parts.length).toBe(Math.ceil(bytes.length / READ_MAX_BYTES));
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
    expect(fileRead.input.safeParse({ path: '/a', max_bytes: READ_MAX_BYTES + 1 }).success).toBe(false);
    const part = await h.run<{ content: string }>(fileRead, {
      path: '/images/big.bin',
      offset_bytes: 10_000,
      max_bytes: 100,
    });
    expect(part.result).toMatchObject({ read_bytes: 100, truncated: true, offset_bytes: 10_000 });
    expect(Buffer.from(part.result.content, 'base64').equals(bytes.subarray(10_000, 10_100))).toBe(true);
    await expect(
      h.run(fileWrite, { path: '/x.bin', content: 'not base64!', encoding: 'base64' }),
    ).rejects.toEqual(refusal('bad_content'));
  });

  it('finds names in any case: a case variant cannot bypass the overwrite guard', async () => {
    await h.run(fileWrite, { path: '/python_scripts/Case.txt', content: 'original' });
    await expect(h.run(fileWrite, { path: '/PYTHON_SCRIPTS/CASE.TXT', content: 'clobber' })).rejects.toEqual(
      refusal('exists'),
    );
    expect(await h.python("fs_read('/python_scripts/Case.txt')")).toBe('original');
    expect((await h.run(fileRead, { path: '/python_scripts/case.txt' })).result.content).toBe('original');
    const replaced = await h.run(fileWrite, {
      path: '/python_scripts/CASE.txt',
      content: 'new',
      overwrite: true,
    });
    expect(replaced.result).toMatchObject({ replaced: true, size_bytes: 3 });
    // FAT keeps the name the file was made with.
    const names = (await h.run<{ entries: { name: string }[] }>(fileList, { path: '/python_scripts' })).result
      .entries;
    expect(names.map((e) => e.name)).toContain('Case.txt');
    await h.run(fileDelete, { path: '/Python_Scripts/case.TXT' });
    expect(await h.python("fs_exists('/python_scripts/Case.txt')")).toBe(false);
  });

  it('guards files the listing never shows: hidden names', async () => {
    await run("f = open('/.secret', 'w'); f.write('keep'); f.close()");
    const root = (await h.run<{ entries: { name: string }[] }>(fileList)).result.entries;
    expect(root.map((e) => e.name)).not.toContain('.secret');
    await expect(h.run(fileWrite, { path: '/.secret', content: 'x' })).rejects.toEqual(refusal('exists'));
    expect((await h.run(fileRead, { path: '/.secret' })).result.content).toBe('keep');
  });

  it('lists names with commas as one entry, reports a cut listing, and refuses to make comma names', async () => {
    await run("import os\nos.mkdir('/lst')\nfs_write('/lst/a,b.txt', 'xyz')\nos.mkdir('/lst/c,d')");
    const listed = await h.run<{ entries: unknown[]; truncated: boolean }>(fileList, { path: '/lst' });
    expect(listed.result.entries).toEqual([
      { name: 'a,b.txt', kind: 'file', size_bytes: 3 },
      { name: 'c,d', kind: 'dir', size_bytes: 0 },
    ]);
    expect(listed.result.truncated).toBe(false);
    await expect(h.run(fileWrite, { path: '/lst/e,f.txt', content: 'x' })).rejects.toEqual(
      refusal('bad_path'),
    );
    await run("os.mkdir('/many')\nfor i in range(60):\n    fs_write('/many/%02d%s' % (i, 'n' * 38), str(i))");
    const many = await h.run<{ entries: { name: string; size_bytes: number }[]; truncated: boolean }>(
      fileList,
      {
        path: '/many',
      },
    );
    expect(many.result.truncated).toBe(true);
    expect(many.result.entries.length).toBeGreaterThan(40);
    expect(many.result.entries.length).toBeLessThan(60);
    for (const entry of many.result.entries) expect(entry.name).toMatch(/^\d\dn{38}$/);
    // Past the cut a file is still found for the overwrite guard.
    await expect(h.run(fileWrite, { path: `/many/59${'n'.repeat(38)}`, content: 'x' })).rejects.toEqual(
      refusal('exists'),
    );
  });

  it('says so when the board cannot list a folder holding a name that is not UTF-8', async () => {
    await run("import os\nos.mkdir('/odd')\nf = jfs.open(b'/odd/caf\\x82.txt', 'w'); f.close()");
    await expect(h.run(fileList, { path: '/odd' })).rejects.toEqual(refusal('unreadable'));
    await run("jfs.remove(b'/odd/caf\\x82.txt')");
  });

  it('writes land even when a script holds the 4 tracked files open (it flushes before close)', async () => {
    await h.run(fileList);
    // In one job, as on the board: 4 files held open, then a 5th handle, which close() does not flush.
    const holding = (then: string) =>
      h.python(
        `(lambda held: [${then}, [f.close() for f in held]][0])([open('/held%d.txt' % i, 'w') for i in range(4)])`,
      );
    await holding("(lambda f: (f.write('gone'), f.close()))(open('/lost.txt', 'w'))");
    expect(await h.python("fs_read('/lost.txt')")).toBe('');
    expect(
      await holding(`_jlt.file_put('/kept.txt', True, 0, '${Buffer.from('still here').toString('hex')}')`),
    ).toBe(10);
    expect(await h.python("fs_read('/kept.txt')")).toBe('still here');
  });

  it('refuses reading directories and missing files, and writing where no directory is', async () => {
    await expect(h.run(fileRead, { path: '/missing.txt' })).rejects.toEqual(refusal('not_found'));
    await expect(h.run(fileRead, { path: '/slots' })).rejects.toEqual(refusal('is_directory'));
    await expect(h.run(fileWrite, { path: '/no/such/dir.txt', content: 'x' })).rejects.toEqual(
      refusal('not_found'),
    );
    await expect(h.run(fileWrite, { path: '/slots', content: 'x', overwrite: true })).rejects.toEqual(
      refusal('is_directory'),
    );
  });

  it('deletes a file, verified, and refuses directories and missing files', async () => {
    await h.run(fileWrite, { path: '/gone.txt', content: 'bye' });
    expect((await h.run(fileDelete, { path: '/gone.txt' })).result).toEqual({
      path: '/gone.txt',
      deleted: true,
    });
    expect(await h.python("fs_exists('/gone.txt')")).toBe(false);
    await expect(h.run(fileDelete, { path: '/gone.txt' })).rejects.toEqual(refusal('not_found'));
    await expect(h.run(fileDelete, { path: '/slots' })).rejects.toEqual(refusal('is_directory'));
    await expect(h.run(fileDelete, { path: '/' })).rejects.toEqual(refusal('is_directory'));
    expect(await h.python("fs_exists('/slots')")).toBe(true);
  });

  it('validates paths', () => {
    for (const bad of [
      '',
      'config.txt',
      '/a/../b',
      '/..',
      '/./x',
      '//x',
      '/a\nb',
      '/a\x00',
      '/é',
      '/a:b',
      '/a*',
      '/ a',
      '/a.',
      `/${'x'.repeat(64)}`,
      `/${'x'.repeat(300)}`,
    ]) {
      expect(() => checkPath(bad), bad).toThrow(ToolError);
    }
    expect(checkPath('/python_scripts/lib/')).toBe('/python_scripts/lib');
    expect(checkPath('/my file.txt')).toBe('/my file.txt');
    expect(checkPath(`/${'x'.repeat(63)}`)).toBe(`/${'x'.repeat(63)}`);
  });

  it('round-trips every hostile string as content, and refuses or takes it literally as a path', async () => {
    await h.python("fs_write('/canary.txt', 'alive')");
    let roundTrips = 0;
    for (const s of hostileStrings()) {
      const wrote = await h.run(fileWrite, { path: '/fuzz.txt', content: s, overwrite: true }).then(
        () => true,
        (e: unknown) => e,
      );
      if (wrote === true) {
        const { result } = await h.run(fileRead, { path: '/fuzz.txt', max_bytes: READ_MAX_BYTES });
        expect(result.content).toBe(s);
        roundTrips++;
      } else {
        expect(wrote).toEqual(refusal('bad_text'));
      }

      const asPath = await h.run(fileWrite, { path: s, content: 'p' }).then(
        (r) => r.result as { path: string },
        (e: unknown) => e as Error,
      );
      if (asPath instanceof Error) {
        expect(asPath.message.length).toBeGreaterThan(0);
      } else {
        // Accepted only as the same absolute path, and it is there.
        expect(asPath.path).toBe(s.replace(/\/$/, ''));
        expect((await h.run(fileRead, { path: s })).result.content).toBe('p');
        await h.run(fileDelete, { path: s });
      }
    }
    expect(roundTrips).toBeGreaterThan(200);
    for (const s of hostileStrings()) {
      // The other path arguments: refused, or the literal path answered for (mostly: not there).
      for (const [tool, args] of [
        [fileList, { path: s }],
        [fileRead, { path: s }],
        [fileDelete, { path: s }],
      ] as const) {
        const outcome = await h.run(tool, args).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (outcome instanceof ToolError)
          expect(['bad_path', 'not_found', 'is_directory']).toContain(outcome.code);
        else if (outcome !== undefined) expect(s.length).toBeGreaterThan(255);
      }
      expect(fileWrite.input.safeParse({ path: '/x', content: '', encoding: s }).success).toBe(
        s === 'base64',
      );
    }
    expect(await h.python("fs_read('/canary.txt')")).toBe('alive');
    expect(await h.python("fs_exists('/config.txt')")).toBe(true);
  }, 120_000);
});
