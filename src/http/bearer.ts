/**
 * The bearer gate (DESIGN.md §4 gate order and Trust; dispatch notes §3.1 and §4). It runs after
 * the body has been read (size and type gates) and before JSON is parsed, for every method.
 *
 *   no Authorization, bearer required      -> 401 / -32002, WWW-Authenticate: Bearer
 *   no Authorization, anonymous allowed    -> the anonymous set ∩ the operator allow-list
 *   `Bearer ` with nothing, other schemes  -> 400 / -32002 (the broker is never asked)
 *   a bearer, no broker                    -> 501 / -32002
 *   unknown / expired / revoked            -> 401 / -32002, each its own error_description
 *   broker lookup failed (transient)       -> 503 / -32002, Retry-After: 5
 *   broker not configured                  -> 501 / -32002
 *   broker bug                             -> 500 / -32002
 *   valid                                  -> the token's set ∩ the operator allow-list
 *
 * A bearer that is present is always checked, whether or not one is required. Raw tokens never
 * reach a log or a reply; logs name a token by `tokenFingerprint`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type BearerOutcome, checkBearer, type TokenBroker, tokenFingerprint } from '../auth/index.js';
import { ANONYMOUS_CAPABILITIES, CAPABILITIES, intersectCapabilities } from '../core/capabilities.js';
import type { PresentedLease } from '../core/toolDefinition.js';
import { type Rejection, reject } from './rejection.js';

/** JSON-RPC code of every bearer refusal; the HTTP status and headers tell the classes apart. */
export const UNAUTHORIZED = -32002;
/** Seconds a client should wait after a 503 from the token store. */
export const RETRY_AFTER_SECONDS = 5;

export interface BearerGateOptions {
  /** Resolves bearers. Without one, a request that sends a bearer gets 501. */
  broker?: TokenBroker;
  /** Refuse requests without a bearer (401). Default false. */
  requireBearer?: boolean;
  /** The operator allow-list: nobody gets more than this. Default every capability. */
  allowList?: readonly string[];
  /** What a caller without a bearer gets (then ∩ allowList). Default all but exec and admin. */
  anonymous?: readonly string[];
  /** Operator log for broker failures. Default stderr. */
  log?: (line: string) => void;
}

/** Who sent one request, decided per request (no session keeps a grant). */
export interface HttpCaller {
  /** The broker's caller id (`token:tok_1a2b`), undefined for an anonymous caller. */
  id: string | undefined;
  /** Sorted. */
  capabilities: string[];
  /** The bearer as sent, kept in memory only to re-check a long-lived stream. */
  bearer?: string;
  expiresAt?: Date;
  /** What the broker vouches for about the caller (`labgrid_place`), from its token. */
  claims?: Readonly<Record<string, string>>;
  /** The outside lease this request presents (http/outsideLease.ts). */
  outsideLease?: PresentedLease;
  /** The token's name, if the operator gave it one. */
  name?: string;
}

export type AuthResult = { ok: true; caller: HttpCaller } | { ok: false; rejection: Rejection };

export type AuthorizationHeader =
  | { kind: 'none' }
  | { kind: 'empty' }
  | { kind: 'other_scheme' }
  | { kind: 'bearer'; token: string };

/** RFC 6750 §2.1: `Bearer <token>`, scheme case-insensitive. */
export function parseAuthorization(header: string | undefined): AuthorizationHeader {
  if (header === undefined) return { kind: 'none' };
  const text = header.trim();
  const space = text.search(/\s/);
  const scheme = space < 0 ? text : text.slice(0, space);
  if (scheme === '') return { kind: 'empty' };
  if (scheme.toLowerCase() !== 'bearer') return { kind: 'other_scheme' };
  const token = space < 0 ? '' : text.slice(space).trim();
  return token === '' ? { kind: 'empty' } : { kind: 'bearer', token };
}

