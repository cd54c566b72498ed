/**
 * A bench is the same server as one board (issue 11 "one app"): prompts, board resources with the
 * device in their URI, completions and link-event logs per board; a remote jumperless-mcp child's
 * hidden tools callable by whoever holds their capability; a child's question put to the caller.
 * A virtual board and a remote server over real Streamable HTTP, the real SDK client in process.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/cli/app.js';
import { DEFAULT_CONFIG } from '../../src/cli/config.js';
import { ANONYMOUS_CAPABILITIES, CAPABILITIES, type Capability } from '../../src/core/capabilities.js';
import { type HttpFixture, startHttpFixture } from './serverFixture.js';

/** What an anonymous HTTP caller holds by default. */
const ANONYMOUS = new Set(ANONYMOUS_CAPABILITIES);

const EVERYTHING = new Set<Capability>(CAPABILITIES);
const dir = mkdtempSync(join(tmpdir(), 'bench-app-'));
let remote: HttpFixture;
let bench: App;
let operator: Client;
let anonymous: Client;
const logs: string[] = [];
const questions: string[] = [];

async function clientOf(granted: ReadonlySet<Capability>, elicitation: boolean): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await bench
    .createServer(() => ({ id: `test:${granted.size}`, granted }), { era: 'legacy' })
    .server.connect(serverSide);
  const client = new Client(
    { name: 'bench-app', version: '0' },
    { capabilities: elicitation ? { elicitation: {} } : {} },
  );
  await client.connect(clientSide);
  return client;
}

beforeAll(async () => {
  // The remote grants this gateway everything: what a caller may do is decided at the gateway.
  remote = await startHttpFixture({}, EVERYTHING);
  const file = join(dir, 'bench.json');
  writeFileSync(
    file,
    JSON.stringify({
      name: 'bench',
      children: [
        { name: 'jumperless-a', type: 'jumperless', device: 'sim' },
        { name: 'jumperless-b', type: 'jumperless', device: 'sim' },
        { name: 'remote', type: 'http', url: remote.url },
      ],
    }),
  );
  bench = await buildApp({ ...DEFAULT_CONFIG, federation: file });
  await bench.ready();
  operator = await clientOf(EVERYTHING, true);
  operator.setNotificationHandler('notifications/message', (n) => {
    logs.push(String(n.params.data));
  });
  operator.setRequestHandler('elicitation/create', async (request) => {
    questions.push(String(request.params.message));
    return { action: 'accept' };
  });
  anonymous = await clientOf(ANONYMOUS, false);
}, 60_000);

