/**
 * The board in view in a real headless browser (issue 25): Debian's chromium driven by
 * playwright-core. The page loads with no console error and no request anywhere but its server;
 * after an MCP client bridges rows 1 and 5 and sets the top rail to 3.3 V, the page shows both
 * within a second and logs the calls; a screenshot is kept in test-results/; a foreign Origin
 * cannot open the event stream.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, missingChromium } from '../support/chromium.js';
import { type HttpFixture, startHttpFixture } from './serverFixture.js';

const ARTIFACTS = resolve(import.meta.dirname, '..', '..', 'test-results');
const executablePath = chromiumPath();

describe('the board page in a browser', () => {
  let fx: HttpFixture;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    if (!executablePath) throw new Error(missingChromium);
    fx = await startHttpFixture();
    base = fx.url.replace(/\/mcp$/, '');
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  /** A page that records console errors and every request that leaves for another origin. */
  async function open(): Promise<{ page: Page; errors: string[]; foreign: string[] }> {
    const page = await browser.newPage();
    const errors: string[] = [];
    const foreign: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    await page.goto(`${base}/`);
    return { page, errors, foreign };
  }

  it('shows a bridge and a rail voltage within a second of the calls that made them, and logs the calls', async () => {
    const { page, errors, foreign } = await open();
    await page.waitForSelector('body[data-seq]', { timeout: 30_000 });
    await expect.poll(() => page.textContent('#live')).toBe('live');
    const { client } = await fx.connect();
    await client.callTool({ name: 'connect', arguments: { pairs: [[1, 5]] } });
    await client.callTool({ name: 'dac_set', arguments: { channel: 'TOP_RAIL', volts: 3.3 } });
    const called = Date.now();
    // Runs in the page; this file has no DOM types, so the document is typed by what it uses.
    type Doc = {
      querySelectorAll(q: string): Iterable<{ textContent: string | null }>;
      getElementById(id: string): { textContent: string | null } | null;
    };
    await page.waitForFunction(
      () => {
        const doc = (globalThis as unknown as { document: Doc }).document;
        return (
          [...doc.querySelectorAll('#bridges li')].some((li) => li.textContent === '1 – 5') &&
          /3\.30 V/.test(doc.getElementById('top_rail')?.textContent ?? '')
        );
      },
      undefined,
      { timeout: 1000 },
    );
    expect(Date.now() - called).toBeLessThan(1000);
    // Once the virtual board runs, the view reads its telemetry port (CDC3), never the REPL.
    expect(await page.textContent('#status')).toMatch(/read on sim#cdc3/);
    // The latest reading a tool call made and the OLED's text, in the same page.
    await client.callTool({ name: 'voltage_measure', arguments: { node: 1 } });
    await client.callTool({ name: 'oled_print', arguments: { text: 'hello bench' } });
    await expect
      .poll(() => page.textContent('#readings'), { timeout: 5000 })
      .toMatch(/\b1 -?\d+\.\d{3} V \(voltage_measure\)/);
    await expect.poll(() => page.textContent('#oled'), { timeout: 5000 }).toBe('hello bench');
    const log = await page.textContent('#log');
    expect(log).toMatch(/connect/);
    expect(log).toMatch(/dac_set/);
    const src = await page.getAttribute('#picture', 'src');
    expect(src).toMatch(/^data:image\/png;base64,/);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: resolve(ARTIFACTS, 'board-page.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  }, 60_000);

  it('is one self-contained document under 300 KB with a policy that forbids any other source', async () => {
    const reply = await fetch(`${base}/`);
    expect(reply.status).toBe(200);
    const html = await reply.text();
    expect(Buffer.byteLength(html)).toBeLessThan(300 * 1024);
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect(reply.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
  });

  it('refuses a foreign Origin the page and the event stream, and streams to a loopback one', async () => {
    for (const path of ['/', '/events']) {
      const refused = await fetch(`${base}${path}`, { headers: { origin: 'https://evil.example' } });
      expect(refused.status).toBe(403);
    }
    const controller = new AbortController();
    const allowed = await fetch(`${base}/events`, {
      headers: { origin: base },
      signal: controller.signal,
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('content-type')).toMatch(/text\/event-stream/);
    controller.abort();
  });

  it('serves the MCP App as a ui:// resource the board tools point at; loaded as a host would, it shows the same', async () => {
    // Only a host that declares MCP Apps sees the pointer; others pay no bytes for it.
    const plain = (await (await fx.connect()).client.listTools()).tools;
    expect(plain.filter((t) => t._meta?.ui !== undefined)).toEqual([]);
    const { client } = await fx.connect({ apps: true });
    const { tools } = await client.listTools();
    for (const name of ['dac_set', 'connect', 'state_get', 'voltage_measure', 'board_picture']) {
      expect(tools.find((t) => t.name === name)?._meta, name).toMatchObject({
        ui: { resourceUri: 'ui://jumperless/board' },
      });
    }
    const read = await client.readResource({ uri: 'ui://jumperless/board' });
    const app = read.contents[0] as { mimeType: string; text: string };
    expect(app.mimeType).toBe('text/html;profile=mcp-app');
    expect(Buffer.byteLength(app.text)).toBeLessThan(300 * 1024);

    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The host's side: it reads resources for the app through its MCP client.
    await page.exposeFunction('hostRead', async (uri: string) => client.readResource({ uri }));
    await page.setContent(
      `<!doctype html><body><iframe id="app" sandbox="allow-scripts" style="width:900px;height:1200px"></iframe><script>
        const frame = document.getElementById('app');
        window.addEventListener('message', async (event) => {
          const m = event.data;
          if (event.source !== frame.contentWindow || !m || m.id === undefined) return;
          let result;
          if (m.method === 'ui/initialize') result = { protocolVersion: '2026-01-26', hostInfo: { name: 'test-host', version: '0' }, hostCapabilities: {} };
          else if (m.method === 'resources/read') result = await window.hostRead(m.params.uri);
          frame.contentWindow.postMessage({ jsonrpc: '2.0', id: m.id, result }, '*');
        });
        window.toolResult = (result) => frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: result }, '*');
      </script></body>`,
    );
    await page.evaluate((html) => {
      (
        globalThis as unknown as { document: { getElementById(id: string): { srcdoc: string } } }
      ).document.getElementById('app').srcdoc = html;
    }, app.text);
    const inApp = page.frameLocator('#app');
    await expect.poll(() => inApp.locator('#live').textContent(), { timeout: 30_000 }).toBe('in the chat');
    await client.callTool({ name: 'connect', arguments: { pairs: [[2, 9]] } });
    const result = await client.callTool({
      name: 'dac_set',
      arguments: { channel: 'BOTTOM_RAIL', volts: 2.5 },
    });
    await page.evaluate(
      (r) => (globalThis as unknown as { toolResult(r: unknown): void }).toolResult(r),
      result,
    );
    await expect
      .poll(() => inApp.locator('#bottom_rail').textContent(), { timeout: 5000 })
      .toBe('Bottom rail 2.50 V');
    await expect.poll(() => inApp.locator('#bridges li', { hasText: /^2 – 9$/ }).count()).toBe(1);
    expect(await inApp.locator('#picture').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    // The latest readings, the OLED's text and the GPIO pins, from the one state the picture draws.
    await client.callTool({ name: 'voltage_measure', arguments: { node: 2 } });
    const printed = await client.callTool({ name: 'oled_print', arguments: { text: 'app says hi' } });
    await page.evaluate(
      (r) => (globalThis as unknown as { toolResult(r: unknown): void }).toolResult(r),
      printed,
    );
    await expect.poll(() => inApp.locator('#oled').textContent(), { timeout: 5000 }).toBe('app says hi');
    expect(await inApp.locator('#readings').textContent()).toMatch(/\b2 -?\d+\.\d{3} V \(voltage_measure\)/);
    expect(await inApp.locator('#gpio tr').count()).toBeGreaterThanOrEqual(8);
    // In gpio_get's words: the level the pull holds, not the firmware's 'float' (issue 20).
    const pins = await inApp.locator('#gpio').textContent();
    expect(pins).toMatch(/LOW \(PULL-DOWN\)/);
    expect(pins).not.toMatch(/float/i);
    // The picture the app shows is board_picture's, with the same readings and OLED lines.
    const shown = Buffer.from(
      ((await inApp.locator('#picture').getAttribute('src')) ?? '').replace(/^data:image\/png;base64,/, ''),
      'base64',
    );
    const picture = await client.callTool({ name: 'board_picture', arguments: {} });
    const image = (picture.content as Array<{ type: string; data?: string }>).find((c) => c.type === 'image');
    expect(shown.equals(Buffer.from(image?.data ?? '', 'base64'))).toBe(true);
    await page.screenshot({ path: resolve(ARTIFACTS, 'board-app.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
