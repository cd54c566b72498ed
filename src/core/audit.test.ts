import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fileAuditSink } from './audit.js';
import { CAPABILITIES } from './capabilities.js';
import { createDispatcher } from './dispatcher.js';
import { runTool } from './runTool.js';
import { defineTool } from './toolDefinition.js';
import { ToolSubsystem } from './toolSubsystem.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('fileAuditSink', () => {
  it('appends one JSON line per call, to an existing file too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jl-audit-'));
    dirs.push(dir);
    const path = join(dir, 'audit.jsonl');
    const ping = defineTool({
      name: 'ping',
      title: 'Ping',
      description: 'Answers.',
      group: 'test',
      kind: 'read',
      capability: 'jumperless.read',
      input: z.object({}),
      output: z.object({}),
      handle: async () => ({}),
    });
    const caller = { id: 'stdio', granted: new Set(CAPABILITIES) };
    for (const round of [1, 2]) {
      const audit = fileAuditSink(path);
      const dispatcher = createDispatcher({
        root: new ToolSubsystem({ name: 'local', tools: [ping] }),
        audit,
      });
      await runTool(dispatcher, { name: 'ping', caller });
      await runTool(dispatcher, { name: 'nope', caller }).catch(() => {});
      await audit.close();
      const lines = readFileSync(path, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(round * 2);
    }
    const events = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.map((e) => `${e.tool}:${e.outcome}`)).toEqual([
      'ping:ok',
      'nope:unknown_tool',
      'ping:ok',
      'nope:unknown_tool',
    ]);
    expect(events[0]).toMatchObject({
      caller: 'stdio',
      time: expect.any(String),
      durationMs: expect.any(Number),
    });
  });

  it('does not throw when the file cannot be written', async () => {
    const audit = fileAuditSink('/nonexistent-dir/audit.jsonl');
    expect(() =>
      audit({ time: '', callId: '', caller: '', tool: 't', outcome: 'ok', durationMs: 0 }),
    ).not.toThrow();
    await audit.close();
  });
});
