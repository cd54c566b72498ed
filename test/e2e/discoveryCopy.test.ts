/**
 * Issue 22 item 6: newer MCP clients start a copy of a stdio server only to learn its protocol
 * version (TypeScript SDK issue 2514: spawn, `server/discover`, kill). Such a copy, and one that
 * only answers `initialize`, must not open, lock or take over the board: here, the real CLI on a
 * pseudo-terminal to the virtual board, with /proc telling which process has the pty open and the
 * board's health telling who works through its owner.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimBoard } from '../../src/sim/index.js';
import { PTY_MISSING } from '../support/ptyAvailable.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

let sim: SimBoard;
let dir: string;
let pty: string;
const clients: Client[] = [];
const copies: ChildProcess[] = [];

const env = () => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', XDG_RUNTIME_DIR: dir });

async function serve(name: string): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI, '--device', pty],
    cwd: ROOT,
    env: env(),
    stderr: 'ignore',
  });
  const client = new Client({ name, version: '0' });
  await client.connect(transport);
  clients.push(client);
  return { client, pid: transport.pid as number };
}

async function ok(client: Client, name: string): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: {} }, { timeout: 60_000 });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}

async function sharing(
  client: Client,
): Promise<{ role: string; owner: { pid: number }; clients: unknown[] }> {
  const read = await client.readResource({ uri: 'jumperless://board/health' });
  return JSON.parse((read.contents[0] as { text: string }).text).sharing;
}

/** Whether a process has the pty open, from its file descriptors. */
function holdsPty(pid: number): boolean {
  const target = realpathSync(pty);
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === target;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const DISCOVER = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 2,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '0' } },
};

/** A throwaway copy, as a client spawns one: sends `messages` and resolves once each has its answer. */
async function copyAnswering(
  messages: Array<{ id: number }>,
): Promise<{ child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [...CLI, '--device', pty], {
    cwd: ROOT,
    env: env(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  copies.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  for (const message of messages) child.stdin?.write(`${JSON.stringify(message)}\n`);
  const answered = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { id?: number }).id);
  await expect.poll(answered, { timeout: 30_000 }).toEqual(expect.arrayContaining(messages.map((m) => m.id)));
  return { child, stderr: () => err };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGKILL'); // as the client throws its copy away
  await exited;
}

beforeAll(async () => {
  sim = await SimBoard.start();
  dir = mkdtempSync(join(tmpdir(), 'jl-discovery-copy-'));
  if (!PTY_MISSING) pty = (await sim.servePty(dir)).repl;
}, 60_000);

afterAll(async () => {
  for (const copy of copies) await kill(copy);
  for (const client of clients) await client.close().catch(() => undefined);
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(PTY_MISSING)(
  'a copy started only to learn the protocol version (TypeScript SDK issue 2514)',
  () => {
    it("answers server/discover and initialize, then dies, and the serving process's board never knew", async () => {
      const serving = await serve('serving');
      await ok(serving.client, 'power_get'); // it holds the board from here
      expect(await sharing(serving.client)).toMatchObject({ role: 'owner', clients: [] });
      const copy = await copyAnswering([DISCOVER, INITIALIZE]);
      // Alive and answering, it has neither the pty nor a connection to the board's owner, for as
      // long as a client keeps such a copy (and longer).
      for (let i = 0; i < 10; i++) {
        expect(holdsPty(copy.child.pid as number)).toBe(false);
        expect((await sharing(serving.client)).clients).toEqual([]);
        await new Promise((done) => setTimeout(done, 200));
      }
      await kill(copy.child);
      expect(copy.stderr()).not.toMatch(/holding|working through/);
      expect(holdsPty(serving.pid)).toBe(true);
      expect(await ok(serving.client, 'power_get')).toHaveProperty('dac0_volts');
      expect(await sharing(serving.client)).toMatchObject({
        role: 'owner',
        owner: { pid: serving.pid },
        clients: [],
      });
    }, 90_000);

    it('started before any other, takes nothing: the process started after it and used holds the board', async () => {
      for (const client of clients.splice(0)) await client.close().catch(() => undefined);
      const copy = await copyAnswering([DISCOVER]);
      const later = await serve('later');
      await ok(later.client, 'power_get');
      expect(holdsPty(copy.child.pid as number)).toBe(false);
      expect(holdsPty(later.pid)).toBe(true);
      expect(await sharing(later.client)).toMatchObject({ role: 'owner', owner: { pid: later.pid } });
      await kill(copy.child);
      expect(await ok(later.client, 'power_get')).toHaveProperty('dac0_volts');
    }, 90_000);
  },
);
