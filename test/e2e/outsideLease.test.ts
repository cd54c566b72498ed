/**
 * Outside leases (issue 26 item 2): a bench whose board-1 is bound to the labgrid place
 * `jumperless-3` (board-2 to nothing), served over real HTTP with tokens from the real token store,
 * through the gateway's own boards (the federation aggregator in front of virtual boards). A caller
 * whose token claims the place holds board-1 from its first call until the token expires: others
 * are refused changes with the lease's name and end, read on, and work board-2. The same app behind
 * a second endpoint reads Jumpstarter leases from a header: a newer lease of the exporter ends the
 * one before, though that one's token is still good. Time moves only through a faked Date.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FileTokenStore } from '../../src/auth/index.js';
import { type App, buildApp } from '../../src/cli/app.js';
import { DEFAULT_CONFIG } from '../../src/cli/config.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/app.js';
import { httpCaller } from '../../src/http/caller.js';

const CAPS = ['jumperless.read', 'jumperless.wire', 'jumperless.power'];
const HEADER = 'X-Jumpstarter-Lease';

let dir: string;
let app: App;
let store: FileTokenStore;
let claims: RunningHttpServer;
let headers: RunningHttpServer;
const clients: Client[] = [];
const tokens: Record<'place' | 'otherPlace' | 'plain', string> = { place: '', otherPlace: '', plain: '' };
let placeExpires: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jl-outside-'));
  const bench = join(dir, 'bench.json');
  writeFileSync(
    bench,
    JSON.stringify({
      name: 'lab',
      outsideLease: 'claim:labgrid_place',
      children: [
        { name: 'board-1', type: 'jumperless', device: 'sim', leaseName: 'jumperless-3' },
        { name: 'board-2', type: 'jumperless', device: 'sim' },
      ],
    }),
  );
  store = new FileTokenStore(join(dir, 'tokens.json'), { now: () => Date.now() });
  const make = async (claim?: string, expiresAt?: Date) =>
    (
      await store.create({
        capabilities: CAPS,
        ...(claim ? { claims: { labgrid_place: claim } } : {}),
        ...(expiresAt ? { expiresAt } : {}),
      })
    ).token;
  const expires = new Date(Date.now() + 3_600_000);
  placeExpires = expires.toISOString();
  tokens.place = await make('jumperless-3', expires);
  tokens.otherPlace = await make('jumperless-9');
  tokens.plain = await make();
  app = await buildApp({ ...DEFAULT_CONFIG, federation: bench });
  const serve = (outsideLease: NonNullable<App['outsideLease']>) =>
    startHttpServer({
      port: 0,
      auth: { broker: store, requireBearer: true },
      outsideLease,
      log: () => {},
      createServer: (_, era) => app.createServer(httpCaller, { era, perRequest: era === 'modern' }),
    });
  expect(app.outsideLease).toEqual({ from: 'claim', name: 'labgrid_place' });
  claims = await serve(app.outsideLease as NonNullable<App['outsideLease']>);
  headers = await serve({ from: 'header', name: HEADER });
}, 60_000);

afterAll(async () => {
  vi.useRealTimers();
  for (const client of clients) await client.close().catch(() => {});
  await claims?.close();
  await headers?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function connect(server: RunningHttpServer, token: string, extra: Record<string, string> = {}) {
  const client = new Client({ name: 'outside-lease-test', version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${token}`, ...extra } },
    }),
  );
  clients.push(client);
  return client;
}

type Answer = { isError: boolean; value: Record<string, unknown> };
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Answer> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text?: string }>)[0]?.text ?? '{}';
  const value = (
    result.isError ? JSON.parse(text) : (result.structuredContent ?? JSON.parse(text))
  ) as Record<string, unknown>;
  return { isError: result.isError === true, value };
}

const dac1 = async (client: Client, board: string) =>
  (await call(client, `${board}_power_get`)).value.dac1_volts as number;

describe('a Jumpstarter lease read from a header set by a proxy on this machine', () => {
  it('holds board-1 for its holder; a newer lease of the exporter ends it though its token is good', async () => {
    const leaseA = await connect(headers, tokens.plain, { [HEADER]: 'jumperless-3/0197a1b2-lease-a' });
    const leaseB = await connect(headers, tokens.plain, { [HEADER]: 'jumperless-3/0197a1b3-lease-b' });
    const nobody = await connect(headers, tokens.plain);
    expect(await call(leaseA, 'board-1_dac_set', { channel: 'DAC1', volts: 2 })).toMatchObject({
      isError: false,
    });
    // Another caller (the same token, no lease) is refused changes, with the lease's name; its end
    // is not known from a header, so the hold runs 10 minutes past its holder's last call.
    const refused = await call(nobody, 'board-1_dac_set', { channel: 'DAC1', volts: 0 });
    expect(refused).toMatchObject({
      isError: true,
      value: { code: 'busy', leasedTo: `${HEADER}=jumperless-3/0197a1b2-lease-a` },
    });
    const until = Date.parse(String(refused.value.until));
    expect(until - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(until - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    expect(String(refused.value.message)).toContain('its end not known');
    expect(await dac1(nobody, 'board-1')).toBeCloseTo(2, 1);
    // Lease B of the same exporter: the board is B's, and A is refused from now on; A reads on.
    expect(await call(leaseB, 'board-1_dac_set', { channel: 'DAC1', volts: 1 })).toMatchObject({
      isError: false,
    });
    const ended = await call(leaseA, 'board-1_dac_set', { channel: 'DAC1', volts: 3 });
    expect(ended).toMatchObject({
      isError: true,
      value: {
        code: 'busy',
        leasedTo: `${HEADER}=jumperless-3/0197a1b3-lease-b`,
        ended: `${HEADER}=jumperless-3/0197a1b2-lease-a`,
      },
    });
    expect(String(ended.value.message)).toMatch(/has ended: a newer lease of jumperless-3 took the board/);
    expect(await dac1(leaseA, 'board-1')).toBeCloseTo(1, 1);
    // B gives the board back (board_lease 0 releases its hold): anyone may change it again.
    expect(await call(leaseB, 'board-1_board_lease', { minutes: 0 })).toMatchObject({
      isError: false,
      value: {},
    });
    expect(await call(nobody, 'board-1_dac_set', { channel: 'DAC1', volts: 0 })).toMatchObject({
      isError: false,
    });
  });

  it('is not read by the endpoint that reads claims: the header there is an ordinary one', async () => {
    const forged = await connect(claims, tokens.plain, { [HEADER]: 'jumperless-3/0197a1b4-lease-c' });
    const holder = await connect(claims, tokens.place);
    expect(await call(holder, 'board-1_power_get')).toMatchObject({ isError: false });
    expect(await call(forged, 'board-1_dac_set', { channel: 'DAC1', volts: 1 })).toMatchObject({
      isError: true,
      value: { code: 'busy', leasedTo: 'labgrid_place=jumperless-3' },
    });
    expect(await call(holder, 'board-1_board_lease', { minutes: 0 })).toMatchObject({ isError: false });
  });
});

describe('a labgrid place named in a claim of the bearer token', () => {
  it("holds the place's board from its holder's first call to its token's expiry; reads and other boards stay open", async () => {
    const holder = await connect(claims, tokens.place);
    const other = await connect(claims, tokens.plain);
    const elsewhere = await connect(claims, tokens.otherPlace);
    // A read is enough: the place's holder holds board-1 until its token expires.
    expect(await call(holder, 'board-1_power_get')).toMatchObject({ isError: false });
    for (const caller of [other, elsewhere]) {
      const refused = await call(caller, 'board-1_dac_set', { channel: 'DAC1', volts: 0.5 });
      expect(refused).toMatchObject({
        isError: true,
        value: { code: 'busy', leasedTo: 'labgrid_place=jumperless-3', until: placeExpires },
      });
      expect(String(refused.value.message)).toContain(
        `leased to labgrid_place=jumperless-3 (an outside lease) until ${placeExpires}`,
      );
    }
    // Nor can another caller take the board with a lease of our own.
    expect(await call(other, 'board-1_board_lease', { minutes: 5 })).toMatchObject({
      isError: true,
      value: { code: 'busy', leasedTo: 'labgrid_place=jumperless-3' },
    });
    expect(await call(holder, 'board-1_dac_set', { channel: 'DAC1', volts: 1.5 })).toMatchObject({
      isError: false,
    });
    expect(await dac1(other, 'board-1')).toBeCloseTo(1.5, 1);
    expect(await call(other, 'board-2_dac_set', { channel: 'DAC1', volts: 2.5 })).toMatchObject({
      isError: false,
    });
    const info = await call(other, 'board-1_device_info');
    expect(JSON.stringify(info.value)).toContain('labgrid_place=jumperless-3');

    // The token expires: its holder is turned away at the door, and the hold is over for the rest.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(placeExpires) + 1000);
    await expect(holder.callTool({ name: 'board-1_power_get', arguments: {} })).rejects.toThrow(/expired/);
    expect(await call(other, 'board-1_dac_set', { channel: 'DAC1', volts: 0 })).toMatchObject({
      isError: false,
    });
    expect(await dac1(other, 'board-1')).toBeCloseTo(0, 1);
    vi.useRealTimers();
  });
});
