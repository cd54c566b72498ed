import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPath, fileDelete, fileList, fileRead, fileWrite } from './files.js';
import { hostileStrings } from './hostileStrings.js';
import { startToolHarness, type ToolHarness } from './testHarness.js';
import { ToolError } from './tool.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());

const refusal = (code: string) => expect.objectContaining({ code });

describe('file tools', () => {
  it('lists a directory with kinds, sizes and free space', async () => {
    const { result } = await h.run(fileList);
    expect(result.path).toBe('/');
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
    const appended = await h.run(fileWrite, { path: '/python_scripts/t.py', content: 'cd', append: true });
    expect(appended.result).toMatchObject({ size_bytes: 4, replaced: false });
    expect((await h.run(fileRead, { path: '/python_scripts/t.py' })).result.content).toBe('abcd');
  });

  it('writes and reads binary as base64, in chunks, with offsets', async () => {
    const bytes = Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7) % 256));
    const { result } = await h.run(fileWrite, {
      path: '/images/blob.bin',
      content: bytes.toString('base64'),
      encoding: 'base64',
    });
    expect(result).toMatchObject({ size_bytes: 20_000 });
    const all = await h.run<{ content: string }>(fileRead, { path: '/images/blob.bin', max_bytes: 65536 });
    expect(all.result).toMatchObject({ encoding: 'base64', read_bytes: 20_000, truncated: false });
    expect(Buffer.from(all.result.content, 'base64').equals(bytes)).toBe(true);
    const part = await h.run<{ content: string }>(fileRead, {
      path: '/images/blob.bin',
      offset_bytes: 10_000,
      max_bytes: 100,
    });
    expect(part.result).toMatchObject({ read_bytes: 100, truncated: true, offset_bytes: 10_000 });
    expect(Buffer.from(part.result.content, 'base64').equals(bytes.subarray(10_000, 10_100))).toBe(true);
    await expect(
      h.run(fileWrite, { path: '/x.bin', content: 'not base64!', encoding: 'base64' }),
    ).rejects.toEqual(refusal('bad_content'));
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
      `/${'x'.repeat(300)}`,
    ]) {
      expect(() => checkPath(bad), bad).toThrow(ToolError);
    }
    expect(checkPath('/python_scripts/lib/')).toBe('/python_scripts/lib');
    expect(checkPath('/my file.txt')).toBe('/my file.txt');
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
        const { result } = await h.run(fileRead, { path: '/fuzz.txt', max_bytes: 65536 });
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
