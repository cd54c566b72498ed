import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFixture, startHttpFixture } from '../../test/e2e/serverFixture.js';
import { findViewServer, opener } from './viewCommand.js';

describe('jumperless-mcp view', () => {
  let fx: HttpFixture;
  beforeAll(async () => {
    fx = await startHttpFixture();
  }, 60_000);
  afterAll(async () => {
    await fx?.close();
  });

  it('finds a jumperless-mcp serving the page on the port, and nothing where another server answers', async () => {
    expect(await findViewServer(fx.http.port)).toBe(`http://127.0.0.1:${fx.http.port}`);
    const other = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi'),
    );
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as AddressInfo).port;
    expect(await findViewServer(port)).toBeUndefined();
    await new Promise<void>((resolve) => other.close(() => resolve()));
    expect(await findViewServer(port)).toBeUndefined();
  });

  it("opens the page with the system's opener", () => {
    expect(opener('linux', 'http://x/')).toEqual(['xdg-open', ['http://x/']]);
    expect(opener('darwin', 'http://x/')).toEqual(['open', ['http://x/']]);
    expect(opener('win32', 'http://x/')[0]).toBe('cmd');
  });
});