export async function authenticate(
  headers: IncomingHttpHeaders,
  options: BearerGateOptions,
): Promise<AuthResult> {
  const allowList = options.allowList ?? CAPABILITIES;
  const header = parseAuthorization(headers.authorization);
  switch (header.kind) {
    case 'none':
      if (options.requireBearer) {
        return refuse(401, 'Unauthorized: this server needs a bearer token (Authorization: Bearer <token>)', {
          'www-authenticate': 'Bearer',
        });
      }
      return { ok: true, caller: { id: undefined, capabilities: anonymousSet(options, allowList) } };
    case 'empty':
      return refuse(400, 'Bad Request: the bearer token is empty', {
        'www-authenticate': 'Bearer error="invalid_request", error_description="empty bearer"',
      });
    case 'other_scheme':
      return refuse(400, 'Bad Request: only Bearer authorization is accepted', {
        'www-authenticate': 'Bearer error="invalid_request", error_description="not a bearer"',
      });
    case 'bearer':
      break;
  }
  const { token } = header;
  if (!options.broker) {
    return refuse(
      501,
      'Not Implemented: this server takes no bearer tokens (it was started without a token store)',
    );
  }
  const outcome = await checkBearer(options.broker, token);
  if (outcome.kind === 'ok') {
    const caller: HttpCaller = {
      id: outcome.identity.callerId,
      capabilities: intersectCapabilities(outcome.identity.capabilities, allowList).granted,
      bearer: token,
    };
    if (outcome.identity.expiresAt) caller.expiresAt = outcome.identity.expiresAt;
    if (outcome.identity.claims) caller.claims = outcome.identity.claims;
    if (outcome.identity.name) caller.name = outcome.identity.name;
    return { ok: true, caller };
  }
  return { ok: false, rejection: rejectionOf(outcome, token, options.log ?? logToStderr) };
}

/** The refusal for every outcome but `ok`. Broker messages go to the operator log, not the caller. */
export function rejectionOf(
  outcome: Exclude<BearerOutcome, { kind: 'ok' }>,
  token: string,
  log: (line: string) => void,
): Rejection {
  const invalid = (description: string) => ({
    'www-authenticate': `Bearer error="invalid_token", error_description="${description}"`,
  });
  switch (outcome.kind) {
    case 'unknown':
      return reject(401, UNAUTHORIZED, 'Unauthorized: the bearer token is not known', invalid('unknown'));
    case 'expired':
      return reject(
        401,
        UNAUTHORIZED,
        `Unauthorized: the bearer token expired${outcome.detail ? ` (${outcome.detail})` : ''}; ask the operator for a new one`,
        invalid('expired'),
      );
    case 'revoked':
      return reject(
        401,
        UNAUTHORIZED,
        `Unauthorized: the bearer token was revoked (reason: ${outcome.detail ?? 'none given'})`,
        invalid('revoked'),
      );
    case 'lookup_failed':
      log(`bearer ${tokenFingerprint(token)}: ${outcome.message}`);
      return reject(
        503,
        UNAUTHORIZED,
        'Service Unavailable: the token store cannot be read right now; retry',
        {
          'retry-after': String(RETRY_AFTER_SECONDS),
        },
      );
    case 'not_configured':
      return reject(501, UNAUTHORIZED, 'Not Implemented: the token broker does not accept bearer tokens');
    case 'internal':
      log(`bearer ${tokenFingerprint(token)}: ${outcome.message}`);
      return reject(500, UNAUTHORIZED, 'Internal error: the token check failed');
  }
}

function refuse(status: number, message: string, headers?: Record<string, string>): AuthResult {
  return { ok: false, rejection: reject(status, UNAUTHORIZED, message, headers) };
}

function logToStderr(line: string): void {
  process.stderr.write(`jumperless-mcp: http: ${line}\n`);
}

/** What an anonymous caller gets under these options, worked out once per options object (a server's). */
const anonymousSets = new WeakMap<object, string[]>();
function anonymousSet(options: BearerGateOptions, allowList: readonly string[]): string[] {
  let set = anonymousSets.get(options);
  if (!set) {
    set = intersectCapabilities(options.anonymous ?? ANONYMOUS_CAPABILITIES, allowList).granted;
    anonymousSets.set(options, set);
  }
  return [...set];
}
