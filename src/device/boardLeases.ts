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
 *
 * An outside lease (a labgrid place, a Jumpstarter lease) is honoured the same way: a caller that
 * presents the one its board is bound to (core/outsideLease.ts reads it from a token's claim or a
 * header) holds the board under that lease's name until the lease's end, when the source says it,
 * and otherwise for OUTSIDE_RENEW_MS after its last call. It takes the board from an in-house lease
 * (the lab's engine decides who has the board), and a newer lease of the same name ends the one
 * before: its holder is refused from then on, even with a token that has not expired.
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

/** An outside lease as a caller presents it with a call. */
export interface OutsideLease {
  /** The claim's or header's name it was read from: `labgrid_place`, `X-Jumpstarter-Lease`. */
  key: string;
  /** The name a board is bound to: a labgrid place, a Jumpstarter exporter. */
  name: string;
  /** Which lease of that name (a Jumpstarter lease id): what the value carried after a `/`. */
  lease?: string;
  /** When it ends, when its source says (the token's expiry), as an ISO time. */
  until?: string;
}

/** The holder name an outside lease holds a board under: `labgrid_place=jumperless-3`. */
export function outsideHolder(outside: OutsideLease): string {
  return `${outside.key}=${outside.name}${outside.lease ? `/${outside.lease}` : ''}`;
}

export type BoardLeaseRequest =
  /** By its holder: renews it from now, keeping when it began and its note. */
  | { action: 'take'; holder: string; ttlMs: number; note?: string }
  | { action: 'release'; holder: string }
  | { action: 'status' }
  /** A call of an outside lease's holder: takes or renews the board under that lease's name. */
  | { action: 'outside'; outside: OutsideLease };

/** The lease in force once the request was applied (none: the board is free). */
export interface BoardLeaseAnswer {
  lease?: BoardLease;
}

/** How long one take or renew may hold the board. */
export const LEASE_TTL_MS = { min: 1000, max: 24 * 3600 * 1000 } as const;

/** How long an outside lease whose end is not known holds the board after its holder's last call. */
export const OUTSIDE_RENEW_MS = 10 * 60_000;

/** How many ended outside leases a board remembers, so that none of them is honoured again. */
const ENDED_KEPT = 64;

/**
 * The holder name of a caller. A stdio caller is `stdio` in every process, and several processes
 * reach one board through its owner, so the process id tells them apart.
 */
export function leaseHolder(caller: string): string {
  return caller === 'stdio' ? `stdio:${process.pid}` : caller;
}

/** One board's lease, kept by the process that holds the board. */
interface Held {
  holder: string;
  since: number;
  until: number;
  note?: string;
  /** Held for an outside lease: its name and which lease of it. */
  outside?: { name: string; lease?: string };
}

export class BoardLeases {
  private held: Held | undefined;
  /** Outside leases a newer one of the same name ended (`name/lease`), newest last. */
  private readonly ended: string[] = [];

  /** `now` reads the clock at each use, so a test's faked Date moves it. */
  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Applies a request; throws `busy` (with the holder and until when) when another holds the board. */
  apply(request: BoardLeaseRequest): BoardLeaseAnswer {
    const held = this.current();
    if (request.action === 'status') return this.answer();
    if (request.action === 'outside') return this.outside(request.outside, held);
    if (held && held.holder !== request.holder) {
      throw leasedError(
        this.view(held),
        'only its holder can renew or release it; take it once it ends',
        this.now(),
      );
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
          ...(held?.outside ? { outside: held.outside } : {}),
        };
        return this.answer();
      }
      case 'release':
        this.held = undefined;
        return {};
    }
  }

  private outside(outside: OutsideLease, held: Held | undefined): BoardLeaseAnswer {
    const holder = outsideHolder(outside);
    if (outside.lease && this.ended.includes(`${outside.name}/${outside.lease}`)) {
      const now = held ? this.view(held) : undefined;
      throw new DeviceError(
        'busy',
        `the outside lease ${holder} has ended: a newer lease of ${outside.name} took the board${now ? ` (now ${now.holder} until ${now.until})` : ''}; calls that change the board are refused to it, reads still work`,
        { leasedTo: now?.holder ?? null, ...(now ? { until: now.until } : {}), ended: holder },
      );
    }
    // A newer lease of the same name ends the one before.
    if (held?.outside?.name === outside.name && held.holder !== holder && held.outside.lease) {
      this.ended.push(`${held.outside.name}/${held.outside.lease}`);
      if (this.ended.length > ENDED_KEPT) this.ended.shift();
    }
    const now = this.now();
    const end = outside.until === undefined ? Number.NaN : Date.parse(outside.until);
    const known = Number.isFinite(end);
    this.held = {
      holder,
      since: held?.holder === holder ? held.since : now,
      until: known ? end : now + OUTSIDE_RENEW_MS,
      note: known ? 'an outside lease' : "an outside lease, its end not known: renewed by its holder's calls",
      outside: { name: outside.name, ...(outside.lease ? { lease: outside.lease } : {}) },
    };
    return this.answer();
  }

  private current() {
    if (this.held && this.held.until <= this.now()) this.held = undefined;
    return this.held;
  }

  private answer(): BoardLeaseAnswer {
    const held = this.current();
    return held ? { lease: this.view(held) } : {};
  }

  private view(held: Held): BoardLease {
    return {
      holder: held.holder,
      since: new Date(held.since).toISOString(),
      until: new Date(held.until).toISOString(),
      ...(held.note ? { note: held.note } : {}),
    };
  }
}

/**
 * Why `caller` may not change the board under `lease` (the one in force), or undefined when it may.
 * `holder`: the name the caller holds leases under, when not its own (an outside lease's).
 */
export function leaseRefusal(
  lease: BoardLease | undefined,
  caller: string,
  holder = leaseHolder(caller),
  now = Date.now(),
): DeviceError | undefined {
  if (!lease || lease.holder === holder) return undefined;
  return leasedError(
    lease,
    'calls that change the board are refused to other callers until then; reads still work',
    now,
  );
}

/**
 * Who holds the board, until when (also as minutes from now: a trial had to work out how long an
 * absolute time was, issue 20), and what that means for the one refused.
 */
function leasedError(lease: BoardLease, what: string, now: number): DeviceError {
  const note = lease.note ? ` (${lease.note})` : '';
  const minutes = Math.max(0, Math.round((Date.parse(lease.until) - now) / 60_000));
  const left =
    minutes === 0 ? 'under a minute from now' : `about ${minutes} minute${minutes === 1 ? '' : 's'} from now`;
  return new DeviceError(
    'busy',
    `the board is leased to ${lease.holder}${note} until ${lease.until} (${left}); ${what}`,
    {
      leasedTo: lease.holder,
      until: lease.until,
      minutes_left: minutes,
      ...(lease.note ? { note: lease.note } : {}),
    },
  );
}
