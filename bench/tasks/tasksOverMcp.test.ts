/**
 * A task bench scenario over MCP, as a model trial reaches the board: served over HTTP by the real
 * server, and through the trial's one-call client (mcp.ts).
 */
import { describe, expect, it } from 'vitest';
import { trapsTaken } from './replay.js';
import { SCENARIOS } from './scenarios.js';

describe('task bench: a scenario served over MCP, as a model trial reaches it', () => {
  it('serves the parts and setup over HTTP; a caller granted exec saves and runs a script; leases are held by the trial token and by another person; a hazard asks in the board app; the board checks out', async () => {
    const { serveScenario } = await import('./serve.js');
    const served = async (id: string) => {
      const scenario = SCENARIOS.find((s) => s.id === id);
      if (!scenario) throw new Error(id);
      const { connection: c, person, close } = await serveScenario(scenario);
      try {
        const outcomes = [];
        for (const step of scenario.solution) outcomes.push(await c.call(step.tool, step.args));
        expect(scenario.answer(outcomes)).toEqual([]);
        expect(await scenario.board(c)).toEqual([]);
        expect(await trapsTaken(c, scenario)).toEqual([]);
        return { outcomes, person, holder: c.holder };
      } finally {
        await close();
      }
    };
    await served('script_blink');
    await served('reversed_led');
    // The other person's lease is held under their token, and the refusal names it.
    const held = await served('held_board');
    expect(held.outcomes[0]?.result.leasedTo).toBe(held.holder('lab_partner'));
    expect(held.holder('lab_partner')).toMatch(/^http:token:tok_/);
    // The trial's own lease is held under the trial's token.
    const leased = await served('lease_for_a_job');
    expect(leased.outcomes[0]?.result.holder).toBe(leased.person.holder);
    // A host that renders the board app: the first call asks there, the person's yes lets the retry run.
    const asked = await served('supply_yes_in_app');
    expect(asked.outcomes.map((o) => o.result.code)).toEqual(['confirmation_pending', undefined]);
  }, 120_000);
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

describe("task bench: the trial's one-call client (mcp.ts) as a host that renders the board app", () => {
  it('shows the model the question, answers it in the app as the person, and the same call again runs', async () => {
    const { execFile } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const { serveScenario } = await import('./serve.js');
    const scenario = SCENARIOS.find((s) => s.id === 'supply_yes_in_app');
    if (!scenario?.appAnswer) throw new Error('supply_yes_in_app');
    const { url, person, connection, close } = await serveScenario(scenario);
    const cli = (...args: string[]) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          JUMPERLESS_TRIAL_TOKEN: person.token,
          JUMPERLESS_TRIAL_APP_ANSWER: scenario.appAnswer,
        };
        delete env.JUMPERLESS_TRIAL_LOG;
        execFile(
          process.execPath,
          ['--import', 'tsx', fileURLToPath(new URL('./mcp.ts', import.meta.url)), url, ...args],
          { env },
          (error, stdout, stderr) => {
            try {
              const printed = JSON.parse(stdout) as { content: Array<{ text: string }>; isError?: boolean };
              resolve({
                ...JSON.parse(printed.content[0]?.text ?? '{}'),
                isError: printed.isError === true,
                relayed: stderr,
              });
            } catch {
              reject(error ?? new Error(stdout));
            }
          },
        );
      });
    try {
      const args = '{"channel": "TOP_RAIL", "volts": 6}';
      const asked = await cli('call', 'dac_set', args);
      expect(asked).toMatchObject({ code: 'confirmation_pending', isError: true });
      // The app's word to the model, as a host relays it: the person's yes and what to do next.
      expect(asked.relayed).toMatch(
        /I said yes in the board view to: .*Call dac_set again with the same arguments now\./,
      );
      expect(await cli('call', 'dac_set', args)).toMatchObject({ volts: 6, isError: false });
      expect(await scenario.board(connection)).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);
});

describe("task bench: the trial's one-call client (mcp.ts) holds a lease", () => {
  it('with the token --serve prints, every command is one caller: it takes, uses, renews and releases its lease', async () => {
    const { execFile } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const { serveScenario } = await import('./serve.js');
    const divider = SCENARIOS.find((s) => s.id === 'divider');
    if (!divider) throw new Error('divider');
    const { url, person, close } = await serveScenario(divider);
    const cli = (token: string | undefined, ...args: string[]) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const env: NodeJS.ProcessEnv = { ...process.env };
        delete env.JUMPERLESS_TRIAL_LOG;
        if (token) env.JUMPERLESS_TRIAL_TOKEN = token;
        else delete env.JUMPERLESS_TRIAL_TOKEN;
        execFile(
          process.execPath,
          ['--import', 'tsx', fileURLToPath(new URL('./mcp.ts', import.meta.url)), url, ...args],
          { env },
          (error, stdout) => {
            try {
              const printed = JSON.parse(stdout) as { content: Array<{ text: string }>; isError?: boolean };
              resolve({ ...JSON.parse(printed.content[0]?.text ?? '{}'), isError: printed.isError === true });
            } catch {
              reject(error ?? new Error(stdout));
            }
          },
        );
      });
    try {
      const taken = await cli(person.token, 'call', 'board_lease', '{"minutes": 10}');
      expect(taken).toMatchObject({ holder: person.holder, isError: false });
      // The next command is a new MCP session, and still the lease's holder.
      expect(await cli(person.token, 'call', 'connect', '{"pairs": [[5, 6]]}')).toMatchObject({
        isError: false,
      });
      // Without the token a command is a caller of its own: refused, told who holds the board.
      expect(await cli(undefined, 'call', 'connect', '{"pairs": [[7, 8]]}')).toMatchObject({
        isError: true,
        code: 'busy',
        leasedTo: person.holder,
      });
      const renewed = await cli(person.token, 'call', 'board_lease', '{"minutes": 20}');
      expect(renewed).toMatchObject({ holder: person.holder, isError: false });
      expect(Date.parse(String(renewed.until))).toBeGreaterThan(Date.parse(String(taken.until)));
      expect(await cli(person.token, 'call', 'board_lease', '{"minutes": 0}')).toEqual({
        released: true,
        isError: false,
      });
      expect(await cli(undefined, 'call', 'connect', '{"pairs": [[7, 8]]}')).toMatchObject({
        isError: false,
      });
    } finally {
      await close();
    }
  }, 150_000);
});
