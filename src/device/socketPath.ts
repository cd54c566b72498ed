/**
 * Where a private Unix socket lives (the native socket, a board's share socket) and making that
 * place safe to listen on: the user's runtime dir, else a private 0700 folder under the temp dir
 * (a bare /tmp path could be taken or swapped by another user). A socket left by a crashed server
 * is replaced; a live one or any other file is never touched. Listening makes it 0600 at once.
 */
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
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
  if (folder === privateTempDir()) ensurePrivateFolder(folder);
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new SocketPathError(`cannot check ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!info.isSocket())
    throw new SocketPathError(`${path} exists and is not a socket; refusing to replace it`);
  const probe = await probeSocket(path);
  if (probe === 'listening') {
    throw new SocketPathError(
      `another server is already listening on ${path}; stop it or choose another --socket`,
    );
  }
  if (probe !== 'stale') throw new SocketPathError(`cannot check whether ${path} is in use (${probe})`);
  unlinkSync(path);
}

function ensurePrivateFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const info = lstatSync(folder);
  const uid = process.getuid?.();
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o077) !== 0) {
    throw new SocketPathError(
      `${folder} is not a private folder of this user (owner, type or mode is wrong); remove it or pass --socket`,
    );
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
