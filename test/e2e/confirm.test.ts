/**
 * A person's yes before a hazard (issue 25, `--confirm`): the question reaches the person over
 * stdio (the real CLI) and both HTTP eras (a 2025 session's elicitation request, a 2026-07-28
 * `input_required` round), a yes runs the tool, a no applies nothing; `always` refuses a client that
 * cannot ask, `never` asks nobody, and what is not a hazard is never asked about. A host that
 * renders apps and cannot elicit gets the question as the call's result (its app's form: see also
 * appConfirm.test.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Config } from '../../src/cli/config.js';
import { APPS_EXTENSION } from '../../src/core/listTools.js';
import { APP_MIME_TYPE } from '../../src/tools/viewPage.js';
import { serveHttpCli } from '../support/cliHttp.js';
import { type HttpFixture, MODERN, startHttpFixture } from './serverFixture.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };

/** The person at the client: answers the next questions with `action`, and keeps what was asked. */
function person(client: Client) {
  const asked: string[] = [];
  let action: 'accept' | 'decline' = 'accept';
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String(request.params.message));
    return { action, content: {} };
  });
  return {
    asked,
    answer(next: 'accept' | 'decline') {
      action = next;
    },
  };
}

type Connect = (options?: { elicitation?: boolean }) => Promise<Client>;

/** A failed call's `{code, message, retryable}` (failures carry it as their one JSON text item). */
function failure(result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> {
  expect(result.isError).toBe(true);
  const [item] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(item?.text ?? '{}');
}

async function bridgeCount(client: Client): Promise<number> {
  const listed = await client.callTool({ name: 'bridges_list', arguments: {} });
  return (listed.structuredContent as { bridges: unknown[] }).bridges.length;
}

function confirmSuite(connect: Connect) {
  it('asks before clearing the board: no applies nothing, yes clears', async () => {
    const client = await connect({ elicitation: true });
    const you = person(client);
    const connected = await client.callTool({ name: 'connect', arguments: { pairs: [[1, 5]] } });
    expect(connected.isError, JSON.stringify(connected.content)).toBeFalsy();
    const before = await bridgeCount(client);
    expect(before).toBeGreaterThan(0);

    you.answer('decline');
    const no = await client.callTool({ name: 'nodes_clear', arguments: {} });
    expect(failure(no)).toMatchObject({ code: 'declined', retryable: false });
    expect(you.asked).toEqual(['Remove every bridge on the board?']);
    expect(await bridgeCount(client)).toBe(before);

    you.answer('accept');
    const yes = await client.callTool({ name: 'nodes_clear', arguments: {} });
    expect(yes.isError).toBeFalsy();
    expect(yes.structuredContent).toMatchObject({ removed: expect.any(Number) });
    expect(you.asked).toHaveLength(2);
    expect(await bridgeCount(client)).toBeLessThan(before);
  });

  it('asks before a supply above the threshold, not below it', async () => {
    const client = await connect({ elicitation: true });
    const you = person(client);
    you.answer('accept');
    const low = await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 3.3 } });
    expect(low.isError, JSON.stringify(low.content)).toBeFalsy();
    expect(low.structuredContent).toMatchObject({ volts: 3.3 });
    expect(you.asked).toEqual([]);
    you.answer('decline');
    const high = await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 7 } });
    expect(failure(high)).toMatchObject({ code: 'declined' });
    expect(you.asked).toEqual([expect.stringMatching(/^Set DAC1 to 7 V\?/)]);
    const power = await client.callTool({ name: 'power_get', arguments: {} });
    expect(power.structuredContent).toMatchObject({ dac1_volts: 3.3 });
  });

  it('runs a hazard as before for a client that cannot ask (default policy)', async () => {
    const client = await connect();
    const set = await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 6 } });
    expect(set.structuredContent).toMatchObject({ volts: 6 });
  });
}

// Each suite boots a virtual board (and over stdio a process per client): slow on a busy machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

describe('over a 2025 HTTP session', () => {
  let fx: HttpFixture;
  beforeAll(async () => {
    fx = await startHttpFixture();
  });
  afterAll(async () => {
    await fx?.close();
  });
  confirmSuite(async (options = {}) => (await fx.connect(options)).client);
});

describe('over 2026-07-28 HTTP (input_required rounds)', () => {
  let fx: HttpFixture;
  beforeAll(async () => {
    fx = await startHttpFixture();
  });
  afterAll(async () => {
    await fx?.close();
  });
  confirmSuite(async (options = {}) => {
    const { client } = await fx.connect({ ...options, modern: true });
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    return client;
  });
});

