import { describe, expect, it } from 'vitest';
import { leaseNameProblem, outsideLeaseOf, parseOutsideLeaseSource } from './outsideLease.js';

describe('where an outside lease is read', () => {
  it('is claim:<name> or header:<Name>, and anything else is refused naming the flag', () => {
    expect(parseOutsideLeaseSource('claim:labgrid_place', '--outside-lease')).toEqual({
      from: 'claim',
      name: 'labgrid_place',
    });
    expect(parseOutsideLeaseSource('header:X-Jumpstarter-Lease', 'x')).toEqual({
      from: 'header',
      name: 'X-Jumpstarter-Lease',
    });
    for (const bad of [
      'labgrid_place',
      'claim:',
      'claim:1x',
      'token:a',
      'header:Authorization',
      'header:Host',
      'header:a b',
    ]) {
      expect(() => parseOutsideLeaseSource(bad, '--outside-lease')).toThrow(
        /^--outside-lease: .* is not claim:<name> .* or header:<Name>/,
      );
    }
  });

  it('names a lease as the engine does: a place, or an exporter and one lease of it', () => {
    expect(outsideLeaseOf('jumperless-3', 'labgrid_place')).toEqual({
      key: 'labgrid_place',
      name: 'jumperless-3',
    });
    expect(outsideLeaseOf('bench-3/0197a1b2', 'k', new Date('2026-12-06T09:00:00Z'))).toEqual({
      key: 'k',
      name: 'bench-3',
      lease: '0197a1b2',
      until: '2026-12-06T09:00:00.000Z',
    });
    for (const none of ['', 'a b', 'a/', '/a', 'a\u0007']) expect(outsideLeaseOf(none, 'k')).toBeUndefined();
  });

  it("binds a board to a name without '/' or spaces", () => {
    expect(leaseNameProblem('jumperless-3')).toBeUndefined();
    for (const bad of ['', 'a/b', 'a b', 'x'.repeat(201)])
      expect(leaseNameProblem(bad)).toMatch(/not a lease name/);
  });
});
