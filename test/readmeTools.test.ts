/** The README's tool table is the catalog's (scripts/toolTable.ts writes it): CI fails on drift. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README, readmeWithTable, renderToolTable } from '../scripts/toolTable.js';
import { catalog } from '../src/tools/index.js';

describe('README tool table', () => {
  it('is the table of the catalog as it is (npm run readme:tools rewrites it)', () => {
    const readme = readFileSync(README, 'utf8');
    expect(readmeWithTable(readme), 'README.md drifted: run npm run readme:tools').toBe(readme);
  });

  it('has a row for every tool', () => {
    const table = renderToolTable();
    for (const tool of catalog)
      expect(table, tool.name).toMatch(new RegExp(`^\\| \`${tool.name}\` +\\|`, 'm'));
  });
});
