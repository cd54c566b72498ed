/**
 * A lease taken with a named token (`tokens create --name`) tells the others it refuses whom to ask:
 * over real HTTP with real tokens from the token store, the refusal carries the token's name, and it
 * is not retryable, since only the lease's end or its holder frees the board.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FileTokenStore } from '../../src/auth/index.js';
import { type App, buildApp } from '../../src/cli/app.js';
import { DEFAULT_CONFIG } from '../../src/cli/config.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/app.js';
import { httpCaller } from '../../src/http/caller.js';

const CAPS = ['jumperless.read', 'jumperless.wire', 'jumperless.power'];
let dir: string;
let app: App;
let server: RunningHttpServer;
const clients: Client[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jl-lease-named-'));
  app = await buildApp({ ...DEFAULT_CONFIG, device: 'sim' });
  const store = new FileTokenStore(join(dir, 'tokens.json'));
  server = await startHttpServer({
    port: 0,
    auth: { broker: store, requireBearer: true },
    log: () => {},
    createServer: (_, era) => app.createServer(httpCaller, { era, perRequest: era === 'modern' }),
  });
  for (const name of ['lab partner', undefined]) {
    const { token } = await store.create({ capabilities: CAPS, ...(name ? { name } : {}) });
    const client = new Client({ name: 'lease-named-test', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
  }
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await server?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text?: string }>)[0]?.text ?? '{}';
  return { isError: result.isError === true, value: JSON.parse(text) as Record<string, unknown> };
}

it("names the lease's person to those it refuses, not retryable, and says a release happened", async () => {
  const [partner, me] = clients as [Client, Client];
  const taken = await call(partner, 'board_lease', { minutes: 5 });
  expect(taken.isError).toBe(false);
  const refused = await call(me, 'connect', { pairs: [[5, 6]] });
  expect(refused).toMatchObject({
    isError: true,
    value: { code: 'busy', note: 'lab partner', retryable: false },
  });
  expect(String(refused.value.message)).toContain('(lab partner)');
  expect(await call(partner, 'board_lease', { minutes: 0 })).toEqual({
    isError: false,
    value: { released: true },
  });
  expect((await call(me, 'connect', { pairs: [[5, 6]] })).isError).toBe(false);
}, 60_000);
