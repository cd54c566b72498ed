/**
 * Host check for a server bound to loopback: a browser tricked by DNS rebinding sends the
 * attacker's host name, which no loopback name matches. 403 / -32001, like the Origin check.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type Rejection, reject } from './rejection.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

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

/** HTTP/1.1 requires a Host (RFC 9112 §3.2); without one: 400 / -32600, in JSON. */
export function checkHostPresent(headers: IncomingHttpHeaders): Rejection | undefined {
  if (headers.host !== undefined) return undefined;
  return reject(400, -32600, 'Bad Request: the request has no Host header');
}
