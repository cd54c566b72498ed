/**
 * The TokenBroker contract (dispatch notes §4, DESIGN.md §4 Trust). A transport hands the raw
 * bearer string to `resolveBearer` and gets back who the caller is, or why not. The broker never
 * caches past `expiresAt` and never logs a raw token (use `tokenFingerprint`).
 *
 * Outcomes, and what the HTTP gate turns them into (dispatch notes §3.1):
 *   ok                        -> identity; capabilities are then intersected with the allow-list
 *   unknown / expired / revoked -> 401, each with its own WWW-Authenticate error description
 *   throws BrokerLookupError    -> 503 + Retry-After (transient: the store is briefly unreadable)
 *   throws BrokerNotConfiguredError -> 501
 *   throws BrokerInternalError, or anything else -> 500 (a bug)
 */

export interface BearerIdentity {
  /** Stable name for audit logs; the same shape as a socket `client_id`. */
  callerId: string;
  /** The token's own set, sorted; transports intersect it with the operator allow-list. */
  capabilities: readonly string[];
  /** Authoritative: nobody may keep using this identity after it (SSE streams re-check). */
  expiresAt?: Date;
  /** What the broker vouches for about the caller, by name (an outside lease: `labgrid_place`). */
  claims?: Readonly<Record<string, string>>;
  /** The name the operator gave the token (`tokens create --name`), shown to others it holds the board from. */
  name?: string;
}

export type BearerRejection = 'unknown' | 'expired' | 'revoked';

export type BearerResolution =
  | { ok: true; identity: BearerIdentity }
  /** `detail` is safe to show the caller: the revocation reason, the expiry time. Never the token. */
  | { ok: false; reason: BearerRejection; detail?: string };

export interface TokenBroker {
  /**
   * Resolves an opaque bearer. Malformed input is `unknown`, never an exception. Rejects only
   * with one of the Broker*Error classes below; anything else it throws counts as internal.
   */
  resolveBearer(token: string): Promise<BearerResolution>;
  /** A hint advertised in `initialize` under `capabilities.experimental`; nothing routes on it. */
  acceptedTokenFormats(): readonly string[];
}

/** Base of the three failure classes, so callers can switch on `kind`. */
export abstract class BrokerError extends Error {
  abstract readonly kind: 'lookup_failed' | 'internal' | 'not_configured';
}

/** Transient: the store could not be read right now (I/O error, corrupt file being fixed). */
export class BrokerLookupError extends BrokerError {
  readonly kind = 'lookup_failed' as const;
  override readonly name = 'BrokerLookupError';
}

/** A bug in the broker. */
export class BrokerInternalError extends BrokerError {
  readonly kind = 'internal' as const;
  override readonly name = 'BrokerInternalError';
}

/** This broker does not handle bearers (or no store was set up). */
export class BrokerNotConfiguredError extends BrokerError {
  readonly kind = 'not_configured' as const;
  override readonly name = 'BrokerNotConfiguredError';
}

/** Every outcome of one bearer check, as one union a transport can switch on exhaustively. */
export type BearerOutcome =
  | { kind: 'ok'; identity: BearerIdentity }
  | { kind: BearerRejection; detail?: string }
  | { kind: 'lookup_failed' | 'internal' | 'not_configured'; message: string };

/**
 * Calls the broker and folds its rejections into `BearerOutcome`, so a transport needs no
 * try/catch of its own. An unexpected throw becomes `internal` with a generic message: the
 * original may carry details that must not reach a remote caller.
 */
export async function checkBearer(broker: TokenBroker, token: string): Promise<BearerOutcome> {
  try {
    const resolution = await broker.resolveBearer(token);
    if (resolution.ok) return { kind: 'ok', identity: resolution.identity };
    return resolution.detail === undefined
      ? { kind: resolution.reason }
      : { kind: resolution.reason, detail: resolution.detail };
  } catch (error) {
    if (error instanceof BrokerError) return { kind: error.kind, message: error.message };
    return { kind: 'internal', message: 'token broker failed unexpectedly' };
  }
}
