/**
 * A person's yes through a form in the board's MCP App (issue 25 items 4-5), in Debian's chromium
 * driven by playwright-core. The app is loaded as a host loads it (test/support/appHost.ts): an
 * iframe that talks JSON-RPC to the host page, which relays its resource reads and tool calls over
 * the host's own MCP client. Three hosts:
 * - a 2025 HTTP session with elicitation, whose own dialog nobody answers: the waiting call takes
 *   the form's answer;
 * - a 2026-07-28 client with elicitation: the call ends with its input_required result, the
 *   question stays open to the app, and the retried call takes the form's answer;
 * - a host that renders apps and cannot elicit (2025 HTTP, and stdio through the real CLI): the
 *   hazard's result carries the question, the form answers, the model's retry runs once.
 * Yes lets the call run, No refuses it and nothing changes; an answer counts only for an open
 * question the server issued to the same caller, for that call's arguments, once; a model's list
 * never shows the app-only tool.
 */
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type Browser, chromium, type FrameLocator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPS_EXTENSION } from '../../src/core/listTools.js';
import { APP_MIME_TYPE } from '../../src/tools/viewPage.js';
import { type AppHost, mountBoardApp } from '../support/appHost.js';
import { chromiumPath, missingChromium } from '../support/chromium.js';
import { type HttpFixture, MODERN, startHttpFixture } from './serverFixture.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };

const executablePath = chromiumPath();

async function bridgeCount(client: Client): Promise<number> {
  const listed = await client.callTool({ name: 'bridges_list', arguments: {} });
  return (listed.structuredContent as { bridges: unknown[] }).bridges.length;
}

