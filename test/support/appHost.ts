/**
 * The board's MCP App loaded as a host loads it, in a real headless chromium: the app's HTML from
 * the server (`resources/read` of `ui://jumperless/board`) in a sandboxed iframe that talks JSON-RPC
 * to the host page, which relays the app's resource reads and tool calls over the host's own MCP
 * client (any transport, any era) and keeps what the app asked the host to tell the model
 * (`ui/message`, `ui/update-model-context`). The host tells the app a call's input and result as
 * MCP Apps hosts do (`ui/notifications/tool-input`, `.../tool-result`).
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { expect } from 'vitest';

export interface AppHost {
  page: Page;
  app: FrameLocator;
  /** What the app asked the host to put before the model: `[method, text]`. */
  toldModel(): Promise<Array<[string, string]>>;
  toolInput(args: unknown): Promise<void>;
  toolResult(result: unknown): Promise<void>;
  /** Waits for the form to show `question`, and checks it is visible. */
  shows(question: string): Promise<void>;
}

/** `hostCapabilities`: what the host says it does in `ui/initialize` (e.g. `{ message: {} }`). */
export async function mountBoardApp(
  browser: Browser,
  host: Client,
  hostCapabilities: Record<string, unknown> = {},
): Promise<AppHost> {
  const read = await host.readResource({ uri: 'ui://jumperless/board' });
  const html = (read.contents[0] as { text: string }).text;
  const page = await browser.newPage();
  await page.exposeFunction('hostRead', async (uri: string) => host.readResource({ uri }));
  await page.exposeFunction('hostCall', async (name: string, args: unknown) =>
    host.callTool({ name, arguments: args as Record<string, unknown> }),
  );
  await page.setContent(
    `<!doctype html><body><iframe id="app" sandbox="allow-scripts" style="width:900px;height:1200px"></iframe><script>
      const frame = document.getElementById('app');
      const capabilities = ${JSON.stringify(hostCapabilities)};
      window.told = [];
      window.addEventListener('message', async (event) => {
        const m = event.data;
        if (event.source !== frame.contentWindow || !m || m.id === undefined) return;
        let result = {};
        if (m.method === 'ui/initialize') result = { protocolVersion: '2026-01-26', hostInfo: { name: 'test-host', version: '0' }, hostCapabilities: capabilities };
        else if (m.method === 'resources/read') result = await window.hostRead(m.params.uri);
        else if (m.method === 'tools/call') result = await window.hostCall(m.params.name, m.params.arguments);
        else if (m.method === 'ui/message' || m.method === 'ui/update-model-context') window.told.push([m.method, m.params.content[0].text]);
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
  const app = page.frameLocator('#app');
  await app.locator('#live', { hasText: 'in the chat' }).waitFor({ timeout: 30_000 });
  type HostWindow = {
    told: Array<[string, string]>;
    toolInput(a: unknown): void;
    toolResult(r: unknown): void;
  };
  return {
    page,
    app,
    toldModel: () => page.evaluate(() => (globalThis as unknown as HostWindow).told),
    toolInput: (args) => page.evaluate((a) => (globalThis as unknown as HostWindow).toolInput(a), args),
    toolResult: (result) => page.evaluate((r) => (globalThis as unknown as HostWindow).toolResult(r), result),
    async shows(question) {
      await expect.poll(() => app.locator('#question').textContent(), { timeout: 10_000 }).toBe(question);
      expect(await app.locator('#ask').isVisible()).toBe(true);
    },
  };
}
