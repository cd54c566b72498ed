/**
 * A progress token is echoed in every progress notification of its call, so its size multiplies
 * by the number of them: a 3.9 MB token on a 101-point sweep once made 394 MB of output. The real
 * CLI over stdio (`--sim`), both eras, raw JSON-RPC: an oversized token is refused with -32602
 * before the call runs, and a token of the allowed size is still echoed as sent.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', 'src/cli/main.ts', '--sim'];
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'e2e', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const SWEEP = { supply: 'DAC1', node: 1, start_volts: 0, stop_volts: 1, points: 101 };

interface Wire {
  child: ChildProcess;
  /** Bytes written to stdout so far. */
  bytes(): number;
  send(message: unknown): void;
  /** The answer to request `id`, and the progress notifications seen before it. */
  answer(id: string): Promise<{ message: Record<string, unknown>; progress: Array<Record<string, unknown>> }>;
}

function wire(): Wire {
  const child = spawn(process.execPath, CLI, { cwd: ROOT, env: ENV, stdio: ['pipe', 'pipe', 'ignore'] });
  let total = 0;
  let buffer = '';
  const messages: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    total += chunk.length;
    buffer += chunk.toString();
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.length < 1_000_000) messages.push(JSON.parse(line));
      else messages.push({ oversized: line.length });
    }
    for (const w of waiters.splice(0)) w();
  });
  return {
    child,
    bytes: () => total,
    send: (message) => child.stdin?.write(`${JSON.stringify(message)}\n`),
    answer: (id) =>
      new Promise((done) => {
        const look = () => {
          const index = messages.findIndex((m) => m.id === id);
          if (index < 0) {
            waiters.push(look);
            return;
          }
          const progress = messages
            .slice(0, index)
            .filter((m) => m.method === 'notifications/progress')
            .map((m) => m.params as Record<string, unknown>);
          done({ message: messages[index] as Record<string, unknown>, progress });
        };
        look();
      }),
  };
}

describe.each(['2025-11-25', '2026-07-28'] as const)('a progress token over stdio, era %s', (era) => {
  let w: Wire;
  const modern = era === '2026-07-28';
  const meta = (token: string) => (modern ? { ...ENVELOPE, progressToken: token } : { progressToken: token });

  beforeAll(async () => {
    w = wire();
    if (modern) {
      w.send({ jsonrpc: '2.0', id: 'init', method: 'server/discover', params: { _meta: ENVELOPE } });
    } else {
      w.send({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: era, capabilities: {}, clientInfo: { name: 'e2e', version: '0' } },
      });
      w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }
    await w.answer('init');
  }, 60_000);
  afterAll(() => {
    w?.child.kill();
  });

  it('refuses a 3.9 MB token with -32602 before the sweep runs, in a few hundred bytes', async () => {
    const before = w.bytes();
    w.send({
      jsonrpc: '2.0',
      id: 'huge',
      method: 'tools/call',
      params: { name: 'voltage_sweep', arguments: SWEEP, _meta: meta('x'.repeat(3_900_000)) },
    });
    const { message, progress } = await w.answer('huge');
    expect(progress).toEqual([]);
    expect(message.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/progressToken.*at most 256/),
    });
    expect(w.bytes() - before).toBeLessThan(2000);
  }, 60_000);

  it('echoes a token of 256 characters in every notification of a 101-point sweep', async () => {
    const token = 't'.repeat(256);
    w.send({
      jsonrpc: '2.0',
      id: 'fits',
      method: 'tools/call',
      params: { name: 'voltage_sweep', arguments: SWEEP, _meta: meta(token) },
    });
    const { message, progress } = await w.answer('fits');
    expect(message.error).toBeUndefined();
    expect(progress.length).toBeGreaterThan(10);
    for (const p of progress) expect(p.progressToken).toBe(token);
  }, 120_000);
});
