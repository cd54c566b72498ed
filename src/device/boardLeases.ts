/**
 * A caller's lease on a board (issue 26): held for a bounded time, renewed, released, or expired.
 * While one caller holds it, every other caller's calls that change the board are refused with who
 * holds it and until when; calls that only read still work. Not a turn (turns.ts: one call's jobs
 * with no other caller's in between): a lease spans many calls and minutes.
 *
 * Leases live where the board's port is held (the owner process, share/owner.ts), so any process
 * that works through it, a gateway replica among them, sees the same lease, and the death of one
 * of them neither drops the lease nor keeps it past its time. An owner that stops forgets them:
 * leases are bounded, and a holder renews.
 */
import { DeviceError } from './errors.js';

export interface BoardLease {
  /** Who holds it: a caller id (`http:tok_1a2b`, `stdio:1234`), or an outside lease's name. */
  holder: string;
  since: string;
  until: string;
  /** What the holder said it is for, shown to those refused. */
  note?: string;
}

export type BoardLeaseRequest =
  /** By its holder: renews it from now, keeping when it began and its note. */
  | { action: 'take'; holder: string; ttlMs: number; note?: string }
  | { action: 'release'; holder: string }
  | { action: 'status' };

/** The lease in force once the request was applied (none: the board is free). */
export interface BoardLeaseAnswer {
  lease?: BoardLease;
}

/** How long one take or renew may hold the board. */
export const LEASE_TTL_MS = { min: 1000, max: 24 * 3600 * 1000 } as const;

/**
 * The holder name of a caller. A stdio caller is `stdio` in every process, and several processes
 * reach one board through its owner, so the process id tells them apart.
 */
export function leaseHolder(caller: string): string {
  return caller === 'stdio' ? `stdio:${process.pid}` : caller;
}

/** One board's lease, kept by the process that holds the board. */
export class BoardLeases {
  private held: { holder: string; since: number; until: number; note?: string } | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Applies a request; throws `busy` (with the holder and until when) when another holds the board. */
  apply(request: BoardLeaseRequest): BoardLeaseAnswer {
    const held = this.current();
    if (request.action === 'status') return this.answer();
    if (held && held.holder !== request.holder) {
      throw leasedError(this.view(held), 'only its holder can renew or release it; take it once it ends');
    }
    const now = this.now();
    switch (request.action) {
      case 'take': {
        const ttl = Math.min(LEASE_TTL_MS.max, Math.max(LEASE_TTL_MS.min, Math.round(request.ttlMs)));
        const note = request.note ?? held?.note;
        this.held = {
          holder: request.holder,
          since: held?.since ?? now,
          until: now + ttl,
          ...(note ? { note } : {}),
        };
        return this.answer();
      }
      case 'release':
        this.held = undefined;
        return {};
    }
  }

  private current() {
    if (this.held && this.held.until <= this.now()) this.held = undefined;
    return this.held;
  }

  private answer(): BoardLeaseAnswer {
    const held = this.current();
    return held ? { lease: this.view(held) } : {};
  }

  private view(held: NonNullable<BoardLeases['held']>): BoardLease {
    return {
      holder: held.holder,
      since: new Date(held.since).toISOString(),
      until: new Date(held.until).toISOString(),
      ...(held.note ? { note: held.note } : {}),
    };
  }
}

/** Why `caller` may not change the board under `lease` (the one in force), or undefined when it may. */
export function leaseRefusal(lease: BoardLease | undefined, caller: string): DeviceError | undefined {
  if (!lease || lease.holder === leaseHolder(caller)) return undefined;
  return leasedError(
    lease,
    'calls that change the board are refused to other callers until then; reads still work',
  );
}

/** Who holds the board, until when, and what that means for the one refused. */
function leasedError(lease: BoardLease, what: string): DeviceError {
  const note = lease.note ? ` (${lease.note})` : '';
  return new DeviceError(
    'busy',
    `the board is leased to ${lease.holder}${note} until ${lease.until}; ${what}`,
    { leasedTo: lease.holder, until: lease.until, ...(lease.note ? { note: lease.note } : {}) },
  );
}
