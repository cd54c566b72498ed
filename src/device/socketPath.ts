/**
 * Where a private Unix socket lives (the native socket, a board's share socket) and whether that
 * place can be trusted: the user's runtime dir, else a private 0700 folder under the temp dir (a
 * bare /tmp path could be taken or swapped by another user). Whoever can write the folder can put a
 * socket there that poses as ours, so the folder (ours, written by nobody else) and the socket
 * (ours) are checked before a server listens and before a client connects, wherever they live. A
 * socket left by a crashed server is replaced; a live one or any other file is never touched.
 * Listening makes it 0600 at once.
 */
import { chmodSync, lstatSync, mkdirSync, type Stats, statSync, unlinkSync } from 'node:fs';
import { createConnection, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

const SOCKET_NAME = 'jumperless-mcp.sock';
/** sun_path is 108 bytes on Linux, NUL included. */
const MAX_PATH_BYTES = 107;

export function defaultSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime?.startsWith('/')) return join(runtime, SOCKET_NAME);
  return join(privateTempDir(), SOCKET_NAME);
}

function privateTempDir(): string {
  return join(tmpdir(), `jumperless-mcp-${process.getuid?.() ?? 'user'}`);
}

/** Refused before listening, with a message the operator can act on. */
export class SocketPathError extends Error {
  override readonly name = 'SocketPathError';
}

/** Checks the path, makes the private folder if it is ours to make, and clears a stale socket. */
export async function prepareSocketPath(path: string): Promise<void> {
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) {
    throw new SocketPathError(
      `socket path ${path} is longer than ${MAX_PATH_BYTES} bytes; choose a shorter --socket`,
    );
  }
  const folder = dirname(path);
  if (folder === privateTempDir()) mkdirSync(folder, { recursive: true, mode: 0o700 });
  checkSocketFolder(folder);
  let info: Stats;
  try {
    info = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new SocketPathError(`cannot check ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!info.isSocket())
    throw new SocketPathError(`${path} exists and is not a socket; refusing to replace it`);
  checkOwner(path, info, 'socket');
  const probe = await probeSocket(path);
  if (probe === 'listening') {
    throw new SocketPathError(
      `another server is already listening on ${path}; stop it or choose another --socket`,
    );
  }
  if (probe !== 'stale') throw new SocketPathError(`cannot check whether ${path} is in use (${probe})`);
  unlinkSync(path);
}

/**
 * Refuses a folder that another user owns or can write (a symlinked private temp folder too):
 * anyone who can write it can put a socket there that poses as ours. Not on Windows (no uids).
 */
export function checkSocketFolder(folder: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const info = folder === privateTempDir() ? lstatOrExplain(folder) : statOrExplain(folder);
  if (!info.isDirectory()) {
    throw new SocketPathError(
      `${folder} is not a folder (a link or a file stands there): another user may have put it there to pose as jumperless-mcp; remove it, or pass --socket / set XDG_RUNTIME_DIR to a folder only you can write`,
    );
  }
  checkOwner(folder, info, 'folder');
  if ((info.mode & 0o022) !== 0) {
    throw new SocketPathError(
      `${folder} can be written by other users (mode ${(info.mode & 0o777).toString(8).padStart(4, '0')}): any of them could put a socket there that poses as the board; run chmod go-w ${folder} if it is yours to keep, else remove it, or pass --socket / set XDG_RUNTIME_DIR to a folder only you can write`,
    );
  }
}

/**
 * Before connecting: the folder is trusted and the socket at `path` is ours. A path with nothing
 * there is left to connect() to say so (ENOENT: nobody serves it), as before.
 */
export function checkSocketToConnect(path: string): void {
  if (process.getuid?.() === undefined) return;
  let info: Stats;
  try {
    info = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new SocketPathError(`cannot check ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
  checkSocketFolder(dirname(path));
  if (!info.isSocket()) throw new SocketPathError(`${path} is not a socket; refusing to connect to it`);
  checkOwner(path, info, 'socket');
}

function checkOwner(path: string, info: Stats, what: 'folder' | 'socket'): void {
  const uid = process.getuid?.();
  if (uid === undefined || info.uid === uid) return;
  throw new SocketPathError(
    `${path} belongs to uid ${info.uid}, not to you (uid ${uid}): another user may have put this ${what} there to pose as jumperless-mcp, so it is not used. Remove it (as its owner or root), or pass --socket / set XDG_RUNTIME_DIR to a folder only you can write`,
  );
}

function lstatOrExplain(path: string): Stats {
  try {
    return lstatSync(path);
  } catch (error) {
    throw new SocketPathError(`cannot check ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
}

function statOrExplain(path: string): Stats {
  try {
    return statSync(path);
  } catch (error) {
    throw new SocketPathError(`cannot check ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
}

/** `stale` only when nothing answers (ECONNREFUSED); any other failure is reported, not guessed. */
function probeSocket(path: string): Promise<'listening' | 'stale' | string> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve('listening');
    });
    probe.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' ? 'stale' : (error.code ?? 'error')),
    );
  });
}

/**
 * Binds with umask 0177 so the socket is 0600 from its first instant (the bind happens inside
 * listen(), synchronously), then chmods as well for threads where umask cannot be set.
 */
export async function listenPrivately(server: Server, path: string): Promise<void> {
  const listening = new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const previous = isMainThread ? process.umask(0o177) : undefined;
  try {
    server.listen(path);
  } finally {
    if (previous !== undefined) process.umask(previous);
  }
  await listening;
  chmodSync(path, 0o600);
}