describe("the board app's form answers the server's question", () => {
  let fx: HttpFixture;
  let browser: Browser;
  let host: Client;
  let page: Page;
  let inApp: FrameLocator;
  const dialogs: string[] = [];
  let dismissDialogs: () => void = () => {};
  const dismissed = new Promise<void>((resolve) => {
    dismissDialogs = resolve;
  });

  beforeAll(async () => {
    if (!executablePath) throw new Error(missingChromium);
    fx = await startHttpFixture();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    host = (await fx.connect({ apps: true, elicitation: true })).client;
    // The host's own dialog: shown, never answered by the person (they use the app's form).
    host.setRequestHandler('elicitation/create', async (request) => {
      dialogs.push(request.params.message);
      await dismissed;
      return { action: 'cancel' };
    });
    const mounted = await mountBoardApp(browser, host);
    page = mounted.page;
    inApp = mounted.app;
  }, 60_000);
  afterAll(async () => {
    dismissDialogs();
    await browser?.close();
    await fx?.close();
  });

  /** Starts nodes_clear the way a host shows it: the call, and the app told its input. */
  const clearWithApp = async () => {
    const call = host.callTool({ name: 'nodes_clear', arguments: {} });
    await page.evaluate(() => (globalThis as unknown as { toolInput(a: unknown): void }).toolInput({}));
    await expect
      .poll(() => inApp.locator('#question').textContent(), { timeout: 10_000 })
      .toBe('Remove every bridge on the board?');
    expect(await inApp.locator('#ask').isVisible()).toBe(true);
    return call;
  };

  it('No in the form refuses the call and changes nothing; Yes lets it run', async () => {
    await host.callTool({ name: 'connect', arguments: { pairs: [[3, 8]] } });
    const before = await bridgeCount(host);
    expect(before).toBeGreaterThan(0);

    const refused = clearWithApp();
    await inApp.locator('#no').click();
    const no = await refused;
    expect(no.isError).toBe(true);
    expect(JSON.stringify(no.content)).toMatch(/declined/);
    expect(await inApp.locator('#answered').textContent()).toBe('answered no');
    expect(await bridgeCount(host)).toBe(before);
    await page.evaluate((r) => (globalThis as unknown as { toolResult(r: unknown): void }).toolResult(r), no);
    await expect.poll(() => inApp.locator('#ask').isVisible()).toBe(false);

    const allowed = clearWithApp();
    await inApp.locator('#yes').click();
    const yes = await allowed;
    expect(yes.isError, JSON.stringify(yes.content)).toBeFalsy();
    expect(yes.structuredContent).toMatchObject({ removed: expect.any(Number) });
    expect(await bridgeCount(host)).toBeLessThan(before);
    // The host's own dialog asked the same question both times; the form answered first.
    expect(dialogs).toEqual(['Remove every bridge on the board?', 'Remove every bridge on the board?']);
  }, 60_000);

  it('answers only an open question the server issued to the same caller, once', async () => {
    const model = (await fx.connect()).client;
    expect((await model.listTools()).tools.map((t) => t.name)).not.toContain('confirm_answer');
    const listed = (await host.listTools()).tools.find((t) => t.name === 'confirm_answer');
    expect(listed?._meta).toEqual({ ui: { visibility: ['app'] } });

    const made = await host.callTool({
      name: 'confirm_answer',
      arguments: { question: 'made-up', answer: 'yes' },
    });
    expect(made.isError).toBe(true);

    await host.callTool({ name: 'connect', arguments: { pairs: [[4, 9]] } });
    const call = host.callTool({ name: 'nodes_clear', arguments: {} });
    let open: Array<{ id: string; tool: string }> = [];
    await expect
      .poll(async () => {
        const r = await host.callTool({ name: 'confirm_answer', arguments: {} });
        open = (r.structuredContent as { questions: typeof open }).questions;
        return open.length;
      })
      .toBe(1);
    const id = open[0]?.id as string;
    expect(open[0]?.tool).toBe('nodes_clear');
    // Another session (another caller) that renders apps sees none of it and cannot answer it.
    const other = (await fx.connect({ apps: true })).client;
    const theirs = await other.callTool({ name: 'confirm_answer', arguments: {} });
    expect((theirs.structuredContent as { questions: unknown[] }).questions).toEqual([]);
    const stolen = await other.callTool({
      name: 'confirm_answer',
      arguments: { question: id, answer: 'yes' },
    });
    expect(stolen.isError).toBe(true);

    const mine = await host.callTool({ name: 'confirm_answer', arguments: { question: id, answer: 'no' } });
    expect(mine.isError).toBeFalsy();
    expect(JSON.stringify((await call).content)).toMatch(/declined/);
    const again = await host.callTool({ name: 'confirm_answer', arguments: { question: id, answer: 'yes' } });
    expect(again.isError).toBe(true);
    expect(await bridgeCount(host)).toBeGreaterThan(0);
  }, 60_000);
});

