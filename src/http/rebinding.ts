/**
 * Who may reach this server, from the request's Origin and Host headers: the defence against DNS
 * rebinding, where a web page makes the browser send requests to a name that now points at
 * loopback (MCP 2025-11-25 transports "Security Warning"; the SDK checks only Host).
 *
 * - Origin: none at all (curl, native clients), loopback origins on any port, `tauri://` apps and
 *   the configured origins exactly. Anything else: 403 / -32001.
 * - Host: HTTP/1.1 requires one (RFC 9112 §3.2; without it 400 / -32600, in JSON); a server bound to
 *   loopback takes only loopback names, since a rebinding browser sends the attacker's name (403).
 *
 * Loopback is decided on the parsed host name, not by string prefix, so that
 * `http://localhost.evil.example` is refused.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type Rejection, reject } from './rejection.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface SourceRules {
  /** Origins allowed besides loopback and tauri://, matched exactly. */
  origins?: readonly string[] | undefined;
  /** Refuse Host names that are not loopback (set when bound to loopback). Default true. */
  loopbackHostOnly?: boolean | undefined;
}

/** The Origin check, then the Host checks: the first refusal, or undefined when the request may go on. */
export function checkSource(headers: IncomingHttpHeaders, rules: SourceRules = {}): Rejection | undefined {
  return (
    checkOrigin(headers, rules.origins) ??
    checkHostPresent(headers) ??
    (rules.loopbackHostOnly === false ? undefined : checkLoopbackHost(headers))
  );
}

export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname);
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

/** The host name of a Host header, without the port (`[::1]:80` -> `[::1]`). */
export function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1).toLowerCase();
  return (host.split(':')[0] ?? '').toLowerCase();
}

export function checkLoopbackHost(headers: IncomingHttpHeaders): Rejection | undefined {
  const host = headers.host;
  if (host !== undefined && LOOPBACK_NAMES.has(hostName(host))) return undefined;
  return reject(403, -32001, `Forbidden: host ${host ?? '(none)'} is not this server`);
}

export function checkHostPresent(headers: IncomingHttpHeaders): Rejection | undefined {
  if (headers.host !== undefined) return undefined;
  return reject(400, -32600, 'Bad Request: the request has no Host header');
}
