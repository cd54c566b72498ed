/**
 * `jumperless-mcp serve`: hold a board and serve it to every other jumperless-mcp of this user,
 * with no MCP transport of its own; `--daemon` starts that owner detached and returns once it
 * serves. MCP servers started later (stdio for each client, HTTP) find it and work through it.
 */
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { parseDeviceUrl } from '../device/deviceUrl.js';
import { boardSocketPath } from '../device/share/path.js';
import { identityOf, openServedBoard } from './board.js';

export interface OwnerOptions {
  device: string;
  daemon?: boolean;
}

export async function runOwner(options: OwnerOptions, out: NodeJS.WritableStream): Promise<number> {
  if (parseDeviceUrl(options.device).kind === 'sim') {
    out.write(
      'jumperless-mcp serve: a virtual board lives inside its process and is not shared; run `jumperless-mcp sim --pty DIR` and serve the pty it prints.\n',
    );
    return 2;
  }
  return options.daemon ? startDaemon(options.device, out) : holdBoard(options.device, out);
}

async function holdBoard(device: string, out: NodeJS.WritableStream): Promise<number> {
  const board = await openServedBoard(device, 'jumperless-mcp serve');
  await board.ready();
  const health = await board.client.health();
  const sharing = health.sharing;
  if (sharing?.role !== 'owner') {
    out.write(
      `jumperless-mcp serve: ${device} is already served by process ${sharing?.owner.pid} at ${sharing?.owner.socket}\n`,
    );
    await board.close();
    return 0;
  }
  out.write(`jumperless-mcp serve: process ${process.pid} holds ${device}; socket ${sharing.owner.socket}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await board.close();
  return 0;
}

/** Starts `serve` detached, its output in a log file, and waits until it serves (or says why not). */
async function startDaemon(device: string, out: NodeJS.WritableStream): Promise<number> {
  // The socket every server will look for, from the board's identity (nothing is opened here).
  const identity = await identityOf(device);
  if (identity === undefined) {
    out.write(`jumperless-mcp serve: no board found at ${device}\n`);
    return 1;
  }
  const socket = boardSocketPath(identity);
  if (await listening(socket)) {
    out.write(`jumperless-mcp serve: ${device} is already served at ${socket}\n`);
    return 0;
  }
  const log = socket.replace(/\.sock$/, '.log');
  const fd = openSync(log, 'a', 0o600);
  const from = fstatSync(fd).size;
  const child = spawn(
    process.execPath,
    [...process.execArgv, process.argv[1] as string, 'serve', '--device', device],
    {
      detached: true,
      stdio: ['ignore', fd, fd],
    },
  );
  closeSync(fd);
  let exited: number | null | undefined;
  child.once('exit', (code) => {
    exited = code;
  });
  child.unref();
  // Serving means the child itself says it holds the board (another process may have won the port).
  const said = () => readFileSync(log, 'utf8').slice(from);
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && exited === undefined) {
    if (said().includes(`process ${child.pid} holds`)) {
      out.write(`jumperless-mcp serve: process ${child.pid} holds ${device}; socket ${socket}; log ${log}\n`);
      return 0;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const tail = said().trim().split('\n').slice(-8).join('\n');
  if (exited === 0 && /already served/.test(tail)) {
    out.write(`${tail}\n`);
    return 0;
  }
  out.write(`jumperless-mcp serve: the owner did not start serving ${device} (log ${log}):\n${tail}\n`);
  if (exited === undefined) child.kill();
  return 1;
}

function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}
