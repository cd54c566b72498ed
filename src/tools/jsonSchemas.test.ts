/** The JSON Schemas the build writes are the ones zod gives, and are used only for their own tool. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { catalog } from './index.js';
import {
  jsonSchemaOf,
  precomputeSchemas,
  readPrecomputedSchemas,
  SCHEMAS_FILE,
  schemasOf,
} from './jsonSchemas.js';

const dir = mkdtempSync(join(tmpdir(), 'jl-schemas-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const written = () => {
  const file = join(dir, SCHEMAS_FILE);
  writeFileSync(file, JSON.stringify(precomputeSchemas(catalog)));
  return readPrecomputedSchemas(pathToFileURL(file));
};

describe('schemas computed at build time', () => {
  it('read back from the file, are exactly what zod gives for every tool of the catalog', () => {
    const fromFile = written();
    expect(Object.keys(fromFile ?? {})).toHaveLength(catalog.length);
    for (const tool of catalog) {
      expect(fromFile?.[tool.name]?.input, tool.name).toStrictEqual(jsonSchemaOf(tool.input, 'input'));
      expect(fromFile?.[tool.name]?.output, tool.name).toStrictEqual(jsonSchemaOf(tool.output, 'output'));
    }
  });

  it('are used for the tool they were made from, and not for another tool of the same name', () => {
    const fromFile = written();
    const tool = catalog[0];
    if (!tool || !fromFile) throw new Error('the catalog is empty');
    expect(schemasOf(tool, fromFile).input).toBe(fromFile[tool.name]?.input);
    const other = { ...tool, description: `${tool.description} (changed)` };
    expect(schemasOf(other, fromFile).input).not.toBe(fromFile[tool.name]?.input);
    expect(schemasOf(other, fromFile).input).toStrictEqual(jsonSchemaOf(tool.input, 'input'));
    const regrouped = { ...tool, group: 'elsewhere' };
    expect(schemasOf(regrouped, fromFile).input).not.toBe(fromFile[tool.name]?.input);
  });

  it('are absent without the file (running from src/), and then come from zod', () => {
    expect(readPrecomputedSchemas(pathToFileURL(join(dir, 'none.json')))).toBeUndefined();
    const tool = catalog[0];
    if (!tool) throw new Error('the catalog is empty');
    expect(schemasOf(tool, undefined).output).toStrictEqual(jsonSchemaOf(tool.output, 'output'));
  });
});
