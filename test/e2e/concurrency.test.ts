/**
 * Many clients on one board, as users have them: real SDK clients over Streamable HTTP to one
 * server on the virtual board, at the same time. Every result is checked against what that client
 * did (its own rows, its own files), so a tool whose reads and writes interleave with another
 * caller's shows up as a wrong result.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpFixture, startHttpFixture } from './serverFixture.js';

type Result = { structuredContent?: Record<string, unknown>; isError?: boolean; content?: unknown };

let fx: HttpFixture;

beforeAll(async () => {
  fx = await startHttpFixture();
}, 60_000);
afterAll(async () => {
  await fx.close();
});

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args }, { timeout: 120_000 })) as Result;
}

const names = (bridges: unknown) =>
  (bridges as Array<{ node1: string; node2: string }>).map((b) => `${b.node1}-${b.node2}`).join(',');

describe('clients at once on one board', () => {
  it('10 clients x 100 calls, each on its own rows and files, read back: no wrong result', async () => {
    const clients = await Promise.all(Array.from({ length: 10 }, () => fx.connect()));
    await call(clients[0]?.client as Client, 'nodes_clear', {});
    const run = async (client: Client, n: number): Promise<string[]> => {
      const wrong: string[] = [];
      const row = n * 6 + 1;
      for (let i = 0; i < 20; i++) {
        const a = row + (i % 4);
        const made = await call(client, 'connect', { pairs: [[a, a + 1]] });
        if (made.isError || made.structuredContent?.added !== 1)
          wrong.push(`connect ${a}: ${JSON.stringify(made)}`);
        const gone = await call(client, 'disconnect', { pairs: [[a, a + 1]] });
        const removed = names(gone.structuredContent?.removed ?? []);
        if (gone.isError || removed !== `${a}-${a + 1}`) wrong.push(`disconnect ${a}: removed ${removed}`);
        const text = `client ${n} call ${i} `.repeat(1 + ((n + i) % 40));
        const path = `/conc_${n}.txt`;
        const written = await call(client, 'file_write', { path, content: text, overwrite: true });
        if (written.isError) wrong.push(`file_write ${path}: ${JSON.stringify(written.content)}`);
        const read = await call(client, 'file_read', { path });
        if (read.structuredContent?.content !== text) wrong.push(`file_read ${path}: another text`);
        const check = await call(client, 'net_check', { a, b: a + 1 });
        if (check.isError || check.structuredContent?.bridged !== false) {
          wrong.push(`net_check ${a}: ${JSON.stringify(check.structuredContent ?? check.content)}`);
        }
      }
      return wrong;
    };
    const wrong = (await Promise.all(clients.map(({ client }, n) => run(client, n)))).flat();
    expect(wrong).toEqual([]);
  }, 300_000);

  it('two large writes at once each land in their own file, byte for byte', async () => {
    const [one, two] = await Promise.all([fx.connect(), fx.connect()]);
    const a = 'A'.repeat(20_000);
    const b = 'B'.repeat(20_000);
    const [wa, wb] = await Promise.all([
      call(one?.client as Client, 'file_write', { path: '/a.txt', content: a, overwrite: true }),
      call(two?.client as Client, 'file_write', { path: '/b.txt', content: b, overwrite: true }),
    ]);
    expect(wa.isError || wb.isError).toBeFalsy();
    const [ra, rb] = await Promise.all([
      call(one?.client as Client, 'file_read', { path: '/a.txt', max_bytes: 30_000 }),
      call(two?.client as Client, 'file_read', { path: '/b.txt', max_bytes: 30_000 }),
    ]);
    expect(ra.structuredContent?.content).toBe(a);
    expect(rb.structuredContent?.content).toBe(b);
  }, 120_000);

  it('a measurement while another caller wires: both succeed, 20 of 20', async () => {
    const [measurer, wirer] = await Promise.all([fx.connect(), fx.connect()]);
    await call(measurer?.client as Client, 'dac_set', { channel: 'DAC1', volts: 2 });
    await call(measurer?.client as Client, 'connect', { pairs: [['DAC1', 30]] });
    const failures: string[] = [];
    for (let i = 0; i < 20; i++) {
      const [measured, wired] = await Promise.all([
        call(measurer?.client as Client, 'voltage_measure', { node: 30 }),
        call(wirer?.client as Client, i % 2 ? 'disconnect' : 'connect', { pairs: [[50, 51]] }),
      ]);
      if (measured.isError) failures.push(`measure: ${JSON.stringify(measured.content)}`);
      if (wired.isError) failures.push(`wire: ${JSON.stringify(wired.content)}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
