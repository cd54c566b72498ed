import { describe, expect, it } from 'vitest';
import { BoardLeases, leaseHolder, leaseRefusal } from './boardLeases.js';
import type { DeviceError } from './errors.js';

/** A lease desk on a clock the test moves. */
function desk() {
  let now = Date.parse('2026-12-06T04:00:00.000Z');
  const leases = new BoardLeases(() => now);
  return { leases, advance: (ms: number) => (now += ms) };
}

function refused(work: () => unknown): DeviceError {
  try {
    work();
  } catch (error) {
    return error as DeviceError;
  }
  throw new Error('expected a refusal');
}

describe('a board lease', () => {
  it('is taken for a bounded time, renewed, released, and refuses others meanwhile with who and until when', () => {
    const { leases, advance } = desk();
    expect(leases.apply({ action: 'status' })).toEqual({});
    const taken = leases.apply({ action: 'take', holder: 'http:tok_a', ttlMs: 60_000, note: 'night run' });
    expect(taken.lease).toEqual({
      holder: 'http:tok_a',
      since: '2026-12-06T04:00:00.000Z',
      until: '2026-12-06T04:01:00.000Z',
      note: 'night run',
    });
    // Another caller: its changes are refused, naming the holder and the end; taking it is refused too.
    const refusal = leaseRefusal(
      taken.lease,
      'http:tok_b',
      undefined,
      Date.parse('2026-12-06T04:00:10.000Z'),
    );
    expect(refusal).toMatchObject({
      code: 'busy',
      retryable: false,
      details: {
        leasedTo: 'http:tok_a',
        until: '2026-12-06T04:01:00.000Z',
        note: 'night run',
        minutes_left: 1,
      },
    });
    // How long that is from now, in words too (issue 20: only an absolute time was given).
    expect(refusal?.message).toContain('until 2026-12-06T04:01:00.000Z (about 1 minute from now)');
    expect(
      leaseRefusal(taken.lease, 'http:tok_b', undefined, Date.parse('2026-12-06T04:00:50.000Z'))?.message,
    ).toContain('(under a minute from now)');
    expect(refusal?.message).toContain('reads still work');
    expect(leaseRefusal(taken.lease, 'http:tok_a')).toBeUndefined();
    const stolen = refused(() => leases.apply({ action: 'take', holder: 'http:tok_b', ttlMs: 60_000 }));
    expect(stolen).toMatchObject({ code: 'busy', details: { leasedTo: 'http:tok_a' } });
    expect(refused(() => leases.apply({ action: 'release', holder: 'http:tok_b' }))).toMatchObject({
      code: 'busy',
    });
    // Renewed from now, keeping when it began and what it is for.
    advance(50_000);
    expect(leases.apply({ action: 'take', holder: 'http:tok_a', ttlMs: 60_000 }).lease).toMatchObject({
      since: '2026-12-06T04:00:00.000Z',
      until: '2026-12-06T04:01:50.000Z',
      note: 'night run',
    });
    expect(leases.apply({ action: 'release', holder: 'http:tok_a' })).toEqual({});
    expect(leases.apply({ action: 'take', holder: 'http:tok_b', ttlMs: 1000 }).lease?.holder).toBe(
      'http:tok_b',
    );
  });

  it('runs out by itself: a holder that went away holds the board no longer than it asked', () => {
    const { leases, advance } = desk();
    leases.apply({ action: 'take', holder: 'http:tok_a', ttlMs: 10_000 });
    advance(9_999);
    expect(leases.apply({ action: 'status' }).lease?.holder).toBe('http:tok_a');
    advance(1);
    expect(leases.apply({ action: 'status' })).toEqual({});
    expect(leases.apply({ action: 'take', holder: 'http:tok_b', ttlMs: 10_000 }).lease?.holder).toBe(
      'http:tok_b',
    );
  });

  it('keeps a take within 1 s and 24 h, and tells stdio callers of two processes apart', () => {
    const { leases } = desk();
    expect(leases.apply({ action: 'take', holder: 'a', ttlMs: 1 }).lease?.until).toBe(
      '2026-12-06T04:00:01.000Z',
    );
    expect(leases.apply({ action: 'take', holder: 'a', ttlMs: 1e12 }).lease?.until).toBe(
      '2026-12-07T04:00:00.000Z',
    );
    expect(leaseHolder('stdio')).toBe(`stdio:${process.pid}`);
    expect(leaseHolder('http:tok_a')).toBe('http:tok_a');
  });
});

describe('an outside lease', () => {
  const place = { key: 'labgrid_place', name: 'jumperless-3', until: '2026-12-06T05:00:00.000Z' };
  const jump = (lease: string) => ({ key: 'jumpstarter_lease', name: 'bench-3', lease });

  it('holds the board under its name until the end its source gave, and takes it from an in-house lease', () => {
    const { leases, advance } = desk();
    leases.apply({ action: 'take', holder: 'http:tok_a', ttlMs: 3_600_000 });
    const { lease } = leases.apply({ action: 'outside', outside: place });
    expect(lease).toEqual({
      holder: 'labgrid_place=jumperless-3',
      since: '2026-12-06T04:00:00.000Z',
      until: '2026-12-06T05:00:00.000Z',
      note: 'an outside lease',
    });
    expect(leaseRefusal(lease, 'http:tok_a')?.message).toContain(
      'leased to labgrid_place=jumperless-3 (an outside lease) until 2026-12-06T05:00:00.000Z',
    );
    expect(leaseRefusal(lease, 'http:tok_a', 'labgrid_place=jumperless-3')).toBeUndefined();
    // Its holder's next call keeps when it began; at its end the board is free.
    advance(30 * 60_000);
    expect(leases.apply({ action: 'outside', outside: place }).lease?.since).toBe('2026-12-06T04:00:00.000Z');
    advance(30 * 60_000);
    expect(leases.apply({ action: 'status' })).toEqual({});
  });

  it("whose end is not known holds for 10 minutes after its holder's last call", () => {
    const { leases, advance } = desk();
    leases.apply({ action: 'outside', outside: jump('a') });
    advance(9 * 60_000);
    expect(leases.apply({ action: 'outside', outside: jump('a') }).lease?.until).toBe(
      '2026-12-06T04:19:00.000Z',
    );
    advance(10 * 60_000);
    expect(leases.apply({ action: 'status' })).toEqual({});
  });

  it('is ended by a newer lease of its name, and is never honoured again', () => {
    const { leases, advance } = desk();
    leases.apply({ action: 'outside', outside: jump('a') });
    expect(leases.apply({ action: 'outside', outside: jump('b') }).lease?.holder).toBe(
      'jumpstarter_lease=bench-3/b',
    );
    const late = refused(() => leases.apply({ action: 'outside', outside: jump('a') }));
    expect(late).toMatchObject({
      code: 'busy',
      details: { leasedTo: 'jumpstarter_lease=bench-3/b', ended: 'jumpstarter_lease=bench-3/a' },
    });
    // Even once nobody holds the board.
    advance(11 * 60_000);
    expect(refused(() => leases.apply({ action: 'outside', outside: jump('a') }))).toMatchObject({
      details: { leasedTo: null, ended: 'jumpstarter_lease=bench-3/a' },
    });
    expect(leases.apply({ action: 'outside', outside: jump('c') }).lease?.holder).toBe(
      'jumpstarter_lease=bench-3/c',
    );
  });
});
