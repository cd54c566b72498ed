/**
 * Test support: an in-memory TokenBroker for tests of the transports: tokens added by hand, revocable, with
 * an injectable clock and a hook that makes the next lookups fail like a broken store.
 */

import type { BearerIdentity, BearerResolution, BrokerError, TokenBroker } from '../../src/auth/broker.js';
import { hashToken, sameHash } from '../../src/auth/token.js';
import { normalizeCapabilities } from '../../src/core/capabilities.js';

interface Entry {
  hash: Buffer;
  identity: BearerIdentity;
  revokedReason?: string;
}

export interface MemoryBrokerOptions {
  /** Milliseconds since the epoch; defaults to Date.now. */
  now?: () => number;
  formats?: readonly string[];
}

export class MemoryTokenBroker implements TokenBroker {
  private readonly entries: Entry[] = [];
  private failure: BrokerError | Error | undefined;
  private readonly now: () => number;
  private readonly formats: readonly string[];
  /** How many times resolveBearer ran: lets tests check that a gate did (not) reach the broker. */
  calls = 0;

  constructor(options: MemoryBrokerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.formats = options.formats ?? ['opaque'];
  }

  add(token: string, identity: BearerIdentity): void {
    this.entries.push({
      hash: hashToken(token),
      identity: { ...identity, capabilities: normalizeCapabilities(identity.capabilities) },
    });
  }

  revoke(token: string, reason: string): boolean {
    const entry = this.find(token);
    if (entry) entry.revokedReason = reason;
    return entry !== undefined;
  }

  /** Every later lookup throws this until `failWith(undefined)`. */
  failWith(error: BrokerError | Error | undefined): void {
    this.failure = error;
  }

  async resolveBearer(token: string): Promise<BearerResolution> {
    this.calls += 1;
    if (this.failure) throw this.failure;
    const entry = this.find(token);
    if (!entry) return { ok: false, reason: 'unknown' };
    if (entry.revokedReason !== undefined)
      return { ok: false, reason: 'revoked', detail: entry.revokedReason };
    const { expiresAt } = entry.identity;
    if (expiresAt && expiresAt.getTime() <= this.now()) {
      return { ok: false, reason: 'expired', detail: `expired at ${expiresAt.toISOString()}` };
    }
    return { ok: true, identity: entry.identity };
  }

  acceptedTokenFormats(): readonly string[] {
    return this.formats;
  }

  private find(token: string): Entry | undefined {
    const hash = hashToken(token);
    let found: Entry | undefined;
    // No early exit: every entry is compared so the time taken does not say which one matched.
    for (const entry of this.entries) if (sameHash(entry.hash, hash)) found = entry;
    return found;
  }
}
