/**
 * Long-lived SSE streams (a 2025 session's GET stream, a 2026-07-28 subscriptions/listen) keep
 * their bearer honest (dispatch notes §4 "Long-lived streams"): the token is checked again at its
 * expiry and at least every `recheckMs` (60 s by default). When it
 * is expired, revoked or unknown, the stream gets one `auth_lost` event saying why and is closed;
 * the client reconnects with a fresh token and meets the ordinary gate. A token store that is
 * briefly unreadable is tolerated for one period, then counts as lost too. Calls already running
 * are never cut: only the stream ends.
 */
import type { ServerResponse } from 'node:http';
import { type BearerOutcome, checkBearer, type TokenBroker } from '../auth/index.js';
import { RETRY_AFTER_SECONDS, rejectionOf } from './bearer.js';

export const DEFAULT_RECHECK_MS = 60_000;
/** The SSE event that ends a stream whose token stopped being valid. */
export const AUTH_LOST_EVENT = 'auth_lost';

export interface StreamWatch {
  broker: TokenBroker;
  token: string;
  expiresAt?: Date;
  /** Longest time between two checks. Default 60 s. */
  recheckMs?: number;
  /** Closes the stream once the event is written (the SDK transport's own close). */
  end(): void;
  log(line: string): void;
}

/** Starts watching; the returned function stops (call it when the response closes). */
export function watchStream(res: ServerResponse, watch: StreamWatch): () => void {
  const recheckMs = watch.recheckMs ?? DEFAULT_RECHECK_MS;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let lastGood = Date.now();
  let expiresAt = watch.expiresAt;

  const schedule = (delay: number) => {
    const untilExpiry = expiresAt ? Math.max(0, expiresAt.getTime() - Date.now()) : Number.POSITIVE_INFINITY;
    timer = setTimeout(() => void check(), Math.min(delay, untilExpiry));
  };

  const check = async () => {
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      lose({ kind: 'expired', detail: `expired at ${expiresAt.toISOString()}` });
      return;
    }
    const outcome = await checkBearer(watch.broker, watch.token);
    if (stopped) return;
    if (outcome.kind === 'ok') {
      lastGood = Date.now();
      expiresAt = outcome.identity.expiresAt;
      schedule(recheckMs);
    } else if (outcome.kind === 'lookup_failed' && Date.now() - lastGood < recheckMs) {
      schedule(Math.min(RETRY_AFTER_SECONDS * 1000, recheckMs));
    } else {
      lose(outcome);
    }
  };

  const lose = (outcome: Exclude<BearerOutcome, { kind: 'ok' }>) => {
    if (stopped) return;
    stopped = true;
    const { status, message } = rejectionOf(outcome, watch.token, watch.log);
    if (res.headersSent && !res.writableEnded) {
      res.write(
        `event: ${AUTH_LOST_EVENT}\ndata: ${JSON.stringify({ reason: outcome.kind, status, message })}\n\n`,
      );
    }
    watch.end();
    // The transport ends the response when its stream closes; make sure it does.
    setTimeout(() => {
      if (!res.writableFinished) res.destroy();
    }, 1000).unref();
  };

  schedule(recheckMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