afterAll(async () => {
  await operator?.close();
  await anonymous?.close();
  await bench?.close();
  await remote?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a bench of a board and a remote server', () => {
  it('offers each board prompt under the device prefix, saying which device it is for, with completions', async () => {
    const { prompts } = await operator.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      'jumperless-a_measure_resistor',
      'jumperless-a_build_voltage_divider',
      'jumperless-a_debug_circuit',
      'jumperless-b_measure_resistor',
      'jumperless-b_build_voltage_divider',
      'jumperless-b_debug_circuit',
    ]);
    const got = await operator.getPrompt({
      name: 'jumperless-a_measure_resistor',
      arguments: { row_a: '10', row_b: '20' },
    });
    const text = (got.messages[0]?.content as { text?: string } | undefined)?.text ?? '';
    expect(text).toMatch(/^This is about the device jumperless-a/);
    expect(text).toContain('between row 10 and row 20');
    const completion = await operator.complete({
      ref: { type: 'ref/prompt', name: 'jumperless-a_measure_resistor' },
      argument: { name: 'row_a', value: '5' },
    });
    expect(completion.completion.values).toEqual([
      '5',
      '50',
      '51',
      '52',
      '53',
      '54',
      '55',
      '56',
      '57',
      '58',
      '59',
    ]);
  });

  it("lists each board's resources with the device in the URI, and reads them from that board", async () => {
    const { resources } = await operator.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        'jumperless://jumperless-a/board/state',
        'jumperless://jumperless-a/board/picture',
        'federation://health',
      ]),
    );
    await operator.callTool({ name: 'jumperless-a_dac_set', arguments: { channel: 'DAC1', volts: 1.5 } });
    const state = await operator.readResource({ uri: 'jumperless://jumperless-a/board/state' });
    expect(JSON.parse((state.contents[0] as { text: string }).text).power.dac1).toBeCloseTo(1.5, 3);
    await expect(operator.readResource({ uri: 'jumperless://board/state' })).rejects.toThrow(/not found/);
  });

  it('keeps what a tool remembers per board apart, from the first call of each board on', async () => {
    // Both virtual boards open at their first call: each board's undo list is its own.
    const b = await operator.callTool({ name: 'jumperless-b_connect', arguments: { pairs: [[3, 4]] } });
    expect(b.isError).toBeFalsy();
    // Board a's undo never undoes board b's change (it undoes a's own, or has none).
    const a = await operator.callTool({ name: 'jumperless-a_undo', arguments: {} });
    expect((a.structuredContent as { undone?: string } | undefined)?.undone).not.toBe('connect 3-4');
    const undone = await operator.callTool({ name: 'jumperless-b_undo', arguments: {} });
    expect(undone.structuredContent).toMatchObject({ undone: 'connect 3-4', remaining: 0 });
  });

  it("lists and calls a remote child's python_exec for a caller who holds exec, and for no one else", async () => {
    const listed = (await operator.listTools()).tools.map((t) => t.name);
    expect(listed).toContain('remote_dac_set');
    expect(listed).toContain('remote_python_exec');
    const anonymousListed = (await anonymous.listTools()).tools.map((t) => t.name);
    expect(anonymousListed).toContain('remote_power_get');
    expect(anonymousListed).not.toContain('remote_python_exec');
    const run = await operator.callTool({ name: 'remote_python_exec', arguments: { code: 'print(6 * 7)' } });
    expect(run.isError).toBeUndefined();
    expect(run.structuredContent).toMatchObject({ ok: true, stdout: '42\n' });
    // The child asks before running code (its --confirm hazards), through the bench, to the operator.
    expect(questions.filter((q) => q.startsWith('Run this MicroPython on the board?'))).toHaveLength(1);
    const denied = await anonymous
      .callTool({ name: 'remote_python_exec', arguments: { code: 'print(1)' } })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(denied).toBeInstanceOf(ProtocolError);
    expect((denied as ProtocolError).data).toMatchObject({ code: 1001, missing: ['jumperless.exec'] });
  });

  it("puts a remote child's question to the caller and takes the answer", async () => {
    const answer = await operator.callTool({
      name: 'remote_ask_user',
      arguments: { instruction: 'Is the LED on?', timeout_seconds: 20 },
    });
    expect(answer.structuredContent).toMatchObject({ answer: 'confirmed', answered_by: 'client' });
    expect(questions.filter((q) => q.includes('Is the LED on?'))).toHaveLength(1);
  });

  it('shows resources and prompts only to a caller who may read the board', async () => {
    const nobody = await clientOf(new Set(), false);
    try {
      expect((await nobody.listResources()).resources).toEqual([]);
      expect((await nobody.listPrompts()).prompts).toEqual([]);
      for (const attempt of [
        nobody.readResource({ uri: 'jumperless://jumperless-a/board/state' }),
        nobody.getPrompt({ name: 'jumperless-a_debug_circuit', arguments: { symptom: 'x' } }),
        nobody.subscribeResource({ uri: 'jumperless://jumperless-a/board/state' }),
      ]) {
        const error = await attempt.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ProtocolError);
        expect((error as ProtocolError).data).toMatchObject({ code: 1001, missing: ['jumperless.read'] });
      }
    } finally {
      await nobody.close();
    }
  });

  it("tells the caller what happened to a board's link, naming the device", async () => {
    const exit = await operator.callTool({
      name: 'jumperless-a_python_exec',
      arguments: { code: 'import sys\nsys.exit()' },
    });
    expect(exit.isError).toBeUndefined();
    await expect
      .poll(() => logs, { timeout: 10_000 })
      .toContainEqual(expect.stringMatching(/^jumperless-a: The board reset/));
    expect(
      (await operator.callTool({ name: 'jumperless-a_power_get', arguments: {} })).isError,
    ).toBeUndefined();
  });
});
