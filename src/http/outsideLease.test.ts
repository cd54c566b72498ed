import { describe, expect, it } from 'vitest';
import { presentedLease } from './outsideLease.js';

const caller = {
  id: 'token:tok_1',
  capabilities: ['jumperless.read'],
  claims: { labgrid_place: 'jumperless-3' },
  expiresAt: new Date('2026-12-06T09:00:00.000Z'),
};
const request = (headers: Record<string, string>, remoteAddress: string) =>
  ({ headers, socket: { remoteAddress } }) as never;

describe('the outside lease a request presents', () => {
  it("reads a claim of the caller's token, with the token's expiry as the lease's end", () => {
    expect(presentedLease({ from: 'claim', name: 'labgrid_place' }, caller, request({}, '10.0.0.5'))).toEqual(
      {
        ok: true,
        lease: { key: 'labgrid_place', name: 'jumperless-3', until: '2026-12-06T09:00:00.000Z' },
      },
    );
    // A token without that claim presents nothing, and a header never stands in for a claim.
    const plain = { id: 'token:tok_2', capabilities: [] };
    expect(
      presentedLease({ from: 'claim', name: 'labgrid_place' }, plain, request({ labgrid_place: 'x' }, '::1')),
    ).toEqual({ ok: true });
  });

  it('reads a header from this machine only: one from the network is refused in words, not ignored', () => {
    const source = { from: 'header', name: 'X-Jumpstarter-Lease' } as const;
    const headers = { 'x-jumpstarter-lease': 'bench-3/0197a1b2' };
    for (const local of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect(presentedLease(source, { id: undefined, capabilities: [] }, request(headers, local))).toEqual({
        ok: true,
        lease: { key: 'X-Jumpstarter-Lease', name: 'bench-3', lease: '0197a1b2' },
      });
    }
    for (const remote of ['10.0.3.7', '::ffff:10.0.3.7', '2001:db8::1']) {
      const outcome = presentedLease(source, caller, request(headers, remote));
      expect(outcome.ok).toBe(false);
      if (outcome.ok) continue;
      expect(outcome.rejection.status).toBe(403);
      expect(outcome.rejection.message).toMatch(/only from a proxy on its own machine/);
    }
    // Without the header, a request from anywhere is an ordinary one.
    expect(presentedLease(source, caller, request({}, '10.0.3.7'))).toEqual({ ok: true });
  });

  it('takes a value that names no lease (sent twice, empty, spaces) as no lease', () => {
    const source = { from: 'header', name: 'X-Lease' } as const;
    for (const value of ['a, b', '', ' ', 'a/', '/b', 'x'.repeat(301)]) {
      expect(presentedLease(source, caller, request({ 'x-lease': value }, '127.0.0.1'))).toEqual({
        ok: true,
      });
    }
  });
});
