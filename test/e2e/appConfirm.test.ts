/**
 * A person's yes through a form in the board's MCP App (issue 25 items 4-5), in Debian's chromium
 * driven by playwright-core. The app is loaded as a host loads it: an iframe that talks JSON-RPC to
 * the host page, which relays its resource reads and its tool calls over the host's own MCP
 * session (a 2025 HTTP session with elicitation, whose own dialog nobody answers here). While a
 * hazard's call waits, the app shows the server's question; Yes lets the call run, No refuses it
 * and nothing changes. The app-only tool answers only an open question the server issued to the
 * same caller, once; a model's list never shows it.
 */
import type { Client } from '@modelcontextprotocol/client';
import { type Browser, chromium, type FrameLocator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, missingChromium } from '../support/chromium.js';
import { type HttpFixture, startHttpFixture } from './serverFixture.js';

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
    const read = await host.readResource({ uri: 'ui://jumperless/board' });
    const html = (read.contents[0] as { text: string }).text;
    page = await browser.newPage();
    await page.exposeFunction('hostRead', async (uri: string) => host.readResource({ uri }));
    await page.exposeFunction('hostCall', async (name: string, args: unknown) =>
      host.callTool({ name, arguments: args as Record<string, unknown> }),
    );
    await page.setContent(
      `<!doctype html><body><iframe id="app" sandbox="allow-scripts" style="width:900px;height:1200px"></iframe><script>
        const frame = document.getElementById('app');
        window.addEventListener('message', async (event) => {
          const m = event.data;
          if (event.source !== frame.contentWindow || !m || m.id === undefined) return;
          let result;
          if (m.method === 'ui/initialize') result = { protocolVersion: '2026-01-26', hostInfo: { name: 'test-host', version: '0' }, hostCapabilities: {} };
          else if (m.method === 'resources/read') result = await window.hostRead(m.params.uri);
          else if (m.method === 'tools/call') result = await window.hostCall(m.params.name, m.params.arguments);
          frame.contentWindow.postMessage({ jsonrpc: '2.0', id: m.id, result }, '*');
        });
        window.toolInput = (args) => frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: args } }, '*');
        window.toolResult = (result) => frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: result }, '*');
      </script></body>`,
    );
    await page.evaluate((doc) => {
      (
        globalThis as unknown as { document: { getElementById(id: string): { srcdoc: string } } }
      ).document.getElementById('app').srcdoc = doc;
    }, html);
    inApp = page.frameLocator('#app');
    await inApp.locator('#live', { hasText: 'in the chat' }).waitFor({ timeout: 30_000 });
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
