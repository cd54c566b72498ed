/**
 * Every reference solution of the task bench, replayed on the virtual board: the answer its results
 * give and the board it leaves must be what the truth says, within the budget a model can afford
 * (median calls per task <= 2, median result <= 1 KB). The same over MCP, as a model trial reaches
 * the board: tasksOverMcp.test.ts (a file of its own so that the suite's two workers share them).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { virtualConnection } from './connection.js';
import { median, partsText, type Replay, replay, setUp } from './replay.js';
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

describe('task bench: the traps', () => {
  const traps = SCENARIOS.flatMap((s) =>
    (s.traps ?? []).map((trap) => [`${s.id}: ${trap.name}`, s, trap] as const),
  );

  it("the issue's traps each have a scenario that checks for them", () => {
    expect(traps.length).toBeGreaterThanOrEqual(5);
  });

  // Not taken after the reference solution: the replays above check that.
  it.each(traps)(
    '%s: seen on the board when taken',
    async (_name, scenario, trap) => {
      const text = partsText(scenario);
      const c = await virtualConnection({
        ...(text === undefined ? {} : { partsFileText: text }),
        noiseSeed: 20,
        ...(scenario.appAnswer ? { appAnswer: scenario.appAnswer } : {}),
      });
      try {
        expect(await setUp(c, scenario)).toEqual([]);
        for (const step of trap.take) {
          const o = await c.call(step.tool, step.args, step.as);
          expect(o.isError, `${step.tool}: ${JSON.stringify(o.result)}`).toBe(false);
        }
        expect(await trap.taken(c), 'taken after the trap').toBe(true);
      } finally {
        await c.close();
      }
    },
    60_000,
  );
});
