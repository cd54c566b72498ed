/**
 * An advisory lock file beside the token store, so a `tokens create` in one process and a
 * `tokens revoke` in another never lose each other's write. Readers never lock: writes are
 * atomic renames, so a reader always sees one whole version.
 */

import { open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FileLockOptions {
  /** Give up after this long; default 10 s. */
  timeoutMs?: number;
  /** A lock this old is taken to be left over from a crash; default 30 s. */
  staleMs?: number;
}

/** The lock stayed taken for the whole timeout. */
export class FileLockTimeoutError extends Error {
  override readonly name = 'FileLockTimeoutError';
}

export async function withFileLock<T>(
  lockPath: string,
  run: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const giveUpAt = Date.now() + timeoutMs;
  let delayMs = 2;
  for (;;) {
    const owner = `${process.pid}\n${hostname()}\n${Date.now()}\n`;
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(owner);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const staleOwner = await staleLockOwner(lockPath, staleMs);
    if (staleOwner !== undefined) {
      // Re-read just before removing so a waiter that lost the race for the stale lock does not
      // delete the fresh lock the winner has just made (the window left is microseconds).
      const now = await readFile(lockPath, 'utf8').catch(() => undefined);
      if (now === staleOwner) await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (Date.now() >= giveUpAt) {
      throw new FileLockTimeoutError(
        `${lockPath} has been held by another process for over ${timeoutMs} ms; if no jumperless-mcp is running, delete it`,
      );
    }
    // Jitter keeps a crowd of waiters from retrying in lockstep.
    await sleep(delayMs + Math.random() * delayMs);
    delayMs = Math.min(delayMs * 2, 50);
  }
  try {
    return await run();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}

/** The lock's contents when it is held by a dead process on this host or older than `staleMs`. */
async function staleLockOwner(lockPath: string, staleMs: number): Promise<string | undefined> {
  try {
    const [text, info] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)]);
    const [pid, host] = text.split('\n');
    const deadOwner = host === hostname() && pid !== undefined && /^\d+$/.test(pid) && !isAlive(Number(pid));
    return deadOwner || Date.now() - info.mtimeMs > staleMs ? text : undefined;
  } catch {
    // Released between our open and this read: not stale, just try again.
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
