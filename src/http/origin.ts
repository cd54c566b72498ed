/**
 * Origin check against DNS rebinding (MCP 2025-11-25 transports "Security Warning"; the SDK
 * checks only Host). Allowed: no Origin at all (curl, native clients), loopback origins on any
 * port, `tauri://` apps, and the configured origins exactly. Anything else: 403 / -32001.
 *
 * Loopback is decided on the parsed host name, not by string prefix, so that
 * `http://localhost.evil.example` is refused.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type Rejection, reject } from './rejection.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
}

export function originAllowed(origin: string | undefined, extra: readonly string[] = []): boolean {
  if (origin === undefined) return true;
  if (origin.startsWith('tauri://')) return true;
  return isLoopbackOrigin(origin) || extra.includes(origin);
}

export function checkOrigin(
  headers: IncomingHttpHeaders,
  extra: readonly string[] = [],
): Rejection | undefined {
  const origin = headers.origin;
  if (originAllowed(origin, extra)) return undefined;
  return reject(403, -32001, `Forbidden: origin ${origin} is not allowed`);
}
