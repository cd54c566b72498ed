/**
 * One board, several jumperless-mcp processes, as users run them: two stdio servers (the real CLI,
 * driven by the SDK client) on one pseudo-terminal to the virtual board. The first opens the port
 * and the second works through it (checked in /proc: one process has the pty open); both get
 * right results at once; killing the owner hands the board to the other within 2 s, replacing the
 * socket the killed one left; and faults on the link reach clients as retryable errors only.
 */

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimBoard } from '../../src/sim/index.js';
import { PTY_MISSING } from '../support/ptyAvailable.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

type Result = { structuredContent?: Record<string, unknown>; isError?: boolean; content?: unknown };
interface Server {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
}

let sim: SimBoard;
let dir: string;
let pty: string;
const servers: Server[] = [];

async function startServer(name: string): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI, '--device', pty],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', XDG_RUNTIME_DIR: dir },
    stderr: 'pipe',
  });
  const client = new Client({ name, version: '0' });
  await client.connect(transport);
  const server = { client, transport, pid: transport.pid as number };
  servers.push(server);
  return server;
}

async function call(server: Server, name: string, args: Record<string, unknown> = {}): Promise<Result> {
  return (await server.client.callTool({ name, arguments: args }, { timeout: 60_000 })) as Result;
}

async function ok<T = Record<string, unknown>>(
  server: Server,
  name: string,
  args: Record<string, unknown> = {},
) {
  const result = await call(server, name, args);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** Whether a process has the pty open, from its file descriptors. */
function holdsPty(pid: number): boolean {
  // Resolved each time: an unplug and replug of the virtual board makes a new pty behind the link.
  const ptyTarget = realpathSync(pty);
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === ptyTarget;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

async function health(
  server: Server,
): Promise<{ sharing?: { role: string; owner: { pid: number }; clients: Array<{ pid: number }> } }> {
  const read = await server.client.readResource({ uri: 'jumperless://board/health' });
  const first = read.contents[0] as { text: string };
  return JSON.parse(first.text);
}

beforeAll(async () => {
  sim = await SimBoard.start();
  dir = mkdtempSync(join(tmpdir(), 'jl-share-e2e-'));
  if (!PTY_MISSING) pty = (await sim.servePty(dir)).repl;
}, 60_000);

afterAll(async () => {
  for (const server of servers) await server.client.close().catch(() => undefined);
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(PTY_MISSING)('two jumperless-mcp processes on one board', () => {
  let first: Server;
  let second: Server;

  it('opens the port once: the first process holds it, the second works through it', async () => {
    first = await startServer('first');
    await ok(first, 'nodes_clear');
    await ok(first, 'connect', { pairs: [[3, 4]] });
    second = await startServer('second');
    const seenByFirst = await ok<{ count: number }>(first, 'bridges_list');
    expect(await ok(second, 'bridges_list')).toEqual(seenByFirst);
    expect(holdsPty(first.pid)).toBe(true);
    expect(holdsPty(second.pid)).toBe(false);
    const seen = await health(second);
    expect(seen.sharing).toMatchObject({ role: 'client', owner: { pid: first.pid } });
    expect(seen.sharing?.clients.map((c) => c.pid)).toContain(second.pid);
    expect((await health(first)).sharing?.role).toBe('owner');
  }, 60_000);

  it('gives both processes right results when they work at once, each on its own rows', async () => {
    const work = async (server: Server, row: number) => {
      const wrong: string[] = [];
      for (let i = 0; i < 15; i++) {
        const made = await ok<{ added: number }>(server, 'connect', { pairs: [[row, row + 1]] });
        if (made.added !== 1) wrong.push(`connect ${row}: ${JSON.stringify(made)}`);
        const gone = await ok<{ removed: Array<{ node1: string; node2: string }> }>(server, 'disconnect', {
          pairs: [[row, row + 1]],
        });
        const removed = gone.removed.map((b) => `${b.node1}-${b.node2}`);
        if (removed.join() !== `${row}-${row + 1}`) wrong.push(`disconnect ${row}: ${removed.join()}`);
      }
      return wrong;
    };
    const wrong = (
      await Promise.all([work(first, 10), work(second, 40), work(first, 20), work(second, 50)])
    ).flat();
    expect(wrong).toEqual([]);
  }, 120_000);

  it('hands the board over within 2 s when the owner is killed, replacing its stale socket', async () => {
    process.kill(first.pid, 'SIGKILL');
    const killed = Date.now();
    let tookMs: number | undefined;
    const failures: Result[] = [];
    while (Date.now() - killed < 10_000) {
      const result = await call(second, 'bridges_list');
      if (!result.isError) {
        tookMs = Date.now() - killed;
        break;
      }
      failures.push(result);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(tookMs).toBeDefined();
    expect(tookMs).toBeLessThan(2000);
    // A call caught in the handover fails as the link's fault, to be retried, never as the caller's.
    for (const failure of failures) {
      const body = JSON.parse((failure.content as Array<{ text: string }>)[0]?.text ?? '{}');
      expect(body.retryable, JSON.stringify(body)).toBe(true);
    }
    expect(holdsPty(second.pid)).toBe(true);
    expect((await health(second)).sharing?.role).toBe('owner');
    // A newcomer finds the new owner at the same socket.
    const third = await startServer('third');
    expect(await ok(third, 'bridges_list')).toEqual(await ok(second, 'bridges_list'));
    expect(holdsPty(third.pid)).toBe(false);
  }, 60_000);

  it('passes faults on the link (garbage, hang, unplug, reboot) to clients as retryable errors, then recovers', async () => {
    const third = servers[2] as Server;
    const faults: Array<[string, () => Promise<void> | void, () => Promise<void> | void]> = [
      ['garbage', () => sim.faults.garbage('repl'), () => undefined],
      ['hang', () => sim.faults.hang(true), () => sim.faults.hang(false)],
      ['unplug', () => sim.faults.unplug(), () => sim.faults.replug()],
      ['reboot', () => sim.faults.reboot(), () => undefined],
    ];
    for (const [name, inject, lift] of faults) {
      const during = [call(third, 'bridges_list'), call(second, 'power_get')];
      await inject();
      await new Promise((r) => setTimeout(r, 300));
      await lift();
      for (const result of await Promise.all(during)) {
        if (!result.isError) continue;
        const body = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}');
        expect(body.retryable, `${name}: ${JSON.stringify(body)}`).toBe(true);
      }
      // Back to normal on both processes.
      let back = false;
      for (let i = 0; i < 100 && !back; i++) {
        const [a, b] = await Promise.all([call(third, 'bridges_list'), call(second, 'bridges_list')]);
        back = !a.isError && !b.isError;
        if (!back) await new Promise((r) => setTimeout(r, 100));
      }
      expect(back, name).toBe(true);
    }
  }, 120_000);
});

describe.skipIf(PTY_MISSING)('jumperless-mcp serve --daemon', () => {
  it('starts a detached owner that the MCP servers started later work through', async () => {
    for (const server of servers.splice(0)) {
      await server.client.close().catch(() => undefined);
      for (let i = 0; i < 100 && existsSync(`/proc/${server.pid}`); i++)
        await new Promise((r) => setTimeout(r, 50));
    }
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', XDG_RUNTIME_DIR: dir };
    // Not spawnSync: the virtual board runs in this process and must keep answering meanwhile.
    const daemon = () =>
      promisify(execFile)(process.execPath, [...CLI, 'serve', '--daemon', '--device', pty], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
    const run = await daemon();
    const pid = Number(/process (\d+) holds/.exec(run.stdout)?.[1]);
    expect(pid).toBeGreaterThan(0);
    try {
      expect(holdsPty(pid)).toBe(true);
      const server = await startServer('after-daemon');
      await ok(server, 'bridges_list');
      expect(holdsPty(server.pid)).toBe(false);
      expect((await health(server)).sharing?.owner.pid).toBe(pid);
      // A second --daemon finds the first and leaves it be.
      expect((await daemon()).stdout).toMatch(/already served/);
      // A one-shot command works through the owner and prints only its own output.
      const exec = await promisify(execFile)(
        process.execPath,
        [...CLI, 'exec', '--device', pty, 'print(6 * 7)'],
        {
          cwd: ROOT,
          env,
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(exec).toMatchObject({ stdout: '42\n', stderr: '' });
    } finally {
      process.kill(pid, 'SIGTERM');
    }
  }, 120_000);
});
