/**
 * Carries the bearer gate's decision to dispatch: the HTTP layer sets it on the request as the
 * SDK's `AuthInfo` (which the transport hands to every handler as `extra.authInfo`), and the
 * server turns it back into the dispatch `Caller`. Capabilities are decided per request, so a
 * session opened by one token grants nothing to a request made with another.
 */
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { CAPABILITIES, type Capability } from '../core/capabilities.js';
import type { Caller } from '../core/runTool.js';
import type { HttpCaller } from './bearer.js';

const KNOWN = new Set<string>(CAPABILITIES);

/**
 * What the SDK passes along. `token` names the token (its caller id), never the bearer itself:
 * handlers and logs downstream must not be able to leak it.
 */
export function authInfoOf(caller: HttpCaller): AuthInfo {
  return {
    token: caller.id ?? '',
    clientId: caller.id ?? 'anonymous',
    scopes: caller.capabilities,
    ...(caller.expiresAt ? { expiresAt: Math.floor(caller.expiresAt.getTime() / 1000) } : {}),
    extra: { anonymous: caller.id === undefined },
  };
}

export function attachCaller(req: IncomingMessage, caller: HttpCaller): void {
  (req as IncomingMessage & { auth?: AuthInfo }).auth = authInfoOf(caller);
}

/**
 * The dispatch caller of one MCP request over HTTP: `http:token:tok_1a2b` for a bearer,
 * `http:<session>` for an anonymous caller (`http:stateless` without a session: 2026-07-28). A
 * request that did not pass the gate gets nothing.
 */
export function httpCaller(sessionId: string | undefined, auth: AuthInfo | undefined): Caller {
  if (!auth) return { id: `http:${sessionId ?? 'stateless'}`, granted: new Set() };
  const granted = new Set(auth.scopes.filter((name): name is Capability => KNOWN.has(name)));
  const anonymous = auth.extra?.anonymous === true;
  return { id: anonymous ? `http:${sessionId ?? 'stateless'}` : `http:${auth.clientId}`, granted };
}
