/**
 * Carries the bearer gate's decision to dispatch: the HTTP layer sets it on the request as the
 * SDK's `AuthInfo` (which the transport hands to every handler as `extra.authInfo`), and the
 * server turns it back into the dispatch `Caller`. Capabilities are decided per request, so a
 * session opened by one token grants nothing to a request made with another.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { CAPABILITIES, type Capability } from '../core/capabilities.js';
import type { Caller } from '../core/runTool.js';
import type { PresentedLease } from '../core/toolDefinition.js';
import type { HttpCaller } from './bearer.js';

const KNOWN = new Set<string>(CAPABILITIES);

/**
 * What the SDK passes along. `token` names the token (its caller id), never the bearer itself:
 * handlers and logs downstream must not be able to leak it.
 */
export function authInfoOf(caller: HttpCaller, connection?: string): AuthInfo {
  return {
    token: caller.id ?? '',
    clientId: caller.id ?? 'anonymous',
    scopes: caller.capabilities,
    ...(caller.expiresAt ? { expiresAt: Math.floor(caller.expiresAt.getTime() / 1000) } : {}),
    extra: {
      anonymous: caller.id === undefined,
      ...(connection ? { connection } : {}),
      ...(caller.outsideLease ? { outsideLease: caller.outsideLease } : {}),
      ...(caller.name ? { name: caller.name } : {}),
    },
  };
}

export function attachCaller(req: IncomingMessage, caller: HttpCaller): void {
  (req as IncomingMessage & { auth?: AuthInfo }).auth = authInfoOf(caller, connectionKey(req.socket));
}

const connections = new WeakMap<Socket, string>();
let connectionCount = 0;

/**
 * A key per TCP connection, for anonymous 2026-07-28 requests: they have no session, and taken as
 * one caller they shared a single place in the board's round-robin between every such client
 * (issue 23: 1/13 to 1/21 of a session's turns each). A client keeps its connection open between
 * requests, so this tells clients apart as a session does; one that opens more connections gets
 * more turns, as one that opens more sessions does.
 */
function connectionKey(socket: Socket | null | undefined): string | undefined {
  if (!socket) return undefined;
  let key = connections.get(socket);
  if (!key) {
    key = `conn-${++connectionCount}`;
    connections.set(socket, key);
  }
  return key;
}

/**
 * The dispatch caller of one MCP request over HTTP: `http:token:tok_1a2b` for a bearer (one
 * caller per token, in both eras), `http:<session>` for an anonymous 2025 caller and
 * `http:conn-<n>` for an anonymous 2026-07-28 one (its connection; its hazard questions are all
 * anonymous 2026-07-28 callers'). A request that did not pass the gate gets nothing.
 */
export function httpCaller(sessionId: string | undefined, auth: AuthInfo | undefined): Caller {
  if (!auth) return { id: `http:${sessionId ?? 'stateless'}`, granted: new Set() };
  const granted = new Set(auth.scopes.filter((name): name is Capability => KNOWN.has(name)));
  // Set only by attachCaller, from the operator's source: never from the request's JSON.
  const outside = auth.extra?.outsideLease as PresentedLease | undefined;
  const lease = outside ? { outsideLease: outside } : {};
  const name = typeof auth.extra?.name === 'string' ? { name: auth.extra.name } : {};
  if (auth.extra?.anonymous !== true)
    return { id: `http:${auth.clientId}`, granted, principal: auth.clientId, ...lease, ...name };
  const connection = typeof auth.extra.connection === 'string' ? auth.extra.connection : 'stateless';
  if (sessionId) return { id: `http:${sessionId}`, granted, ...lease };
  // One client's requests come over several connections: its hazard questions are every anonymous
  // 2026-07-28 caller's (a token tells clients apart).
  return { id: `http:${connection}`, granted, answersAs: 'http:anonymous', ...lease };
}
