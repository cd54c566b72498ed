/**
 * A task bench scenario over MCP, as a model trial reaches the board: served over HTTP by the real
 * server, and through the trial's one-call client (mcp.ts).
 */
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from './scenarios.js';

describe('task bench: a scenario served over MCP, as a model trial reaches it', () => {
  it('serves the parts and setup over HTTP; a caller granted exec saves and runs a script; the board checks out', async () => {
    const { fileURLToPath } = await import('node:url');
    const { resolveConfig } = await import('../../src/cli/config.js');
    const { runHttp } = await import('../../src/cli/serve.js');
    const { mcpConnection } = await import('./connection.js');
    const { setUp } = await import('./replay.js');
    const served = async (id: string) => {
      const scenario = SCENARIOS.find((s) => s.id === id);
      if (!scenario) throw new Error(id);
      const parts = scenario.parts
        ? fileURLToPath(new URL(`./parts/${scenario.parts}`, import.meta.url))
        : undefined;
      const { app, http } = await runHttp(
        resolveConfig({ sim: parts ?? true, http: '127.0.0.1:0', anonymousCaps: '*' }, {}),
      );
      const c = await mcpConnection(http.url);
      try {
        expect(await setUp(c, scenario)).toEqual([]);
        const outcomes = [];
        for (const step of scenario.solution) outcomes.push(await c.call(step.tool, step.args));
        expect(scenario.answer(outcomes)).toEqual([]);
        expect(await scenario.board(c)).toEqual([]);
      } finally {
        await c.close();
        await http.close();
        await app.close();
      }
    };
    await served('script_blink');
    await served('reversed_led');
  }, 60_000);
});

describe("task bench: the trial's one-call client (mcp.ts)", () => {
  it('prints what MCP returns for a call and for a refused request, and logs each request', async () => {
    const { execFile } = await import('node:child_process');
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { fileURLToPath } = await import('node:url');
    const { resolveConfig } = await import('../../src/cli/config.js');
    const { runHttp } = await import('../../src/cli/serve.js');
    const parts = fileURLToPath(new URL('./parts/divider.json', import.meta.url));
    const { app, http } = await runHttp(
      resolveConfig({ sim: parts, http: '127.0.0.1:0', anonymousCaps: '*' }, {}),
    );
    const log = join(mkdtempSync(join(tmpdir(), 'trial-')), 'log.jsonl');
    const cli = (...args: string[]) =>
      new Promise<{ code: number; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', fileURLToPath(new URL('./mcp.ts', import.meta.url)), http.url, ...args],
          { env: { ...process.env, JUMPERLESS_TRIAL_LOG: log } },
          (error, stdout) => resolve({ code: error ? Number(error.code) : 0, stdout }),
        );
      });
    try {
      const measured = await cli('call', 'voltage_measure', '{"node": 10}');
      expect(measured.code).toBe(0);
      const result = JSON.parse(measured.stdout) as {
        content: Array<{ type: string; text: string }>;
        structuredContent: { volts: number };
      };
      expect(result.structuredContent.volts).toBeCloseTo(2.5, 1);
      expect(JSON.parse(result.content[0]?.text ?? '{}')).toEqual(result.structuredContent);
      const unknown = await cli('call', 'no_such_tool');
      expect(unknown.code).toBe(1);
      expect(JSON.parse(unknown.stdout)).toMatchObject({ error: { code: -32602 } });
      const lines = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toEqual([
        {
          command: 'call',
          args: ['voltage_measure', '{"node": 10}'],
          isError: false,
          bytes: expect.any(Number),
        },
        { command: 'call', args: ['no_such_tool'], isError: true, bytes: expect.any(Number) },
      ]);
      expect(lines[0].bytes).toBe(Buffer.byteLength(result.content[0]?.text ?? ''));
    } finally {
      await http.close();
      await app.close();
    }
  }, 60_000);
});