/** A failed call's `{code, message, ...}` (failures carry it as their one JSON text item). */
function failure(result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> {
  expect(result.isError).toBe(true);
  const [item] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(item?.text ?? '{}');
}

type Question = { id: string; tool: string; question: string; expires: string };

describe('2026-07-28: the form answers the input_required question, and the retried call takes it', () => {
  let fx: HttpFixture;
  let browser: Browser;
  let host: Client;
  let shown: AppHost;
  const dialogs: string[] = [];
  let dismiss: () => void = () => {};

  beforeAll(async () => {
    if (!executablePath) throw new Error(missingChromium);
    fx = await startHttpFixture();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    host = (await fx.connect({ apps: true, elicitation: true, modern: true })).client;
    expect(host.getNegotiatedProtocolVersion()).toBe(MODERN);
    // The host's own dialog for the input_required round: the person answers in the app instead,
    // and the host's dialog is dismissed after, so the SDK retries the call with `cancel`.
    host.setRequestHandler('elicitation/create', async (request) => {
      dialogs.push(request.params.message);
      await new Promise<void>((resolve) => {
        dismiss = resolve;
      });
      return { action: 'cancel' };
    });
    shown = await mountBoardApp(browser, host, { message: {} });
  }, 60_000);
  afterAll(async () => {
    dismiss();
    await browser?.close();
    await fx?.close();
  });

  it('Yes in the form runs the retried call; No refuses it and nothing changes', async () => {
    await host.callTool({ name: 'connect', arguments: { pairs: [[3, 8]] } });
    const before = await bridgeCount(host);
    expect(before).toBeGreaterThan(0);

    const refused = host.callTool({ name: 'nodes_clear', arguments: {} });
    await shown.toolInput({});
    await shown.shows('Remove every bridge on the board?');
    // The call has ended with its input_required result (the host's dialog is open): the
    // question is still open to the app.
    await expect.poll(() => dialogs.length).toBe(1);
    await shown.app.locator('#no').click();
    await expect
      .poll(() => shown.app.locator('#answered').textContent())
      .toBe('answered no: nodes_clear is refused when called again');
    dismiss();
    expect(failure(await refused)).toMatchObject({ code: 'declined' });
    expect(await bridgeCount(host)).toBe(before);

    const allowed = host.callTool({ name: 'nodes_clear', arguments: {} });
    await shown.toolInput({});
    await shown.shows('Remove every bridge on the board?');
    await expect.poll(() => dialogs.length).toBe(2);
    await shown.app.locator('#yes').click();
    await expect
      .poll(() => shown.app.locator('#answered').textContent())
      .toBe('answered yes: nodes_clear runs when called again');
    dismiss();
    const yes = await allowed;
    expect(yes.isError, JSON.stringify(yes.content)).toBeFalsy();
    expect(yes.structuredContent).toMatchObject({ removed: expect.any(Number) });
    expect(await bridgeCount(host)).toBeLessThan(before);
    // The call was the host's all along (its dialog open, then its retry): no word to the model.
    expect(await shown.toldModel()).toEqual([]);
  }, 60_000);
});

/**
 * A host that renders apps and cannot elicit: the hazard neither runs unasked nor waits; its result
 * carries the question and points at the board app, the person answers in the form, the model's
 * retry of the same call takes the answer once. `connect` is the host's MCP client on any transport.
 */
function appOnlyHostSuite(connect: () => Promise<Client>, another?: () => Promise<Client>) {
  let browser: Browser;
  let host: Client;
  let shown: AppHost;

  beforeAll(async () => {
    if (!executablePath) throw new Error(missingChromium);
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    host = await connect();
    shown = await mountBoardApp(browser, host, { updateModelContext: {} });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** Calls `name` as a host would: the app gets its input, then its result. */
  const call = async (name: string, args: Record<string, unknown>) => {
    await shown.toolInput(args);
    const result = await host.callTool({ name, arguments: args });
    await shown.toolResult(result);
    return result;
  };

  it('Yes in the form lets the retried call run once; No makes the retry a refusal', async () => {
    await host.callTool({ name: 'connect', arguments: { pairs: [[4, 9]] } });
    const before = await bridgeCount(host);
    expect(before).toBeGreaterThan(0);

    const asked = await call('nodes_clear', {});
    const pending = failure(asked);
    expect(pending).toMatchObject({ code: 'confirmation_pending', retryable: true });
    expect(pending.message).toMatch(/call nodes_clear again with the same arguments/);
    expect(pending.question).toMatchObject({
      tool: 'nodes_clear',
      question: 'Remove every bridge on the board?',
    });
    expect(asked._meta).toEqual({ ui: { resourceUri: 'ui://jumperless/board' } });
    expect(await bridgeCount(host)).toBe(before);
    await shown.shows('Remove every bridge on the board?');
    await shown.app.locator('#no').click();
    await expect.poll(() => shown.toldModel()).toHaveLength(1);
    expect(failure(await call('nodes_clear', {}))).toMatchObject({ code: 'declined' });
    expect(await bridgeCount(host)).toBe(before);

    // The refusal was used up: the next call asks again, and a Yes lets its retry run, once.
    const again = failure(await call('nodes_clear', {}));
    expect(again).toMatchObject({ code: 'confirmation_pending' });
    expect((again.question as Question).id).not.toBe((pending.question as Question).id);
    await shown.shows('Remove every bridge on the board?');
    await shown.app.locator('#yes').click();
    await expect.poll(() => shown.toldModel()).toHaveLength(2);
    expect((await shown.toldModel())[1]).toEqual([
      'ui/update-model-context',
      'I said yes in the board view to: Remove every bridge on the board? Call nodes_clear again with the same arguments now.',
    ]);
    const ran = await call('nodes_clear', {});
    expect(ran.isError, JSON.stringify(ran.content)).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ removed: expect.any(Number) });
    const cleared = await bridgeCount(host);
    expect(cleared).toBeLessThan(before);
    // A second retry has no yes left.
    await host.callTool({ name: 'connect', arguments: { pairs: [[5, 10]] } });
    const wired = await bridgeCount(host);
    expect(wired).toBeGreaterThan(cleared);
    expect(failure(await call('nodes_clear', {}))).toMatchObject({ code: 'confirmation_pending' });
    expect(await bridgeCount(host)).toBe(wired);
  }, 90_000);

  it('a yes counts for those arguments only, and for no other caller', async () => {
    const first = failure(await host.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 6 } }));
    const id = (first.question as Question).id;
    const yes = await host.callTool({ name: 'confirm_answer', arguments: { question: id, answer: 'yes' } });
    expect(yes.structuredContent).toEqual({ answered: id, answer: 'yes', next: 'retry' });
    const twice = await host.callTool({ name: 'confirm_answer', arguments: { question: id, answer: 'yes' } });
    expect(twice.isError).toBe(true);
    // Other arguments: asked again, nothing set.
    const other = failure(await host.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 7 } }));
    expect(other).toMatchObject({ code: 'confirmation_pending' });
    expect((other.question as Question).id).not.toBe(id);
    expect((other.question as Question).question).toMatch(/^Set DAC1 to 7 V\?/);
    if (another) {
      // Another caller making the very same call: its own question, not this yes.
      const them = await another();
      const theirs = failure(
        await them.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 6 } }),
      );
      expect(theirs).toMatchObject({ code: 'confirmation_pending' });
      expect((theirs.question as Question).id).not.toBe(id);
    }
    const power = await host.callTool({ name: 'power_get', arguments: {} });
    expect(power.structuredContent).not.toMatchObject({ dac1_volts: 6 });
    // The same arguments in any key order: the yes counts, once.
    const set = await host.callTool({ name: 'dac_set', arguments: { volts: 6, channel: 'DAC1' } });
    expect(set.structuredContent).toMatchObject({ volts: 6 });
    expect(
      failure(await host.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 6 } })),
    ).toMatchObject({
      code: 'confirmation_pending',
    });
  }, 60_000);
}

describe('a host that renders apps and cannot elicit, over a 2025 HTTP session', () => {
  let fx: HttpFixture;
  beforeAll(async () => {
    fx = await startHttpFixture();
  }, 60_000);
  afterAll(async () => {
    await fx?.close();
  });
  appOnlyHostSuite(
    async () => (await fx.connect({ apps: true })).client,
    async () => (await fx.connect({ apps: true })).client,
  );
});

describe('a host that renders apps and cannot elicit, over stdio (the real CLI, --confirm always)', () => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  });
  appOnlyHostSuite(async () => {
    const client = new Client(
      { name: 'e2e-app-host', version: '0' },
      { capabilities: { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } } },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        // `always`: a client that can neither elicit nor render apps is refused; this one is asked.
        args: [...CLI, '--sim', '--confirm', 'always'],
        cwd: ROOT,
        env: ENV,
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    return client;
  });
});
