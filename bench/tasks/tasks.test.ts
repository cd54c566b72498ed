/**
 * Every reference solution of the task bench, replayed on the virtual board: the answer its results
 * give and the board it leaves must be what the truth says, within the budget a model can afford
 * (median calls per task <= 2, median result <= 1 KB).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { median, type Replay, replay } from './replay.js';
import { SCENARIOS } from './scenarios.js';

const replays: Replay[] = [];

describe('task bench: reference solutions on the virtual board', () => {
  it('has at least 15 scenarios, each with words, truth and a solution', () => {
    expect(SCENARIOS.length).toBeGreaterThanOrEqual(15);
    expect(new Set(SCENARIOS.map((s) => s.id)).size).toBe(SCENARIOS.length);
    for (const s of SCENARIOS) {
      expect(s.words.length, s.id).toBeGreaterThan(10);
      expect(s.truth.length, s.id).toBeGreaterThan(10);
      expect(s.solution.length, s.id).toBeGreaterThan(0);
    }
  });

  it.each(SCENARIOS.map((s) => [s.id, s] as const))(
    '%s: the solution answers right and leaves the board right',
    async (_id, scenario) => {
      const r = await replay(scenario);
      replays.push(r);
      expect(r.failures).toEqual([]);
    },
    60_000,
  );

  afterAll(() => {
    if (replays.length !== SCENARIOS.length) return;
    // Checked here rather than in a test of its own so that a single scenario can be run alone.
    const calls = median(replays.map((r) => r.calls));
    const bytes = median(replays.map((r) => r.bytes));
    if (calls > 2 || bytes > 1024) {
      throw new Error(`reference solutions over budget: median ${calls} calls, ${bytes} bytes`);
    }
  });
});

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
