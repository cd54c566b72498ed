import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleSources, withoutLoaders } from './sourceWorker.js';

describe('the VM worker bundled from sources', () => {
  // Inside the checkout, so that its packages are found as they are from src/.
  const cache = join(import.meta.dirname, '..', '..', 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'jl-bundle-test-'));
  const entry = join(dir, 'entry.ts');
  const part = join(dir, 'part.ts');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const load = async (path: string) =>
    (await import(`${pathToFileURL(path).href}?${statSync(path).mtimeMs}`)) as {
      where: string;
      value: number;
      parsed: unknown;
    };

  it('runs as the sources do: packages from where they are installed, each module its own import.meta.url', async () => {
    writeFileSync(part, 'export const value: number = 1;\nexport const partUrl = import.meta.url;\n');
    writeFileSync(
      entry,
      [
        "import { z } from 'zod';",
        "import { value, partUrl } from './part.js';",
        "export const where = import.meta.url + ' ' + partUrl;",
        'export { value };',
        "export const parsed = z.object({ a: z.number() }).safeParse({ a: 'x' }).success;",
      ].join('\n'),
    );
    const bundle = await bundleSources(entry);
    const loaded = await load(bundle);
    expect(loaded.where).toBe(`${pathToFileURL(entry).href} ${pathToFileURL(part).href}`);
    expect(loaded.value).toBe(1);
    expect(loaded.parsed).toBe(false);
  });

  it('is made again when a source it was made from changes, and reused while none does', async () => {
    const first = await bundleSources(entry);
    const madeAt = statSync(first).mtimeMs;
    expect(await bundleSources(entry)).toBe(first);
    expect(statSync(first).mtimeMs).toBe(madeAt);
    writeFileSync(part, 'export const value: number = 2;\nexport const partUrl = import.meta.url;\n');
    expect(await bundleSources(entry)).toBe(first);
    expect((await load(first)).value).toBe(2);
  });

  it('starts its thread without the loaders that run the sources', () => {
    expect(
      withoutLoaders([
        '--import',
        'tsx',
        '--conditions',
        'node',
        '--require=/x/suppress.cjs',
        '-r',
        'a.cjs',
        '--loader',
        'l.mjs',
        '--enable-source-maps',
      ]),
    ).toEqual(['--conditions', 'node', '--enable-source-maps']);
  });
});
