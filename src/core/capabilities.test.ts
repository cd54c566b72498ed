import { describe, expect, it } from 'vitest';
import {
  ANONYMOUS_CAPABILITIES,
  CAPABILITIES,
  intersectCapabilities,
  parseCapabilityList,
} from './capabilities.js';

describe('capabilities', () => {
  it('gives anonymous callers everything but exec and admin', () => {
    expect(ANONYMOUS_CAPABILITIES).toEqual([
      'jumperless.files',
      'jumperless.io',
      'jumperless.power',
      'jumperless.read',
      'jumperless.wire',
    ]);
  });

  it('parses a comma list into a sorted set', () => {
    expect(parseCapabilityList(' jumperless.wire, jumperless.read,jumperless.wire ,')).toEqual({
      ok: true,
      capabilities: ['jumperless.read', 'jumperless.wire'],
    });
    expect(parseCapabilityList('*')).toEqual({ ok: true, capabilities: [...CAPABILITIES].sort() });
  });

  it('refuses unknown names and empty lists with the known names in the message', () => {
    const typo = parseCapabilityList('jumperless.read,jumperless.wrie');
    expect(typo.ok).toBe(false);
    if (!typo.ok)
      expect(typo.message).toMatch(/unknown capability jumperless\.wrie \(known: jumperless\.read/);
    expect(parseCapabilityList(' , ')).toEqual({ ok: false, message: 'no capabilities given' });
    expect(parseCapabilityList('*,jumperless.read').ok).toBe(false);
  });

  it('intersects into sorted granted and missing lists', () => {
    expect(
      intersectCapabilities(
        ['jumperless.wire', 'jumperless.exec', 'jumperless.read', 'jumperless.exec'],
        ['jumperless.read', 'jumperless.power', 'jumperless.wire'],
      ),
    ).toEqual({ granted: ['jumperless.read', 'jumperless.wire'], missing: ['jumperless.exec'] });
    expect(intersectCapabilities([], ['jumperless.read'])).toEqual({ granted: [], missing: [] });
  });
});
