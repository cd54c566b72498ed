/**
 * Meta-tests over whatever the catalog holds (STYLE.md §12), so they keep up as groups land, and
 * the toolsnaps: each tool's definition as clients see it, in src/tools/__toolsnaps__/<name>.snap.
 * A drift fails; `UPDATE_TOOLSNAPS=1` rewrites; a missing snap fails when CI is set.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalog } from '../tools/index.js';
import { TOOLSET_NAMES, TOOLSETS, toolsetOf } from '../tools/toolsets.js';
import { CAPABILITIES } from './capabilities.js';
import { createDispatcher } from './dispatcher.js';
import { runTool } from './runTool.js';
import { describeTool, ToolSubsystem } from './toolSubsystem.js';

const SNAP_DIR = join(import.meta.dirname, '..', 'tools', '__toolsnaps__');
const KINDS = ['read', 'write', 'physical', 'destructive'];

/** JSON with object keys sorted at every level, so snaps do not churn on key order. */
function sortedJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}

describe('catalog', () => {
  it('has tools, in groups none of which is empty: every group a toolset names holds a tool, every tool is in one', () => {
    expect(catalog.length).toBeGreaterThan(0);
    const toolsIn = (group: string) => catalog.filter((tool) => tool.group === group).length;
    for (const name of TOOLSET_NAMES) {
      for (const group of TOOLSETS[name].groups)
        expect(toolsIn(group), `${name}: ${group}`).toBeGreaterThan(0);
    }
    for (const tool of catalog) {
      expect(tool.group, tool.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(toolsetOf(tool.group), `${tool.name} (group ${tool.group}) is in no toolset`).toBeDefined();
    }
  });

  it('names tools uniquely, snake_case, at most 40 characters (room for mcp__<server>__ within 64)', () => {
    expect(() =>
      createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: catalog }) }),
    ).not.toThrow();
    for (const tool of catalog) {
      expect(tool.name, tool.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(tool.name.length, tool.name).toBeLessThanOrEqual(40);
    }
  });

  it('gives every tool a title, a description, a kind and a known capability', () => {
    for (const tool of catalog) {
      expect(tool.title.trim(), tool.name).not.toBe('');
      expect(tool.description.trim().length, tool.name).toBeGreaterThan(10);
      expect(KINDS, tool.name).toContain(tool.kind);
      expect(CAPABILITIES, tool.name).toContain(tool.capability);
      if (tool.timeoutMs !== undefined) expect(tool.timeoutMs, tool.name).toBeGreaterThan(0);
    }
  });

  it('has object schemas with no top-level anyOf/oneOf/allOf (clients reject them)', () => {
    for (const tool of catalog) {
      const { inputSchema, outputSchema } = describeTool(tool);
      for (const schema of [inputSchema, outputSchema]) {
        expect(schema?.type, tool.name).toBe('object');
        for (const key of ['anyOf', 'oneOf', 'allOf', '$schema'])
          expect(schema, tool.name).not.toHaveProperty(key);
      }
    }
  });

  it('keeps hidden tools out of the list and callable by name', async () => {
    const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: catalog }) });
    const listed = new Set(dispatcher.registry.listed().map((t) => t.definition.name));
    const hidden = catalog.filter((t) => t.hidden);
    for (const tool of hidden) {
      expect(listed.has(tool.name), tool.name).toBe(false);
      // Reaches the tool (no board here, so it fails as a tool, not as an unknown name).
      const result = await runTool(dispatcher, {
        name: tool.name,
        arguments: {},
        caller: { id: 'test', granted: new Set(CAPABILITIES) },
      }).catch((error: { code?: number; message?: string }) => error);
      expect((result as { message?: string }).message ?? '', tool.name).not.toMatch(/Unknown tool/);
    }
  });
});

describe('toolsnaps', () => {
  const update = process.env.UPDATE_TOOLSNAPS === '1';
  it.each(catalog.map((tool) => [tool.name, tool] as const))('%s matches its snap', (name, tool) => {
    const file = join(SNAP_DIR, `${name}.snap`);
    const actual = sortedJson(describeTool(tool));
    if (update || (!existsSync(file) && !process.env.CI)) {
      mkdirSync(SNAP_DIR, { recursive: true });
      writeFileSync(file, actual);
      return;
    }
    expect(
      existsSync(file),
      `${file} is missing: run UPDATE_TOOLSNAPS=1 npx vitest run src/core/catalog.test.ts`,
    ).toBe(true);
    expect(actual, `${name} drifted from its snap: review, then UPDATE_TOOLSNAPS=1`).toBe(
      readFileSync(file, 'utf8'),
    );
  });

  it('has no snap for a tool that is gone', () => {
    if (!existsSync(SNAP_DIR)) return;
    const names = new Set(catalog.map((t) => t.name));
    const stale = readdirSync(SNAP_DIR)
      .filter((f) => f.endsWith('.snap'))
      .map((f) => f.slice(0, -5))
      .filter((n) => !names.has(n));
    expect(stale).toEqual([]);
  });
});
