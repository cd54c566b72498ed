/**
 * Where a board's owner listens: a socket whose name comes from the board's identity (its serial
 * path with symlinks resolved, or its TCP address), next to the native socket's default, so every
 * jumperless-mcp of this user finds the same owner for the same board.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defaultSocketPath } from '../socketPath.js';

/** The identity of a serial port: /dev/serial/by-id/... and /dev/ttyACM0 are one board. */
export function serialIdentity(path: string): string {
  try {
    return `serial:${realpathSync(path)}`;
  } catch {
    return `serial:${path}`;
  }
}

export function boardSocketPath(identity: string, env: NodeJS.ProcessEnv = process.env): string {
  const digest = createHash('sha256').update(identity).digest('hex').slice(0, 16);
  return join(dirname(defaultSocketPath(env)), `jumperless-board-${digest}.sock`);
}
