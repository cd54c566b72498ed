/**
 * `npm run lab:demo` end to end (issue 26 item 5): three virtual boards on ptys behind Debian's
 * ser2net over RFC 2217, the real CLI federating them over HTTP with bearer tokens, and two SDK
 * clients: one holds a lease on board-1 and works it while the other reads it, is refused a
 * change with who holds it, and works board-2. Then the script itself, run as a user runs it.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connect,
  LAB_MISSING,
  type Lab,
  leaseScene,
  type SceneStep,
  startLab,
} from '../../scripts/labDemo.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

if (LAB_MISSING) process.stderr.write(`skipping the lab demo test: ${LAB_MISSING}\n`);

describe.skipIf(LAB_MISSING !== undefined)('the lab in one command', () => {
  let lab: Lab;
  let steps: SceneStep[];

  beforeAll(async () => {
    lab = await startLab({ boards: 3 });
    steps = await leaseScene(lab);
  }, 120_000);

  afterAll(async () => {
    await lab?.stop();
  }, 30_000);

  it('brings up every board behind ser2net and one gateway, and says how long each step took', () => {
    expect(lab.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(lab.boards.map((board) => board.name)).toEqual(['board-1', 'board-2', 'board-3']);
    for (const board of lab.boards) expect(board.device).toMatch(/^rfc2217:\/\/127\.0\.0\.1:\d+$/);
    const { boards, ser2net, gateway, firstCalls } = lab.upMs;
    expect(boards).toBeLessThanOrEqual(ser2net);
    expect(ser2net).toBeLessThanOrEqual(gateway);
    expect(gateway).toBeLessThanOrEqual(firstCalls);
  });

  it('lets the holder work board-1 while the reader reads it and is refused a change, with who and until when', () => {
    const [take, set, read, refused, other, again, readAgain, release, after] = steps;
    expect(take).toMatchObject({ who: 'holder', isError: false });
    const { holder, until } = (take?.answer ?? {}) as { holder?: string; until?: string };
    expect(holder).toMatch(/^http:token:tok_/);
    expect(set).toMatchObject({ isError: false, answer: { volts: 1.5 } });
    expect(read).toMatchObject({ who: 'reader', isError: false, answer: { dac1_volts: 1.5 } });
    expect(refused).toMatchObject({
      who: 'reader',
      tool: 'board-1_dac_set',
      isError: true,
      answer: { code: 'busy', leasedTo: holder, until },
    });
    // The other boards are not held: the reader works board-2 meanwhile.
    expect(other).toMatchObject({
      who: 'reader',
      tool: 'board-2_dac_set',
      isError: false,
      answer: { volts: 2.5 },
    });
    expect(again).toMatchObject({
      who: 'holder',
      isError: false,
      answer: { volts: 3.3, previous_volts: 1.5 },
    });
    // The refused change sent nothing: board-1 holds the holder's value.
    expect(readAgain).toMatchObject({ who: 'reader', answer: { dac1_volts: 3.3 } });
    expect(release).toMatchObject({ who: 'holder', isError: false, answer: {} });
    expect(after).toMatchObject({ who: 'reader', isError: false, answer: { volts: 0, previous_volts: 3.3 } });
  });

  it("each board is its own: board-3 was never touched, board-2 kept the reader's value", async () => {
    const client = await connect(lab.url, lab.tokens.reader, 'lab-check');
    try {
      const two = await client.callTool({ name: 'board-2_power_get', arguments: {} });
      const three = await client.callTool({ name: 'board-3_power_get', arguments: {} });
      expect(two.structuredContent).toMatchObject({ dac1_volts: 2.5 });
      expect(three.structuredContent).toMatchObject({ dac1_volts: 0 });
    } finally {
      await client.close();
    }
  });

  it('refuses a caller without a token', async () => {
    const response = await fetch(lab.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
  });
});

describe.skipIf(LAB_MISSING !== undefined)('npm run lab:demo -- --once', () => {
  it('prints the endpoint, the boards and the scene, and exits cleanly', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/labDemo.ts', '--boards', '2', '--once'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/The lab is up in \d+ ms\. MCP endpoint: http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(run.stdout).toMatch(/board-2: rfc2217:\/\/127\.0\.0\.1:\d+ \(ser2net, RFC 2217\)/);
    expect(run.stdout).toMatch(/reader board-1_dac_set .* -> refused \{"code":"busy"/);
  }, 130_000);
});
