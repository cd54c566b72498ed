/**
 * The outside lease an HTTP request presents, read where the operator said (core/outsideLease.ts):
 * a claim of its bearer token, or a header. A header names a lease only when it comes from this
 * machine (the proxy that set it): from anywhere else it is refused, since anyone who reaches the
 * port can write one, and ignoring it would leave its sender believing it held a board.
 */
import type { IncomingMessage } from 'node:http';
import { type OutsideLeaseSource, outsideLeaseOf } from '../core/outsideLease.js';
import type { PresentedLease } from '../core/toolDefinition.js';
import type { HttpCaller } from './bearer.js';
import { UNAUTHORIZED } from './bearer.js';
import { type Rejection, reject } from './rejection.js';

export type PresentedOutcome = { ok: true; lease?: PresentedLease } | { ok: false; rejection: Rejection };

export function presentedLease(
  source: OutsideLeaseSource | undefined,
  caller: HttpCaller,
  req: Pick<IncomingMessage, 'headers' | 'socket'>,
): PresentedOutcome {
  if (!source) return { ok: true };
  const value =
    source.from === 'claim' ? caller.claims?.[source.name] : req.headers[source.name.toLowerCase()];
  if (value === undefined) return { ok: true };
  if (source.from === 'header' && !fromThisMachine(req.socket.remoteAddress)) {
    return {
      ok: false,
      rejection: reject(
        403,
        UNAUTHORIZED,
        `Forbidden: this server reads the ${source.name} header (an outside lease) only from a proxy on its own machine; send the request through it, without the header`,
      ),
    };
  }
  // A header sent twice arrives joined with ", " and names no lease: the caller is an ordinary one.
  const lease = typeof value === 'string' ? outsideLeaseOf(value, source.name, caller.expiresAt) : undefined;
  return lease ? { ok: true, lease } : { ok: true };
}

function fromThisMachine(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(address);
}