describe('over stdio (the real CLI, one process per client)', () => {
  const clients: Client[] = [];
  // Each test's server ends with it: six idle servers, each with its virtual board, slowed the rest.
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  });
  const start = async (options: { elicitation?: boolean; modern?: boolean; flags?: string[] } = {}) => {
    const client = new Client(
      { name: 'e2e-confirm', version: '0' },
      {
        capabilities: options.elicitation ? { elicitation: {} } : {},
        ...(options.modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
      },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...CLI, '--sim', ...(options.flags ?? [])],
        cwd: ROOT,
        env: ENV,
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    return client;
  };
  confirmSuite((options) => start(options));

  it('asks in 2026-07-28 over stdio too', async () => {
    const client = await start({ elicitation: true, modern: true });
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const you = person(client);
    you.answer('decline');
    const no = await client.callTool({ name: 'slot_save', arguments: { slot: 3 } });
    expect(failure(no)).toMatchObject({ code: 'declined' });
    expect(you.asked).toEqual(["Overwrite slot 3 with the board's present setup?"]);
  });

  it('--confirm always refuses a hazard to a client that cannot ask, and still runs what is safe', async () => {
    const client = await start({ flags: ['--confirm', 'always'] });
    await client.callTool({ name: 'connect', arguments: { pairs: [[2, 7]] } });
    const refused = await client.callTool({ name: 'nodes_clear', arguments: {} });
    expect(failure(refused)).toMatchObject({ code: 'confirmation_required', retryable: false });
    expect(failure(refused).message).toMatch(/Nothing was changed/);
    expect(await bridgeCount(client)).toBeGreaterThan(0);
    const safe = await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 2 } });
    expect(safe.structuredContent).toMatchObject({ volts: 2 });
  });

  it('--confirm never asks nobody, even a client that can ask', async () => {
    const client = await start({
      elicitation: true,
      flags: ['--confirm', 'never', '--confirm-above-volts', '1'],
    });
    const you = person(client);
    you.answer('decline');
    const set = await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 4 } });
    expect(set.structuredContent).toMatchObject({ volts: 4 });
    expect(you.asked).toEqual([]);
  });
});

describe('--confirm-above-volts', () => {
  let fx: HttpFixture;
  beforeAll(async () => {
    fx = await startHttpFixture({ confirm: 'hazards', confirmAboveVolts: 2 } satisfies Partial<Config>);
  });
  afterAll(async () => {
    await fx?.close();
  });
  it('moves the threshold a supply asks at', async () => {
    const { client } = await fx.connect({ elicitation: true });
    const you = person(client);
    you.answer('decline');
    const set = await client.callTool({ name: 'dac_set', arguments: { channel: 'TOP_RAIL', volts: -3 } });
    expect(failure(set)).toMatchObject({ code: 'declined' });
    expect(you.asked[0]).toMatch(/above 2 V/);
  });
});

/**
 * A host that renders MCP Apps and cannot elicit, in 2026-07-28 through the real CLI (its HTTP
 * server, whose anonymous callers are told apart by their connection, and stdio): the hazard's
 * result carries the question and points at the board app, the app's answer (`confirm_answer`,
 * called here as the app calls it through its host) counts for the same call retried, once.
 */
describe('a host that renders apps and cannot elicit, in 2026-07-28 through the real CLI', () => {
  const apps = { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } };
  const clients: Client[] = [];
  let serving: { child: ChildProcess; url: string } | undefined;
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    serving?.child.kill();
  });
  const modernClient = () =>
    new Client(
      { name: 'e2e-app-host', version: '0' },
      { capabilities: apps, versionNegotiation: { mode: { pin: MODERN } } },
    );

  const asksThroughTheApp = async (client: Client) => {
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const args = { channel: 'DAC0', volts: 6.5 };
    const asked = await client.callTool({ name: 'dac_set', arguments: args });
    const pending = failure(asked);
    expect(pending).toMatchObject({ code: 'confirmation_pending', retryable: true });
    expect(asked._meta).toMatchObject({ ui: { resourceUri: 'ui://jumperless/board' } });
    const { id } = pending.question as { id: string };
    const listed = await client.callTool({ name: 'confirm_answer', arguments: {} });
    expect(listed.structuredContent).toMatchObject({ questions: [{ id, tool: 'dac_set' }] });
    const no = await client.callTool({ name: 'confirm_answer', arguments: { question: id, answer: 'no' } });
    expect(no.structuredContent).toEqual({ answered: id, answer: 'no', next: 'retry' });
    expect(failure(await client.callTool({ name: 'dac_set', arguments: args }))).toMatchObject({
      code: 'declined',
    });

    const again = failure(await client.callTool({ name: 'dac_set', arguments: args }));
    const second = (again.question as { id: string }).id;
    await client.callTool({ name: 'confirm_answer', arguments: { question: second, answer: 'yes' } });
    const set = await client.callTool({ name: 'dac_set', arguments: args });
    expect(set.structuredContent).toMatchObject({ volts: 6.5 });
    expect(failure(await client.callTool({ name: 'dac_set', arguments: args }))).toMatchObject({
      code: 'confirmation_pending',
    });
  };

  it('over HTTP', async () => {
    serving = await serveHttpCli(['--sim'], ENV);
    const client = modernClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
    clients.push(client);
    await asksThroughTheApp(client);
  });

  it('over stdio', async () => {
    const client = modernClient();
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...CLI, '--sim'],
        cwd: ROOT,
        env: ENV,
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    await asksThroughTheApp(client);
  });
});
