/**
 * Fair turns at the board for every caller, across eras (issue 23 item 5): 2025 sessions and
 * anonymous 2026-07-28 clients, each on its own connection, keep one board call in flight each.
 * The board grants turns round-robin between callers, so every client gets about as many calls
 * done as any other, whatever the machine's speed: the test counts calls, it times nothing. When
 * every anonymous 2026-07-28 request counted as one caller (`http:stateless`), the four of them
 * shared one place in the round and each got half of a session's turns here (30, 30, 15, 15, 15, 15).
 * Real HTTP on port 0, the real virtual board.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/cli/app.js';
import { DEFAULT_CONFIG } from '../../src/cli/config.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/app.js';
import { httpCaller } from '../../src/http/caller.js';
import { type EraClient, openLegacyClient, openModernClient } from '../support/eraClients.js';

let app: App;
let server: RunningHttpServer;

beforeAll(async () => {
  app = await buildApp({ ...DEFAULT_CONFIG, device: 'sim' });
  server = await startHttpServer({
    port: 0,
    log: () => {},
    dispatcher: app.dispatcher,
    createServer: (_, era) => app.createServer(httpCaller, { era, perRequest: era === 'modern' }),
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await app?.close();
});

/** Every client calls `power_get` back to back until `total` calls are done between them; the count per client. */
async function race(clients: EraClient[], total: number): Promise<number[]> {
  const done = clients.map(() => 0);
  let left = total;
  await Promise.all(
    clients.map(async (client, index) => {
      while (left > 0) {
        left--;
        await client.call('power_get');
        done[index] = (done[index] ?? 0) + 1;
      }
    }),
  );
  return done;
}

describe('turns at the board across eras', () => {
  it('give each anonymous 2026-07-28 client as many turns as a 2025 session', async () => {
    // Both kinds start warm: the board is open and each client has its connection.
    const legacy = [await openLegacyClient(server.url), await openLegacyClient(server.url)];
    const modern = [0, 1, 2, 3].map(() => openModernClient(server.url));
    const clients = [...legacy, ...modern];
    try {
      await Promise.all(clients.map((client) => client.call('power_get')));
      // The board, not HTTP, is what they wait for (as on a real board at 115200 baud): each
      // reply byte takes 0.5 ms, so the calls queue for their turns.
      app.board?.sim?.faults.slow(0.5);
      const done = await race(clients, 120);
      const perLegacy = done.slice(0, legacy.length);
      const perModern = done.slice(legacy.length);
      const most = Math.max(...done);
      const least = Math.min(...done);
      // Round-robin: 20 each, give or take the calls in flight when the count ran out.
      expect(
        least,
        `calls per client: 2025 ${perLegacy.join(', ')}; 2026-07-28 ${perModern.join(', ')}`,
      ).toBeGreaterThan(0);
      expect(
        most / least,
        `calls per client: 2025 ${perLegacy.join(', ')}; 2026-07-28 ${perModern.join(', ')}`,
      ).toBeLessThan(1.5);
    } finally {
      app.board?.sim?.faults.slow(0);
      for (const client of clients) client.close();
    }
  }, 120_000);
});
